/**
 * Start-up cost of a fresh workerd: wall time from `new Miniflare()` to the first correct
 * `tools/call` answer (split into "ready" and "first call"), and workerd's CPU time from spawn
 * to that answer. Miniflare's own services start in the same workerd, so the floor Worker shows
 * what every Worker pays before its own code runs. compare.mjs starts each Worker once untimed
 * first: the first start of a kind of Worker in this process is slower (Miniflare's first use).
 */
import { verifyAdd } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { startWorker } from './workerd.mjs'

export async function measureStartup(worker, scriptPath) {
  const started = performance.now()
  const target = await startWorker(worker, scriptPath)
  try {
    const ready = performance.now()
    await verifyAdd(target.endpoint)
    const answered = performance.now()
    return {
      totalMs: answered - started,
      readyMs: ready - started,
      firstCallMs: answered - ready,
      cpuMs: cpuMs(target.pid),
    }
  } finally {
    await target.dispose()
  }
}
