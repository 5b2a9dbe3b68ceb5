/**
 * The bench's telemetry-off build of the demo (bench/lib/build.mjs `telemetryOffConfig`): the
 * floor targets are measured on it, so it must differ from the demo in its `telemetry:` line and
 * nothing else, and the configs must point at the copy. The bench's smoke run builds and serves it.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { telemetryOffConfig } from '../../bench/lib/build.mjs'

const ROOT = resolve(import.meta.dirname, '../..')
const made: string[] = []
afterAll(() => {
  for (const config of made) rmSync(dirname(dirname(config)), { recursive: true, force: true })
})

const mainOf = (config: string) => {
  const main = /"main": "([^"]*)"/.exec(readFileSync(config, 'utf8'))?.[1]
  expect(main, config).toBeDefined()
  return join(dirname(config), main as string)
}

describe('the demo with telemetry off', () => {
  it('is the demo with its telemetry line set to logs off, and nothing else changed', () => {
    const config = telemetryOffConfig('edge')
    made.push(config)
    const entry = mainOf(config)
    expect(entry).toBe(join(dirname(config), 'apps/demo/src/worker.ts'))
    const demo = readFileSync(join(ROOT, 'apps/demo/src/worker.ts'), 'utf8').split('\n')
    const copy = readFileSync(entry, 'utf8').split('\n')
    expect(copy.length).toBe(demo.length)
    const changed = demo.flatMap((line, i) => (line === copy[i] ? [] : [[line, copy[i]]]))
    expect(changed).toEqual([
      ['  telemetry: { tracer: otlpFromEnv, native: workersTracing() },', "  telemetry: { logs: 'off' },"],
    ])
    // The templates it imports from and its tsconfig are copied beside it, without installed
    // packages or wrangler state, and its packages are the repository's (mcp-edge: the built one).
    const copied = dirname(config)
    expect(existsSync(join(copied, 'templates/durable/src/tools.ts'))).toBe(true)
    expect(readFileSync(join(copied, 'apps/demo/tsconfig.json'), 'utf8')).toContain('../../tsconfig.base.json')
    expect(existsSync(join(copied, 'tsconfig.base.json'))).toBe(true)
    expect(
      readdirSync(join(copied, 'templates'), { recursive: true }).filter((path) =>
        /(^|\/)(node_modules|\.wrangler)$/.test(String(path)),
      ),
    ).toEqual([])
    expect(realpathSync(join(copied, 'node_modules'))).toBe(realpathSync(join(ROOT, 'node_modules')))
  })

  it('sits behind the in-isolate loop with the Durable Object classes the loop config binds', () => {
    const config = telemetryOffConfig('loop-edge')
    made.push(config)
    const entry = readFileSync(mainOf(config), 'utf8')
    expect(entry).toContain("import template from './apps/demo/src/worker.ts'")
    expect(entry).toContain('McpSessionLedger')
    expect(entry).toContain('export default withLoop(template)')
    expect(readFileSync(join(dirname(config), 'apps/demo/src/worker.ts'), 'utf8')).toContain("  telemetry: { logs: 'off' },")
  })
})
