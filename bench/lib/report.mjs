/**
 * Renders a run as Markdown (printed to the terminal and written to results.md) and writes the
 * raw figures to results.json: the targets with their spread, then each side-by-side comparison
 * (the floor in both eras, start-up, bundles, many tools, streaming), memory, the mcp-edge-only
 * figures, task engines and the profiles.
 */
import { moreBundlesLine } from './more-bundles.mjs'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { medians, ratio, ratioRange } from './compare.mjs'
import { DISTURBED_SHARE, disturbedRounds, othersShare, spread } from './history.mjs'
import { kib, memorySection, n, profileSection, range, stateAndTasks, table, x } from './report-parts.mjs'
import { fanoutSection } from './report-fanout.mjs'
import { scaleSection } from './report-scale.mjs'
import { peersSection } from './peers.mjs'
import { taskEnginesMarkdown } from './task-engines.mjs'
import { TOOL_VARIANTS } from './many-tools.mjs'
import { referenceOf, VARIANTS } from './variants.mjs'

const value = (t, v) => `${v.toFixed(t.unit === '×' ? 3 : 2)}${t.unit}`

/** The smallest and largest value of a target's figure `id` over the recent runs, when more than one measured it. */
function recentRuns(t, history, id) {
  const recent = spread(history, id)
  return recent && recent.runs > 1 ? `${value(t, recent.min)} – ${value(t, recent.max)} (${recent.runs} runs)` : ''
}

export function targetsTable(targets, history) {
  const rows = targets.map((t) => [
    t.name,
    `${t.atMost ? '≤' : '≥'} ${t.limit}${t.unit}`,
    value(t, t.measured),
    t.interval ? range(t.interval) : '',
    t.range ? range(t.range) : '',
    recentRuns(t, history, t.id),
    t.shipped ? shippedCell(t, history) : '',
    (t.met ? 'met' : `**missed** by ${(t.missedBy * 100).toFixed(1)}%: ${t.gap}`) +
      (t.settled ? '' : ' (not settled: the limit is inside the 95% interval)'),
  ])
  const columns = ['target', 'limit', 'measured', '95% interval', 'per-round range', 'recent runs', 'as the templates ship']
  return table([...columns, 'verdict'], rows)
}

/** A floor target's figure as the templates ship the demo: value, interval, verdict and recent runs. */
function shippedCell(t, history) {
  const { measured, interval, met, settled } = t.shipped
  const recent = recentRuns(t, history, t.shipped.id)
  return `${value(t, measured)} (${range(interval)}), ${met ? 'met' : '**missed**'}${settled ? '' : ', not settled'}${recent ? `; ${recent}` : ''}`
}

const LANES = {
  edge: 'mcp-edge, 2026-07-28 client',
  'edge-legacy': 'mcp-edge, 2025-era client (session id)',
  'edge-off': 'mcp-edge, telemetry off, 2026-07-28 client',
  'edge-off-legacy': 'mcp-edge, telemetry off, 2025-era client (session id)',
  sdk: 'SDK v2, 2026-07-28 client',
  'sdk-legacy': 'SDK v2, 2025-era client (stateless)',
  hono: 'Hono floor',
  'hono-log': 'Hono floor + a hand-written log line',
  'edge-token': 'mcp-edge (the demo) as deployed: bearer token set and sent, 2026-07-28 client',
  'hono-token': 'Hono floor + the same bearer-token check',
}

export function floorSection({ floor, config }) {
  const m = (metric) => medians(floor.rounds, metric)
  const [rps, p50, p99, cpu] = [m('rps'), m('p50Ms'), m('p99Ms'), m('cpuUsPerRequest')]
  const sdkOf = (id) => (id.endsWith('legacy') ? 'sdk-legacy' : 'sdk')
  // Lanes a run measured (runs before the log-line floor have none of it).
  const lanes = Object.entries(LANES).filter(([id]) => id in floor.rounds[0])
  const rows = lanes.map(([id, label]) => [
    label,
    n(rps[id]),
    n(p50[id], 2),
    n(p99[id], 2),
    n(cpu[id]),
    x(ratio(floor.rounds, 'cpuUsPerRequest', id, 'hono')),
    range(ratioRange(floor.rounds, 'cpuUsPerRequest', id, 'hono')),
    id.startsWith('edge') ? x(ratio(floor.rounds, 'cpuUsPerRequest', id, sdkOf(id))) : '',
    id.startsWith('edge') ? x(ratio(floor.rounds, 'rps', id, sdkOf(id))) : '',
  ])
  const roundRows = floor.rounds.map((round, i) => [
    String(i + 1),
    ...lanes.map(([id]) => `${n(round[id].rps)} / ${n(round[id].cpuUsPerRequest)}`),
    `${(othersShare(round) * 100).toFixed(0)}%${othersShare(round) > DISTURBED_SHARE ? ' ⚠' : ''}`,
  ])
  return [
    '## The floor: `tools/call add`, both eras',
    '',
    "The same `add` tool on mcp-edge (the template Worker, and the same with its `telemetry:` line set to `{ logs: 'off' }`), " +
      'the SDK v2 Worker, a bare Hono Worker that parses the body and ' +
      'returns the fixed result, and the same with one hand-written `console.log(JSON.stringify({…}))` per request with ' +
      'the fields of mcp-edge’s line (`hono-log`), each in its own workerd (Miniflare API, 127.0.0.1, no inspector, `minify = true`, ' +
      `${config.stdout === 'pipe' ? "standard output through Miniflare's pipe" : 'standard output to a file (bench/README.md)'}). The ` +
      '2025-era client sent `initialize` once per Worker, then the same call without `_meta`, with `MCP-Protocol-Version: ' +
      `2025-11-25\` and the session id the server minted (${Object.entries(floor.sessions)
        .map(([id, minted]) => `${id}: ${minted ? 'a sealed session id' : 'none, stateless'}`)
        .join('; ')}). ` +
      `${config.rounds} rounds × ${config.requests} requests per lane at ${config.connections} connections, lanes alternated per round; ` +
      'every response equal, byte for byte, to the verified answer. CPU is workerd’s (every thread, /proc schedstat) over the run ÷ requests, ' +
      "Miniflare's entry worker included (the floor pays it too). Ratios are medians of per-round ratios.",
    '',
    table(['lane', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/call', '×floor', 'per-round ×floor', '×SDK (CPU)', '×SDK (req/s)'], rows),
    '',
    table(['round', ...lanes.map(([id]) => `${id} req/s / µs`), 'other processes'], roundRows),
    '',
    '"other processes": the largest share of the machine (all cores) that processes other than workerd and the ' +
      `bench used during one of the round's runs; ⚠ above ${DISTURBED_SHARE * 100}%.`,
    ...isolateLoopPart(floor.isolate),
  ].join('\n')
}

/** The in-isolate loop (isolate-loop.mjs): the JavaScript of a call, beside the floor's. */
function isolateLoopPart(isolate) {
  if (!isolate) return []
  const { calls, slices, rounds } = isolate
  const js = medians(rounds, 'cpuUsPerCall')
  const rows = ['hono', 'hono-log', 'edge', 'edge-legacy']
    .filter((id) => id in rounds[0])
    .map((id) => [
      LANES[id],
      n(js[id], 1),
      id === 'hono' ? '' : n(js[id] - js.hono, 1),
      id === 'hono' ? '' : x(ratio(rounds, 'cpuUsPerCall', id, 'hono')),
      id === 'hono' ? '' : range(ratioRange(rounds, 'cpuUsPerCall', id, 'hono')),
    ])
  return [
    '',
    '### The same call inside one isolate, without HTTP',
    '',
    `The template, the Hono floor and the floor with a log line as Workers of one workerd, each its own isolate ` +
      `(\`workers/loop-edge/worker.js\`, \`workers/loop-hono/worker.js\`, \`workers/loop-hono-log/worker.js\`), each handed ${calls} \`tools/call add\` requests per round one after another inside a ` +
      'request (`app.fetch(request, env, ctx)`, the Request built and the answer read as workerd would, every answer ' +
      `checked), in ${slices} slices interleaved with the other lanes; a lane's figure for a round is its median slice; ` +
      `${rounds.length} rounds. CPU is workerd’s over a slice, less an empty loop request’s (${n(isolate.emptyUs)} µs), ÷ ` +
      'calls: the JavaScript of a call, without the HTTP parsing, sockets and I/O that workerd adds to every request above.',
    '',
    table(['lane', 'JS µs/call', 'over the floor µs', '×floor', 'per-round ×floor'], rows),
  ]
}

function startupSection({ startup, bundles }) {
  const rounds = startup.rounds
  const variants = Object.keys(rounds[0])
  const m = (metric) => medians(rounds, metric)
  const [total, ready, first, cpu] = [m('totalMs'), m('readyMs'), m('firstCallMs'), m('cpuMs')]
  const rows = variants.map((variant) => [
    VARIANTS[variant].label,
    n(total[variant]),
    n(ready[variant]),
    n(first[variant], 1),
    n(cpu[variant], 1),
    variant === referenceOf(variant) ? '' : `${x(ratio(rounds, 'cpuMs', variant, referenceOf(variant)))} ${referenceOf(variant)}`,
    range(ratioRange(rounds, 'cpuMs', variant, referenceOf(variant))),
  ])
  // The loop Workers are the template and the floor with a loop around them: no bundle of their own.
  const bundleRows = Object.entries(bundles)
    .filter(([worker]) => !worker.startsWith('loop-'))
    .map(([worker, { min, raw }]) => [
      worker,
      kib(min.rawBytes, 2),
      kib(min.gzipBytes, 2),
      // A quick run builds few Workers unminified (run.mjs).
      raw ? kib(raw.rawBytes, 2) : '–',
      raw ? kib(raw.gzipBytes, 2) : '–',
    ])
  return [
    '## Start-up and bundles',
    '',
    `A fresh workerd per start (new Miniflare → first correct answer), ${rounds.length} rounds alternated after one untimed start ` +
      'of each; CPU is workerd’s from spawn to that answer (Miniflare’s own services included, which the floor pays too).',
    '',
    table(['Worker', 'total ms', 'Miniflare ready ms', 'first call ms', 'workerd CPU ms', 'CPU ×', 'per-round ×'], rows),
    '',
    `Declaring the template's five Durable Object bindings costs the floor ${x(ratio(rounds, 'cpuMs', 'hono-do', 'hono'))} at start-up ` +
      `before any code of the template runs; the template costs ${x(ratio(rounds, 'cpuMs', 'edge', 'hono-do'))} that floor. ` +
      "The template's row is `npm run dev`'s configuration: no authentication, so it serves local callers only and its " +
      "first call logs the warning that says so (an isolate's first console call is the dearest). With `MCP_BEARER_TOKEN` " +
      `set, as a deploy has it, it costs ${x(ratio(rounds, 'cpuMs', 'edge-token', 'edge'))} that (its first call checks the token instead).`,
    '',
    'Bundles as `wrangler deploy --dry-run --outdir` builds them (gzip: zlib level 6, as wrangler prints):',
    '',
    table(['Worker', 'minified KiB', 'minified gzip KiB', 'unminified KiB', 'unminified gzip KiB'], bundleRows),
    '',
    moreBundlesLine(bundles),
  ].join('\n')
}

function manyToolsSection({ manyTools, startup, heap, config }) {
  const { rounds, pages } = manyTools
  const cpu = medians(rounds, 'cpuUsPerRequest')
  const rps = medians(rounds, 'rps')
  const startupCpu = medians(startup.rounds, 'cpuMs')
  const rows = TOOL_VARIANTS.map((variant) => {
    const base = referenceOf(variant)
    const first = pages[variant][0]
    return [
      VARIANTS[variant].label,
      n(cpu[`call:${variant}`]),
      x(ratio(rounds, 'cpuUsPerRequest', `call:${variant}`, `call:${base}`)),
      n(rps[`call:${variant}`]),
      n(cpu[`list:${variant}`]),
      // Runs before the full-listing lanes have none of it.
      cpu[`listAll:${variant}`] === undefined ? '' : n(cpu[`listAll:${variant}`]),
      `${first.tools} tools, ${kib(first.bytes, 1)} KiB`,
      String(pages[variant].length),
      n(startupCpu[variant], 1),
      kib(heap[variant].heapBytes),
      kib(heap[variant].heapBytes - heap.hono.heapBytes),
      kib(heap[variant].listedHeapBytes),
    ]
  })
  return [
    '## Many tools',
    '',
    'The catalog of bench/workers/catalog.ts (nested objects, arrays of objects, enums, bounds, defaults, a description on ' +
      'every property; zod/mini), registered at start-up in mcp-edge and in the SDK v2 per-request factory. `tools/call` of ' +
      'tool 0 with nested arguments, and `tools/list` (each page; "every page" adds a round’s pages up: every tool listed once, ' +
      'the same tools on each server however it pages them), alternated per round ' +
      `(${config.toolRounds} rounds; SDK lanes get fewer requests per round, they are slower). Heap: the isolate’s, after ` +
      `the first answer and a full collection (inspector, a step of its own), beside the Hono floor’s ${kib(heap.hono.heapBytes)} KiB ` +
      `and the template's ${kib(heap.edge.heapBytes)} KiB; then after reading every tools/list page.`,
    '',
    table(
      [
        'server',
        'tools/call CPU µs',
        '× 5 tools',
        'tools/call req/s',
        'tools/list CPU µs (page 1)',
        'tools/list CPU µs (every page)',
        'page 1',
        'pages',
        'start-up CPU ms',
        'heap KiB',
        'over floor KiB',
        'heap after listing KiB',
      ],
      rows,
    ),
    '',
    ...(rounds[0]['listAll:tools-200']
      ? [
          `Listing all 200 tools (every page): mcp-edge ${x(ratio(rounds, 'cpuUsPerRequest', 'listAll:tools-200', 'listAll:sdk-tools-200'))} ` +
            `the SDK v2's CPU (per round ${range(ratioRange(rounds, 'cpuUsPerRequest', 'listAll:tools-200', 'listAll:sdk-tools-200'))}).`,
          '',
        ]
      : []),
    `The same 200 tools with their schemas built at start-up (the tools given as zod objects rather than functions): start-up ` +
      `${n(startupCpu['tools-200-eager'], 1)} ms CPU (${x(ratio(startup.rounds, 'cpuMs', 'tools-200-eager', 'tools-5'))} the 5-tool server), ` +
      `heap ${kib(heap['tools-200-eager'].heapBytes)} KiB (${kib(heap['tools-200-eager'].heapBytes - heap.hono.heapBytes)} KiB over the floor).`,
  ].join('\n')
}

export function streamingSection({ streaming, config }) {
  const { rounds } = streaming
  const rate = medians(rounds, 'chunksPerSecond')
  const cpu = medians(rounds, 'cpuUsPerChunk')
  const rows = [
    [
      'mcp-edge (`await ctx.partial`)',
      n(rate.edge),
      n(cpu.edge, 1),
      x(ratio(rounds, 'chunksPerSecond', 'edge', 'bare')),
      x(ratio(rounds, 'cpuUsPerChunk', 'edge', 'bare')),
    ],
    ['bare SSE writer (batched per pull)', n(rate.bare), n(cpu.bare, 1), '', ''],
  ]
  const roundRows = rounds.map((round, i) => [
    String(i + 1),
    `${n(round.edge.chunksPerSecond)} / ${n(round.edge.cpuUsPerChunk, 1)}`,
    `${n(round.bare.chunksPerSecond)} / ${n(round.bare.cpuUsPerChunk, 1)}`,
    `${kib(round.edge.peakBufferedBytes, 1)} KiB`,
  ])
  return [
    '## Streaming: one SSE stream of partial results',
    '',
    `${config.streamChunks} \`notifications/tools/partial_result\` (text \`chunk i\`, structuredContent \`{ i, t }\`) on one stream, from ` +
      'mcp-edge’s extras Worker (a tool that awaits every `ctx.partial`) and from a bare Worker that writes the same notifications ' +
      `as SSE lines by hand (bench/workers/sse-bare/worker.ts), alternated over ${rounds.length} rounds, both read by mcp-edge’s client helper. ` +
      'Every chunk arrived, in seq order, with its own boundary and no gap; the tool’s stats showed nothing merged or dropped. ' +
      'Both send everything queued when the reader pulls in one write (up to 64 KiB, no message held back).',
    '',
    table(['writer', 'chunks/s', 'workerd CPU µs/chunk', '× bare (rate)', '× bare (CPU)'], rows),
    '',
    table(['round', 'mcp-edge chunks/s / µs', 'bare chunks/s / µs', 'mcp-edge queue peak'], roundRows),
  ].join('\n')
}

export function toMarkdown(results) {
  const { machine: m, config: c } = results
  const disturbed = disturbedRounds(results.floor.rounds)
  return [
    '# mcp-edge benchmark',
    '',
    `${m.date} · ${m.cpu}, ${m.cores} cores · Node ${m.node} · workerd ${m.workerd} (miniflare ${m.miniflare}) · ` +
      `wrangler ${m.wrangler} · hono ${m.hono} · zod ${m.zod} · @modelcontextprotocol/server ${m.sdk} · autocannon ${m.autocannon} · ` +
      `mcp-edge ${m.commit}${m.srcModified ? ' with uncommitted changes to its sources' : ''}`,
    '',
    `Run: \`${c.command}\`${c.quick ? ' (QUICK: tiny counts, figures are not meaningful)' : ''}, ${n(results.runtimeSeconds)} s. ` +
      (disturbed === 0
        ? 'No floor round was disturbed by other processes.'
        : `**${disturbed} of ${results.floor.rounds.length} floor rounds ran while other processes used more than ` +
          `${DISTURBED_SHARE * 100}% of the machine**; on two cores that moves absolute figures (ratios of alternated rounds move less).`) +
      (results.workerdWarnings?.count
        ? ` **workerd wrote ${results.workerdWarnings.count} unexpected warnings or errors** (results.json, \`workerdWarnings\`).`
        : ''),
    '',
    '## Targets',
    '',
    'Ratios are medians of per-round ratios of alternated rounds; "95% interval" is the median\'s, by resampling the rounds ' +
      '(a verdict whose interval holds the limit is "not settled": another run of as many rounds could reverse it); ' +
      '"per-round range" is their smallest and largest; ' +
      '"recent runs" the smallest and largest measured value over the runs kept in history.json whose workerd output went where this run\'s did ' +
      "(for the fan-out at scale, whose hub sockets were also shared, or not, as this run's). " +
      'The targets against the floor and the SDK v2 Worker compare like with like: neither writes a log line or makes a span per request, ' +
      'so they are measured on the demo with telemetry off; "as the templates ship" is the same figure for the demo with the templates\' ' +
      'telemetry (a JSON log line per request, spans mirrored where the runtime traces the invocation; bench/README.md, "Telemetry"): ' +
      'its 95% interval, its verdict against the same limit, and its recent runs.',
    '',
    targetsTable(results.targets, results.history),
    '',
    floorSection(results),
    '',
    ...(results.peers ? [peersSection(results), ''] : []),
    startupSection(results),
    '',
    manyToolsSection(results),
    '',
    streamingSection(results),
    '',
    memorySection(results),
    '',
    '## mcp-edge only',
    '',
    stateAndTasks(results),
    '',
    taskEnginesMarkdown(results.engines),
    '',
    fanoutSection(results.fanout),
    '',
    scaleSection(results.scale),
    '',
    profileSection(results.profile),
  ].join('\n')
}

export function writeResults(dir, results, markdown) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'results.md'), `${markdown.trim()}\n`)
  writeFileSync(join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
}
