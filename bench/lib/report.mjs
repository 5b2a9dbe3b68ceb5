/**
 * Renders a run as Markdown (printed to the terminal and written to results.md) and writes the
 * raw figures to results.json.
 */
import { oauthBundleLine } from './oauth-bundle.mjs'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { taskEnginesMarkdown } from './task-engines.mjs'

const KIB = 1024
const n = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–')
const x = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–')
const table = (head, rows) =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join(
    '\n',
  )

/** One row of the comparison table from a summary metric (median + per-round ratios). */
function summaryRow(label, summary, metric, digits) {
  const { edge, sdk, hono } = summary
  return [
    label,
    n(edge[metric].median, digits),
    x(edge[metric].vsFloor),
    x(edge[metric].vsSdk),
    n(sdk[metric].median, digits),
    x(sdk[metric].vsFloor),
    n(hono[metric].median, digits),
  ]
}

/** A row from one figure per Worker (bundle sizes): ratios straight from the three figures. */
function plainRow(label, values, digits) {
  const { edge, sdk, hono } = values
  return [label, n(edge, digits), x(edge / hono), x(edge / sdk), n(sdk, digits), x(sdk / hono), n(hono, digits)]
}

function comparison(results) {
  const { load, startup, bundles, config } = results
  const size = (kind, key) => Object.fromEntries(['edge', 'sdk', 'hono'].map((w) => [w, bundles[w][kind][key] / KIB]))
  const rows = [
    summaryRow(`requests/s (c=${config.connections})`, load.summary, 'rps', 0),
    summaryRow('latency p50 (ms)', load.summary, 'p50Ms', 2),
    summaryRow('latency p99 (ms)', load.summary, 'p99Ms', 2),
    summaryRow('workerd CPU per tools/call (µs)', load.summary, 'cpuUsPerRequest', 0),
    summaryRow('  of which above the floor (µs)', load.summary, 'cpuOverFloorUs', 0),
    plainRow('bundle, minified (KiB)', size('min', 'rawBytes'), 2),
    plainRow('bundle, minified, gzip (KiB)', size('min', 'gzipBytes'), 2),
    plainRow('bundle, unminified (KiB)', size('raw', 'rawBytes'), 2),
    plainRow('bundle, unminified, gzip (KiB)', size('raw', 'gzipBytes'), 2),
    summaryRow('start-up: new Miniflare → first tools/call answer (ms)', startup.summary, 'totalMs', 0),
    summaryRow('  of which Miniflare ready (ms)', startup.summary, 'readyMs', 0),
    summaryRow('  of which first tools/call (ms)', startup.summary, 'firstCallMs', 1),
    summaryRow('start-up: workerd CPU, spawn → first answer (ms)', startup.summary, 'cpuMs', 0),
  ]
  return table(['', 'mcp-edge', '×floor', '×SDK', 'SDK v2', '×floor', 'Hono floor'], rows)
}

/** Other processes using more than this share of the machine during a run disturb the figures. */
const DISTURBED_SHARE = 0.1
const othersShare = (round) => Math.max(...['edge', 'sdk', 'hono'].map((w) => round[w].othersShare))

function rounds(load) {
  const rows = load.rounds.map((round, i) => [
    String(i + 1),
    ...['edge', 'sdk', 'hono'].flatMap((w) => [n(round[w].rps), n(round[w].cpuUsPerRequest), n(round[w].p99Ms, 1)]),
    `${(othersShare(round) * 100).toFixed(0)}%${othersShare(round) > DISTURBED_SHARE ? ' ⚠' : ''}`,
  ])
  const head = [
    'round',
    'edge req/s',
    'edge µs CPU',
    'edge p99',
    'SDK req/s',
    'SDK µs CPU',
    'SDK p99',
    'floor req/s',
    'floor µs CPU',
  ]
  return [
    table([...head, 'floor p99', 'other processes'], rows),
    '',
    '"other processes": the largest share of the machine (all cores) that processes other than workerd and the ' +
      `bench used during one of the round's three runs; ⚠ above ${DISTURBED_SHARE * 100}%.`,
  ].join('\n')
}

function disturbance(load) {
  const disturbed = load.rounds.filter((round) => othersShare(round) > DISTURBED_SHARE).length
  if (disturbed === 0) return 'No round was disturbed by other processes (see "Rounds").'
  return (
    `**${disturbed} of ${load.rounds.length} rounds ran while other processes used more than ` +
    `${DISTURBED_SHARE * 100}% of the machine** (see "Rounds"); on two cores that moves the figures: rerun on an idle machine.`
  )
}

function targetsTable(targets) {
  const rows = targets.map((t) => [
    t.name,
    `${t.atMost ? '≤' : '≥'} ${t.limit}${t.unit}`,
    `${t.measured.toFixed(t.unit === '×' ? 3 : 2)}${t.unit}`,
    t.met ? 'met' : `**missed** by ${(t.missedBy * 100).toFixed(1)}%: ${t.gap}`,
  ])
  return table(['target', 'limit', 'measured', 'verdict'], rows)
}

function extras({ state, streaming, tasks, bundles }) {
  const stateRows = ['hmac.seal', 'hmac.open', 'aes.seal', 'aes.open'].map((key) => [
    key.replace('hmac', 'HMAC-SHA-256').replace('aes', 'AES-GCM').replace('.', ' '),
    n(state.workerd[key].usPerOp, 1),
    n(state.workerd[key].cpuUsPerOp, 1),
    n(state.node[key].usPerOp, 1),
  ])
  const { throughput, latency, firstChunk } = streaming
  const otherRows = [
    [
      'partial results, one SSE stream: throughput',
      `${n(throughput.chunksPerSecond)} chunks/s`,
      `${throughput.chunks} chunks in ${n(throughput.ms)} ms, ${n(throughput.cpuUsPerChunk, 1)} µs workerd CPU/chunk, 0 gaps`,
    ],
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
    '### Partial results and tasks (extras Worker, 127.0.0.1)',
    '',
    table(['figure', 'value', 'how'], otherRows),
    '',
    `The extras Worker (bench/workers/extras.js) bundles to ${n(bundles.extras.min.rawBytes / KIB, 2)} KiB, ` +
      `${n(bundles.extras.min.gzipBytes / KIB, 2)} KiB gzip.`,
    '',
    oauthBundleLine(bundles),
  ].join('\n')
}

function fanoutSection(fanout) {
  if (!fanout) return ''
  const rows = ['hub', 'isolate'].flatMap((path) =>
    fanout[path].map((f) => [
      path === 'hub' ? `across ${f.isolates} isolates, McpEventHub` : 'in one isolate (`events: "isolate"`)',
      String(f.listeners),
      `${n(f.firstP50Ms, 2)} / ${n(f.firstP99Ms, 2)}`,
      `${n(f.lastP50Ms, 2)} / ${n(f.lastP99Ms, 2)}`,
      n(f.callP50Ms, 2),
      n(f.cpuUsPerNotification, 1),
    ]),
  )
  const rounds = fanout.hub[0]?.rounds
  return [
    '### Notification fan-out (fan-out Worker as two isolates, 127.0.0.1)',
    '',
    table(
      [
        'path',
        'listen streams',
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
      'every stream) over the rounds ÷ notifications delivered. The streams are read by this process on the same cores.',
  ].join('\n')
}

function profileSection(profile) {
  if (!profile) return ''
  const { workerd, node } = profile
  const { edge, sdk, hono } = workerd
  const perRequest = (worker, ms) => (ms * 1000) / workerd[worker].requests
  const rows = (worker, list) =>
    list.map((item) => [`\`${item.function}\``, n(perRequest(worker, item.ms), 1), `${(item.share * 100).toFixed(1)}%`])
  const head = (first) => [first, 'µs/request (profiled)', 'share of sampled CPU']
  const totals = {
    edge: perRequest('edge', edge.totalMs),
    sdk: perRequest('sdk', sdk.totalMs),
    hono: perRequest('hono', hono.totalMs),
  }
  const areaNames = [...new Set(['edge', 'sdk', 'hono'].flatMap((w) => workerd[w].areas.map((a) => a.function)))]
  const areaMs = (worker, area) => workerd[worker].areas.find((a) => a.function === area)?.ms ?? 0
  const areaRows = areaNames.map((area) => [area, ...['edge', 'sdk', 'hono'].map((w) => n(perRequest(w, areaMs(w, area)), 1))])
  return [
    '## Where the time goes: CPU profiles in workerd',
    '',
    "V8's sampling profiler (100 µs) on each Worker's isolate, through the inspector, while autocannon sent " +
      `${edge.requests} \`tools/call add\` requests (${edge.connections} connections) to its unminified build. ` +
      'Profiling only, never used for the figures above. The profiler slows the isolate, so compare shares and ' +
      "Workers with each other rather than with the CPU figures above; the isolate excludes Miniflare's entry worker. " +
      `Profiles (open in Chrome DevTools): ${edge.file}, ${sdk.file}, ${hono.file}.`,
    '',
    table(
      ['', 'mcp-edge', '×floor', '×SDK', 'SDK v2', '×floor', 'Hono floor'],
      [plainRow('sampled isolate CPU per request (µs, profiled)', totals, 0)],
    ),
    '',
    '#### Sampled CPU by area (µs/request, profiled)',
    '',
    table(['area', 'mcp-edge', 'SDK v2', 'Hono floor'], areaRows),
    '',
    '#### mcp-edge: top src/ functions by self time',
    '',
    table(head('function (source line)'), rows('edge', edge.srcSelf)),
    '',
    '#### mcp-edge: top src/ functions, charged with the non-src code they call (Web APIs, Hono, zod, natives)',
    '',
    table(head('function (source line)'), rows('edge', edge.srcCharged)),
    '',
    '#### mcp-edge: top functions overall by self time',
    '',
    table(head('function'), rows('edge', edge.all)),
    '',
    '#### Hono floor: top functions overall by self time (what every Worker pays)',
    '',
    table(head('function'), rows('hono', hono.all.slice(0, 10))),
    '',
    'Node, without workerd and Miniflare around the Worker: each Worker module (bundled with a ' +
      `\`cloudflare:workers\` shim) called in a loop of ${node.iterations} \`tools/call add\` (median of ${node.repeats}): ` +
      `mcp-edge ${n(node.usPerCall.edge)} µs/call, SDK ${n(node.usPerCall.sdk)} µs/call, Hono floor ${n(node.usPerCall.hono)} µs/call ` +
      `(mcp-edge ${x(node.usPerCall.edge / node.usPerCall.hono)} the floor, ${x(node.usPerCall.edge / node.usPerCall.sdk)} the SDK).`,
  ].join('\n')
}

export function toMarkdown(results) {
  const { machine: m, config: c } = results
  return [
    '# mcp-edge benchmark',
    '',
    `${m.date} · ${m.cpu}, ${m.cores} cores · Node ${m.node} · workerd ${m.workerd} (miniflare ${m.miniflare}) · ` +
      `wrangler ${m.wrangler} · hono ${m.hono} · zod ${m.zod} · @modelcontextprotocol/server ${m.sdk} · autocannon ${m.autocannon} · ` +
      `mcp-edge ${m.commit}${m.srcModified ? ' with uncommitted changes in src/' : ''}`,
    '',
    `Run: \`${c.command}\`${c.quick ? ' (QUICK: tiny counts, figures are not meaningful)' : ''}, ${n(results.runtimeSeconds)} s. ` +
      `Load: ${c.rounds} rounds × ${c.requests} requests per Worker at ${c.connections} connections, ` +
      `after ${c.warmupRequests} warm-up requests each; Workers alternated A, B, C per round. ${disturbance(results.load)}`,
    '',
    '## Targets',
    '',
    targetsTable(results.targets),
    '',
    '## mcp-edge vs the SDK v2 Worker vs a bare Hono floor',
    '',
    'Same `add` tool at `/mcp`, each in its own workerd (Miniflare API, 127.0.0.1, no inspector), built by ' +
      '`wrangler deploy --dry-run --outdir` with `minify = true`. Medians over rounds; ×floor and ×SDK are medians ' +
      'of per-round ratios; every response was checked byte for byte against the verified answer. CPU is workerd utime + stime (/proc/<pid>/stat, 10 ms ticks) over the run ÷ requests; ' +
      "it includes Miniflare's entry worker in the same process, which the floor pays too.",
    '',
    comparison(results),
    '',
    '### Rounds',
    '',
    rounds(results.load),
    '',
    '## mcp-edge only',
    '',
    extras(results),
    '',
    taskEnginesMarkdown(results.engines),
    fanoutSection(results.fanout),
    '',
    profileSection(results.profile),
  ].join('\n')
}

export function writeResults(dir, results, markdown) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'results.md'), `${markdown.trim()}\n`)
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
}
