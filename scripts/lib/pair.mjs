/**
 * Two (or `isolates`) isolates of one Worker, sharing its Durable Objects: what `npm run dev:pair`
 * serves, what the HTTP tests start (test/support/pair.ts) and what the fan-out benches run
 * (in-process, so they can read workerd's CPU time; the scale step runs four).
 *
 * How: the Worker is bundled as a deploy would bundle it (`wrangler deploy --dry-run --outdir`),
 * then one workerd (Miniflare's `workers` array) runs it N times, as N Workers. Each Worker is
 * its own isolate with its own module state. Worker `a` (the config's name) owns the Durable
 * Object classes; the others (`<name>-b`, `<name>-c`…) bind the same namespaces through
 * `scriptName`, so a Durable Object named from any of them is the same object. Each Worker gets
 * its own socket on 127.0.0.1 (`unsafeDirectSockets`): `port + i` for the i-th, or free ports when
 * `port` is 0.
 * Bindings, `.dev.vars` and the Durable Object list come from wrangler's own translation of the
 * config (`unstable_getMiniflareWorkerOptions`), and state is persisted exactly where
 * `wrangler dev --persist-to <dir>` keeps it (`<dir>/v3`, objects under `do/<name>-<Class>`).
 *
 * `driver` (the paths of its ES modules, the entry first) adds one more Worker, with its own socket after the isolates', which
 * reaches isolate i through the service binding `T<i>`: a client inside workerd (the scale bench's,
 * bench/workers/scale-driver).
 *
 * What it does not do: rebuild on file changes (restart it), run an inspector, or fetch
 * `Request.cf` from the network.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from 'miniflare'
import { unstable_getMiniflareWorkerOptions, unstable_readConfig } from 'wrangler'

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..')
const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js')

process.env.WRANGLER_SEND_METRICS = 'false'

/** Bundle the config's Worker as `wrangler deploy` would; returns the script path. */
export function bundle(configPath, outdir) {
  const args = [WRANGLER, 'deploy', '--dry-run', '--outdir', outdir, '-c', configPath]
  const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  if (run.status !== 0) throw new Error(`wrangler could not bundle ${configPath}:\n${run.stdout}\n${run.stderr}`)
  const file = readdirSync(outdir).find((name) => name.endsWith('.js'))
  if (!file) throw new Error(`wrangler wrote no .js into ${outdir}`)
  return join(outdir, file)
}

const DRIVER = 'pair-driver'

/** The `driver` Worker (module header): ES modules, the entry first; `T<i>` is a service binding to the i-th isolate. */
function driverWorker(paths, names, compatibilityDate, unsafeDirectSockets) {
  const serviceBindings = Object.fromEntries(names.map((worker, i) => [`T${i}`, worker]))
  // Named from the repository's root, so a module may import another of bench/ by its relative path.
  const modules = paths.map((path) => ({ type: 'ESModule', path }))
  return { name: DRIVER, modules, modulesRoot: ROOT, compatibilityDate, serviceBindings, unsafeDirectSockets }
}

const LOG_LEVELS = { none: LogLevel.NONE, error: LogLevel.ERROR, warn: LogLevel.WARN, info: LogLevel.INFO, debug: LogLevel.DEBUG }

/** Miniflare's log without its "Ready on <entry socket>" line: that socket is not one of the pair's. */
class PairLog extends Log {
  logReady() {}
}

/**
 * Start the pair. `config` is a wrangler.jsonc path (relative to the repository root or
 * absolute); `persistTo` defaults to `.wrangler/state` beside it, like `wrangler dev`;
 * `vars` are extra bindings (`--var`); `isolates` how many Workers (default 2, at most 26);
 * `scriptPath`: the config's Worker as `bundle` already built it (the bench starts one Worker
 * many times), else it is bundled here. Resolves once every socket accepts connections.
 *
 * @example
 * const pair = await startPair({ config: 'apps/demo/wrangler.jsonc', port: 0, persistTo: '/tmp/state' })
 * await fetch(`${pair.urls[1]}/mcp`, ...)
 * await pair.dispose()
 */
export async function startPair({
  config = 'apps/demo/wrangler.jsonc',
  port = 8787,
  persistTo,
  vars = {},
  logLevel = 'info',
  isolates = 2,
  driver,
  scriptPath: bundled,
} = {}) {
  if (!Number.isInteger(isolates) || isolates < 1 || isolates > 26) throw new Error(`isolates must be 1 to 26 (got ${isolates})`)
  const configPath = isAbsolute(config) ? config : join(ROOT, config)
  const { name } = unstable_readConfig({ config: configPath })
  if (!name) throw new Error(`${configPath} has no name; dev:pair names the Durable Objects after it`)
  const state = persistTo ?? join(configPath, '..', '.wrangler/state')
  const outdir = bundled === undefined ? mkdtempSync(join(tmpdir(), 'mcp-edge-pair-build-')) : dirname(bundled)
  const scriptPath = bundled ?? bundle(configPath, outdir)
  // A build it was given stays: its owner starts it again.
  const removeBuild = () => bundled === undefined && rmSync(outdir, { recursive: true, force: true })
  // The bundle is one ES module: module rules (which Miniflare 5 no longer takes) have nothing to do.
  const { modulesRules: _rules, ...workerOptions } = unstable_getMiniflareWorkerOptions(configPath).workerOptions
  const durableObjects = workerOptions.durableObjects ?? {}
  const shared = {
    ...workerOptions,
    bindings: { ...workerOptions.bindings, ...vars },
    modules: true,
    modulesRoot: outdir,
    scriptPath,
  }
  const names = Array.from({ length: isolates }, (_, i) => (i === 0 ? name : `${name}-${String.fromCharCode(97 + i)}`))
  const socket = (offset) => [{ host: '127.0.0.1', port: port === 0 ? 0 : port + offset }]
  // The same namespaces, owned by the first Worker: one object per name across every isolate.
  const sharedObjects = Object.fromEntries(
    Object.entries(durableObjects).map(([binding, target]) => [
      binding,
      typeof target === 'string' ? { className: target, scriptName: names[0] } : { ...target, scriptName: names[0] },
    ]),
  )
  // wrangler hands out Worker options in Miniflare 4's shape; Miniflare 5 converts them.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      // Miniflare's own entry socket (unused here) stays on loopback too.
      host: '127.0.0.1',
      port: 0,
      cf: false,
      // Where `wrangler dev --persist-to <state>` keeps it (Miniflare 4 called it defaultPersistRoot).
      resourcePersistencePath: join(state, 'v3'),
      log: new PairLog(LOG_LEVELS[logLevel] ?? LogLevel.INFO),
      workers: [
        ...names.map((worker, i) =>
          i === 0
            ? { ...shared, name: worker, unsafeDirectSockets: socket(0) }
            : { ...shared, name: worker, durableObjects: sharedObjects, unsafeDirectSockets: socket(i) },
        ),
        ...(driver === undefined ? [] : [driverWorker(driver, names, shared.compatibilityDate, socket(isolates))]),
      ],
    }),
  )
  try {
    await mf.ready
    const urls = []
    for (const worker of names) urls.push((await mf.unsafeGetDirectURL(worker)).origin)
    return {
      urls,
      driverUrl: driver === undefined ? undefined : (await mf.unsafeGetDirectURL(DRIVER)).origin,
      names,
      persistTo: state,
      async dispose() {
        await mf.dispose()
        removeBuild()
      },
    }
  } catch (error) {
    await mf.dispose().catch(() => {})
    removeBuild()
    throw error
  }
}
