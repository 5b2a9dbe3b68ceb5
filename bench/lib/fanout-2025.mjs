/**
 * The 2025-era side of notification fan-out (mcp-edge only), on the fan-out Worker with its
 * McpEventHub and McpSessionLedger:
 *
 * - on the pair (fanout.mjs: two isolates of one workerd, no inspector): workerd's CPU per second
 *   while it idles with nothing open (a third of `idleWindowMs`); then `sessions` 2025-11-25
 *   sessions, half on each isolate, each `initialize`d, subscribed to `bench://fanout`
 *   (`resources/subscribe`) and holding its GET stream there, with workerd's RSS just before and
 *   just after the streams opened. Then rounds of one `touch` on the first isolate (fanout.mjs),
 *   each starting at least `LEDGER_PACE_MS` after the previous one: changes sparser than an
 *   isolate's 400 ms cache of a session's facts, which every stream read again for each round
 *   before streams kept their facts until a change of them is announced (stream-facts.ts). Every stream must hear every round's
 *   update exactly once. Last, `idleSettleMs` after the last round (workerd evicts the idle ledger
 *   objects and hibernates the hub about 10 s after their last use, at a CPU cost of its own), workerd's
 *   CPU per second over `idleWindowMs` with the streams open: less the first reading, ÷ streams,
 *   what an idle stream costs. A 15 s window holds one keepalive comment per stream.
 * - in one isolate with the inspector on (heap.mjs; a step of its own, no CPU figure taken there):
 *   the isolate's heap after a full collection, and workerd's RSS, with `heapStreams` sessions
 *   subscribed and no stream, then with their GET streams open. That isolate also runs the hub
 *   and the ledger objects, so their share of a stream (its WebSocket, its ledger row) is in it.
 *
 * Sessions and streams are opened OPEN_BATCH at a time, with the requests a 2025 client sends
 * (bench/lib/mcp.mjs): no Origin header, and the Host fetch sets (127.0.0.1, a loopback name).
 */
import { counter } from './count-marker.mjs'
import { fanoutRounds, inBatches, UPDATE, URI, withPair } from './fanout.mjs'
import { startInspected } from './heap.mjs'
import { LEGACY_VERSION, legacyConnect, legacyRequest, send } from './mcp.mjs'
import { cpuMs, rssBytes } from './proc.mjs'

/** Longer than the ledger cache's 400 ms (server/legacy/session-ledger.ts; module header). */
export const LEDGER_PACE_MS = 500
/** After opening sessions or streams, before a heap reading: their requests and writes are over. */
const SETTLE_MS = 500

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** A 2025-11-25 session on `endpoint`, subscribed to URI. */
export async function openSession(endpoint) {
  const sessionId = await legacyConnect(endpoint)
  if (!sessionId) throw new Error(`${endpoint} minted no session id`)
  const { status, json } = await send(endpoint, legacyRequest('resources/subscribe', { uri: URI }, sessionId))
  if (status !== 200 || JSON.stringify(json?.result) !== '{}') {
    throw new Error(`resources/subscribe answered HTTP ${status} ${JSON.stringify(json)}`)
  }
  return { endpoint, sessionId }
}

/** The headers of a 2025-11-25 client's GET stream for its session. */
export const streamHeaders = (sessionId) => ({
  accept: 'text/event-stream',
  'mcp-protocol-version': LEGACY_VERSION,
  'mcp-session-id': sessionId,
})

/** The session's GET stream; `onUpdate(at)` per `notifications/resources/updated`; `heard` counts them. */
export async function openStream({ endpoint, sessionId }, onUpdate) {
  const controller = new AbortController()
  const headers = streamHeaders(sessionId)
  const response = await fetch(endpoint, { method: 'GET', headers, signal: controller.signal })
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    throw new Error(`GET ${endpoint} answered HTTP ${response.status}: ${await response.text()}`)
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  const updates = counter(UPDATE)
  const stream = {
    heard: 0,
    close() {
      controller.abort()
      return reader.cancel().catch(() => {})
    },
  }
  const pump = async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      for (let n = updates(value); n > 0; n--) {
        stream.heard++
        onUpdate(performance.now())
      }
    }
  }
  pump().catch(() => {})
  return stream
}

/** workerd's CPU per second of wall time over `ms`. */
async function cpuPerSecond(pid, ms) {
  const before = cpuMs(pid)
  const started = performance.now()
  await sleep(ms)
  return ((cpuMs(pid) - before) * 1000) / (performance.now() - started)
}

/** Sessions, rounds and idle cost on the pair (module header). */
export async function legacyFanout({ fanoutSessions: count, fanoutRounds: rounds, idleWindowMs, idleSettleMs }, log) {
  log(`2025 sessions: ${count} over 2 isolates with their GET streams, ${rounds} rounds, then ${idleWindowMs / 1000} s idle`)
  return withPair('hub', async (endpoints, pid) => {
    const baselineCpuMsPerSecond = await cpuPerSecond(pid, idleWindowMs / 3)
    const sessions = await inBatches(count, (i) => openSession(endpoints[i % endpoints.length]))
    const fanout = fanoutRounds(endpoints[0], count, LEDGER_PACE_MS)
    let streams = []
    try {
      const rssBefore = rssBytes(pid)
      const openStarted = performance.now()
      streams = await inBatches(count, (i) => openStream(sessions[i], fanout.onUpdate))
      const openMs = performance.now() - openStarted
      const rssAfter = rssBytes(pid)
      const figures = await fanout.measure(pid, rounds)
      const wrong = streams.filter((stream) => stream.heard !== rounds + 1)
      if (wrong.length > 0) {
        throw new Error(`${wrong.length}/${count} streams heard ${wrong[0].heard} updates of ${rounds + 1} rounds`)
      }
      await sleep(idleSettleMs)
      const streamsCpuMsPerSecond = await cpuPerSecond(pid, idleWindowMs)
      return {
        sessions: count,
        isolates: endpoints.length,
        paceMs: LEDGER_PACE_MS,
        ...figures,
        idle: {
          windowMs: idleWindowMs,
          baselineWindowMs: idleWindowMs / 3,
          settleMs: idleSettleMs,
          openMs,
          baselineCpuMsPerSecond,
          streamsCpuMsPerSecond,
          cpuUsPerSecondPerStream: ((streamsCpuMsPerSecond - baselineCpuMsPerSecond) * 1000) / count,
          rssBefore,
          rssAfter,
          rssBytesPerStream: (rssAfter - rssBefore) / count,
        },
      }
    } finally {
      await Promise.all(streams.map((stream) => stream.close()))
    }
  })
}

/** Heap and RSS per GET stream in one inspected isolate (module header). */
export async function legacyStreamHeap(scriptPath, { heapStreams: count }, log) {
  log(`2025 session streams, heap through the inspector: ${count} streams in one isolate`)
  const inspected = await startInspected('fanout', scriptPath)
  let streams = []
  try {
    const { endpoint } = inspected.target
    const sessions = await inBatches(count, () => openSession(endpoint))
    await sleep(SETTLE_MS)
    const heapBefore = await inspected.heapBytes()
    const rssBefore = inspected.rssBytes()
    streams = await inBatches(count, (i) => openStream(sessions[i], () => {}))
    await sleep(SETTLE_MS)
    const heapAfter = await inspected.heapBytes()
    const rssAfter = inspected.rssBytes()
    return {
      streams: count,
      heapBefore,
      heapAfter,
      heapBytesPerStream: (heapAfter - heapBefore) / count,
      rssBefore,
      rssAfter,
      rssBytesPerStream: (rssAfter - rssBefore) / count,
    }
  } finally {
    await Promise.all(streams.map((stream) => stream.close()))
    await inspected.dispose()
  }
}
