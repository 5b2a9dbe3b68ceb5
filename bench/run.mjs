#!/usr/bin/env node
/**
 * `npm run bench`: mcp-edge against the official SDK v2 and bare floors, in one go on this machine
 * (bench/README.md). Builds the Workers with wrangler, runs each in its own workerd through
 * Miniflare on 127.0.0.1, and measures, side by side in alternating rounds: start-up, `tools/call`
 * in both eras (over HTTP, and in a loop inside one isolate), servers with many tools, a stream of
 * partial results beside a bare SSE writer; then the mcp-edge-only figures (notification fan-out
 * to listen streams and to 2025 sessions' GET streams among them), the heap after start-up and
 * memory under load (through the inspector, in steps of their own), checks the targets, profiles
 * what missed one, and writes results.md and results.json. `--only fanout` builds the fan-out
 * Worker and runs that step alone (so do `--only floor`, `--only peers` and `--only stream`);
 * `--only scale` the fan-out at scale (up to 10,000 listen streams over four isolates, scale.mjs).
 * Every workerd started here is disposed before exit.
 */
import { BENCH_DIR, keepTmp, removeTmpOnExit, TMP } from './lib/env.mjs'
import { buildAll, telemetryOffConfig } from './lib/build.mjs'
import { alternateStartup } from './lib/compare.mjs'
import { config } from './lib/config.mjs'
import { floorLoad } from './lib/floor.mjs'
import { heapAfterStartup } from './lib/heap.mjs'
import { isolateLoop } from './lib/isolate-loop.mjs'
import { appendHistory } from './lib/history.mjs'
import { machineInfo } from './lib/machine.mjs'
import { manyToolsLoad, TOOL_VARIANTS } from './lib/many-tools.mjs'
import { verifyCall } from './lib/mcp.mjs'
import { fanoutLatency, useFanoutBuild } from './lib/fanout.mjs'
import { legacyFanout, legacyStreamHeap } from './lib/fanout-2025.mjs'
import { fanoutSection } from './lib/report-fanout.mjs'
import { scaleSection } from './lib/report-scale.mjs'
import { fanoutScale } from './lib/scale.mjs'
import { memoryUnderLoad } from './lib/memory.mjs'
import { moreBundleJobs, templateBundleJobs, templateBundlesSection } from './lib/more-bundles.mjs'
import { PEER_VARIANTS, peerLoopJobs, peersIsolate, peersLoad, peersSection } from './lib/peers.mjs'
import { profiledVariants, profileMissed } from './lib/profile.mjs'
import { floorSection, streamingSection, targetsTable, toMarkdown, writeResults } from './lib/report.mjs'
import { stateInNode, stateInWorkerd } from './lib/state.mjs'
import { firstChunkLatency, partialLatency, streamCompare } from './lib/streaming.mjs'
import { evaluateFloorTargets, evaluateStreamTargets, evaluateTargets } from './lib/targets.mjs'
import { taskEngines } from './lib/task-engines.mjs'
import { logThroughput, taskLatencies } from './lib/tasks.mjs'
import { BUILT_WORKERS, VARIANTS } from './lib/variants.mjs'
import { reportWorkerdWarnings, startWorker, startWorkers } from './lib/workerd.mjs'

// Its builds, logs and workerd state go when it ends; results written there stay.
removeTmpOnExit()

const started = performance.now()
const log = (line) => console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${line}`)
const running = new Set()

async function start(variant, scriptPath) {
  const target = await startWorker(variant, scriptPath)
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

/** The build of the demo with telemetry off (variants.mjs `edge-off`), minified as the demo's. */
function edgeOffJob() {
  return ['edge-off', { config: telemetryOffConfig('edge') }]
}

/** Start every variant, run `fn` on the targets, stop them all. */
async function withWorkers(variants, scriptOf, fn) {
  const targets = {}
  try {
    for (const variant of variants) targets[variant] = await start(variant, scriptOf(variant))
    return await fn(targets)
  } finally {
    for (const target of Object.values(targets)) await stop(target)
  }
}

/** Fan-out to listen streams and to 2025 sessions' GET streams, and the heap of idle session streams (inspector on). */
async function fanoutStep(scriptOf) {
  const fanout = await fanoutLatency(config, log)
  fanout.legacy = await legacyFanout(config, log)
  fanout.legacy.heap = await legacyStreamHeap(scriptOf('fanout'), config, log)
  return fanout
}

/** The floor over HTTP (both eras), then the same call inside one isolate. */
async function floorStep(scriptOf) {
  log(`floor: ${config.rounds} rounds × ${config.requests} tools/call add, ${config.connections} connections, both eras`)
  const floor = await withWorkers(
    ['edge', 'edge-off', 'sdk', 'hono', 'hono-log', 'edge-token', 'hono-token'],
    scriptOf,
    (targets) => floorLoad(targets, config, log),
  )
  log(
    `in-isolate: ${config.isolateRounds} rounds × ${config.isolateCalls} tools/call add in a loop, template and floor in one workerd`,
  )
  const loops = await startWorkers(['loop-hono', 'loop-hono-log', 'loop-edge'], scriptOf)
  running.add(loops)
  try {
    floor.isolate = await isolateLoop(loops, config)
  } finally {
    await stop(loops)
  }
  return floor
}

/** The end of an `--only` run: workerd's warnings, the section printed, results.md and results.json to the temp dir (or BENCH_OUT). */
function finishOnly(results, section) {
  results.workerdWarnings = reportWorkerdWarnings(log)
  results.runtimeSeconds = (performance.now() - started) / 1000
  const out = config.out ?? TMP
  const markdown = section()
  console.log(markdown)
  writeResults(out, results, markdown)
  // Results written to the temp dir stay for the reader the log line names.
  if (out === TMP) keepTmp('results.md', 'results.json')
  log(`wrote ${out}/results.md and results.json in ${results.runtimeSeconds.toFixed(0)} s`)
}

/**
 * Every peer with the same `add` tool (peers.mjs), each in its own workerd; then inside the
 * isolate, `buildOf(name)` giving the script of each loop build (peers.mjs `loopBuildOf`).
 */
async function peersStep(scriptOf, buildOf) {
  log(`peers: ${config.rounds} rounds × ${config.requests} tools/call add on ${PEER_VARIANTS.join(', ')}`)
  const peers = await withWorkers(PEER_VARIANTS, scriptOf, (targets) => peersLoad(targets, config, log))
  log(`peers in-isolate: ${config.isolateRounds} rounds × ${config.isolateCalls} tools/call add in a loop, one workerd`)
  peers.isolate = await peersIsolate(buildOf, config)
  return peers
}

/** `--only peers`: the peers step alone (minified builds), printed; results.json to the temp dir (or BENCH_OUT). */
async function onlyPeers() {
  const workers = [...new Set([...PEER_VARIANTS.map((variant) => VARIANTS[variant].worker), 'loop-hono', 'loop-edge'])]
  const jobs = [...workers.map((worker) => [worker]), ...peerLoopJobs()]
  const bundles = Object.fromEntries((await buildAll(jobs)).map((b) => [b.worker, { min: b }]))
  const results = {
    machine: machineInfo(),
    config: { ...config, command: `node bench/run.mjs --only peers${config.quick ? ' --quick' : ''}` },
    bundles,
  }
  results.peers = await peersStep(
    (variant) => bundles[VARIANTS[variant].worker].min.scriptPath,
    (build) => bundles[build].min.scriptPath,
  )
  finishOnly(results, () => peersSection(results))
}

/** `--only floor`: the floor step alone (its Workers built minified), printed; results.json to the temp dir (or BENCH_OUT). */
async function onlyFloor() {
  const variants = ['edge', 'sdk', 'hono', 'hono-log', 'hono-token', 'loop-hono', 'loop-hono-log', 'loop-edge']
  const workers = [...new Set(variants.map((variant) => VARIANTS[variant].worker))]
  const jobs = [...workers.map((worker) => [worker]), edgeOffJob()]
  const bundles = Object.fromEntries((await buildAll(jobs)).map((bundle) => [bundle.worker, bundle]))
  const results = {
    machine: machineInfo(),
    config: { ...config, command: `node bench/run.mjs --only floor${config.quick ? ' --quick' : ''}` },
  }
  results.floor = await floorStep((variant) => bundles[VARIANTS[variant].worker].scriptPath)
  results.targets = evaluateFloorTargets(results.floor)
  finishOnly(results, () => [targetsTable(results.targets, []), '', floorSection(results)].join('\n'))
}

/** One stream of partial results, mcp-edge beside the bare SSE writer, alternated; then its latencies. */
function streamStep(scriptOf) {
  log(`streaming: ${config.streamRounds} rounds × ${config.streamChunks} partial results, mcp-edge and a bare SSE writer`)
  return withWorkers(['extras', 'sse-bare'], scriptOf, async (targets) => ({
    rounds: await streamCompare(
      { edge: targets.extras, bare: targets['sse-bare'] },
      config.streamChunks,
      config.streamRounds,
      log,
    ),
    latency: await partialLatency(targets.extras, config.pacedChunks, config.pacedDelayMs),
    firstChunk: await firstChunkLatency(targets.extras, config.firstChunkCalls),
  }))
}

/** `--only stream`: the streaming step alone (extras and sse-bare built minified), with its three targets. */
async function onlyStream() {
  const bundles = Object.fromEntries((await buildAll([['extras'], ['sse-bare']])).map((bundle) => [bundle.worker, bundle]))
  const results = {
    machine: machineInfo(),
    config: { ...config, command: `node bench/run.mjs --only stream${config.quick ? ' --quick' : ''}` },
  }
  results.streaming = await streamStep((variant) => bundles[VARIANTS[variant].worker].scriptPath)
  results.targets = evaluateStreamTargets(results.streaming)
  finishOnly(results, () => [targetsTable(results.targets, []), '', streamingSection(results)].join('\n'))
}

/** `--only fanout`: the fan-out step alone; its section is printed, results.json goes to the temp dir (or BENCH_OUT). */
async function onlyFanout() {
  const [bundle] = await buildAll([['fanout']])
  useFanoutBuild(bundle.scriptPath)
  const results = {
    machine: machineInfo(),
    config: { ...config, command: `node bench/run.mjs --only fanout${config.quick ? ' --quick' : ''}` },
  }
  results.fanout = await fanoutStep(() => bundle.scriptPath)
  finishOnly(results, () => fanoutSection(results.fanout))
}

/** `--only scale`: the fan-out at scale alone, printed with its targets; results.json to the temp dir (or BENCH_OUT). */
async function onlyScale() {
  // The fan-out Worker is bundled by its first pair (fanout.mjs `withPair`).
  const results = {
    machine: machineInfo(),
    config: { ...config, command: `node bench/run.mjs --only scale${config.quick ? ' --quick' : ''}` },
  }
  results.scale = await fanoutScale(config, log)
  finishOnly(results, () => scaleSection(results.scale))
}

/** `--only bundles`: the templates' Workers built as their configs deploy them, beside their budgets. */
async function onlyBundles() {
  const bundles = {}
  for (const bundle of await buildAll(templateBundleJobs())) bundles[bundle.worker] = { min: bundle }
  const results = { machine: machineInfo(), config: { ...config, command: 'node bench/run.mjs --only bundles' }, bundles }
  finishOnly(results, () => templateBundlesSection(bundles))
}

async function main() {
  if (config.only !== undefined) {
    if (config.only === 'bundles') return onlyBundles()
    if (config.only === 'fanout') return onlyFanout()
    if (config.only === 'scale') return onlyScale()
    if (config.only === 'floor') return onlyFloor()
    if (config.only === 'peers') return onlyPeers()
    if (config.only === 'stream') return onlyStream()
    throw new Error(`--only takes one step name: floor, peers, stream, fanout, scale or bundles (got ${config.only})`)
  }
  const results = {
    machine: machineInfo(),
    config: { ...config, command: process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : `node bench/run.mjs` },
  }
  if (config.quick) results.config.command = `BENCH_QUICK=1 ${results.config.command}`

  // A quick run builds the measured Workers minified only (their unminified sizes are a full run's
  // table, and profiles read them: the profiled ones are built before profiling).
  log(`building (wrangler deploy --dry-run --outdir), minified${config.quick ? '' : ' and unminified'}`)
  // The measured Workers, then the ones measured for their size only (OAuth mode, the templates).
  const measured = [...BUILT_WORKERS.map((worker) => [worker]), edgeOffJob()]
  const unminified = ([worker, options = {}]) => [worker, { ...options, minify: false }]
  // The unminified sizes of the templates and the OAuth mode are a full run's table too.
  const moreBundles = moreBundleJobs().filter(([, options]) => !config.quick || options?.minify !== false)
  const jobs = [...measured.flatMap((job) => (config.quick ? [job] : [job, unminified(job)])), ...moreBundles, ...peerLoopJobs()]
  results.bundles = {}
  const keep = (bundle) => {
    results.bundles[bundle.worker] = { ...results.bundles[bundle.worker], [bundle.minify ? 'min' : 'raw']: bundle }
  }
  for (const bundle of await buildAll(jobs)) keep(bundle)
  const scriptOf = (variant, kind = 'min') => results.bundles[VARIANTS[variant].worker][kind].scriptPath
  useFanoutBuild(scriptOf('fanout'))

  const startupVariants = [
    ...['hono', 'hono-do', 'edge', 'edge-token', 'sdk', ...TOOL_VARIANTS, 'tools-200-eager'],
    ...['edge-sdk', 'agents', 'mcp-handler', 'tmcp', 'hono-mcp', 'minimal', 'tools-500-eager', 'hono-zod-500'],
    'hono-zod-200',
  ]
  log(`start-up: ${config.startupRepeats} fresh workerd per Worker, alternated (${startupVariants.join(', ')})`)
  results.startup = { rounds: await alternateStartup(startupVariants, scriptOf, config.startupRepeats, log) }

  results.floor = await floorStep(scriptOf)
  results.peers = await peersStep(scriptOf, (build) => results.bundles[build].min.scriptPath)

  log(`many tools: ${config.toolRounds} rounds of tools/call and tools/list on ${TOOL_VARIANTS.join(', ')}`)
  results.manyTools = await withWorkers(TOOL_VARIANTS, scriptOf, (targets) => manyToolsLoad(targets, config, log))

  results.streaming = await streamStep(scriptOf)

  log('mcp-edge only: tasks, sealed state')
  await withWorkers(['extras'], scriptOf, async ({ extras }) => {
    await verifyCall(extras.endpoint)
    results.tasks = {
      ...(await taskLatencies(extras, config.taskCalls)),
      log: await logThroughput(extras, config.logChunks, config.logRepeats),
    }
    results.state = { workerd: await stateInWorkerd(extras, config.stateWorkerdIterations, config.stateWorkerdRepeats) }
  })
  results.state.node = await stateInNode(config.stateNodeIterations)
  results.fanout = await fanoutStep(scriptOf)
  results.scale = await fanoutScale(config, log)

  log('durable tasks: creation and first read vs a bare Durable Object, one step vs a Workflow')
  results.engines = await taskEngines(scriptOf('engines'), config)

  const heapVariants = ['hono', 'edge', 'sdk', ...TOOL_VARIANTS, 'tools-200-eager']
  log(`heap after start-up, through the inspector (${heapVariants.join(', ')})`)
  results.heap = await heapAfterStartup(heapVariants, scriptOf, config.heapRepeats, log)

  log(`memory under load, through the inspector: ${config.memoryCalls} streaming calls, ${config.listeners} listen streams`)
  results.memory = await memoryUnderLoad(scriptOf('extras'), config, log)

  results.targets = evaluateTargets(results)
  const missed = results.targets.filter((t) => !t.met && t.profile)
  if (config.profile === '1' || (config.profile !== '0' && missed.length > 0 && !config.quick)) {
    log(
      `profiling in workerd for ${config.profile === '1' ? 'every target' : `the missed targets (${missed.map((t) => t.id).join(', ')})`}`,
    )
    const profiled = config.profile === '1' ? results.targets : missed
    const workers = new Set(profiledVariants(profiled, config).map((variant) => VARIANTS[variant].worker))
    const unbuilt = measured.filter(([worker]) => workers.has(worker) && !results.bundles[worker].raw)
    for (const bundle of await buildAll(unbuilt.map(unminified))) keep(bundle)
    results.profile = await profileMissed(profiled, scriptOf, config)
  }

  results.workerdWarnings = reportWorkerdWarnings(log)
  results.runtimeSeconds = (performance.now() - started) / 1000
  const out = config.out ?? (config.quick ? TMP : BENCH_DIR)
  results.history = appendHistory(out, results)
  const markdown = toMarkdown(results)
  console.log(markdown)
  writeResults(out, results, markdown)
  // Results written to the temp dir stay for the reader the log line names.
  if (out === TMP) keepTmp('results.md', 'results.json')
  log(`wrote ${out}/results.md and results.json in ${results.runtimeSeconds.toFixed(0)} s`)
}

try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  await stopAll()
  // A run that failed part-way: what workerd warned of is most wanted then (none left on success).
  reportWorkerdWarnings(log)
}
