/**
 * One workerd: the Vitest pool (@cloudflare/vitest-plugin, through its own miniflare and
 * wrangler) and `wrangler dev` run the same runtime, in the repository and in every template.
 * The plugin pins an older miniflare and wrangler than the wrangler the projects use, so the root
 * and each template override them (`overrides` in package.json) with wrangler's own.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'))
const lock = json('package-lock.json').packages as Record<string, { version: string; dependencies?: Record<string, string> }>
const wrangler = lock['node_modules/wrangler']

describe('one workerd', () => {
  it("installs in the repository a single workerd version, the one wrangler's dev server runs", () => {
    const versions = Object.entries(lock)
      .filter(([path]) => path.endsWith('node_modules/workerd'))
      .map(([, entry]) => entry.version)
    expect(new Set(versions)).toEqual(new Set([wrangler?.dependencies?.workerd]))
    const miniflares = Object.entries(lock).filter(([path]) => path.endsWith('node_modules/miniflare'))
    expect(new Set(miniflares.map(([, entry]) => entry.version))).toEqual(new Set([wrangler?.dependencies?.miniflare]))
  })

  it.each(readdirSync(join(ROOT, 'templates')))("templates/%s gives the Vitest pool wrangler's miniflare", (template) => {
    const pkg = json(`templates/${template}/package.json`)
    expect(pkg.devDependencies.wrangler).toBe(wrangler?.version)
    expect(pkg.devDependencies['@cloudflare/vitest-plugin']).toBe(
      json('package.json').devDependencies['@cloudflare/vitest-plugin'],
    )
    expect(pkg.overrides).toEqual({
      '@cloudflare/vitest-plugin': { miniflare: wrangler?.dependencies?.miniflare, wrangler: '$wrangler' },
    })
  })
})
