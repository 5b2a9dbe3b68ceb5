/**
 * Every peer (issue 38): the same `add` tool, the same load and the same workerd for each way a
 * user might build this server on Workers: the bare floor, the floor with a hand-written log line,
 * the official SDK v2 (`createMcpHandler`), `agents/mcp/server` `createMcpHandler` with an SDK v2
 * factory, Vercel's `mcp-handler`, `tmcp` with its HTTP transport, `@hono/mcp` (on the SDK v1), mcp-edge as the
 * templates ship it (telemetry on), and mcp-edge through `mcp-edge/sdk` (the same tool as SDK code,
 * with the demo's telemetry and services: its ratio to `edge` is what the adapter costs).
 * Each in its own workerd, lanes alternated per round as the floor step runs them (floor.mjs):
 * a 2026-07-28 lane for each that serves that revision, a 2025-era lane (after `initialize`) for
 * each that serves the 2025 revisions. Versions are read from the installed packages.
 *
 * Then the same call inside the isolate (isolate-loop.mjs): each peer behind workers/loop.js, built
 * from a generated entry with its own config, all in one workerd beside loop-hono and loop-edge.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { configPath, writeLoopEntry } from './build.mjs'
import { alternateLoad, describeRatio, medians, ratio, ratioRange } from './compare.mjs'
import { BENCH_DIR, ROOT, TMP } from './env.mjs'
import { floorLanes } from './floor.mjs'
import { isolateLoop } from './isolate-loop.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect } from './mcp.mjs'
import { startWorkers } from './workerd.mjs'
import { kib, n, range, table, x } from './report-parts.mjs'
import { VARIANTS } from './variants.mjs'

/**
 * The Workers of the step; mcp-edge is `edge`, the demo as the templates ship it, and `edge-sdk`
 * the same through its SDK adapter (not a peer on the SDK: no target, its ratio to `edge` printed).
 */
export const PEER_VARIANTS = ['hono', 'hono-log', 'edge', 'edge-sdk', 'sdk', 'agents', 'mcp-handler', 'tmcp', 'hono-mcp']
/** The peers built on the official SDK (v2 or v1): mcp-edge's CPU per call is judged against each. */
export const SDK_BASED = ['sdk', 'agents', 'mcp-handler', 'hono-mcp']
/** Issue 38: mcp-edge as shipped at most this times the CPU per call of each SDK-based peer. */
export const PEER_CPU_LIMIT = 0.5
/** The package whose version each Worker measures. */
const PACKAGES = {
  hono: ['hono'],
  'hono-log': ['hono'],
  edge: ['mcp-edge', 'hono'],
  'edge-sdk': ['mcp-edge', 'hono'],
  sdk: ['@modelcontextprotocol/server'],
  agents: ['agents', '@modelcontextprotocol/server'],
  'mcp-handler': ['mcp-handler', '@modelcontextprotocol/server'],
  tmcp: ['tmcp', '@tmcp/transport-http', '@tmcp/adapter-zod'],
  'hono-mcp': ['@hono/mcp', '@modelcontextprotocol/sdk'],
}

/** `name@version` of what each Worker runs, from node_modules. */
export function peerVersions() {
  const version = (name) => {
    const dir = name === 'mcp-edge' ? join(ROOT, 'packages/mcp-edge') : join(ROOT, 'node_modules', name)
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version
  }
  return Object.fromEntries(
    Object.entries(PACKAGES).map(([id, names]) => [id, names.map((name) => `${name}@${version(name)}`).join(', ')]),
  )
}

/** `targets`: every PEER_VARIANTS Worker, running. */
export async function peersLoad(targets, config, log) {
  const lanes = await floorLanes(targets)
  const rounds = await alternateLoad(lanes, config, log)
  return { rounds, lanes: lanes.map((lane) => lane.id), versions: peerVersions() }
}

/** The peers behind the in-isolate loop. */
const LOOP_PEERS = ['edge-sdk', 'sdk', 'agents', 'mcp-handler', 'tmcp', 'hono-mcp']
/** The Workers of mcp-edge, whose 2025 call in the isolate carries the session its `initialize` sealed. */
const EDGES = ['edge', 'edge-sdk']

/**
 * A config per peer that builds it behind the in-isolate loop (an entry importing its worker.ts,
 * wrapped by workers/loop.js), as build jobs (`loop-<peer>`) for build.mjs `buildAll`.
 */
export function peerLoopJobs() {
  return LOOP_PEERS.map((peer) => {
    const dir = join(TMP, `loop-${peer}`)
    mkdirSync(dir, { recursive: true })
    const jsonc = readFileSync(configPath(peer), 'utf8')
    const entry = writeLoopEntry(dir, relative(dir, join(BENCH_DIR, 'workers', peer, 'worker.ts')), jsonc)
    const config = join(dir, 'wrangler.jsonc')
    writeFileSync(config, jsonc.replace(/"main": "[^"]*"/, `"main": "${entry}"`))
    return [`loop-${peer}`, { config }]
  })
}

/** The build behind the loop of each lane's Worker: loop-hono, loop-edge, loop-<peer>. */
export const loopBuildOf = (id) => `loop-${id}`

/**
 * The JavaScript of a call for each peer, beside the floor and mcp-edge (both eras, natively and
 * through mcp-edge/sdk), in one workerd: `scriptOf(build)` is the built script of a `loopBuildOf`
 * build. A peer serving only the 2025 revisions gets its stateless 2025 call.
 */
export async function peersIsolate(scriptOf, config) {
  const ids = ['hono', 'edge', ...LOOP_PEERS]
  const variantOf = (id) => (id === 'hono' || id === 'edge' ? loopBuildOf(id) : id)
  const group = await startWorkers(ids, (id) => scriptOf(loopBuildOf(id)), variantOf)
  try {
    return await isolateLoop(group, config, async (targets) => {
      const legacy = []
      for (const id of EDGES) {
        const sessionId = await legacyConnect(targets[id].endpoint)
        legacy.push({ id: `${id}-legacy`, target: targets[id], request: legacyAddCall(sessionId) })
      }
      return [
        ...ids.map((id) => ({ id, target: targets[id], request: VARIANTS[variantOf(id)].call?.request ?? ADD_CALL })),
        ...legacy,
      ]
    })
  } finally {
    await group.dispose()
  }
}

/** mcp-edge's lane of the same era as `lane`. */
const edgeOf = (lane) => (lane.endsWith('-legacy') ? 'edge-legacy' : 'edge')

/**
 * Issue 38's peer targets: mcp-edge as shipped at ≤ 0.5× the CPU per call of every SDK-based
 * peer, and ahead of every peer on requests per second, each in the same era.
 */
export function peerTargets(peers, ratioTarget) {
  if (!peers) return []
  const { rounds, lanes } = peers
  const others = lanes.filter((lane) => !lane.startsWith('edge') && !lane.startsWith('hono-log') && lane !== 'hono')
  // Where the limit falls against the floor that writes the same log line (no MCP at all): a limit
  // at or under it cannot be met by any runtime that logs each call, which the verdict then says.
  const logFloor = medians(rounds, 'cpuUsPerRequest')['hono-log']
  const againstFloor = (limitUs) =>
    logFloor === undefined
      ? ''
      : `; the limit, ${limitUs.toFixed(0)} µs, is ${limitUs <= logFloor ? 'at or under' : `${((limitUs / logFloor - 1) * 100).toFixed(0)}% over`} the log-line floor's ${logFloor.toFixed(0)} µs`
  const cpu = others
    .filter((lane) => SDK_BASED.includes(lane.replace(/-legacy$/, '')))
    .map((lane) =>
      ratioTarget(rounds, 'cpuUsPerRequest', edgeOf(lane), lane, {
        id: `peerCpu:${lane}`,
        name: `CPU per tools/call as shipped ≤ ${PEER_CPU_LIMIT}× ${lane}`,
        limit: PEER_CPU_LIMIT,
        atMost: true,
        short: (cut, theirs) =>
          `≈ ${cut.toFixed(0)} µs/call to cut at ${lane}'s ${theirs.toFixed(0)} µs${againstFloor(theirs * PEER_CPU_LIMIT)}`,
      }),
    )
  const rps = others.map((lane) =>
    ratioTarget(rounds, 'rps', edgeOf(lane), lane, {
      id: `peerRps:${lane}`,
      name: `requests per second as shipped ≥ ${lane}'s (same concurrency)`,
      limit: 1,
      atMost: false,
      short: (missing, theirs) => `≈ ${missing.toFixed(0)} req/s short at ${lane}'s ${theirs.toFixed(0)} req/s`,
    }),
  )
  return [...cpu, ...rps]
}

/** The peers' section of results.md. */
export function peersSection({ peers, startup, bundles, config }) {
  if (!peers) return ''
  const { rounds, lanes, versions } = peers
  const m = (metric) => medians(rounds, metric)
  const [rps, p50, p99, cpu] = [m('rps'), m('p50Ms'), m('p99Ms'), m('cpuUsPerRequest')]
  const startupCpu = startup ? medians(startup.rounds, 'cpuMs') : {}
  const rows = lanes.map((lane) => {
    const worker = lane.replace(/-legacy$/, '')
    const edge = edgeOf(lane)
    return [
      `${VARIANTS[worker].label}${lane.endsWith('-legacy') ? ', 2025-era client' : ', 2026-07-28 client'}`,
      versions[worker] ?? '',
      n(rps[lane]),
      n(p50[lane], 2),
      n(p99[lane], 2),
      n(cpu[lane]),
      x(ratio(rounds, 'cpuUsPerRequest', lane, 'hono')),
      lane.startsWith('edge') ? '' : x(ratio(rounds, 'cpuUsPerRequest', edge, lane)),
      lane.startsWith('edge') ? '' : `${x(ratio(rounds, 'rps', edge, lane))} (${range(ratioRange(rounds, 'rps', edge, lane))})`,
      n(startupCpu[worker], 1),
      bundles?.[worker] ? kib(bundles[worker].min.gzipBytes, 2) : '',
    ]
  })
  return [
    '## Every peer: the same `add` tool',
    '',
    'Each Worker in its own workerd (Miniflare, 127.0.0.1, minified as deployed), the same `tools/call add` from a ' +
      '2026-07-28 client where the Worker serves that revision, and from a 2025-era client after one `initialize` ' +
      'where it serves those; mcp-edge is the demo as the templates ship it (its log line and span mirror on). ' +
      `${config.rounds} rounds × ${config.requests} requests per lane at ${config.connections} connections, lanes ` +
      'alternated per round, every response equal to the verified answer. "mcp-edge ×" is mcp-edge’s figure over the ' +
      'peer’s in the same era (below 1 on CPU, above 1 on req/s: mcp-edge ahead). tmcp answers a 2025-11-25 ' +
      '`initialize` with 2025-06-18, so only its 2026-07-28 lane is measured; @hono/mcp (SDK v1) serves the 2025 revisions only. ' +
      'mcp-edge through mcp-edge/sdk is the same `add` written as SDK code (`McpServer.registerTool`, `createMcpHandler`) ' +
      'with the demo’s telemetry and services: not a peer with a target, but what the adapter costs (below the table).',
    '',
    table(
      [
        'Worker',
        'versions',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/call',
        '×floor',
        'mcp-edge × (CPU)',
        'mcp-edge × (req/s, per round)',
        'start-up CPU ms',
        'bundle gzip KiB',
      ],
      rows,
    ),
    ...adapterCost(
      rounds,
      [
        ['cpuUsPerRequest', 'CPU per call'],
        ['rps', 'req/s'],
      ],
      'over HTTP',
    ),
    ...isolatePart(peers.isolate),
  ].join('\n')
}

/** The same call inside the isolate (peersIsolate): µs of JavaScript per call, beside the floor and mcp-edge. */
function isolatePart(isolate) {
  if (!isolate) return []
  const { rounds, calls, emptyUs } = isolate
  const js = medians(rounds, 'cpuUsPerCall')
  const rows = Object.keys(rounds[0]).map((id) => {
    const worker = id.replace(/-legacy$/, '')
    const legacy = id.endsWith('-legacy') || VARIANTS[worker]?.eras?.includes('modern') === false
    const edge = legacy ? 'edge-legacy' : 'edge'
    return [
      `${VARIANTS[worker].label}${legacy ? ', 2025-era client' : ', 2026-07-28 client'}`,
      n(js[id], 1),
      id === 'hono' ? '' : x(ratio(rounds, 'cpuUsPerCall', id, 'hono')),
      id.startsWith('edge') || id === 'hono' ? '' : x(ratio(rounds, 'cpuUsPerCall', edge, id)),
    ]
  })
  return [
    '',
    `Inside the isolate: each Worker behind workers/loop.js in one workerd, ${calls} calls per lane and round in slices ` +
      `interleaved with the other lanes, ${rounds.length} rounds; workerd's CPU over a slice less an empty loop request's ` +
      `(${n(emptyUs)} µs), ÷ calls (isolate-loop.mjs).`,
    '',
    table(['Worker', 'JS µs/call', '×floor', 'mcp-edge × (same era)'], rows),
    ...adapterCost(rounds, [['cpuUsPerCall', 'JS per call']], 'inside the isolate'),
  ]
}

/**
 * What mcp-edge/sdk costs: `edge-sdk` over `edge` by each of `metrics` ([metric, name]) in each era
 * both ran, as a median of per-round ratios with its 95% interval and spread.
 */
function adapterCost(rounds, metrics, where) {
  const ids = Object.keys(rounds[0] ?? {})
  const eras = [
    ['', '2026-07-28'],
    ['-legacy', '2025-era'],
  ].filter(([suffix]) => ids.includes(`edge${suffix}`) && ids.includes(`edge-sdk${suffix}`))
  if (eras.length === 0) return []
  const parts = metrics.flatMap(([metric, name]) =>
    eras.map(([suffix, era]) => `${name} (${era}) ${describeRatio(rounds, metric, `edge-sdk${suffix}`, `edge${suffix}`)}`),
  )
  return ['', `The adapter ${where}: mcp-edge through mcp-edge/sdk ÷ mcp-edge as shipped, ${parts.join('; ')}.`]
}
