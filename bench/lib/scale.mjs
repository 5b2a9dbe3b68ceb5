/**
 * Fan-out at scale (issue 40): one change to thousands of streams over four isolates of one
 * workerd (the fan-out Worker four times, sharing its Durable Objects: scripts/lib/pair.mjs with
 * `isolates: 4`, as `npm run dev:pair -- --isolates 4` runs). At each point of the curve (1,000,
 * 2,000, 5,000 and 10,000 listen streams; quick: 200), a fresh workerd holds N
 * `subscriptions/listen` streams on `bench://fanout` and N/5 2025-11-25 sessions' GET streams
 * (each session `initialize`d and subscribed there), spread round-robin over the four isolates.
 * Every stream is one listener of the one topic's hub shard: its object serves `capacity` of
 * them (the library's `HUB_CAPACITY` unless `BENCH_SCALE_CAPACITY` says otherwise) and the rest
 * go to its relays, which the Worker's `GET /hub` lists with their sockets.
 *
 * Then rounds of one `tools/call touch` on the first isolate (fanout.mjs), at least 500 ms apart
 * (sparse changes: a 2025 stream read its session's facts from the ledger again for each before
 * streams kept them, server/legacy/stream-facts.ts; the pacing is kept so figures compare):
 * call → first and last delivery (p50/p99 over rounds), the call's own answer, and workerd's
 * CPU (all threads' on-CPU time from /proc, the quantity utime + stime count, finer) over the
 * rounds ÷ deliveries. Memory: workerd's RSS (the whole process: four isolates, the hub objects,
 * the ledger objects; no per-object figure exists) just before and after the streams opened.
 * Every stream must hear every round's update exactly once.
 *
 * Over HTTP each stream is a socket in this process and two descriptors in workerd (it dup()s
 * each connection's socket; past its limit it logs "dup(): Too many open files" and drops
 * connections), and each session's ledger object holds its SQLite files open (past the limit:
 * SQLITE_CANTOPEN, "the session ledger could not be reached"): a point that does not fit
 * `ulimit -n` (which workerd inherits) is not run but reported as skipped, with the limit it
 * needs (bench/README.md). The curve is then taken again with the streams held inside workerd
 * (`scaleBindingListeners`: 1,000, 5,000 and 10,000; quick: 100): a driver Worker in the same workerd
 * opens them over service bindings (scale-driver.mjs), so they cost no descriptor and 10,000 fit;
 * its reading runs on workerd's thread, beside the server (bench/README.md says what that changes).
 */
import { readFileSync } from 'node:fs'
import { LEDGER_PACE_MS, openSession, openStream } from './fanout-2025.mjs'
import { fanoutRounds, inBatches, openListener, shareVars, withPair } from './fanout.mjs'
import { isAlive, rssBytes } from './proc.mjs'
import { DRIVER, openInWorkerd } from './scale-driver.mjs'

export const SCALE_ISOLATES = 4
/** Descriptors besides the streams' (workerd's own, its Durable Objects' files, the builds). */
const SPARE_FDS = 1024
/** workerd's descriptors per HTTP connection, and per session (its ledger object's SQLite files, at most), module header. */
const WORKERD_FDS_PER_STREAM = 2
const WORKERD_FDS_PER_SESSION = 2

/** This process's open-file limit (soft), which workerd inherits. */
function fileLimit() {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((row) => row.startsWith('Max open files'))
  const soft = line?.split(/\s{2,}/)[1]
  return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft)
}

/** The sessions beside `listeners` listen streams. */
export const sessionsFor = (listeners, share) => Math.round(listeners * share)

/** The point's streams held by this process over HTTP, round-robin over the isolates. */
async function overHttp(endpoints, listeners, sessions, stage) {
  const fanout = fanoutRounds(endpoints[0], listeners + sessions.length, LEDGER_PACE_MS)
  const opened = []
  const close = () => Promise.all(opened.map((stream) => stream.close()))
  try {
    stage('opening listen streams')
    opened.push(...(await inBatches(listeners, (i) => openListener(endpoints[i % endpoints.length], `l${i}`, fanout.onUpdate))))
    stage('opening GET streams')
    opened.push(...(await inBatches(sessions.length, (i) => openStream(sessions[i], fanout.onUpdate))))
  } catch (error) {
    await close()
    throw error
  }
  return {
    async measure(pid, rounds) {
      const figures = await fanout.measure(pid, rounds)
      const wrong = opened.filter((stream) => stream.heard !== rounds + 1)
      if (wrong.length > 0) {
        throw new Error(`${wrong.length}/${opened.length} streams heard ${wrong[0].heard} updates of ${rounds + 1} rounds`)
      }
      return figures
    },
    close,
  }
}

/** The point's streams held inside workerd by the driver Worker (scale-driver.mjs). */
async function inWorkerd(endpoints, driverUrl, listeners, sessions, rounds, stage) {
  stage('opening listen and GET streams in workerd')
  const targets = sessions.map(({ endpoint, sessionId }) => ({ target: endpoints.indexOf(endpoint), sessionId }))
  return openInWorkerd(driverUrl, endpoints[0], listeners, targets, rounds + 1, LEDGER_PACE_MS)
}

/**
 * One point of the curve on a fresh workerd (module header), its streams over `transport`:
 * `http` (sockets of this process) or `binding` (the driver Worker's, over service bindings).
 */
async function point(endpoints, driverUrl, pid, { listeners, sessions, rounds, transport }) {
  const rssStart = rssBytes(pid)
  const progress = {}
  const stage = (name) => {
    progress.stage = name
  }
  let streams
  try {
    stage('opening sessions')
    const opened = await inBatches(sessions, (i) => openSession(endpoints[i % endpoints.length]))
    const rssBefore = rssBytes(pid)
    const openStarted = performance.now()
    streams =
      transport === 'binding'
        ? await inWorkerd(endpoints, driverUrl, listeners, opened, rounds, stage)
        : await overHttp(endpoints, listeners, opened, stage)
    const openMs = performance.now() - openStarted
    const rssAfter = rssBytes(pid)
    const { capacity, objects } = await (await fetch(new URL('/hub', endpoints[0]))).json()
    stage('rounds')
    const figures = await streams.measure(pid, rounds)
    return {
      listeners,
      sessions,
      transport,
      isolates: endpoints.length,
      paceMs: LEDGER_PACE_MS,
      capacity,
      objects,
      ...figures,
      openMs,
      rssStart,
      rssBefore,
      rssAfter,
      rssBytesPerStream: (rssAfter - rssBefore) / (listeners + sessions),
    }
  } catch (error) {
    // What a failed point reached, and whether workerd was still there, instead of losing the curve.
    const alive = isAlive(pid)
    return {
      listeners,
      sessions,
      transport,
      isolates: endpoints.length,
      failed: `${progress.stage}: ${error.cause?.message ?? error.message}`,
      workerdAlive: alive,
      rssAtFailure: alive ? rssBytes(pid) : null,
    }
  } finally {
    await streams?.close()
  }
}

/** The descriptors workerd needs for a point: the streams' sockets over HTTP, and the ledger objects' files. */
const fdsNeeded = (listeners, sessions, transport) =>
  (transport === 'http' ? (listeners + sessions) * WORKERD_FDS_PER_STREAM : 0) + sessions * WORKERD_FDS_PER_SESSION + SPARE_FDS

/**
 * The curve: each listener count (with its sessions) on a fresh four-isolate workerd, over HTTP
 * (`scaleListeners`), then with the streams inside workerd (`scaleBindingListeners`): the same
 * count over both shows what the sockets cost, and a count past the file limit over HTTP runs there.
 */
export async function fanoutScale(
  { scaleListeners, scaleBindingListeners, scaleSessionShare, scaleRounds: rounds, scaleCapacity, scaleShare },
  log,
) {
  const limit = fileLimit()
  const vars = { FANOUT_LISTEN_STREAMS: String(Math.max(1000, ...scaleListeners, ...scaleBindingListeners)) }
  if (scaleCapacity !== undefined) vars.FANOUT_CAPACITY = String(scaleCapacity)
  Object.assign(vars, shareVars(scaleShare))
  const plan = [
    ...scaleListeners.map((listeners) => ({ listeners, transport: 'http' })),
    ...scaleBindingListeners.map((listeners) => ({ listeners, transport: 'binding' })),
  ]
  const points = []
  for (const { listeners, transport } of plan) {
    const sessions = sessionsFor(listeners, scaleSessionShare)
    const needed = fdsNeeded(listeners, sessions, transport)
    const over = transport === 'http' ? 'over HTTP' : 'held inside workerd (service bindings)'
    if (limit < needed) {
      const why = transport === 'http' ? 'workerd holds two descriptors per connection and' : 'workerd holds'
      const failed = `skipped: ${listeners + sessions} streams ${over} need \`ulimit -n ${needed}\` (${why} the ledger objects' files), the limit is ${limit}`
      log(`fan-out at scale: ${listeners} listen streams ${failed}`)
      points.push({ listeners, sessions, transport, isolates: SCALE_ISOLATES, failed, workerdAlive: false, skipped: true })
      continue
    }
    log(
      `fan-out at scale: ${listeners} listen streams and ${sessions} 2025 sessions over ${SCALE_ISOLATES} isolates, ${over}, ${rounds} rounds`,
    )
    const figures = await withPair(
      'hub',
      (endpoints, pid, driverUrl) => point(endpoints, driverUrl, pid, { listeners, sessions, rounds, transport }),
      { isolates: SCALE_ISOLATES, vars, driver: transport === 'binding' ? DRIVER : undefined },
    )
    log(
      figures.failed
        ? `  failed while ${figures.failed} (workerd ${figures.workerdAlive ? 'still running' : 'gone'})`
        : `  ${figures.objects.length} hub objects (most sockets on one: ${Math.max(...figures.objects.map((o) => o.sockets))}), ` +
            `last delivery p50 ${figures.lastP50Ms.toFixed(0)} ms, p99 ${figures.lastP99Ms.toFixed(0)} ms`,
    )
    log(`  ${JSON.stringify(figures)}`)
    points.push(figures)
  }
  return { isolates: SCALE_ISOLATES, fileLimit: limit, sharedSockets: scaleShare, points }
}
