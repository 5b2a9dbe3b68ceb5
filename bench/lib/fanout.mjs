/**
 * Notification fan-out (mcp-edge only), on the fan-out Worker (bench/workers/fanout/worker.js) run as two
 * isolates in one workerd (scripts/lib/pair.mjs, what `npm run dev:pair` runs):
 *
 * - across isolates: N listen streams (`subscriptions/listen` on `bench://fanout`), half on each
 *   isolate, delivery through the McpEventHub Durable Object;
 * - in one isolate: the same N streams on one isolate with `events: 'isolate'` (each stream polls
 *   its inbox every 50 ms).
 *
 * Per round, one `tools/call touch` (which publishes the update) is sent to the first isolate; the
 * time from sending it to the notification arriving at the first and at the last of the N streams
 * is taken on this process's clock. p50/p99 are over rounds. CPU is workerd's utime + stime over
 * all rounds (the whole process: both isolates, the hub, the calls, and for the in-isolate path its
 * polling) ÷ notifications delivered. Streams are read raw (a substring count), so the reader
 * costs little; it still shares the machine with workerd. The 2025-era sessions' streams reuse the
 * rounds and the pair (fanout-2025.mjs).
 */
import { mkdtempSync } from 'node:fs'
import { join } from 'node:path'
import { bundle, startPair } from '../../scripts/lib/pair.mjs'
import { counter } from './count-marker.mjs'
import { BENCH_DIR, TMP } from './env.mjs'
import { TEST_STATE_KEYS } from './keys.mjs'
import { mcpRequest, send } from './mcp.mjs'
import { cpuMs, isAlive, workerdChildren } from './proc.mjs'
import { percentile } from './stats.mjs'

export const URI = 'bench://fanout'
const ACK = 'notifications/subscriptions/acknowledged'
export const UPDATE = 'notifications/resources/updated'
export const OPEN_BATCH = 100
export const ROUND_TIMEOUT_MS = 30_000

/** A listen stream on `endpoint` for URI, once acknowledged; `onUpdate(at)` per update, `heard` counts them. */
export async function openListener(endpoint, id, onUpdate) {
  const response = await fetch(
    endpoint,
    mcpRequest('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] } }, { id }),
  )
  if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    throw new Error(`listen on ${endpoint} answered HTTP ${response.status}: ${await response.text()}`)
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  const acks = counter(ACK)
  const updates = counter(UPDATE)
  let acked
  const ready = new Promise((resolve) => {
    acked = resolve
  })
  const listener = { heard: 0, close: () => reader.cancel().catch(() => {}) }
  const pump = async () => {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      if (acks(value) > 0) acked()
      for (let n = updates(value); n > 0; n--) {
        listener.heard++
        onUpdate(performance.now())
      }
    }
  }
  pump().catch(() => {})
  await ready
  return listener
}

/** Open `count` streams, OPEN_BATCH at a time (`open(i)` opens stream i); returns them in order. */
export async function inBatches(count, open) {
  const opened = []
  for (let start = 0; start < count; start += OPEN_BATCH) {
    const batch = Array.from({ length: Math.min(OPEN_BATCH, count - start) }, (_, i) => start + i)
    opened.push(...(await Promise.all(batch.map(open))))
  }
  return opened
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Rounds of one `touch` on `endpoint`, a round starting at least `paceMs` after the previous one
 * started. `expect()`, called just before the touch is sent, resolves with the round's first and
 * last arrival on `clock`'s time line (or rejects: the round failed). `measure(pid, rounds,
 * expected)`: one warm-up round, then `rounds` timed ones: first and last arrival p50/p99, the
 * touch's own answer, and workerd's CPU per notification (`expected` per round).
 */
export function touchRounds(endpoint, paceMs, expect, clock = () => performance.now()) {
  let lastStart = -Infinity
  const touch = mcpRequest('tools/call', { name: 'touch', arguments: { uri: URI } }, { name: 'touch' })
  const round = async () => {
    const wait = lastStart + paceMs - performance.now()
    if (wait > 0) await sleep(wait)
    const arrivals = expect()
    arrivals.catch(() => {})
    const sent = clock()
    lastStart = performance.now()
    const { json } = await send(endpoint, touch)
    const answered = performance.now() - lastStart
    if (json?.result?.content?.[0]?.text !== 'touched') throw new Error(`touch failed: ${JSON.stringify(json)}`)
    const { first, last } = await arrivals
    return { first: first - sent, last: last - sent, answered }
  }
  return {
    async measure(pid, rounds, expected) {
      await round()
      const first = []
      const last = []
      const answered = []
      const cpuBefore = cpuMs(pid)
      for (let i = 0; i < rounds; i++) {
        const figures = await round()
        first.push(figures.first)
        last.push(figures.last)
        answered.push(figures.answered)
      }
      const cpu = cpuMs(pid) - cpuBefore
      return {
        rounds,
        firstP50Ms: percentile(first, 50),
        firstP99Ms: percentile(first, 99),
        lastP50Ms: percentile(last, 50),
        lastP99Ms: percentile(last, 99),
        callP50Ms: percentile(answered, 50),
        cpuUsPerNotification: (cpu * 1000) / (rounds * expected),
      }
    },
  }
}

/**
 * Rounds of one `touch` on `endpoint` (touchRounds), each awaiting `expected` arrivals on this
 * process's clock, reported through `onUpdate(at)`.
 */
export function fanoutRounds(endpoint, expected, paceMs = 0) {
  let arrivals = []
  let roundDone = () => {}
  const expect = () => {
    arrivals = []
    let timer
    return new Promise((resolve, reject) => {
      roundDone = () => resolve({ first: Math.min(...arrivals), last: Math.max(...arrivals) })
      timer = setTimeout(() => reject(new Error(`fan-out: ${arrivals.length}/${expected} notified`)), ROUND_TIMEOUT_MS)
      // A round whose touch failed leaves it running: it must not keep the process alive.
      timer.unref()
    }).finally(() => clearTimeout(timer))
  }
  const rounds = touchRounds(endpoint, paceMs, expect)
  return {
    onUpdate(at) {
      arrivals.push(at)
      if (arrivals.length === expected) roundDone()
    },
    measure: (pid, count) => rounds.measure(pid, count, expected),
  }
}

/** One configuration: `listeners` streams over `endpoints` (round-robin), `rounds` touches. */
async function measure(endpoints, pid, listeners, rounds) {
  const fanout = fanoutRounds(endpoints[0], listeners)
  let opened = []
  try {
    opened = await inBatches(listeners, (i) => openListener(endpoints[i % endpoints.length], `l${i}`, fanout.onUpdate))
    return { listeners, isolates: endpoints.length, ...(await fanout.measure(pid, rounds)) }
  } finally {
    await Promise.all(opened.map((listener) => listener.close()))
  }
}

let fanoutScript

/** The fan-out Worker as the run already built it (run.mjs: its build for the heap step), for every pair. */
export function useFanoutBuild(scriptPath) {
  fanoutScript = scriptPath
}

/**
 * The fan-out Worker as `isolates` (default two) isolates of one fresh workerd (state on disk in a
 * temp dir), with `vars` besides the mode, and the `driver` Worker beside them if given
 * (scripts/lib/pair.mjs); `run(endpoints, pid, driverUrl)`.
 */
export async function withPair(mode, run, { isolates = 2, vars = {}, driver } = {}) {
  const before = new Set(workerdChildren())
  const config = join(BENCH_DIR, 'workers/fanout/wrangler.jsonc')
  // Bundled once a run: the sources do not change between its pairs (each took a wrangler build).
  fanoutScript ??= bundle(config, mkdtempSync(join(TMP, 'fanout-build-')))
  const pair = await startPair({
    config,
    scriptPath: fanoutScript,
    port: 0,
    persistTo: mkdtempSync(join(TMP, `fanout-${mode}-`)),
    vars: { FANOUT_MODE: mode, MCP_STATE_KEYS: TEST_STATE_KEYS, ...vars },
    logLevel: 'warn',
    isolates,
    driver,
  })
  const pids = workerdChildren().filter((pid) => !before.has(pid))
  try {
    if (pids.length !== 1) throw new Error(`expected one new workerd child, found ${pids.length}`)
    return await run(
      pair.urls.map((origin) => `${origin}/mcp`),
      pids[0],
      pair.driverUrl,
    )
  } finally {
    await pair.dispose()
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL')
  }
}

/**
 * The fan-out Worker's `FANOUT_SHARE_SOCKETS` for `share` (config's `scaleShare`): shared hub
 * sockets unless told otherwise, as the durable template ships.
 */
export const shareVars = (share) => (share ? {} : { FANOUT_SHARE_SOCKETS: '0' })

/**
 * Fan-out figures for each listener count: across two isolates through the hub, and in one
 * isolate without it. Each count gets fresh isolates: a closed stream is noticed by the server
 * only at its next write, so the streams of one count would still be open (and counted against
 * the per-caller cap of 1,000) while the next count opens its own.
 */
export async function fanoutLatency({ fanoutListeners, fanoutRounds: rounds, scaleShare }, log) {
  const results = { hub: [], isolate: [], sharedSockets: scaleShare }
  const vars = shareVars(scaleShare)
  for (const listeners of fanoutListeners) {
    log(`fan-out through the hub: ${listeners} listen streams over 2 isolates, ${rounds} rounds`)
    results.hub.push(await withPair('hub', (endpoints, pid) => measure(endpoints, pid, listeners, rounds), { vars }))
  }
  for (const listeners of fanoutListeners) {
    log(`fan-out in one isolate: ${listeners} listen streams, ${rounds} rounds`)
    results.isolate.push(await withPair('isolate', (endpoints, pid) => measure(endpoints.slice(0, 1), pid, listeners, rounds)))
  }
  return results
}
