#!/usr/bin/env node
/**
 * `node bench/bundle-parts.mjs [template …] [--depth N] [--top N]`: where a template's deployed
 * bytes are (issue 38's bundle budgets). Each template (default: all, `lib/more-bundles.mjs`
 * TEMPLATES) is built as `--only bundles` builds it (`wrangler deploy --dry-run`, minified, its
 * own config), and every byte of the script is given to the source file it came from through the
 * source map wrangler writes beside it (lib/bundle-parts.mjs). Sources are grouped into parts:
 * mcp-edge's by folder under `dist/` (`server/telemetry`, `http/auth.js`; `--depth 3` splits those
 * folders by file, `--depth 1` joins them into `server`, `http`…), other packages by package
 * (`hono`, `zod`), the template's own files as `template`. For each part: its bytes in the script,
 * and its gzip share: the gzip size of the whole script (zlib level 6, the figure wrangler prints)
 * less that of the script without the part. Gzip shares do not add up to the total (what a part
 * repeats of another compresses against it either way); they say what leaving the part out would
 * save. About 5 s a template; never part of `npm test`.
 */
import { readFileSync } from 'node:fs'
import { buildAll } from './lib/build.mjs'
import { partShares, sourceRuns, templatePart } from './lib/bundle-parts.mjs'
import { templateBundleJobs, TEMPLATES } from './lib/more-bundles.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at < 0 ? fallback : Number(args.splice(at, 2)[1])
}
const depth = option('--depth', 2)
const top = option('--top', 30)
const wanted = args.length > 0 ? args : TEMPLATES
for (const name of wanted) if (!TEMPLATES.includes(name)) throw new Error(`no template ${name} (${TEMPLATES.join(', ')})`)

const jobs = templateBundleJobs().filter(([worker]) => wanted.includes(worker.replace(/^template-/, '')))
const kib = (bytes) => (bytes / 1024).toFixed(2)
for (const built of await buildAll(jobs)) {
  const code = readFileSync(built.scriptPath, 'utf8')
  const map = JSON.parse(readFileSync(`${built.scriptPath}.map`, 'utf8'))
  const { rows } = partShares(code, sourceRuns(code, map), (source) => templatePart(source, depth))
  const name = built.worker.replace(/^template-/, '')
  console.log(`\n## ${name}: ${kib(built.rawBytes)} KiB, ${kib(built.gzipBytes)} KiB gzip\n`)
  console.log('| part | bytes | gzip share |')
  console.log('| --- | ---: | ---: |')
  for (const row of rows.slice(0, top)) console.log(`| ${row.part} | ${row.bytes} | ${row.gzipShare} |`)
  if (rows.length > top) console.log(`| (${rows.length - top} more parts) | | |`)
}
