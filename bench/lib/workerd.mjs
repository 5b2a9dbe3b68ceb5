/**
 * Runs one built Worker in its own workerd through Miniflare's API: 127.0.0.1, a random port, no
 * inspector (no inspectorPort, so workerd gets no --inspector-addr), no Request.cf fetch, and
 * in-memory Durable Object storage. Bindings and Durable Objects come from the Worker's
 * wrangler.toml (wrangler's own translation), plus the extra bindings given here.
 *
 * Miniflare keeps workerd's pid private; it spawns workerd as a direct child of this process, so
 * the new child that appears across `new Miniflare()` is ours (instances are started one at a time).
 */
import { dirname } from 'node:path'
import { Log, LogLevel, Miniflare } from 'miniflare'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { configPath } from './build.mjs'
import { isAlive, workerdChildren } from './proc.mjs'
import { VARIANTS } from './variants.mjs'

/**
 * Start a variant (bench/lib/variants.mjs: a Worker under bench/workers/ and its bindings) from
 * the Worker's built script. `inspectorPort` is for the profiles and the heap figures only: no CPU
 * or throughput figure is ever taken with the inspector on. `persistTo` keeps Durable Objects and
 * Workflows on disk there instead of in memory (task-engines.mjs).
 */
export async function startWorker(variant, scriptPath, { inspectorPort, persistTo } = {}) {
  const { worker, bindings } = VARIANTS[variant]
  const { workerOptions } = unstable_getMiniflareWorkerOptions(configPath(worker))
  const before = new Set(workerdChildren())
  const mf = new Miniflare({
    ...workerOptions,
    name: `bench-${worker}`,
    bindings: { ...workerOptions.bindings, ...bindings },
    modules: true,
    modulesRoot: dirname(scriptPath),
    scriptPath,
    host: '127.0.0.1',
    port: 0,
    cf: false,
    log: new Log(LogLevel.WARN),
    ...(inspectorPort ? { inspectorPort, inspectorHost: '127.0.0.1' } : {}),
    ...(persistTo ? { durableObjectsPersist: `${persistTo}/do`, workflowsPersist: `${persistTo}/workflows` } : {}),
  })
  const url = await mf.ready
  const pids = workerdChildren().filter((pid) => !before.has(pid))
  if (pids.length !== 1) {
    await mf.dispose()
    throw new Error(`expected one new workerd child, found ${pids.length}`)
  }
  const pid = pids[0]
  return {
    worker,
    variant,
    pid,
    name: `core:user:bench-${worker}`,
    origin: url.origin,
    endpoint: new URL('/mcp', url).href,
    async dispose() {
      await mf.dispose()
      if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    },
  }
}
