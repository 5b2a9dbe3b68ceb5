/**
 * Every Worker config of the repository: wrangler.jsonc with its `$schema`, valid against that
 * schema, and one current compatibility date and set of flags for all of them (the runtime types
 * in types/workers-runtime.d.ts are generated once for that date and those flags). A config with a
 * custom build watches every source file its Worker imports, or `wrangler dev` would not reload on
 * an edit to them.
 */
import { existsSync, globSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve, sep } from 'node:path'
import { Ajv } from 'ajv'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { experimental_readRawConfig } from 'wrangler'
import { WORKERD_BUILD } from '../../scripts/lib/workerd-esbuild.mjs'

const ROOT = resolve(import.meta.dirname, '../..')
// Not node_modules, dot folders, or create-mcp-edge's copy of the templates (made only while packing).
const ignored = (name: string) => name === 'node_modules' || name.startsWith('.') || name === 'packages/create-mcp-edge/templates'
const configs = globSync('**/wrangler.jsonc', { cwd: ROOT, exclude: ignored }).sort()
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * The newest compatibility date the workerd that `pkg` runs accepts (its version is
 * 1.YYYYMMDD.patch), found as Node finds it: `pkg`'s miniflare, then that miniflare's workerd.
 */
function newestDateOf(pkg: string): string {
  const miniflare = createRequire(join(ROOT, 'node_modules', pkg, 'package.json')).resolve('miniflare/package.json')
  const workerd = createRequire(miniflare).resolve('workerd/package.json')
  const { version } = JSON.parse(readFileSync(workerd, 'utf8')) as { version: string }
  const [, day] = version.split('.') as [string, string]
  return `${day.slice(0, 4)}-${day.slice(4, 6)}-${day.slice(6, 8)}`
}

const raw = (config: string) => experimental_readRawConfig({ config: join(ROOT, config) }).rawConfig

/**
 * The files of the repository that `config`'s Worker is bundled from, relative to the root: what
 * esbuild reads from its `main`, packages (mcp-edge, hono, zod…) left out, as a user's project has
 * them in node_modules.
 */
async function sourcesOf(config: string): Promise<string[]> {
  const main = resolve(ROOT, dirname(config), raw(config).main as string)
  const bundled = await build({
    entryPoints: [main],
    ...WORKERD_BUILD,
    packages: 'external',
    external: ['cloudflare:*', 'node:*'],
    write: false,
    metafile: true,
    absWorkingDir: ROOT,
  })
  return Object.keys(bundled.metafile.inputs)
}

describe('Worker configs', () => {
  it('are wrangler.jsonc files, and there is no wrangler.toml left', () => {
    expect(configs.length).toBeGreaterThanOrEqual(17)
    expect(globSync('**/wrangler*.toml', { cwd: ROOT, exclude: ignored })).toEqual([])
  })

  it('each names wrangler’s schema and is valid against it', () => {
    const ajv = new Ajv({ allErrors: true, strict: false })
    for (const config of configs) {
      const { $schema, ...rest } = raw(config) as { $schema?: string }
      expect($schema, config).toBeTypeOf('string')
      // A template names its own node_modules (a scaffolded project has wrangler there); in this
      // repository npm hoists it to the root's.
      const schemaPath = join(ROOT, 'node_modules/wrangler/config-schema.json')
      const where = config.startsWith('templates/') ? join(ROOT, dirname(config)) : ROOT
      expect(resolve(ROOT, dirname(config), $schema as string), config).toBe(
        join(where, 'node_modules/wrangler/config-schema.json'),
      )
      const validate =
        ajv.getSchema(schemaPath) ?? ajv.addSchema(JSON.parse(readFileSync(schemaPath, 'utf8')), schemaPath).getSchema(schemaPath)
      expect(validate?.(rest), `${config}: ${JSON.stringify(validate?.errors)}`).toBe(true)
    }
  })

  it('share one compatibility date and set of flags, within 30 days of what the pinned workerd accepts', () => {
    // The McpAgent fixture runs at the date Cloudflare's own McpAgent servers pin: ported Workers keep theirs.
    const EARLY: Record<string, string> = { 'test/fixture-sdk/agent/wrangler.jsonc': '2025-03-10' }
    for (const [config, date] of Object.entries(EARLY)) expect(raw(config).compatibility_date, config).toBe(date)
    const dates = new Set(configs.filter((config) => !(config in EARLY)).map((config) => raw(config).compatibility_date))
    // OAuth Workers add the one flag Client ID Metadata Documents need.
    const oauth = (config: string) => /(^|\/)oauth\//.test(config)
    // Workers of SDK-style code (and the native bench Worker compared with one) add nodejs_compat,
    // which mcp-edge/sdk needs (as agents does).
    const sdk = (config: string) =>
      /^(test\/(adapter|fixture-sdk)|bench\/workers\/(loop-(native|sdk|sdk-factory|agents-factory)|edge-sdk))\//.test(config)
    const flagsOf = (config: string) =>
      ((raw(config).compatibility_flags ?? []) as string[]).filter(
        (flag) => !(oauth(config) && flag === 'global_fetch_strictly_public') && !(sdk(config) && flag === 'nodejs_compat'),
      )
    for (const config of configs.filter(oauth))
      expect(raw(config).compatibility_flags, config).toContain('global_fetch_strictly_public')
    const flags = new Set(configs.map((config) => JSON.stringify(flagsOf(config))))
    expect([...dates]).toHaveLength(1)
    expect([...flags]).toHaveLength(1)
    const date = [...dates][0] as string
    // wrangler's workerd (dev, deploy, bench) and the Workers test pool's (@cloudflare/vitest-plugin
    // pins its own): the date must run on both, and be recent for the newer.
    const newest = newestDateOf('wrangler')
    const pool = newestDateOf('@cloudflare/vitest-plugin')
    expect(date <= pool && date <= newest, `${date} is past what workerd ${pool} accepts`).toBe(true)
    expect(Date.parse(newest) - Date.parse(date)).toBeLessThanOrEqual(30 * DAY_MS)
  })

  it('each has its generated Env types beside it', () => {
    for (const config of configs) {
      const types = join(ROOT, dirname(config), 'worker-configuration.d.ts')
      expect(existsSync(types), types).toBe(true)
      // A template's are what its own `npm run types` writes in its folder (runtime types included).
      const command = config.startsWith('templates/')
        ? 'wrangler types --env-file=.dev.vars.example'
        : `wrangler types --config=${config}`
      expect(readFileSync(types, 'utf8')).toContain(`// Generated by Wrangler by running \`${command}`)
    }
  })

  // With a custom build command, `wrangler dev` watches only build.watch_dir (its default ./src
  // applies to the command alone) and no longer what esbuild bundled: a file outside those folders
  // is not reloaded when edited.
  it('with a custom build, each watches every source file its Worker imports', async () => {
    const custom = configs.filter((config) => raw(config).build?.command !== undefined)
    expect(custom).toEqual(['apps/demo/oauth/wrangler.jsonc', 'apps/demo/wrangler.jsonc', 'templates/durable/wrangler.jsonc'])
    for (const config of custom) {
      const watchDir = raw(config).build?.watch_dir ?? []
      const watched = (Array.isArray(watchDir) ? watchDir : [watchDir]).map((dir) => resolve(ROOT, dirname(config), dir) + sep)
      const unwatched = (await sourcesOf(config)).filter((file) => !watched.some((dir) => resolve(ROOT, file).startsWith(dir)))
      expect(unwatched, `${config}: build.watch_dir misses what its Worker imports`).toEqual([])
    }
  })
})
