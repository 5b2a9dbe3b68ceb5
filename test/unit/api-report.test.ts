/**
 * The public API report (tools/reference/api-report.mjs, a step of `npm test`): one report per
 * entry point of packages/mcp-edge, read from its `exports`; a missing, changed or orphaned report
 * fails the check and names the command that rewrites them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { compare, entryPoints } from '../../tools/reference/api-report.mjs'

const PACKAGE = resolve(import.meta.dirname, '../../packages/mcp-edge')
const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'))
const scratch = mkdtempSync(join(tmpdir(), 'mcp-edge-api-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('API report', () => {
  it('names one report per typed entry point of package.json', () => {
    expect(entryPoints(pkg)).toEqual({
      index: './dist/index.d.ts',
      client: './dist/client/index.d.ts',
      cloudflare: './dist/cloudflare/index.d.ts',
      oauth: './dist/oauth/index.d.ts',
    })
    expect(
      entryPoints({ exports: { '.': { types: './a.d.ts' }, './x/y': { types: './b.d.ts' }, './package.json': './p' } }),
    ).toEqual({
      index: './a.d.ts',
      'x-y': './b.d.ts',
    })
  })

  it('is current in this repository (npm run api after a change to the exports)', () => {
    expect(compare().problems).toEqual([])
  })

  it('fails for an entry point without a report, a changed one and an orphan; --update settles all three', () => {
    const out = join(scratch, 'api')
    cpSync(join(PACKAGE, 'api'), out, { recursive: true })
    rmSync(join(out, 'oauth.api.md'))
    writeFileSync(join(out, 'client.api.md'), 'stale')
    writeFileSync(join(out, 'gone.api.md'), 'an entry point removed')
    expect(compare({ out }).problems).toEqual([
      'the API of client changed (api/client.api.md)',
      'the entry point oauth (./dist/oauth/index.d.ts) has no API report yet',
      'api/gone.api.md reports an entry point that package.json no longer exports',
    ])
    compare({ out, update: true })
    expect(compare({ out }).problems).toEqual([])
    expect(readFileSync(join(out, 'client.api.md'), 'utf8')).toContain('export interface McpClientOptions {')
  })
})
