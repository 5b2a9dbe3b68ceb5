/**
 * Where a built script's bytes come from (bench/bundle-parts.mjs): every character of a minified
 * script given to the source file it came from, through the script's source map (version 3, as
 * esbuild and so wrangler write it), and the parts those sources make with their gzip shares.
 * The map's segments are read in script order; a segment holds the script from its own start to
 * the next one's, so the runs cover the whole script (bytes before the first segment, or a
 * segment without a source, are `(glue)`). For a source other than the entry this gives exactly
 * esbuild's `bytesInOutput` (test/unit/bench-bundle-parts.test.ts); the entry also gets the
 * bundle's closing `export {…}`.
 */
import { gzipSync } from 'node:zlib'

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** One segment's fields, from its base64 VLQ text. */
function fieldsOf(segment) {
  const fields = []
  let value = 0
  let shift = 0
  for (const char of segment) {
    const digit = BASE64.indexOf(char)
    value += (digit & 31) << shift
    if (digit & 32) shift += 5
    else {
      fields.push(value & 1 ? -(value >>> 1) : value >>> 1)
      value = 0
      shift = 0
    }
  }
  return fields
}

/** The map's segments as [offset in the script, source index or -1], in script order. */
function segments(code, mappings) {
  const lineStarts = [0]
  for (let i = code.indexOf('\n'); i >= 0; i = code.indexOf('\n', i + 1)) lineStarts.push(i + 1)
  const found = []
  let source = 0
  mappings.split(';').forEach((line, index) => {
    let column = 0
    for (const segment of line.split(',')) {
      if (segment === '') continue
      const fields = fieldsOf(segment)
      column += fields[0]
      if (fields.length > 1) source += fields[1]
      found.push([(lineStarts[index] ?? 0) + column, fields.length > 1 ? source : -1])
    }
  })
  return found.sort((a, b) => a[0] - b[0])
}

/**
 * The script as runs of one source each: `{ source, start, end }` (character offsets; `source`
 * is the map's source path, or `(glue)`), adjacent runs of a source merged. They cover the script.
 */
export function sourceRuns(code, map) {
  const runs = []
  const marks = segments(code, map.mappings)
  if (marks.length === 0 || marks[0][0] > 0) runs.push({ source: '(glue)', start: 0, end: marks[0]?.[0] ?? code.length })
  marks.forEach(([start, index], at) => {
    const end = at + 1 < marks.length ? marks[at + 1][0] : code.length
    const source = index >= 0 ? map.sources[index] : '(glue)'
    const last = runs.at(-1)
    if (last && last.source === source && last.end === start) last.end = end
    else runs.push({ source, start, end })
  })
  return runs
}

const gzip = (text) => gzipSync(text, { level: 6 }).length

/**
 * Each part's bytes (UTF-8) in the script and its gzip share (zlib level 6): the script's gzip
 * size less that of the script without the part, largest share first. `partOf` names a source's part.
 */
export function partShares(code, runs, partOf) {
  const named = runs.map((run) => ({ ...run, part: run.source === '(glue)' ? '(glue)' : partOf(run.source) }))
  const total = gzip(code)
  const rows = [...new Set(named.map((run) => run.part))].map((part) => {
    const own = named.filter((run) => run.part === part).map((run) => code.slice(run.start, run.end))
    const rest = named.filter((run) => run.part !== part).map((run) => code.slice(run.start, run.end))
    return { part, bytes: Buffer.byteLength(own.join('')), gzipShare: total - gzip(rest.join('')) }
  })
  return { gzipBytes: total, rows: rows.sort((a, b) => b.gzipShare - a.gzipShare) }
}

/**
 * The part of a source of a template's script: mcp-edge's path under `dist/` cut to `depth`
 * segments (`server/telemetry` at 2), another package's name, or `template` for its own files.
 */
export function templatePart(source, depth = 2) {
  const library = /packages\/mcp-edge\/dist\/(.*)$/.exec(source)
  if (library) return library[1].split('/').slice(0, depth).join('/')
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source)
  if (pkg) return pkg[1]
  return /\/templates\/[^/]+\//.test(source) ? 'template' : '(other)'
}
