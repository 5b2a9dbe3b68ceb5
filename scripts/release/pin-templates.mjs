#!/usr/bin/env node
/**
 * The templates, pinned to the library's version: each template's `mcp-edge` dependency is
 * `^<version>` and its README's links name the `v<version>` tag (the Deploy button, `npm create
 * cloudflare --template …#v<version>`). `npm run version-packages` runs it after `changeset
 * version`, so create-mcp-edge ships templates that install the mcp-edge it was released with;
 * `--check` (the release script, and test/unit/release.test.ts) fails when one is behind.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..')

/** The edits that pin `root`'s templates to its library's version; writes them unless `check`. */
export function pinTemplates(root = ROOT, { check = false } = {}) {
  const { version } = JSON.parse(readFileSync(join(root, 'packages/mcp-edge/package.json'), 'utf8'))
  const stale = []
  for (const template of readdirSync(join(root, 'templates'))) {
    const pkgPath = join(root, 'templates', template, 'package.json')
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'))
    if (pkg.dependencies?.['mcp-edge'] !== `^${version}`) {
      stale.push(`templates/${template}/package.json: mcp-edge ${pkg.dependencies?.['mcp-edge']}, not ^${version}`)
      pkg.dependencies['mcp-edge'] = `^${version}`
      if (!check) writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`)
    }
    const readmePath = join(root, 'templates', template, 'README.md')
    const readme = readFileSync(readmePath, 'utf8')
    const pinned = readme.replace(/(tree\/|#)v\d+\.\d+\.\d+(?:-[\w.]+)?\b/g, `$1v${version}`)
    if (pinned !== readme) {
      stale.push(`templates/${template}/README.md: links to another tag than v${version}`)
      if (!check) writeFileSync(readmePath, pinned)
    }
  }
  return { version, stale }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check')
  const { version, stale } = pinTemplates(ROOT, { check })
  for (const line of stale) console.error(`${check ? 'stale' : 'pinned'}: ${line}`)
  if (check && stale.length > 0) {
    console.error(`The templates are not pinned to mcp-edge ${version}: run node scripts/release/pin-templates.mjs`)
    process.exit(1)
  }
  console.error(`templates pinned to mcp-edge ${version}`)
}
