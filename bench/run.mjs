#!/usr/bin/env node
/**
 * `npm run bench`: mcp-edge against the official SDK v2 and a bare Hono floor, in one go on this
 * machine (README). Builds the Workers with wrangler, runs each in its own workerd through
 * Miniflare on 127.0.0.1, loads them with autocannon, measures the mcp-edge-only figures, checks
 * the targets, profiles the Workers when a CPU or throughput target is missed, and writes
 * results.md and results.json. Every workerd started here is disposed before exit.
 */
import { BENCH_DIR, TMP } from './lib/env.mjs'
import { build } from './lib/build.mjs'
import { compareLoad, compareStartup, WORKERS } from './lib/compare.mjs'
import { config } from './lib/config.mjs'
import { machineInfo } from './lib/machine.mjs'
import { verifyAdd } from './lib/mcp.mjs'
import { buildOauth } from './lib/oauth-bundle.mjs'
import { nodeLoop, profileInWorkerd } from './lib/profile.mjs'
import { toMarkdown, writeResults } from './lib/report.mjs'
import { stateInNode, stateInWorkerd } from './lib/state.mjs'
import { firstChunkLatency, partialLatency, streamThroughput } from './lib/streaming.mjs'
import { fanoutLatency } from './lib/fanout.mjs'
import { evaluateTargets } from './lib/targets.mjs'
import { taskEngines } from './lib/task-engines.mjs'
import { logThroughput, taskLatencies } from './lib/tasks.mjs'
import { startWorker } from './lib/workerd.mjs'

const started = performance.now()
const log = (line) => console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`)
const running = new Set()

async function start(worker, scriptPath) {
  const target = await startWorker(worker, scriptPath)
  running.add(target)
  return target
}

async function stop(target) {
  running.delete(target)
  await target.dispose()
}

async function stopAll() {
  await Promise.allSettled([...running].map(stop))
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => void stopAll().finally(() => process.exit(130)))
}

async function main() {
  const results = {
    machine: machineInfo(),
    config: { ...config, command: process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : `node bench/run.mjs` },
  }
  if (config.quick) results.config.command = `BENCH_QUICK=1 ${results.config.command}`

  log('building (wrangler deploy --dry-run --outdir), minified and unminified')
  results.bundles = {}
  for (const worker of [...WORKERS, 'extras', 'engines']) {
    results.bundles[worker] = { min: build(worker), raw: build(worker, { minify: false }) }
  }
  results.bundles.oauth = buildOauth() // size only, beside the default template's

  log(`start-up: ${config.startupRepeats} fresh workerd per Worker`)
  results.startup = await compareStartup(results.bundles, config.startupRepeats, log)

  log(`load: ${config.rounds} rounds × ${config.requests} requests, ${config.connections} connections`)
  const targets = {}
  for (const worker of WORKERS) targets[worker] = await start(worker, results.bundles[worker].min.scriptPath)
  results.load = await compareLoad(targets, config, log)
  for (const worker of WORKERS) await stop(targets[worker])

  log('mcp-edge only: streaming, tasks, sealed state')
  const extras = await start('extras', results.bundles.extras.min.scriptPath)
  await verifyAdd(extras.endpoint)
  results.streaming = {
    throughput: await streamThroughput(extras, config.streamChunks),
    latency: await partialLatency(extras, config.pacedChunks, config.pacedDelayMs),
    firstChunk: await firstChunkLatency(extras, config.firstChunkCalls),
  }
  results.tasks = {
    ...(await taskLatencies(extras, config.taskCalls)),
    log: await logThroughput(extras, config.logChunks, config.logRepeats),
  }
  results.state = { workerd: await stateInWorkerd(extras, config.stateWorkerdIterations, config.stateWorkerdRepeats) }
  await stop(extras)
  results.state.node = await stateInNode(config.stateNodeIterations)
  results.fanout = await fanoutLatency(config, log)

  log('durable tasks: creation and first read vs a bare Durable Object, one step vs a Workflow')
  results.engines = await taskEngines(results.bundles.engines.min.scriptPath, config)

  results.targets = evaluateTargets(results)
  const missed = results.targets.some((t) => !t.met && t.id !== 'bundleGzip')
  if (config.profile === '1' || (config.profile !== '0' && missed && !config.quick)) {
    log(`profiling the Workers in workerd (${config.profileRequests} requests each) and timing them in Node`)
    const load = { requests: config.profileRequests, connections: config.connections }
    results.profile = { workerd: {} }
    for (const worker of WORKERS) {
      results.profile.workerd[worker] = await profileInWorkerd(worker, results.bundles[worker].raw.scriptPath, load)
    }
    results.profile.node = await nodeLoop(WORKERS, config.nodeLoopIterations, config.nodeLoopRepeats)
  }

  results.runtimeSeconds = (performance.now() - started) / 1000
  const markdown = toMarkdown(results)
  console.log(markdown)
  const out = config.out ?? (config.quick ? TMP : BENCH_DIR)
  writeResults(out, results, markdown)
  log(`wrote ${out}/results.md and results.json in ${results.runtimeSeconds.toFixed(0)} s`)
}

try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  await stopAll()
}
