/**
 * Partial results on one stream, read with mcp-edge's own client helper (src/client
 * readToolCall) on 127.0.0.1:
 * - throughput, beside a bare Worker writing the same notifications as SSE lines
 *   (bench/workers/sse-bare/worker.ts), alternated per round: `count` chunks from a tool that awaits
 *   every `ctx.partial` → chunks/s (request start to final response) and workerd CPU per chunk.
 *   Every chunk must arrive, in seq order, with its own boundary (`chunk i`), and no gap; the
 *   tool's own stats must show nothing merged or dropped;
 * - latency: chunks paced by a timer, each stamped with workerd's Date.now() when `ctx.partial`
 *   is called, compared with this process's wall clock on arrival (same host clock; workerd's
 *   clock has 1 ms steps);
 * - time to first chunk: from request start to the first chunk of a one-chunk call.
 */
import { importTs } from './bundle.mjs'
import { inTurn } from './compare.mjs'
import { mcpRequest } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { median, percentile } from './stats.mjs'

const CAPABILITIES = { partialResults: {} }
const WARM_UP_RUNS = 2
let client

const wallNow = () => performance.timeOrigin + performance.now()

async function streamCall(target, args, onChunk) {
  client ??= await importTs('packages/mcp-edge/dist/client/index.js', 'client')
  const token = `bench-${Math.random().toString(36).slice(2)}`
  const request = mcpRequest(
    'tools/call',
    { name: 'stream', arguments: args },
    { name: 'stream', capabilities: CAPABILITIES, meta: { partialResultToken: token } },
  )
  const started = performance.now()
  const response = await fetch(target.endpoint, request)
  const call = client.readToolCall(response, { partialResultToken: token })
  let chunks = 0
  let gaps = 0
  let misplaced = 0
  let step = await call.next()
  for (; !step.done; step = await call.next()) {
    if (step.value.type === 'partial') {
      if (step.value.seq !== chunks || step.value.content[0]?.text !== `chunk ${chunks}`) misplaced++
      chunks++
      onChunk?.(step.value, performance.now() - started)
    } else if (step.value.type === 'gap') gaps++
  }
  if (!step.value?.result) throw new Error(`stream call failed: ${JSON.stringify(step.value)}`)
  return { chunks, gaps, misplaced, ms: performance.now() - started, result: step.value.result }
}

/** One throughput run: every chunk in place, nothing merged or dropped (mcp-edge reports its own stats). */
async function throughputRun(target, count) {
  const cpuBefore = cpuMs(target.pid)
  const run = await streamCall(target, { count })
  const cpu = cpuMs(target.pid) - cpuBefore
  const stats = target.variant === 'extras' ? JSON.parse(run.result.content[0].text) : undefined
  if (run.chunks !== count || run.gaps > 0 || run.misplaced > 0 || (stats && (stats.dropped > 0 || stats.coalesced > 0))) {
    throw new Error(
      `${target.variant} stream: ${run.chunks}/${count} chunks, ${run.gaps} gaps, ${run.misplaced} out of place, stats ${JSON.stringify(stats)}`,
    )
  }
  return {
    chunks: run.chunks,
    ms: run.ms,
    chunksPerSecond: (run.chunks * 1000) / run.ms,
    cpuUsPerChunk: (cpu * 1000) / count,
    ...(stats ? { coalesced: stats.coalesced, dropped: stats.dropped, peakBufferedBytes: stats.peakBufferedBytes } : {}),
  }
}

/** One stream of `count` chunks (a profiling workload); returns the chunks. */
export async function streamWorkload(target, count) {
  return (await throughputRun(target, count)).chunks
}

/** `targets`: the extras Worker (mcp-edge's `stream` tool) and the bare SSE writer, alternated per round. */
export async function streamCompare(targets, count, rounds, log) {
  // Warm-up: every lane runs as many chunks as a round, twice, before the rounds count, so its code is
  // compiled (mcp-edge has more of it to optimise than the bare writer) and its heap grown.
  for (let i = 0; i < WARM_UP_RUNS; i++) for (const target of Object.values(targets)) await throughputRun(target, count)
  const results = []
  for (let round = 1; round <= rounds; round++) {
    const entry = {}
    for (const [id, target] of inTurn(Object.entries(targets), round)) entry[id] = await throughputRun(target, count)
    log(
      `  stream ${round}/${rounds}: ` +
        Object.entries(entry)
          .map(([id, run]) => `${id} ${run.chunksPerSecond.toFixed(0)} chunks/s ${run.cpuUsPerChunk.toFixed(1)} µs`)
          .join(', '),
    )
    results.push(entry)
  }
  return results
}

export async function partialLatency(target, count, delayMs) {
  const latencies = []
  await streamCall(target, { count: 5, delayMs }) // warm-up
  const run = await streamCall(target, { count, delayMs }, (chunk) => latencies.push(wallNow() - chunk.structuredContent.t))
  if (run.chunks !== count) throw new Error(`paced stream: ${run.chunks}/${count} chunks`)
  return { chunks: count, delayMs, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) }
}

export async function firstChunkLatency(target, calls) {
  const firsts = []
  await streamCall(target, { count: 1 }) // warm-up
  for (let i = 0; i < calls; i++) {
    let first
    await streamCall(target, { count: 1 }, (_chunk, ms) => {
      first ??= ms
    })
    firsts.push(first)
  }
  return { calls, p50Ms: median(firsts), p99Ms: percentile(firsts, 99) }
}
