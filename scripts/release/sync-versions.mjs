#!/usr/bin/env node
/**
 * One version for the repository, the library's: after `changeset version` bumps mcp-edge (and
 * create-mcp-edge, released with it), `npm run version-packages` runs this to bring along what
 * changesets does not version: the root package.json, each template's package.json and
 * server.json versions, its `mcp-edge` dependency (`^<version>`), and its README's links to the
 * `v<version>` tag (the Deploy button, `npm create cloudflare --template …#v<version>`). So
 * create-mcp-edge ships templates that install the mcp-edge it was released with.
 * `--check` (the release script; test/unit/release.test.ts) fails when anything is behind.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..')

/** What `root` has at another version than its library; written in place unless `check`. */
export function syncVersions(root = ROOT, { check = false } = {}) {
  const { version } = JSON.parse(readFileSync(join(root, 'packages/mcp-edge/package.json'), 'utf8'))
  const stale = []
  const edit = (path, change) => {
    const text = readFileSync(join(root, path), 'utf8')
    const changed = change(text)
    if (changed === text) return
    stale.push(path)
    if (!check) writeFileSync(join(root, path), changed)
  }
  const json = (path, change) =>
    edit(path, (text) => {
      const value = JSON.parse(text)
      change(value)
      // Rewritten (two-space JSON, as npm writes it) only when a value changed.
      return JSON.stringify(value) === JSON.stringify(JSON.parse(text)) ? text : `${JSON.stringify(value, null, 2)}\n`
    })
  json('package.json', (pkg) => Object.assign(pkg, { version }))
  for (const template of readdirSync(join(root, 'templates'))) {
    const dir = `templates/${template}`
    json(`${dir}/package.json`, (pkg) => {
      pkg.version = version
      pkg.dependencies['mcp-edge'] = `^${version}`
    })
    json(`${dir}/server.json`, (document) => Object.assign(document, { version }))
    edit(`${dir}/README.md`, (text) => text.replace(/(tree\/|#)v\d+\.\d+\.\d+(?:-[\w.]+)?\b/g, `$1v${version}`))
  }
  return { version, stale }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  const { version, stale } = syncVersions(ROOT, { check })
  for (const path of stale) console.error(`${check ? 'behind' : 'updated'}: ${path}`)
  if (check && stale.length > 0) {
    console.error(`Not all at mcp-edge's version ${version}: run node scripts/release/sync-versions.mjs`)
    process.exit(1)
  }
  console.error(`the repository, the templates and their links are at ${version}`)
}
