#!/usr/bin/env node
/**
 * Builds the playground page (playground/src) into playground/dist/playground/, the Workers Static
 * Assets directory of the demo's wrangler.jsonc and oauth/wrangler.jsonc: index.html, sandbox.html
 * and style.css copied; main.ts and sandbox.ts (the MCP Apps view sandbox) bundled as the story
 * view is (esbuild, browser ESM, minified), with mcp-edge as users get it (the built package); and
 * the durable template's story view (templates/durable/view) into playground/dist/views/, which
 * the demo's `write_story` reads as its view. Wrangler runs it before `wrangler dev` and
 * `wrangler deploy` (`build.command`: `npm run build:playground`, which npm finds from any folder
 * of the demo or the repository root). Several `wrangler dev` may start
 * at once (tests): each file is written whole through a rename, and only when its content changed,
 * so a running `wrangler dev` never sees a half-written file nor reloads for nothing.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildStoryView, bundleForBrowser } from '../../../templates/durable/view/build.mjs'

const ROOT = resolve(fileURLToPath(import.meta.url), '..')
const SOURCE = join(ROOT, 'src')
const OUT = join(ROOT, 'dist/playground')

function writeIfChanged(name, content) {
  const path = join(OUT, name)
  try {
    if (Buffer.compare(readFileSync(path), Buffer.from(content)) === 0) return false
  } catch {
    // not built yet
  }
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, content)
  renameSync(temporary, path)
  return true
}

const bundle = (entry) => bundleForBrowser(join(SOURCE, entry))
mkdirSync(OUT, { recursive: true })
const written = [
  writeIfChanged('app.js', await bundle('main.ts')),
  writeIfChanged('sandbox.js', await bundle('sandbox.ts')),
  writeIfChanged('index.html', readFileSync(join(SOURCE, 'index.html'))),
  writeIfChanged('sandbox.html', readFileSync(join(SOURCE, 'sandbox.html'))),
  writeIfChanged('style.css', readFileSync(join(SOURCE, 'style.css'))),
  (await buildStoryView(join(ROOT, 'dist'))).changed,
].filter(Boolean).length
console.log(`[build-playground] ${written ? `${written} file(s) written to` : 'up to date in'} playground/dist`)
