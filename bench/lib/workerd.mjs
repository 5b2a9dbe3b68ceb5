/**
 * Runs one built Worker in its own workerd (or, for the in-isolate loop, a few Workers in one
 * workerd, each its own isolate) through Miniflare's API: 127.0.0.1, a random port, no
 * inspector (no inspectorPort, so workerd gets no --inspector-addr), no Request.cf fetch, and
 * in-memory Durable Object storage. Bindings and Durable Objects come from the Worker's
 * wrangler.jsonc (wrangler's own translation), plus the extra bindings given here.
 *
 * Miniflare keeps workerd's pid private; it spawns workerd as a direct child of this process, so
 * the new child that appears across `new Miniflare()` is ours (instances are started one at a time).
 *
 * workerd's standard output (its structured log lines: every console.log of a Worker) goes to a
 * file in the temp dir, not through the pipe Miniflare reads line by line: a write into that pipe
 * wakes the bench's Node process, which parses and prints the line, and the wake-up is charged to
 * workerd's CPU while the printing takes a core from the load, which a deployed Worker's logs
 * (collected with the invocation, sent out of band) never cost (bench/README.md has the figures).
 * The warnings and errors in it are read at the end of a run (`reportWorkerdWarnings`).
 * `BENCH_STDOUT=pipe` keeps Miniflare's pipe.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from 'miniflare'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { configPath } from './build.mjs'
import { config } from './config.mjs'
import { TMP } from './env.mjs'
import { isAlive, workerdChildren } from './proc.mjs'
import { VARIANTS } from './variants.mjs'

/**
 * Start a variant (bench/lib/variants.mjs: a Worker under bench/workers/ and its bindings) from
 * the Worker's built script. `inspectorPort` is for the profiles and the heap figures only: no CPU
 * or throughput figure is ever taken with the inspector on. `bindings` adds to the variant's
 * (values known only at run time). `persistTo` keeps Durable Objects and
 * Workflows on disk there instead of in memory (task-engines.mjs). `deferred` (the start-up
 * profiles) serves the Worker from a second isolate that imports its module on the first request.
 */
export async function startWorker(variant, scriptPath, { inspectorPort, persistTo, deferred = false, bindings } = {}) {
  const { worker } = VARIANTS[variant]
  const options = workerOptionsOf(variant, scriptPath, bindings)
  const { mf, pid } = await spawn({
    ...(deferred ? { workers: [options, deferredOptionsOf(options)] } : options),
    ...(inspectorPort ? { inspectorPort, inspectorHost: '127.0.0.1' } : {}),
    // Durable Objects and Workflows on disk under persistTo (Miniflare 5 keeps every resource under one root).
    ...(persistTo ? { resourcePersistencePath: persistTo } : {}),
  })
  const dispose = async () => {
    await disposeWithin(mf)
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  }
  try {
    const url = await within(deferred ? mf.unsafeGetDirectURL(`${options.name}-deferred`) : mf.ready, 'workerd to start')
    return {
      worker,
      variant,
      pid,
      name: `core:user:${options.name}${deferred ? '-deferred' : ''}`,
      origin: url.origin,
      endpoint: new URL('/mcp', url).href,
      dispose,
    }
  } catch (error) {
    await dispose()
    throw error
  }
}

/**
 * Start several Workers in one workerd, each its own isolate on its own socket
 * (`unsafeDirectSockets`), so that one process's CPU can be read while one of them works. `ids`
 * name them; `variantOf(id)` is the variant whose config and bindings each runs (by default the id
 * itself), so one variant can run twice from two scripts (ab.mjs `--isolate`: the ref and the tree).
 * Returns the pid, a target per id (`id`, `variant`, `origin`, `endpoint`) and `dispose()`.
 */
export async function startWorkers(ids, scriptOf, variantOf = (id) => id) {
  const workers = ids.map((id) => ({
    ...workerOptionsOf(variantOf(id), scriptOf(id)),
    name: `bench-${id}`,
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  }))
  const { mf, pid } = await spawn({ workers })
  const dispose = async () => {
    await disposeWithin(mf)
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  }
  const targets = {}
  try {
    for (const [i, id] of ids.entries()) {
      const url = await mf.unsafeGetDirectURL(workers[i].name)
      targets[id] = { id, variant: variantOf(id), origin: url.origin, endpoint: new URL('/mcp', url).href }
    }
  } catch (error) {
    await dispose()
    throw error
  }
  return { pid, targets, dispose }
}

/** Miniflare options of one variant: its wrangler.jsonc as wrangler translates it, its bindings, its built script. */
function workerOptionsOf(variant, scriptPath, extra = {}) {
  const { worker, bindings, config = worker } = VARIANTS[variant]
  // The built script is one ES module: module rules (which Miniflare 5 no longer takes) have nothing to do.
  const { modulesRules: _rules, ...workerOptions } = unstable_getMiniflareWorkerOptions(configPath(config)).workerOptions
  return {
    ...workerOptions,
    name: `bench-${worker}`,
    bindings: { ...workerOptions.bindings, ...bindings, ...extra },
    modules: true,
    modulesRoot: dirname(scriptPath),
    scriptPath,
  }
}

/**
 * The same Worker with its module's evaluation moved to its first request, so that an inspector
 * attached after start-up sees it: an entry module imports the script when the first request
 * arrives, in an isolate of its own. Its Durable Object bindings point at the Worker's classes in
 * the first isolate (`scriptName`); its other bindings are the Worker's.
 */
function deferredOptionsOf(options) {
  // Bindings this copies: plain ones and Durable Objects. A Worker with others (KV, R2, D1, a
  // Workflow, a service…) would be served without them, so it is refused rather than half-served.
  const uncarried = Object.entries(options).filter(([key, value]) => !DEFERRED_CARRIES.has(key) && !isEmpty(value))
  if (uncarried.length > 0) {
    throw new Error(`a deferred start does not carry ${uncarried.map(([key]) => key).join(', ')} of ${options.name}`)
  }
  const entry = join(options.modulesRoot, 'deferred-entry.js')
  const durableObjects = Object.fromEntries(
    Object.entries(options.durableObjects ?? {}).map(([binding, object]) => [
      binding,
      { className: object.className ?? object, scriptName: object.scriptName ?? options.name },
    ]),
  )
  return {
    name: `${options.name}-deferred`,
    compatibilityDate: options.compatibilityDate,
    compatibilityFlags: options.compatibilityFlags,
    bindings: options.bindings,
    durableObjects,
    modulesRoot: options.modulesRoot,
    modules: [
      {
        type: 'ESModule',
        path: entry,
        contents: `let app\nexport default { async fetch(request, env, ctx) { app ??= (await import('./${basename(options.scriptPath)}')).default\n  return app.fetch(request, env, ctx) } }\n`,
      },
      { type: 'ESModule', path: options.scriptPath },
    ],
    unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
  }
}

/** The Miniflare options of a Worker that `deferredOptionsOf` carries over, or that carry no binding. */
const DEFERRED_CARRIES = new Set([
  'name',
  'bindings',
  'durableObjects',
  'compatibilityDate',
  'compatibilityFlags',
  'modules',
  'modulesRoot',
  'scriptPath',
  'rootPath',
])

/** Nothing, or only empty lists and objects (wrangler gives `email: { send_email: [] }` to every Worker). */
const isEmpty = (value) =>
  value === undefined ||
  (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && value !== null && Object.values(value).every(isEmpty))

/** Where workerd's standard output goes (unless BENCH_STDOUT=pipe); `workerdWarnings` reads it. */
export const WORKERD_STDOUT = join(TMP, 'workerd-stdout.log')

/**
 * Miniflare's workerd (or MINIFLARE_WORKERD_PATH's) behind `exec`, its standard output appended
 * to WORKERD_STDOUT: still workerd's pid, child of this process. Both paths go through the
 * environment, which Miniflare hands to workerd, so no path is quoted into the script.
 */
function workerdWithStdoutToFile() {
  const miniflare = createRequire(import.meta.url).resolve('miniflare')
  // A bench process started by another one (which set both variables) keeps the real binary: taking
  // the parent's wrapper instead would make each wrapper exec the other, forever.
  process.env.BENCH_WORKERD_BINARY ??= process.env.MINIFLARE_WORKERD_PATH ?? createRequire(miniflare)('workerd').default
  process.env.BENCH_WORKERD_STDOUT = WORKERD_STDOUT
  const wrapper = join(TMP, 'workerd-stdout-to-file.sh')
  writeFileSync(wrapper, '#!/bin/sh\nexec "$BENCH_WORKERD_BINARY" "$@" >>"$BENCH_WORKERD_STDOUT"\n')
  chmodSync(wrapper, 0o755)
  return wrapper
}

if (config.stdout === 'file') process.env.MINIFLARE_WORKERD_PATH = workerdWithStdoutToFile()

/**
 * Warnings the measured Workers give on purpose: mcp-edge's local-only one, the SDK v2's about zod,
 * agents' about an SDK 1.x server given to createMcpHandler (bench:sdk's agents-factory, as Jina's runs).
 */
const EXPECTED_WARNINGS = [
  /no authentication is configured, so this MCP server serves local requests only/,
  /\[mcp-sdk\] Your zod version does not implement/,
  /\[agents\/mcp\] Passing an MCP SDK v1 server to createMcpHandler is deprecated/,
]

/**
 * The warnings and errors workerd wrote to WORKERD_STDOUT (its structured lines: a Worker's
 * console.warn and console.error, and workerd's own), but the expected ones; then the file is
 * removed (a full run writes a line per request, some 100 MB). Through the pipe Miniflare prints
 * them as they come, so there is nothing to read.
 */
export function workerdWarnings() {
  if (config.stdout !== 'file' || !existsSync(WORKERD_STDOUT)) return { count: 0, first: [] }
  const text = readFileSync(WORKERD_STDOUT, 'utf8')
  rmSync(WORKERD_STDOUT)
  const found = []
  for (const line of text.split('\n')) {
    if (!/"level":"(warn|error)"/.test(line) || EXPECTED_WARNINGS.some((expected) => expected.test(line))) continue
    found.push(line)
  }
  return { count: found.length, first: [...new Set(found.map((line) => line.slice(0, 300)))].slice(0, 5) }
}

/** `workerdWarnings()`, each of the first few printed through `log`. */
export function reportWorkerdWarnings(log) {
  const warnings = workerdWarnings()
  if (warnings.count > 0)
    log(`workerd wrote ${warnings.count} unexpected warnings or errors; the first: ${warnings.first.join(' | ')}`)
  return warnings
}

/** A new workerd on 127.0.0.1 (no Request.cf fetch), and its pid: the one new child of this process. */
async function spawn(options) {
  const before = new Set(workerdChildren())
  // Options in Miniflare 4's shape, as wrangler gives them; Miniflare 5 converts them.
  const mf = new Miniflare(
    convertV4MiniflareOptions({ ...options, host: '127.0.0.1', port: 0, cf: false, log: new Log(LogLevel.WARN) }),
  )
  try {
    await mf.ready
  } catch (error) {
    await disposeWithin(mf)
    throw error
  }
  const pids = workerdChildren().filter((pid) => !before.has(pid))
  if (pids.length !== 1) {
    await disposeWithin(mf)
    throw new Error(`expected one new workerd child, found ${pids.length}`)
  }
  return { mf, pid: pids[0] }
}

/** How long Miniflare's `dispose` may take before workerd is killed instead. */
const DISPOSE_TIMEOUT_MS = 10_000

/**
 * Miniflare's `dispose`, given up after `DISPOSE_TIMEOUT_MS`: now and then (a workerd whose
 * inspector was used, once or twice in a CI run) it never resolves, and the bench hung with it
 * (the smoke test timed out at 600 s). The caller kills workerd by its pid after it either way.
 */
async function disposeWithin(mf) {
  let timer
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, DISPOSE_TIMEOUT_MS)
  })
  await Promise.race([mf.dispose().catch(() => {}), late])
  clearTimeout(timer)
}

/** `promise`, or an error after `DISPOSE_TIMEOUT_MS` × 6 naming what was awaited (a Miniflare call that never settles). */
async function within(promise, what) {
  let timer
  const late = new Promise((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer from ${what} in ${(DISPOSE_TIMEOUT_MS * 6) / 1000} s`)),
      DISPOSE_TIMEOUT_MS * 6,
    )
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}
