/**
 * The SDK-style fixtures (test/fixture-sdk/*) are genuine SDK code, and mcp-edge/sdk's types take
 * them: each fixture's files are copied with every `from 'mcp-edge/sdk' // was: <original>` import
 * put back to its original specifier (`@modelcontextprotocol/sdk/...`, `@modelcontextprotocol/server`,
 * `agents/mcp`, `agents/mcp/server`) and typechecked against the real packages; then the fixture
 * is typechecked as written against the built mcp-edge (`npm run build` first). Nothing but the
 * import lines differs between the two programs. The declarations of every package involved are
 * checked too (`skipLibCheck: false`): mcp-edge's in each fixture's program as written; the real
 * packages' once, in one program that imports every package the fixtures import with the same
 * options, since checking them was 90% of each original program's time (about 12 s each,
 * nine times over) and the same files each time.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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

/** A fixture's TypeScript sources with their original imports put back, by file name. */
function originalSources(fixture: string): [string, string][] {
  return readdirSync(join(FIXTURES, fixture))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => [file, putBack(readFileSync(join(FIXTURES, fixture, file), 'utf8'), file)])
}

/** A program under OUT/<name>: the files given, typechecked with the fixtures' options and the runtime's types. */
function originalProgram(name: string, files: [string, string][], skipLibCheck: boolean) {
  const dir = join(OUT, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [file, source] of files) writeFileSync(join(dir, file), source)
  const runtime = join(ROOT, 'types/workers-runtime.d.ts')
  const shims = join(FIXTURES, 'node-shims.d.ts')
  // As in users' projects (agents' templates): overriding members need no `override`; agents
  // names Symbol.dispose.
  const compilerOptions = { skipLibCheck, noImplicitOverride: false, lib: ['ES2023', 'ESNext.Disposable'] }
  const config = { extends: join(ROOT, 'tsconfig.base.json'), compilerOptions, include: ['*.ts', runtime, shims] }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config))
  return tsc(join(dir, 'tsconfig.json'))
}

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

  it(
    'the packages they import, declarations and all (skipLibCheck: false), typecheck with their options',
    () => {
      // Every package (and subpath) any fixture imports once its originals are put back.
      const specifiers = new Set(
        fixtures.flatMap((fixture) =>
          originalSources(fixture).flatMap(([, source]) =>
            [...source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([@a-z][\w@/.:-]*)['"]/g)].map(
              ([, specifier]) => specifier as string,
            ),
          ),
        ),
      )
      expect([...specifiers]).toEqual(expect.arrayContaining(['@modelcontextprotocol/sdk/server/mcp.js', 'agents/mcp']))
      const names = [...specifiers].map((_, index) => `m${index}`)
      const imports = [...specifiers].map((specifier, index) => `import type * as ${names[index]} from '${specifier}'\n`)
      const source = `${imports.join('')}export type { ${names.join(', ')} }\n`
      const { status, output } = originalProgram('packages', [['imports.ts', source]], false)
      expect(output).toBe('')
      expect(status).toBe(0)
    },
    TSC_TIMEOUT_MS,
  )

  for (const fixture of fixtures) {
    it(
      `${fixture}: with its original imports, typechecks against the real SDK and agents`,
      () => {
        // Their declarations are checked once, above; here, the fixture's code against them. With
        // skipLibCheck the fixture's own declarations (wrangler's Env) are skipped too, so each type
        // they name is named again in a module (`DurableObjectNamespace<import('./worker').MyMCP>`
        // checks that the class, extending the real McpAgent, is a Durable Object).
        const files: [string, string][] = readdirSync(join(FIXTURES, fixture))
          .filter((file) => file.endsWith('.d.ts'))
          .map((file) => [file, readFileSync(join(FIXTURES, fixture, file), 'utf8')])
        const named = files.flatMap(([, declarations]) =>
          [...declarations.matchAll(/^\s+\w+: (.+);$/gm)].map(([, type]) => type as string),
        )
        expect(named.length).toBeGreaterThan(0)
        const declared = named.map((type, index) => `export type Declared${index} = ${type}\n`).join('')
        const { status, output } = originalProgram(
          fixture,
          [...files, ['declared-types.ts', declared], ...originalSources(fixture)],
          true,
        )
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
