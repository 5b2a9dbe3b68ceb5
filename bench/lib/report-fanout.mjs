/**
 * The report's fan-out section (fanout.mjs, fanout-2025.mjs): first and last delivery of one change
 * to N listen streams and to N 2025 sessions' GET streams, CPU per notification, and what an idle
 * 2025 session stream costs. Also all that `--only fanout` prints.
 */
import { kib, mib, n, table } from './report-parts.mjs'

const KEEPALIVE_MS = 15_000

const row = (path, count, f) => [
  path,
  String(count),
  `${n(f.firstP50Ms, 2)} / ${n(f.firstP99Ms, 2)}`,
  `${n(f.lastP50Ms, 2)} / ${n(f.lastP99Ms, 2)}`,
  n(f.callP50Ms, 2),
  n(f.cpuUsPerNotification, 1),
]

/** What an idle window holds of the streams' 15 s keepalive comments (http/handler.ts). */
const keepalives = (ms) =>
  ms >= KEEPALIVE_MS
    ? `${n(ms / KEEPALIVE_MS, 1)} keepalive intervals, as many keepalive comments per stream`
    : `shorter than the ${KEEPALIVE_MS / 1000} s keepalive interval, so it may hold none`

function idleLines(legacy) {
  const { idle, heap } = legacy
  const lines = [
    `**An idle 2025 session stream** (nothing published): ${n(idle.cpuUsPerSecondPerStream, 2)} µs of workerd CPU per second ` +
      `per stream: ${n(idle.streamsCpuMsPerSecond, 2)} ms/s with the ${legacy.sessions} streams open on the pair, over ` +
      `${n(idle.windowMs / 1000, 1)} s (${keepalives(idle.windowMs)}) from ${n(idle.settleMs / 1000, 1)} s after the last round, ` +
      `against ${n(idle.baselineCpuMsPerSecond, 2)} ms/s over ${n(idle.baselineWindowMs / 1000, 1)} s before any session was opened. ` +
      `Opening the streams (100 at a time, ${n(idle.openMs)} ms) took workerd's RSS from ${mib(idle.rssBefore)} to ` +
      `${mib(idle.rssAfter)} MiB, ${kib(idle.rssBytesPerStream, 1)} KiB per stream (the whole process: both isolates, the hub's ` +
      'WebSockets, the ledger objects and their rows).',
  ]
  if (heap) {
    lines.push(
      '',
      `In one isolate with the inspector on (it also runs the hub and the ledger objects), ${heap.streams} streams took the ` +
        `heap after a full collection from ${kib(heap.heapBefore)} to ${kib(heap.heapAfter)} KiB, ` +
        `${kib(heap.heapBytesPerStream, 1)} KiB per stream, and workerd's RSS by ${kib(heap.rssBytesPerStream, 1)} KiB per stream.`,
    )
  }
  return lines
}

export function fanoutSection(fanout) {
  if (!fanout) return ''
  const rows = [
    ...fanout.hub.map((f) => row(`listen streams across ${f.isolates} isolates, McpEventHub`, f.listeners, f)),
    ...fanout.isolate.map((f) => row('listen streams in one isolate (`events: "isolate"`)', f.listeners, f)),
  ]
  const { legacy } = fanout
  if (legacy) {
    rows.push(
      row(
        `2025-11-25 sessions' GET streams across ${legacy.isolates} isolates, McpEventHub + McpSessionLedger`,
        legacy.sessions,
        legacy,
      ),
    )
  }
  const rounds = fanout.hub[0]?.rounds ?? legacy?.rounds
  return [
    `### Notification fan-out (fan-out Worker as two isolates, 127.0.0.1${fanout.sharedSockets ? ', shared hub sockets' : ', a hub socket per stream'})`,
    '',
    table(
      [
        'path',
        'streams',
        'call → first stream, p50 / p99 (ms)',
        'call → last stream, p50 / p99 (ms)',
        'call answered, p50 (ms)',
        'workerd CPU per notification (µs)',
      ],
      rows,
    ),
    '',
    `Per round one \`tools/call touch\` publishes \`notifications/resources/updated\`; times run from sending the call to ` +
      `the notification arriving at the first and the last stream, and to the call's own answer (through the hub it ` +
      `returns once the hub has sent to every stream), on this process's clock (${rounds} rounds after one warm-up). ` +
      'CPU is the whole workerd process (both isolates, the hub, the calls; for the in-isolate path also the 50 ms polling of ' +
      'every stream) over the rounds ÷ notifications delivered. The streams are read by this process on the same cores.' +
      (legacy
        ? ` The 2025 sessions are half on each isolate (initialized, subscribed and streaming there); their rounds start at least ` +
          `${legacy.paceMs} ms apart, sparser than an isolate's 400 ms cache of a session's facts (each stream keeps its own ` +
          'and reads the ledger only when a change of them is announced), and every stream heard every update exactly once.'
        : ''),
    ...(legacy ? ['', ...idleLines(legacy)] : []),
  ].join('\n')
}
