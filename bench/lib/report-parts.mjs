/**
 * The report's smaller sections and helpers: number formats, Markdown tables, the mcp-edge-only
 * figures (sealed state, latency of partial results, tasks), memory under load and the profiles.
 */
const KIB = 1024
export const n = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–')
export const x = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–')
export const kib = (bytes, digits = 0) => n(bytes / KIB, digits)
export const mib = (bytes) => n(bytes / KIB / KIB, 1)
export const range = ([low, high]) => (Number.isFinite(low) ? `${low.toFixed(2)}–${high.toFixed(2)}` : '–')
export const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join(
    '\n',
  )

export function stateAndTasks({ state, streaming, tasks, bundles }) {
  const stateRows = ['hmac.seal', 'hmac.open', 'aes.seal', 'aes.open'].map((key) => [
    key.replace('hmac', 'HMAC-SHA-256').replace('aes', 'AES-GCM').replace('.', ' '),
    n(state.workerd[key].usPerOp, 1),
    n(state.workerd[key].cpuUsPerOp, 1),
    n(state.node[key].usPerOp, 1),
  ])
  const { latency, firstChunk } = streaming
  const otherRows = [
    [
      '`ctx.partial` → chunk at the reader',
      `p50 ${n(latency.p50Ms, 2)} ms, p99 ${n(latency.p99Ms, 2)} ms`,
      `${latency.chunks} chunks ${latency.delayMs} ms apart; workerd clock has 1 ms steps`,
    ],
    [
      'request start → first chunk',
      `p50 ${n(firstChunk.p50Ms, 2)} ms, p99 ${n(firstChunk.p99Ms, 2)} ms`,
      `${firstChunk.calls} one-chunk calls`,
    ],
    [
      'task creation (tools/call → CreateTaskResult)',
      `p50 ${n(tasks.creation.p50Ms, 2)} ms, p99 ${n(tasks.creation.p99Ms, 2)} ms`,
      `${tasks.creation.calls} calls, SQLite Durable Object written first`,
    ],
    [
      'tasks/get',
      `p50 ${n(tasks.get.p50Ms, 2)} ms, p99 ${n(tasks.get.p99Ms, 2)} ms`,
      `${tasks.get.calls} calls on one completed task`,
    ],
    [
      'partial-log append, one task',
      `${n(tasks.log.chunksPerSecond)} chunks/s`,
      `${tasks.log.count} chunks, creation → completed seen by tasks/get (median of ${tasks.log.repeats}); log read back, ${tasks.log.verified} seqs verified; an empty task takes ${n(tasks.log.emptyTaskMs, 1)} ms`,
    ],
  ]
  return [
    '### Sealed requestState (µs per operation)',
    '',
    table(['operation', 'in workerd, wall', 'in workerd, CPU', 'in Node 20 WebCrypto'], stateRows),
    '',
    `workerd: /bench/state runs N operations in one request, timed from outside as (N ops − 0 ops) / N; ` +
      `N = ${state.workerd['hmac.seal'].iterations}, median of ${state.workerd['hmac.seal'].repeats}. ` +
      `Node: ${state.node['hmac.seal'].iterations} sequential operations.`,
    '',
    '### Partial-result latency and tasks (extras Worker, 127.0.0.1)',
    '',
    table(['figure', 'value', 'how'], otherRows),
    '',
    `The extras Worker (bench/workers/extras/worker.js) bundles to ${kib(bundles.extras.min.rawBytes, 2)} KiB, ` +
      `${kib(bundles.extras.min.gzipBytes, 2)} KiB gzip.`,
  ].join('\n')
}

export function memorySection({ memory: m }) {
  const s = m.streams
  const l = m.listen
  const rows = [
    ['idle, after start-up', `${kib(m.baselineHeapBytes)} KiB`, `${mib(m.baselineRssBytes)} MiB`, 'heap after a full collection'],
    [
      `${s.calls} concurrent streaming calls, all open`,
      `${kib(s.openHeapBytes)} KiB (live peak ${kib(s.peakHeapBytes)})`,
      `${mib(s.openRssBytes)} MiB (peak ${mib(s.peakRssBytes)})`,
      `${kib((s.openHeapBytes - m.baselineHeapBytes) / s.calls, 1)} KiB held per open call; each ${s.chunks} chunks ${s.delayMs} ms apart from a tool that awaits, all open ${n(s.allOpenMs)} ms after the first request; every chunk arrived in order, no gap; largest queue of any stream ${kib(s.maxStreamPeakBytes, 1)} KiB (budget ${kib(s.budgetBytes)} KiB)`,
    ],
    ['after they ended', `${kib(m.afterStreamsHeapBytes)} KiB`, '', 'after a full collection'],
    [
      `${m.burst.calls} concurrent bursts`,
      `live peak ${kib(m.burst.peakHeapBytes)} KiB`,
      `peak ${mib(m.burst.peakRssBytes)} MiB`,
      `each call ${m.burst.chunks} chunks of ${kib(m.burst.size, 0)} KiB as fast as its stream takes them, from a tool that awaits; all arrived, in order, in ${n(m.burst.ms)} ms; largest queue of any stream ${kib(m.burst.maxStreamPeakBytes, 1)} KiB (budget ${kib(m.burst.budgetBytes)} KiB)`,
    ],
    ['after they ended', `${kib(m.afterBurstHeapBytes)} KiB`, '', 'after a full collection'],
    [
      `${l.listeners} open listen streams`,
      `${kib(l.openHeapBytes)} KiB`,
      `${mib(l.openRssBytes)} MiB`,
      `${kib((l.openHeapBytes - m.afterBurstHeapBytes) / l.listeners, 1)} KiB held per stream; idle: ${n(l.idleCpuMsPerSecond, 1)} ms workerd CPU per second over ${n(l.idleMs / 1000, 1)} s (each stream polls its inbox every 50 ms); one list change reached all ${l.notifiedAll} (p50 ${n(l.deliveryP50Ms)} ms, last ${n(l.deliveryMaxMs)} ms)`,
    ],
    [
      'after they closed',
      `${kib(m.afterListenHeapBytes)} KiB`,
      '',
      l.quietAfterMs === undefined
        ? 'after a full collection, 1 s after closing (a quick run does not wait for workerd to fall quiet)'
        : `after a full collection, once workerd fell quiet (${n(l.quietAfterMs)} ms after closing)`,
    ],
  ]
  return [
    '## Memory under load (one isolate)',
    '',
    'The extras Worker in one workerd with the inspector on (a step of its own; no CPU figure above comes from it). ' +
      'Heap: the isolate’s used V8 heap (`Runtime.getHeapUsage`) after a full collection (a heap snapshot), unless marked live; ' +
      "RSS: the whole workerd process (Miniflare's services included), from /proc.",
    '',
    table(['state', 'isolate heap', 'workerd RSS', 'notes'], rows),
  ].join('\n')
}

function profileTable(profile) {
  const per = (ms) => n((ms * 1000) / profile.units, 1)
  const unit = profile.unit ?? 'unit'
  const rows = (list) => list.map((item) => [`\`${item.function}\``, per(item.ms), `${(item.share * 100).toFixed(1)}%`])
  const head = (first) => [first, `µs per ${unit}`, 'share']
  return [
    `### ${profile.name} (${profile.units} ${unit}s${profile.made ? ` of ${profile.made} made` : ''}; ${profile.file})`,
    '',
    `Sampled CPU: ${per(profile.totalMs)} µs per ${unit}${profile.startupMs ? ` (wall ${n(profile.startupMs, 1)} ms, median)` : ''}` +
      `${unit === 'start' ? `, ${per(profile.moduleMs)} of it under the module's evaluation (the import)` : ''}. By area: ` +
      profile.areas
        .slice(0, 6)
        .map((area) => `${area.function} ${per(area.ms)}`)
        .join(', ') +
      '.',
    '',
    ...(profile.srcCharged.length > 0
      ? [table(head('top mcp-edge functions, charged with what they call'), rows(profile.srcCharged.slice(0, 10))), '']
      : []),
    table(head('top functions by self time'), rows(profile.all.slice(0, 10))),
  ].join('\n')
}

export function profileSection(profile) {
  if (!profile) return ''
  const parts = [
    '## Where the time goes (profiles of the missed targets)',
    '',
    "V8's sampling profiler on each Worker's isolate (workerd, through the inspector, unminified build) while the " +
      'same workload ran, after an unprofiled warm-up. Start-up profiles are workerd’s too (50 µs): the Worker is served ' +
      'from a second isolate that imports its module on the first request, so the profile holds the module’s evaluation ' +
      "and the first call, not workerd's compiling the script or setting up the isolate and its Durable Objects; a start " +
      'the sampler joined late (its first sample already inside the module, or none in it) is not kept, and another is made. A console ' +
      'call is much dearer with the inspector on (the message goes to it), so the local-only row’s one warning weighs ' +
      'more there than it does without; the token row has none. Profiling only: the profiler slows the isolate, so compare ' +
      'shares and Workers with each other, not with the figures above. Units: requests, chunks or starts.',
  ]
  for (const item of [...profile.workerd, ...profile.startup]) parts.push('', profileTable(item))
  return parts.join('\n')
}
