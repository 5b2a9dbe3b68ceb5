/**
 * Memory under load, in one isolate (the extras Worker, started with the inspector in a step of
 * its own, so no CPU figure is taken with it on):
 *
 * - `calls` concurrent streaming calls: each `stream` call sends `chunks` partial results paced by
 *   a timer, slowly enough that all are open at once. Once every call has delivered its first
 *   chunk: the heap after a full collection (what the open calls hold) and workerd RSS; the live
 *   heap and RSS are also sampled while they run, and their peaks reported. Every call must deliver
 *   every chunk in order without a gap, and its own stats must show nothing merged or dropped and
 *   a queue that never exceeded its budget. Then the same number of calls, each a burst of
 *   `burstChunks` chunks of `burstBytes` as fast as its stream takes them: peaks of heap and RSS,
 *   and the largest queue any stream held, which must stay within its budget.
 * - `listeners` open `subscriptions/listen` streams (list changes of tools): heap (after a full
 *   collection) and RSS once all are acknowledged, workerd CPU per second while they idle, then
 *   one `notifications/tools/list_changed` (from the `notify_tools` tool) that every stream must
 *   receive, with the time until the last did. Then all are closed, and the step waits until
 *   workerd's CPU falls quiet (the streams' timers stopped) before the last heap reading.
 *
 * The heap after a full collection, before and after each part, shows what stays behind. Each part
 * opens its own connections (an undici Agent per part), so none reuses a keep-alive connection
 * the server may be closing.
 */
import { Agent, fetch } from 'undici'
import { importTs } from './bundle.mjs'
import { startInspected } from './heap.mjs'
import { mcpRequest, send } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { percentile } from './stats.mjs'

const SAMPLE_MS = 100

/** Samples heap (live) and RSS every SAMPLE_MS until stopped; keeps the peaks. */
function sampler(inspected) {
  const peak = { heapBytes: 0, rssBytes: 0 }
  let running = true
  const loop = (async () => {
    while (running) {
      peak.heapBytes = Math.max(peak.heapBytes, await inspected.heapBytes({ gc: false }))
      peak.rssBytes = Math.max(peak.rssBytes, inspected.rssBytes())
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS))
    }
  })()
  return async () => {
    running = false
    await loop
    return peak
  }
}

async function concurrentStreams(inspected, client, { calls, chunks, delayMs, budgetBytes, size = 0, allAtOnce = true }) {
  const { target } = inspected
  const dispatcher = new Agent({ connections: null })
  let opened = 0
  let allOpen
  const everyoneOpen = new Promise((resolve) => {
    allOpen = resolve
  })
  const one = async (index) => {
    const token = `mem-${index}`
    const request = mcpRequest(
      'tools/call',
      { name: 'stream', arguments: { count: chunks, delayMs, size } },
      { name: 'stream', capabilities: { partialResults: {} }, meta: { partialResultToken: token } },
    )
    const response = await fetch(target.endpoint, { ...request, dispatcher })
    const call = client.readToolCall(response, { partialResultToken: token })
    let received = 0
    let gaps = 0
    let step = await call.next()
    for (; !step.done; step = await call.next()) {
      if (step.value.type === 'gap') gaps++
      if (step.value.type !== 'partial') continue
      if (step.value.seq !== received) gaps++
      if (received++ === 0 && ++opened === calls) allOpen()
    }
    const stats = JSON.parse(step.value?.result?.content?.[0]?.text ?? 'null')
    return { received, gaps, stats }
  }
  const stop = sampler(inspected)
  const started = performance.now()
  const running = Array.from({ length: calls }, (_, index) => one(index))
  let allOpenMs = Number.NaN
  let openRssBytes = Number.NaN
  let openHeapBytes = Number.NaN
  if (allAtOnce) {
    await Promise.race([everyoneOpen, Promise.all(running)])
    allOpenMs = performance.now() - started
    if (opened !== calls) throw new Error(`only ${opened}/${calls} streams were open at once: pace the chunks more slowly`)
    openRssBytes = inspected.rssBytes()
    openHeapBytes = await inspected.heapBytes()
  }
  const results = await Promise.all(running)
  const peak = await stop()
  await dispatcher.close()
  const broken = results.filter(
    (result) =>
      result.received !== chunks ||
      result.gaps > 0 ||
      !result.stats ||
      result.stats.dropped > 0 ||
      result.stats.coalesced > 0 ||
      result.stats.peakBufferedBytes > budgetBytes,
  )
  if (broken.length > 0) throw new Error(`${broken.length}/${calls} streams broke: ${JSON.stringify(broken[0])}`)
  return {
    calls,
    chunks,
    delayMs,
    size,
    allOpenMs,
    openHeapBytes,
    openRssBytes,
    peakHeapBytes: peak.heapBytes,
    peakRssBytes: peak.rssBytes,
    ms: performance.now() - started,
    maxStreamPeakBytes: Math.max(...results.map((result) => result.stats.peakBufferedBytes)),
    budgetBytes,
  }
}

async function listenStreams(inspected, client, { listeners, idleMs, quietGiveUpMs }) {
  const { target } = inspected
  const dispatcher = new Agent({ connections: null })
  const controllers = []
  const streams = []
  for (let index = 0; index < listeners; index++) {
    const controller = new AbortController()
    controllers.push(controller)
    const request = mcpRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: `listen-${index}` })
    streams.push(
      (async () => {
        const response = await fetch(target.endpoint, { ...request, dispatcher, signal: controller.signal })
        const events = client.readSse(response.body)[Symbol.asyncIterator]()
        const next = async () => JSON.parse((await events.next()).value.data)
        const ack = await next()
        if (ack.method !== 'notifications/subscriptions/acknowledged' || ack.params.notifications.toolsListChanged !== true) {
          throw new Error(`listen ${index}: no acknowledgement: ${JSON.stringify(ack)}`)
        }
        return { next, events }
      })(),
    )
  }
  const opened = await Promise.all(streams)
  const openRssBytes = inspected.rssBytes()
  const openHeapBytes = await inspected.heapBytes()
  const cpuBefore = cpuMs(target.pid)
  const idleStarted = performance.now()
  await new Promise((resolve) => setTimeout(resolve, idleMs))
  const idleCpuMsPerSecond = ((cpuMs(target.pid) - cpuBefore) * 1000) / (performance.now() - idleStarted)
  const notified = performance.now()
  const arrivals = opened.map(async ({ next }, index) => {
    const message = await next()
    if (message.method !== 'notifications/tools/list_changed') throw new Error(`listen ${index}: got ${JSON.stringify(message)}`)
    return performance.now() - notified
  })
  const { status, json } = await send(
    target.endpoint,
    mcpRequest('tools/call', { name: 'notify_tools', arguments: {} }, { name: 'notify_tools' }),
  )
  if (status !== 200 || json?.result?.isError) throw new Error(`notify_tools failed: ${JSON.stringify(json)}`)
  const delays = await Promise.all(arrivals)
  for (const controller of controllers) controller.abort()
  await Promise.allSettled(opened.map(({ events }) => events.return?.()))
  const quietAfterMs = await quiet(target, idleCpuMsPerSecond / 20, quietGiveUpMs)
  await dispatcher.destroy()
  return {
    quietAfterMs,
    listeners,
    openHeapBytes,
    openRssBytes,
    idleMs,
    idleCpuMsPerSecond,
    notifiedAll: delays.length,
    deliveryP50Ms: percentile(delays, 50),
    deliveryMaxMs: Math.max(...delays),
  }
}

/**
 * Wait until workerd uses less than `msPerSecond` of CPU per second over a quarter second (what
 * the server does for closed streams is over; there is no event for it outside the isolate).
 * It takes about 15 s (the idle objects' eviction): a quick run gives up after `giveUpMs` and
 * says so (undefined), as the smoke run checks the steps, not the figures.
 */
async function quiet(target, msPerSecond, giveUpMs) {
  const started = performance.now()
  for (;;) {
    const before = cpuMs(target.pid)
    await new Promise((resolve) => setTimeout(resolve, 250))
    if ((cpuMs(target.pid) - before) * 4 < Math.max(msPerSecond, 5)) return performance.now() - started
    if (giveUpMs !== undefined && performance.now() - started > giveUpMs) return undefined
    if (performance.now() - started > 30_000) throw new Error('workerd did not fall quiet within 30 s of closing the streams')
  }
}

export async function memoryUnderLoad(
  scriptPath,
  { memoryCalls, memoryChunks, memoryDelayMs, burstChunks, burstBytes, listeners, listenIdleMs, quick },
  log,
) {
  const client = await importTs('packages/mcp-edge/dist/client/index.js', 'client')
  // The extras Worker keeps the default per-stream budget.
  const { DEFAULT_MAX_BUFFERED_BYTES: budgetBytes } = await importTs('packages/mcp-edge/dist/server/outbox.js', 'outbox')
  const inspected = await startInspected('extras', scriptPath)
  try {
    const baselineHeapBytes = await inspected.heapBytes()
    const baselineRssBytes = inspected.rssBytes()
    log(`  ${memoryCalls} concurrent streaming calls`)
    const streams = await concurrentStreams(inspected, client, {
      calls: memoryCalls,
      chunks: memoryChunks,
      delayMs: memoryDelayMs,
      budgetBytes,
    })
    const afterStreamsHeapBytes = await inspected.heapBytes()
    log(`  ${memoryCalls} concurrent streaming calls, each a burst of ${burstChunks} chunks of ${burstBytes} bytes`)
    const burst = await concurrentStreams(inspected, client, {
      calls: memoryCalls,
      chunks: burstChunks,
      delayMs: 0,
      size: burstBytes,
      budgetBytes,
      allAtOnce: false,
    })
    const afterBurstHeapBytes = await inspected.heapBytes()
    log(`  ${listeners} open listen streams`)
    const listen = await listenStreams(inspected, client, {
      listeners,
      idleMs: listenIdleMs,
      quietGiveUpMs: quick ? 1000 : undefined,
    })
    const afterListenHeapBytes = await inspected.heapBytes()
    return {
      baselineHeapBytes,
      baselineRssBytes,
      streams,
      afterStreamsHeapBytes,
      burst,
      afterBurstHeapBytes,
      listen,
      afterListenHeapBytes,
    }
  } finally {
    await inspected.dispose()
  }
}
