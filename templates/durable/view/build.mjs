#!/usr/bin/env node
/**
 * Builds the story view: view/story.ts bundled (esbuild, browser ESM, minified, with App from
 * @modelcontextprotocol/ext-apps) into view/story.html's script, one self-contained document at
 * assets/views/story.html. That folder is the Worker's static assets (wrangler.jsonc `assets`),
 * read by the view's resource (src/tools.ts) and never served to browsers directly. Wrangler runs
 * this before `wrangler dev` and `wrangler deploy` (its `build.command`); `npm test` runs it first.
 * The file is written through a rename and only when its content changed, so a running
 * `wrangler dev` never reads half of it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const HERE = dirname(fileURLToPath(import.meta.url))
const PLACEHOLDER = '/* VIEW_SCRIPT */'

/** `entry` and what it imports as one minified browser ES module. */
export async function bundleForBrowser(entry) {
  const bundled = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'error',
  })
  return bundled.outputFiles[0].text
}

/** Build the view into `<assets>/views/story.html`; returns its path and whether it changed. */
export async function buildStoryView(assets = resolve(HERE, '../assets')) {
  const script = await bundleForBrowser(join(HERE, 'story.ts'))
  // Inline, the script must not end its own <script> element early.
  if (/<\/script/i.test(script)) throw new Error('the bundled view contains "</script": it cannot be inlined')
  const shell = readFileSync(join(HERE, 'story.html'), 'utf8')
  if (!shell.includes(PLACEHOLDER)) throw new Error(`view/story.html lost its ${PLACEHOLDER} placeholder`)
  const html = shell.replace(PLACEHOLDER, () => script)
  const path = join(assets, 'views/story.html')
  mkdirSync(dirname(path), { recursive: true })
  let changed = true
  try {
    changed = readFileSync(path, 'utf8') !== html
  } catch {
    // not built yet
  }
  if (changed) {
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, html)
    renameSync(temporary, path)
  }
  return { path, changed }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { path, changed } = await buildStoryView()
  console.log(`[build-view] ${changed ? 'wrote' : 'up to date:'} ${path}`)
}
