#!/usr/bin/env node
/**
 * Build the published package: `tsc -p tsconfig.build.json` into a fresh dist/ (ESM and `.d.ts`
 * side by side, one file per source file). `npm run build` and `prepack` run it; it runs from any
 * directory, with the repository's TypeScript.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc')
rmSync(join(here, 'dist'), { recursive: true, force: true })
const run = spawnSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' })
if (run.status !== 0) process.exit(run.status ?? 1)
// tsc rewrites `./x.ts` to `./x.js` in the JavaScript but leaves the declarations' imports as
// written; a consumer resolves `./x.js` to `./x.d.ts` on every TypeScript version, so say that.
const RELATIVE_TS = /((?:from|import)\s*\(?\s*['"]\.{1,2}\/[^'"]+)\.ts(['"])/g
for (const file of readdirSync(join(here, 'dist'), { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts')) continue
  const path = join(here, 'dist', file)
  const text = readFileSync(path, 'utf8')
  const rewritten = text.replace(RELATIVE_TS, '$1.js$2')
  if (rewritten !== text) writeFileSync(path, rewritten)
}
