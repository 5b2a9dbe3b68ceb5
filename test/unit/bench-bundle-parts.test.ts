/**
 * The bench's bundle parts (bench/lib/bundle-parts.mjs): a minified script's bytes given to their
 * sources through its source map. Checked against esbuild's own account of the same build (its
 * metafile's `bytesInOutput` per input), on a small bundle built here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { partShares, sourceRuns, templatePart } from '../../bench/lib/bundle-parts.mjs'

const dir = mkdtempSync(join(tmpdir(), 'bundle-parts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Two modules and an entry using both, minified into one script with its map and metafile. */
async function fixture() {
  const greet = [
    'export function greet(name) {',
    '  if (!name) throw new Error(\'greet: a name is needed, such as greet("Ada")\')',
    "  return 'Hello, ' + name",
    '}',
  ]
  writeFileSync(join(dir, 'greet.js'), greet.join('\n'))
  writeFileSync(
    join(dir, 'sum.js'),
    'export const sum = (values) => values.reduce((total, value) => total + value, 0)\nexport const unused = () => 42\n',
  )
  writeFileSync(
    join(dir, 'entry.js'),
    "import { greet } from './greet.js'\nimport { sum } from './sum.js'\nexport default { fetch: () => new Response(greet('edge') + sum([1, 2])) }\n",
  )
  const out = join(dir, 'out.js')
  const result = await build({
    entryPoints: [join(dir, 'entry.js')],
    bundle: true,
    minify: true,
    format: 'esm',
    sourcemap: 'external',
    metafile: true,
    outfile: out,
    logLevel: 'silent',
  })
  const inputs = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('out.js'))?.[1].inputs ?? {}
  const esbuildBytes = Object.fromEntries(Object.entries(inputs).map(([path, input]) => [basename(path), input.bytesInOutput]))
  return { code: readFileSync(out, 'utf8'), map: JSON.parse(readFileSync(`${out}.map`, 'utf8')), esbuildBytes }
}

describe('bundle parts', () => {
  it('cover the script with runs of one source each, as many bytes per module as esbuild counts', async () => {
    const { code, map, esbuildBytes } = await fixture()
    const runs = sourceRuns(code, map)
    expect(runs[0]?.start).toBe(0)
    for (let i = 1; i < runs.length; i++) expect(runs[i]?.start).toBe(runs[i - 1]?.end)
    expect(runs.at(-1)?.end).toBe(code.length)
    const bytesOf = (name: string) =>
      runs.filter((run) => basename(run.source) === name).reduce((sum, run) => sum + run.end - run.start, 0)
    // The entry also holds the script's closing `export {…}`: only the imported modules match exactly.
    expect(bytesOf('greet.js')).toBe(esbuildBytes['greet.js'])
    expect(bytesOf('sum.js')).toBe(esbuildBytes['sum.js'])
    expect(esbuildBytes['greet.js']).toBeGreaterThan(0)
  })

  it('give each part its bytes and what leaving it out saves in gzip', async () => {
    const { code, map } = await fixture()
    const { gzipBytes, rows } = partShares(code, sourceRuns(code, map), basename)
    expect(gzipBytes).toBe(gzipSync(code, { level: 6 }).length)
    expect(rows.map((row) => row.part).sort()).toEqual(['entry.js', 'greet.js', 'sum.js'])
    expect(rows.reduce((sum, row) => sum + row.bytes, 0)).toBe(Buffer.byteLength(code))
    const greet = rows.find((row) => row.part === 'greet.js')
    // greet's function as esbuild minifies it, found by its text (the part's runs not consulted).
    const withoutGreet = code.replace(
      /function \w+\(\w+\)\{if\(!\w+\)throw new Error\('greet: [^']*'\);return"Hello, "\+\w+\}/,
      '',
    )
    expect(withoutGreet.length).toBeLessThan(code.length)
    expect(greet?.gzipShare).toBe(gzipBytes - gzipSync(withoutGreet, { level: 6 }).length)
  })

  it('name a template’s parts: mcp-edge by its folders, packages by name, the template’s own files', () => {
    const source = '../../../../work/repo/packages/mcp-edge/dist/server/telemetry/otlp.js'
    expect(templatePart(source)).toBe('server/telemetry')
    expect(templatePart(source, 1)).toBe('server')
    expect(templatePart(source, 3)).toBe('server/telemetry/otlp.js')
    expect(templatePart('../../packages/mcp-edge/dist/http/auth.js')).toBe('http/auth.js')
    expect(templatePart('../../node_modules/hono/dist/utils/url.js')).toBe('hono')
    expect(templatePart('../../node_modules/@cloudflare/workers-oauth-provider/dist/index.js')).toBe(
      '@cloudflare/workers-oauth-provider',
    )
    expect(templatePart('../../../../work/repo/templates/minimal/src/index.ts')).toBe('template')
  })
})
