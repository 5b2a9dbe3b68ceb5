#!/usr/bin/env node
/**
 * `npm run release` (the release workflow, once the "Version packages" pull request is merged):
 * publishes mcp-edge and create-mcp-edge at their package.json version with npm provenance, each
 * only when that version is not on npm yet, and tags the commit `<name>@<version>` and
 * `v<version>` (the tag the templates' README links name). Prints `New tag: <name>@<version>`
 * lines, which changesets/action turns into GitHub releases. Refuses to publish templates that
 * are not at the library's version (sync-versions.mjs). `--dry-run`: `npm publish --dry-run`, no
 * provenance (it needs the workflow's OIDC token) and no tags.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { syncVersions } from './sync-versions.mjs'

const ROOT = resolve(fileURLToPath(import.meta.url), '../../..')
const PACKAGES = ['packages/mcp-edge', 'packages/create-mcp-edge']
const DRY_RUN = process.argv.includes('--dry-run')

function run(command, args, { allowFailure = false } = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (result.status !== 0 && !allowFailure) throw new Error(`${command} ${args.join(' ')} exited ${result.status}`)
  return result.status === 0 ? result.stdout.trim() : undefined
}

const { version, stale } = syncVersions(ROOT, { check: true })
if (stale.length > 0) throw new Error(`not publishing: ${stale.join('; ')}`)
let published = 0
for (const dir of PACKAGES) {
  const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'))
  if (pkg.version !== version) throw new Error(`${pkg.name} is at ${pkg.version}, mcp-edge at ${version}: release them together`)
  if (run('npm', ['view', `${pkg.name}@${pkg.version}`, 'version'], { allowFailure: true })) {
    console.log(`${pkg.name}@${pkg.version} is on npm already`)
    continue
  }
  if (DRY_RUN) {
    run('npm', ['publish', '--dry-run', '--access', 'public', '-w', pkg.name])
    console.log(`would publish ${pkg.name}@${pkg.version}`)
    continue
  }
  run('npm', ['publish', '--provenance', '--access', 'public', '-w', pkg.name])
  run('git', ['tag', `${pkg.name}@${pkg.version}`])
  console.log(`New tag: ${pkg.name}@${pkg.version}`)
  published++
}
if (published > 0 && !run('git', ['tag', '--list', `v${version}`])) run('git', ['tag', `v${version}`])
