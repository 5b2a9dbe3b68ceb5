/**
 * The targets (issues 9 and 13), checked against the run's figures. Every ratio is the median of
 * the per-round ratios of alternated rounds (as reported); the spread is the smallest and largest
 * per-round ratio. A missed target says by how much, as a share of the limit and in the unit that
 * has to move, and names what to profile (profile.mjs).
 */
import { ratio, ratioRange } from './compare.mjs'
import { median } from './stats.mjs'

const KIB = 1024
const MB = 1e6
export const BUNDLE_BUDGET_KIB = 48
export const TOOLS_HEAP_BUDGET_BYTES = 2 * MB

/** A ratio target over alternated rounds. */
function ratioTarget(rounds, metric, a, b, fields) {
  return { measured: ratio(rounds, metric, a, b), range: ratioRange(rounds, metric, a, b), unit: '×', ...fields }
}

export function evaluateTargets({ startup, floor, manyTools, streaming, heap, memory, bundles }) {
  const floorCpu = median(floor.rounds.map((round) => round.hono.cpuUsPerRequest))
  const sdkCpu = median(floor.rounds.map((round) => round.sdk.cpuUsPerRequest))
  const sdkRps = median(floor.rounds.map((round) => round.sdk.rps))
  const floorStartup = median(startup.rounds.map((round) => round.hono.cpuMs))
  const tools5Startup = median(startup.rounds.map((round) => round['tools-5'].cpuMs))
  const tools5Call = median(manyTools.rounds.map((round) => round['call:tools-5'].cpuUsPerRequest))
  const bareCpu = median(streaming.rounds.map((round) => round.bare.cpuUsPerChunk))
  const bareRate = median(streaming.rounds.map((round) => round.bare.chunksPerSecond))
  const gzipKiB = bundles.edge.min.gzipBytes / KIB
  const toolsHeapOver = heap['tools-200'].heapBytes - heap.hono.heapBytes
  const lostOrMerged = streaming.rounds.reduce((sum, round) => sum + round.edge.dropped + round.edge.coalesced, 0)
  const targets = [
    ratioTarget(floor.rounds, 'cpuUsPerRequest', 'edge', 'hono', {
      id: 'cpuVsFloor',
      name: 'CPU per tools/call ≤ 1.10× the bare Hono floor',
      limit: 1.1,
      atMost: true,
      profile: 'floor',
      gap: (m) => `≈ ${((m - 1.1) * floorCpu).toFixed(0)} µs/call to cut at the floor's ${floorCpu.toFixed(0)} µs`,
    }),
    ratioTarget(floor.rounds, 'cpuUsPerRequest', 'edge-legacy', 'hono', {
      id: 'legacyCpuVsFloor',
      name: 'CPU per tools/call, 2025-era client (legacy lane) ≤ 1.15× the floor',
      limit: 1.15,
      atMost: true,
      profile: 'floor',
      gap: (m) => `≈ ${((m - 1.15) * floorCpu).toFixed(0)} µs/call to cut at the floor's ${floorCpu.toFixed(0)} µs`,
    }),
    ratioTarget(floor.rounds, 'cpuUsPerRequest', 'edge', 'sdk', {
      id: 'cpuVsSdk',
      name: 'CPU per tools/call ≤ 0.5× the SDK v2 Worker',
      limit: 0.5,
      atMost: true,
      profile: 'floor',
      gap: (m) => `≈ ${((m - 0.5) * sdkCpu).toFixed(0)} µs/call to cut at the SDK's ${sdkCpu.toFixed(0)} µs`,
    }),
    ratioTarget(floor.rounds, 'rps', 'edge', 'sdk', {
      id: 'rpsVsSdk',
      name: 'requests per second ≥ 2× the SDK v2 Worker (same concurrency)',
      limit: 2,
      atMost: false,
      profile: 'floor',
      gap: (m) => `≈ ${((2 - m) * sdkRps).toFixed(0)} req/s short at the SDK's ${sdkRps.toFixed(0)} req/s`,
    }),
    ratioTarget(startup.rounds, 'cpuMs', 'edge', 'hono', {
      id: 'startupVsFloor',
      name: 'workerd CPU, spawn → first answer ≤ 1.15× the floor',
      limit: 1.15,
      atMost: true,
      profile: 'startup',
      gap: (m) =>
        `≈ ${((m - 1.15) * floorStartup).toFixed(1)} ms of start-up CPU to cut at the floor's ${floorStartup.toFixed(1)} ms`,
    }),
    {
      id: 'bundleGzip',
      name: `template Worker bundle ≤ ${BUNDLE_BUDGET_KIB} KiB gzip`,
      limit: BUNDLE_BUDGET_KIB,
      measured: gzipKiB,
      atMost: true,
      unit: ' KiB',
      gap: () => `${(gzipKiB - BUNDLE_BUDGET_KIB).toFixed(2)} KiB over`,
    },
    ratioTarget(streaming.rounds, 'chunksPerSecond', 'edge', 'bare', {
      id: 'streamRate',
      name: 'partial results on one SSE stream ≥ 0.8× the rate of a bare SSE writer',
      limit: 0.8,
      atMost: false,
      profile: 'stream',
      gap: (m) => `≈ ${((0.8 - m) * bareRate).toFixed(0)} chunks/s short at the bare writer's ${bareRate.toFixed(0)}`,
    }),
    ratioTarget(streaming.rounds, 'cpuUsPerChunk', 'edge', 'bare', {
      id: 'streamCpu',
      name: 'workerd CPU per partial result ≤ 1.3× the bare SSE writer',
      limit: 1.3,
      atMost: true,
      profile: 'stream',
      gap: (m) => `≈ ${((m - 1.3) * bareCpu).toFixed(1)} µs/chunk to cut at the bare writer's ${bareCpu.toFixed(1)} µs`,
    }),
    {
      id: 'streamLossless',
      name: 'an awaiting producer: every chunk arrives with its boundary, none merged or dropped',
      limit: 0,
      measured: lostOrMerged,
      atMost: true,
      unit: ' chunks',
      gap: () => `${lostOrMerged} chunks merged or dropped`,
    },
    ratioTarget(manyTools.rounds, 'cpuUsPerRequest', 'call:tools-200', 'call:tools-5', {
      id: 'toolsCallVs5',
      name: 'CPU per tools/call with 200 tools ≤ 1.05× the 5-tool server',
      limit: 1.05,
      atMost: true,
      profile: 'tools',
      gap: (m) => `≈ ${((m - 1.05) * tools5Call).toFixed(0)} µs/call to cut at the 5-tool server's ${tools5Call.toFixed(0)} µs`,
    }),
    ratioTarget(startup.rounds, 'cpuMs', 'tools-200', 'tools-5', {
      id: 'toolsStartupVs5',
      name: 'start-up CPU with 200 tools ≤ 1.5× the 5-tool server',
      limit: 1.5,
      atMost: true,
      profile: 'startup',
      gap: (m) => `≈ ${((m - 1.5) * tools5Startup).toFixed(1)} ms to cut at the 5-tool server's ${tools5Startup.toFixed(1)} ms`,
    }),
    {
      id: 'toolsHeap',
      name: 'isolate heap with 200 tools after start-up ≤ 2 MB above the bare floor',
      limit: TOOLS_HEAP_BUDGET_BYTES / MB,
      measured: toolsHeapOver / MB,
      atMost: true,
      unit: ' MB',
      gap: () => `${((toolsHeapOver - TOOLS_HEAP_BUDGET_BYTES) / KIB).toFixed(0)} KiB over`,
    },
    {
      id: 'streamBudgets',
      name: `every stream's queue within its budget, ${memory.burst.calls} concurrent bursts of partial results (KiB, largest queue)`,
      limit: memory.burst.budgetBytes / KIB,
      measured: Math.max(memory.streams.maxStreamPeakBytes, memory.burst.maxStreamPeakBytes) / KIB,
      atMost: true,
      unit: ' KiB',
      gap: () => 'a stream held more than its budget',
    },
  ]
  return targets.map(({ gap, ...target }) => {
    const met = target.atMost ? target.measured <= target.limit : target.measured >= target.limit
    const missedBy =
      met || target.limit === 0 ? 0 : target.atMost ? target.measured / target.limit - 1 : 1 - target.measured / target.limit
    return { ...target, met, missedBy, gap: met ? '' : gap(target.measured) }
  })
}
