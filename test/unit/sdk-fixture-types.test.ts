/**
 * The SDK-style fixtures (test/fixture-sdk/*) are genuine SDK code, and mcp-edge/sdk's types take
 * them: each fixture's files are copied with every `from 'mcp-edge/sdk' // was: <original>` import
 * put back to its original specifier (`@modelcontextprotocol/sdk/...`, `@modelcontextprotocol/server`,
 * `agents/mcp`, `agents/mcp/server`) and typechecked against the real packages; then the fixture
 * is typechecked as written against the built mcp-edge (`npm run build` first). Both with
 * `skipLibCheck: false`, so the declarations of every package involved are checked too. Nothing
 * but the import lines differs between the two programs.
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { putBack } from '../support/sdk-fixtures.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const FIXTURES = join(ROOT, 'test/fixture-sdk')
const OUT = join(ROOT, 'node_modules/.cache/mcp-edge-sdk-fixture-types')
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')
/** tsc over the SDK's and agents' declarations, unskipped: seconds each, more on a loaded machine. */
const TSC_TIMEOUT_MS = 120_000
function tsc(project: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, '-p', project], { cwd: ROOT, encoding: 'utf8' })
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

const fixtures = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

describe('the SDK-style fixtures (test/fixture-sdk)', () => {
  it('are all here, and every mcp-edge/sdk import names its original', () => {
    expect(fixtures.sort()).toEqual([
      'agent',
      'agent-oauth',
      'bearer-auth',
      'conformance',
      'examples',
      'low-level',
      'v1-handler',
      'v2-default',
      'v2-factory',
    ])
    for (const fixture of fixtures) {
      for (const file of readdirSync(join(FIXTURES, fixture)).filter((name) => name.endsWith('.ts'))) {
        const source = readFileSync(join(FIXTURES, fixture, file), 'utf8')
        expect(() => putBack(source, file)).not.toThrow()
      }
    }
  })

  it('refuses an mcp-edge/sdk import that does not say what it replaced', () => {
    expect(() => putBack("import { McpServer } from 'mcp-edge/sdk'", 'x.ts')).toThrow(/x\.ts:1: no known/)
    expect(() => putBack("import { McpServer } from 'mcp-edge/sdk' // was: somewhere-else", 'x.ts')).toThrow(/no known/)
  })

  for (const fixture of fixtures) {
    it(
      `${fixture}: with its original imports, typechecks against the real SDK and agents`,
      () => {
        const dir = join(OUT, fixture)
        rmSync(dir, { recursive: true, force: true })
        mkdirSync(dir, { recursive: true })
        for (const file of readdirSync(join(FIXTURES, fixture))) {
          const from = join(FIXTURES, fixture, file)
          if (file.endsWith('.d.ts')) copyFileSync(from, join(dir, file))
          else if (file.endsWith('.ts')) writeFileSync(join(dir, file), putBack(readFileSync(from, 'utf8'), file))
        }
        const base = join(ROOT, 'tsconfig.base.json')
        const runtime = join(ROOT, 'types/workers-runtime.d.ts')
        const shims = join(FIXTURES, 'node-shims.d.ts')
        // As in users' projects (agents' templates): overriding members need no `override`; agents
        // names Symbol.dispose.
        const compilerOptions = { skipLibCheck: false, noImplicitOverride: false, lib: ['ES2023', 'ESNext.Disposable'] }
        const config = { extends: base, compilerOptions, include: ['*.ts', runtime, shims] }
        writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config))
        const { status, output } = tsc(join(dir, 'tsconfig.json'))
        expect(output).toBe('')
        expect(status).toBe(0)
      },
      TSC_TIMEOUT_MS,
    )

    it(
      `${fixture}: as written, typechecks against mcp-edge/sdk`,
      () => {
        const { status, output } = tsc(join(FIXTURES, fixture, 'tsconfig.json'))
        expect(output).toBe('')
        expect(status).toBe(0)
      },
      TSC_TIMEOUT_MS,
    )
  }
})
