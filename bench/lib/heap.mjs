/**
 * Isolate heap through the inspector, in a step of its own: the CPU and throughput runs never
 * have the inspector on. A heap snapshot makes V8 collect garbage first, so "after a snapshot"
 * is the live heap; `Runtime.getHeapUsage` then reads it. workerd's inspector addresses one
 * isolate by the Worker's name, so Miniflare's own entry worker is not counted.
 */
import { createServer } from 'node:net'
import { connectCdp } from './cdp.mjs'
import { listPages } from './many-tools.mjs'
import { verifyCall } from './mcp.mjs'
import { rssBytes } from './proc.mjs'
import { median } from './stats.mjs'
import { toolCount, VARIANTS } from './variants.mjs'
import { startWorker } from './workerd.mjs'

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

/** A Worker started with the inspector on, and a CDP session to its isolate (`deferred`: workerd.mjs). */
export async function startInspected(variant, scriptPath, { deferred = false } = {}) {
  const port = await freePort()
  const target = await startWorker(variant, scriptPath, { inspectorPort: port, deferred })
  try {
    const cdp = await connectCdp(`ws://127.0.0.1:${port}/${target.name}`)
    await cdp.send('HeapProfiler.enable')
    return {
      target,
      cdp,
      /** Used heap in bytes: live (`gc: false`) or after a full collection. */
      async heapBytes({ gc = true } = {}) {
        if (gc) await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
        return (await cdp.send('Runtime.getHeapUsage')).usedSize
      },
      rssBytes: () => rssBytes(target.pid),
      async dispose() {
        cdp.close()
        await target.dispose()
      },
    }
  } catch (error) {
    await target.dispose()
    throw error
  }
}

/**
 * Heap of each variant's isolate after start-up (its first correct answer), and for variants that
 * list tools, after reading every page of tools/list too. Alternated over `repeats` fresh starts.
 */
export async function heapAfterStartup(variants, scriptOf, repeats, log) {
  const samples = Object.fromEntries(variants.map((variant) => [variant, { startup: [], listed: [], rss: [] }]))
  for (let repeat = 0; repeat < repeats; repeat++) {
    for (const variant of variants) {
      const inspected = await startInspected(variant, scriptOf(variant))
      try {
        const { call } = VARIANTS[variant]
        await verifyCall(inspected.target.endpoint, call.request, call.answer)
        samples[variant].startup.push(await inspected.heapBytes())
        samples[variant].rss.push(inspected.rssBytes())
        if (toolCount(variant)) {
          await listPages(inspected.target, toolCount(variant))
          samples[variant].listed.push(await inspected.heapBytes())
        }
      } finally {
        await inspected.dispose()
      }
    }
    log(
      `  heap ${repeat + 1}/${repeats}: ${variants.map((v) => `${v} ${(samples[v].startup.at(-1) / 1024).toFixed(0)} KiB`).join(', ')}`,
    )
  }
  return Object.fromEntries(
    variants.map((variant) => {
      const { startup, listed, rss } = samples[variant]
      return [
        variant,
        {
          heapBytes: median(startup),
          listedHeapBytes: listed.length ? median(listed) : undefined,
          rssBytes: median(rss),
          samples: startup,
        },
      ]
    }),
  )
}
