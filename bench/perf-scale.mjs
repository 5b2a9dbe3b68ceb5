#!/usr/bin/env node
/**
 * `node bench/perf-scale.mjs [listeners] [rounds] [--per-stream]`: where workerd's CPU per delivery
 * goes at a point of the scale step held inside workerd (lib/scale.mjs, `transport: 'binding'`),
 * native code included, which a V8 CPU profile does not split (it charges workerd's stream and
 * socket work to whatever JavaScript called it, or to `(program)`). The four isolates and the
 * driver Worker run as the step runs them (default 2,000 listen streams + 400 2025 GET streams,
 * 8 rounds); Linux `perf` samples workerd's threads with call stacks (frame pointers: workerd's
 * binary keeps its symbols) from the second round on, and V8 writes a map of its compiled code
 * (`--perf-basic-prof`, Miniflare's `MINIFLARE_WORKERD_V8_FLAGS`) so JavaScript frames are named.
 * Each sample is put in one bucket (the first rule of `BUCKETS` its stack meets), printed as a
 * share and as µs of the CPU per delivery measured in the same run (perf's own cost included, so
 * the figure is higher than the scale step's). The fan-out Worker is bundled as the step bundles
 * it (minified: JavaScript frames keep their file positions). Needs `perf` (linux-perf) and
 * permission to attach to workerd; never part of `npm test`. About a minute at 2,000. Hub sockets
 * are shared, as the durable template ships them (`--share` was the flag for that before
 * 8cd7854 and is still taken); `--per-stream`: one per stream.
 */
import { spawn, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { TMP } from './lib/env.mjs'
import { LEDGER_PACE_MS, openSession } from './lib/fanout-2025.mjs'
import { inBatches, withPair } from './lib/fanout.mjs'
import { SCALE_ISOLATES } from './lib/scale.mjs'
import { DRIVER, openInWorkerd } from './lib/scale-driver.mjs'

const args = process.argv.slice(2)
const share = !args.includes('--per-stream')
const [listeners = 2000, rounds = 8] = args.filter((arg) => !arg.startsWith('--')).map(Number)
const sessions = Math.round(listeners / 5)
const data = join(TMP, 'perf-scale.data')

/** Buckets, first match wins: `js` tests the innermost named JavaScript frame, `native` any frame of the stack. */
const BUCKETS = [
  { name: 'driver: its JavaScript (read loop, decode, count) and what it calls', js: /scale-driver/ },
  { name: 'mcp-edge: hub object publish and relay (its sends included)', js: /\b(relay|publish)\b/, outer: true },
  { name: 'mcp-edge: SSE pull (next message, framing, encode, enqueue)', js: /\bpull\b/, outer: true },
  { name: 'mcp-edge: stream wake-up and delivery (hub message → listener → outbox)', js: /./ },
  { name: 'GC', native: /CollectGarbage|ConcurrentMarking|Sweeper|cppgc::internal::Marker|Scavenger|MinorGCJob|MarkCompact/ },
  {
    name: "driver: workerd's read of the body (resume, read promise)",
    native: /resumeAfterIo<kj::Array<unsigned char>|ReadableStreamInternalController::read/,
  },
  { name: 'workerd: SSE body pump (the JavaScript stream into the response)', native: /pumpToImpl|[Dd]rainingRead/ },
  { name: 'workerd: hub WebSocket send and receive', native: /LegacyWebSocketAdapter|WebSocketPipeImpl/ },
  { name: "workerd: isolate lock queue (a request's turn, cross-request wake-ups)", native: /AsyncLockQueue/ },
  { name: 'workerd: other promise continuations', native: /RunMicrotasks/ },
  { name: 'workerd: event loop, malloc, kernel, other', native: /./ },
]

function bucket(stack) {
  const js = stack.filter((frame) => frame.startsWith('JS:'))
  for (const rule of BUCKETS) {
    if (rule.js && js.length > 0 && rule.js.test(rule.outer ? js.at(-1) : js[0])) return rule.name
    if (rule.native && js.length === 0 && stack.some((frame) => rule.native.test(frame))) return rule.name
  }
  return BUCKETS.at(-1).name
}

/** Samples per bucket from `perf script` (one stack per sample, leaf first, blank line between). */
function readSamples() {
  const run = spawnSync('perf', ['script', '-i', data, '-F', 'ip,sym'], { encoding: 'utf8', maxBuffer: 2 ** 31 })
  if (run.status !== 0) throw new Error(`perf script failed: ${run.stderr}`)
  const counts = new Map()
  let total = 0
  for (const sample of run.stdout.split(/\n\s*\n/)) {
    const stack = sample
      .split('\n')
      .filter((line) => /^\s/.test(line))
      .map((line) => line.trim().replace(/^[0-9a-f]+\s+/, ''))
    if (stack.length === 0) continue
    const name = bucket(stack)
    counts.set(name, (counts.get(name) ?? 0) + 1)
    total++
  }
  return { counts, total }
}

process.env.MINIFLARE_WORKERD_V8_FLAGS = '--perf-basic-prof --interpreted-frames-native-stack'
const vars = { FANOUT_LISTEN_STREAMS: String(Math.max(1000, listeners)) }
vars.FANOUT_SHARE_SOCKETS = share ? '1' : '0'
const figures = await withPair(
  'hub',
  async (endpoints, pid, driverUrl) => {
    const opened = await inBatches(sessions, (i) => openSession(endpoints[i % endpoints.length]))
    const targets = opened.map(({ endpoint, sessionId }) => ({ target: endpoints.indexOf(endpoint), sessionId }))
    const streams = await openInWorkerd(driverUrl, endpoints[0], listeners, targets, rounds + 1, LEDGER_PACE_MS)
    let perf
    // From the second round on (`measure` runs a warm-up round first, at least LEDGER_PACE_MS long).
    const start = setTimeout(() => {
      perf = spawn('perf', ['record', '-g', '-F', '4999', '-p', String(pid), '-o', data], { stdio: 'ignore' })
    }, LEDGER_PACE_MS * 2)
    try {
      return await streams.measure(pid, rounds)
    } finally {
      clearTimeout(start)
      if (perf) {
        perf.kill('SIGINT')
        await new Promise((done) => perf.on('exit', done))
      }
      streams.close()
    }
  },
  { isolates: SCALE_ISOLATES, vars, driver: DRIVER },
)
const { counts, total } = readSamples()
const perDelivery = figures.cpuUsPerNotification
console.log(
  `${listeners} listen + ${sessions} GET streams held inside workerd, ${share ? 'shared hub sockets' : 'a hub socket per stream'}, ${rounds} rounds: ` +
    `${perDelivery.toFixed(1)} µs of workerd CPU a delivery (perf on), last delivery p50 ${figures.lastP50Ms.toFixed(0)} ms; ${total} samples (${data})\n`,
)
console.log('| where | share | µs a delivery |\n| --- | --- | --- |')
for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1]))
  console.log(`| ${name} | ${((100 * count) / total).toFixed(1)}% | ${((perDelivery * count) / total).toFixed(1)} |`)
