#!/usr/bin/env node
/**
 * Before `npm pack`: copy the repository's templates/ into this package, so its tarball carries
 * them (offline, versioned with the library). Leaves out what a project makes for itself
 * (node_modules, .wrangler, dist, assets, .dev.vars) and stores `.gitignore` as `_gitignore`, since npm
 * drops `.gitignore` files from tarballs; index.mjs restores it. `--clean` (postpack) removes the
 * copy again, so a clone's create-mcp-edge always scaffolds from the live templates/.
 */
import { cpSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const source = join(here, '../../templates')
const target = join(here, 'templates')
const SKIP = new Set(['node_modules', '.wrangler', 'dist', 'assets', '.dev.vars'])

rmSync(target, { recursive: true, force: true })
if (process.argv.includes('--clean')) process.exit(0)
for (const template of readdirSync(source)) {
  const to = join(target, template)
  cpSync(join(source, template), to, { recursive: true, filter: (path) => !SKIP.has(basename(path)) })
  if (existsSync(join(to, '.gitignore'))) renameSync(join(to, '.gitignore'), join(to, '_gitignore'))
}
console.error(`[create-mcp-edge] templates: ${readdirSync(target).join(', ')}`)
