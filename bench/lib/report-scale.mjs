/**
 * The report's scale section (scale.mjs): the curve of one change's delivery from 1,000 to 10,000
 * listen streams (with 2025 sessions beside them) over four isolates, the hub objects that served
 * them, CPU per delivery and workerd's RSS, with the targets beside the figures. Also all that
 * `--only scale` prints.
 */
import { kib, mib, n, table } from './report-parts.mjs'
import { SCALE_LAST_P99_MS, scaleTargets } from './targets.mjs'

/** How a point's streams reached workerd (scale.mjs): sockets of the bench's process, or service bindings from a Worker beside the isolates. */
const TRANSPORT = { http: 'HTTP', binding: 'in workerd' }

const row = (p) => {
  const streams = `${p.listeners.toLocaleString('en')} + ${p.sessions.toLocaleString('en')}`
  const transport = TRANSPORT[p.transport ?? 'http']
  if (p.failed) {
    const workerd = p.workerdAlive ? 'workerd still running' : 'workerd gone'
    const what = p.skipped ? `**${p.failed}**` : `**failed** ${p.failed} (${workerd})`
    return [streams, transport, what]
  }
  const most = Math.max(...p.objects.map((o) => o.sockets))
  return [
    streams,
    transport,
    `${p.objects.length} (≤ ${p.capacity}; most ${most})`,
    `${n(p.firstP50Ms, 1)} / ${n(p.firstP99Ms, 1)}`,
    `${n(p.lastP50Ms, 1)} / ${n(p.lastP99Ms, 1)}`,
    n(p.callP50Ms, 1),
    n(p.cpuUsPerNotification, 1),
    `${mib(p.rssBefore)} → ${mib(p.rssAfter)} (${kib(p.rssBytesPerStream, 1)} KiB/stream)`,
    n(p.openMs / 1000, 1),
  ]
}

const targetRow = (t) => [
  t.name,
  `≤ ${t.limit}${t.unit}`,
  `${n(t.measured, 1)}${t.unit}`,
  t.met ? 'met' : `**missed** by ${(t.missedBy * 100).toFixed(1)}%: ${t.gap}`,
]

export function scaleSection(scale) {
  if (!scale) return ''
  const first = scale.points.find((p) => !p.failed)
  const targets = scaleTargets(scale)
  return [
    `### Fan-out at scale (fan-out Worker as ${scale.isolates} isolates, 127.0.0.1${scale.sharedSockets ? ', shared hub sockets as the durable template ships them' : ', a hub socket per stream (BENCH_SCALE_SHARE=0)'})`,
    '',
    table(
      [
        'listen streams + 2025 sessions',
        'streams held',
        'hub objects of the shard (capacity; most sockets on one)',
        'call → first stream, p50 / p99 (ms)',
        'call → last stream, p50 / p99 (ms)',
        'call answered, p50 (ms)',
        'workerd CPU per delivery (µs)',
        'workerd RSS before → after the streams opened (MiB)',
        'opening them (s)',
      ],
      scale.points.map(row),
    ),
    '',
    `Per point a fresh workerd runs the fan-out Worker as ${scale.isolates} isolates sharing its Durable Objects; the listen ` +
      "streams and the sessions' GET streams are spread round-robin over them, all on one topic (`bench://fanout`), so all " +
      'are listeners of one hub shard: its object serves up to the capacity and its relays the rest. One `tools/call touch` ' +
      `per round on the first isolate publishes the update (${first?.rounds ?? '–'} rounds after one warm-up, at least ` +
      `${first?.paceMs ?? '–'} ms apart, sparser than an isolate's 400 ms cache of a session's facts; an open 2025 stream keeps its own and reads the ledger only when a change of them is announced); times run from sending ` +
      "the call to the update at the first and the last of all the point's streams, on this process's clock, which reads " +
      'every stream on the same cores as workerd; p99 over so few rounds is close to the slowest round. CPU is the whole ' +
      'workerd process (every isolate, the hub objects, the ledger objects, the calls) over the rounds ÷ updates delivered. ' +
      'RSS is the whole process too: workerd gives no figure per Durable Object. Every stream heard every update exactly once.',
    '',
    "Streams held *over HTTP* are sockets of the bench's Node process. Each costs workerd two file descriptors (it dup()s " +
      'every accepted socket), so a point needing more than `ulimit -n` allows cannot run that way. Streams held *in workerd* ' +
      'are opened by a driver Worker in the same workerd (bench/workers/scale-driver) over service bindings to the four ' +
      'isolates: no sockets, so 10,000 fit. The driver counts each update as it reads it, on its own clock (epoch ms, ' +
      'advanced at each read), and the bench times from its clock at sending the call. Its reading is JavaScript on ' +
      "workerd's thread, so it is inside the CPU per delivery (and its readers inside the RSS), which the sockets' native work is not. The same count held " +
      'both ways shows the difference.',
    '',
    ...(targets.length > 0 ? [table(['target', 'limit', 'measured', 'verdict'], targets.map(targetRow))] : []),
    ...Object.keys(SCALE_LAST_P99_MS)
      .filter((count) => !targets.some((t) => t.id === `scaleLastP99At${count}`))
      .map(
        (count) => `No verdict at ${Number(count).toLocaleString('en')} listen streams: that point was not run or was skipped.`,
      ),
  ].join('\n')
}
