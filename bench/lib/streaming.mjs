/**
 * Partial results on one stream (mcp-edge only), read with mcp-edge's own client helper
 * (src/client readToolCall) on 127.0.0.1:
 * - throughput: `count` chunks as fast as the stream takes them → chunks/s (request start to
 *   final response) and workerd CPU per chunk;
 * - latency: chunks paced by a timer, each stamped with workerd's Date.now() when `ctx.partial`
 *   is called, compared with this process's wall clock on arrival (same host clock; workerd's
 *   clock has 1 ms steps);
 * - time to first chunk: from request start to the first chunk of a one-chunk call.
 */
import { importTs } from './bundle.mjs'
import { mcpRequest } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { median, percentile } from './stats.mjs'

const CAPABILITIES = { partialResults: {} }
let client

const wallNow = () => performance.timeOrigin + performance.now()

async function streamCall(target, args, onChunk) {
  client ??= await importTs('src/client/index.ts', 'client')
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
  let step = await call.next()
  for (; !step.done; step = await call.next()) {
    if (step.value.type === 'partial') {
      chunks++
      onChunk?.(step.value, performance.now() - started)
    } else if (step.value.type === 'gap') gaps++
  }
  if (!step.value?.result) throw new Error(`stream call failed: ${JSON.stringify(step.value)}`)
  return { chunks, gaps, ms: performance.now() - started }
}

export async function streamThroughput(target, count) {
  await streamCall(target, { count: Math.min(count, 500) }) // warm-up
  const cpuBefore = cpuMs(target.pid)
  const run = await streamCall(target, { count })
  const cpu = cpuMs(target.pid) - cpuBefore
  if (run.chunks !== count || run.gaps > 0) throw new Error(`stream: ${run.chunks}/${count} chunks, ${run.gaps} gaps`)
  return { chunks: run.chunks, ms: run.ms, chunksPerSecond: (run.chunks * 1000) / run.ms, cpuUsPerChunk: (cpu * 1000) / count }
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
