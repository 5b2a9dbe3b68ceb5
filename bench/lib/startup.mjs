/**
 * Start-up cost of a fresh workerd: wall time from `new Miniflare()` to the first correct call
 * (split into "ready" and "first call"), and workerd's CPU time from spawn to that answer.
 * Miniflare's own services start in the same workerd, so the floor Worker shows what every Worker
 * pays before its own code runs. compare.mjs starts each variant once untimed first: the first
 * start of a kind of Worker in this process is slower (Miniflare's first use).
 */
import { verifyCall } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { VARIANTS } from './variants.mjs'
import { startWorker } from './workerd.mjs'

export async function measureStartup(variant, scriptPath) {
  const { call } = VARIANTS[variant]
  const started = performance.now()
  const target = await startWorker(variant, scriptPath)
  try {
    const ready = performance.now()
    await verifyCall(target.endpoint, call.request, call.answer)
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
