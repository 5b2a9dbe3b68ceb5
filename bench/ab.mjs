#!/usr/bin/env node
/**
 * `npm run bench:ab -- [ref] [--legacy] [--swap] [--startup | --isolate] [--telemetry-off]`: what a change costs per `tools/call`
 * (over HTTP; `--startup`: at start-up; `--isolate`: inside the isolate). The template Worker as this working tree has it (`tree`) and as git `ref` had it (`ref`, default
 * HEAD, so an uncommitted change is measured against the last commit), each in its own workerd,
 * beside the Hono floor, in alternating rounds of the floor step's load (bench/README.md, "A/B").
 * `--legacy` adds the 2025-era call (with a session id) on both. Workers start in the order floor,
 * ref, tree, or floor, tree, ref with `--swap` (identical workerds differ a little by start order;
 * bench/README.md). Prints each lane's CPU per call, its ratio to the floor and `tree / ref`:
 * medians of per-round ratios, with a 95% interval (resampling the rounds) and their range.
 * `--startup` measures start-up instead: fresh workerds of the floor, ref and tree, alternated
 * (`BENCH_STARTUPS` rounds, default 15), workerd's
 * CPU from spawn to the first answer. `--isolate` measures the JavaScript of a call instead: the floor,
 * the ref and the tree behind the bench's in-isolate loop (workers/loop.js), three Workers of one
 * workerd, called in interleaved slices (bench/lib/isolate-loop.mjs), without the HTTP around a call
 * and most of its noise. `--telemetry-off` builds the tree with the demo's `telemetry:` line set to
 * `{ logs: 'off' }` (no log line, no spans, like the floor; build.mjs `telemetryOffConfig`), so the
 * tree's ×floor is the runtime's own and, with nothing else changed, `tree / ref` what the
 * templates' telemetry costs (give or take building the library from dist/ for the tree and from
 * the ref's sources).
 *
 * The ref's sources are taken with `git archive` and built against this tree's node_modules and
 * `workers/edge/wrangler.jsonc` (`--isolate`: `workers/loop-edge/wrangler.jsonc`; both bind the same
 * Durable Objects), so only the source differs; a ref must export the Durable Object classes those
 * configs bind (every commit since 6f5ae52, which added McpSessionLedger).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TMP } from './lib/env.mjs'
import { build, configPath, telemetryOffConfig, writeLoopEntry } from './lib/build.mjs'
import { alternateLoad, alternateStartup, describeRatio, medians } from './lib/compare.mjs'
import { median } from './lib/stats.mjs'
import { config } from './lib/config.mjs'
import { floorLanes } from './lib/floor.mjs'
import { isolateLoop } from './lib/isolate-loop.mjs'
import { reportWorkerdWarnings, startWorker, startWorkers } from './lib/workerd.mjs'

const args = process.argv.slice(2)
const flags = args.filter((arg) => arg.startsWith('--'))
const KNOWN = ['--legacy', '--swap', '--startup', '--isolate', '--telemetry-off']
const unknown = flags.filter((flag) => !KNOWN.includes(flag))
if (unknown.length > 0) throw new Error(`bench:ab: unknown option ${unknown.join(', ')} (known: ${KNOWN.join(', ')})`)
const ref = args.find((arg) => !arg.startsWith('--')) ?? 'HEAD'
const legacy = flags.includes('--legacy')
const swap = flags.includes('--swap')
const startup = flags.includes('--startup')
const isolate = flags.includes('--isolate')
const telemetryOff = flags.includes('--telemetry-off')
if (startup && isolate) throw new Error('bench:ab: --startup and --isolate are two different measurements; give one')
const log = (line) => console.error(`[bench:ab] ${line}`)

/**
 * The demo at `ref`, built like the tree's (workers/edge/wrangler.jsonc with `main` at the ref's
 * Worker; with `--isolate`, workers/loop-edge/wrangler.jsonc with `main` at the ref's Worker behind
 * this tree's loop). Since the workspace split (packages/, apps/, templates/) the demo imports `mcp-edge`:
 * wrangler's `alias` points that at the ref's own library sources, so only the source differs;
 * an older ref has everything under src/.
 */
function buildRef(worker) {
  const dir = join(TMP, 'ab-ref')
  mkdirSync(dir, { recursive: true })
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim()
  const has = (path) =>
    execFileSync('git', ['ls-tree', '--name-only', commit, path], { cwd: ROOT, encoding: 'utf8' }).trim() !== ''
  const split = has('packages/mcp-edge')
  const folders = split ? ['packages/mcp-edge/src', 'apps/demo/src', 'templates'] : ['src']
  const archive = join(TMP, 'ab-ref.tar')
  execFileSync('git', ['archive', '-o', archive, commit, ...folders], { cwd: ROOT })
  execFileSync('tar', ['-xf', archive, '-C', dir])
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const main = /"main": "[^"]*"/
  const jsonc = readFileSync(configPath(worker), 'utf8')
  if (!main.test(jsonc)) throw new Error(`bench:ab: no \`"main": …\` line in ${configPath(worker)}`)
  const library = (entry) => `./packages/mcp-edge/src/${entry}`
  const alias = split
    ? `"alias": { "mcp-edge/client": "${library('client/index.ts')}", "mcp-edge/cloudflare": "${library('cloudflare/index.ts')}", "mcp-edge": "${library('index.ts')}" },\n  `
    : ''
  let entry = split ? 'apps/demo/src/worker.ts' : 'src/worker.ts'
  // The ref's Worker behind this tree's loop.
  if (worker === 'loop-edge') entry = writeLoopEntry(dir, entry, jsonc)
  writeFileSync(join(dir, 'wrangler.jsonc'), jsonc.replace(main, `${alias}"main": "${entry}"`))
  return { commit, ...build(`${worker}-ref`, { config: join(dir, 'wrangler.jsonc') }) }
}

const targets = {}
async function stopAll() {
  await Promise.allSettled(Object.values(targets).map((target) => target.dispose()))
}
process.on('SIGINT', () => void stopAll().finally(() => process.exit(130)))
process.on('SIGTERM', () => void stopAll().finally(() => process.exit(143)))

/** Start-up of the floor, the ref and the tree, each in fresh workerds, alternated. */
async function compareStartup(built) {
  const ids = swap ? ['hono', 'tree', 'ref'] : ['hono', 'ref', 'tree']
  const repeats = Number(process.env.BENCH_STARTUPS ?? 15)
  log(`start-up: ${repeats} rounds of a fresh workerd each (${ids.join(', ')})`)
  const scripts = { ...built, hono: build('hono') }
  const rounds = await alternateStartup(
    ids,
    (id) => scripts[id].scriptPath,
    repeats,
    log,
    (id) => (id === 'hono' ? 'hono' : 'edge'),
  )
  const cpu = medians(rounds, 'cpuMs')
  console.log(`\n| Worker | workerd CPU ms, spawn → first answer | ×floor |\n| --- | --- | --- |`)
  for (const id of ids)
    console.log(`| ${id} | ${cpu[id].toFixed(1)} | ${id === 'hono' ? '' : describeRatio(rounds, 'cpuMs', id, 'hono')} |`)
  console.log(`\ntree / ref (${built.ref.commit}), start-up: ${describeRatio(rounds, 'cpuMs', 'tree', 'ref')}`)
}

/** CPU per `tools/call` of the ref and the tree beside the floor, each in its own workerd, in alternating rounds. */
async function compareCalls(built) {
  targets.hono = await startWorker('hono', build('hono').scriptPath)
  for (const id of swap ? ['tree', 'ref'] : ['ref', 'tree']) targets[id] = await startWorker('edge', built[id].scriptPath)
  const lanes = await floorLanes(targets, { legacy })
  log(`${lanes.length} lanes, ${config.rounds} rounds × ${config.requests} requests after ${config.warmupRequests} each`)
  const rounds = await alternateLoad(lanes, config, log)
  const cpu = medians(rounds, 'cpuUsPerRequest')
  const perCall = (a, b) => describeRatio(rounds, 'cpuUsPerRequest', a, b)
  console.log(`\n| lane | CPU µs/call | ×floor |\n| --- | --- | --- |`)
  for (const { id } of lanes) console.log(`| ${id} | ${cpu[id].toFixed(1)} | ${id === 'hono' ? '' : perCall(id, 'hono')} |`)
  console.log(`\ntree / ref (${built.ref.commit}): ${perCall('tree', 'ref')}`)
  if (legacy) console.log(`tree / ref, 2025-era call: ${perCall('tree-legacy', 'ref-legacy')}`)
}

/**
 * The JavaScript of a call on the ref and the tree beside the floor's: three Workers of one workerd
 * behind the in-isolate loop, lanes interleaved in slices, alternated per round (isolate-loop.mjs).
 */
async function compareIsolate(built) {
  const ids = swap ? ['hono', 'tree', 'ref'] : ['hono', 'ref', 'tree']
  const scripts = { ...built, hono: build('loop-hono') }
  const group = await startWorkers(
    ids,
    (id) => scripts[id].scriptPath,
    (id) => (id === 'hono' ? 'loop-hono' : 'loop-edge'),
  )
  targets.group = group
  log(
    `in one workerd: ${ids.join(', ')}; ${config.isolateRounds} rounds × ${config.isolateCalls} calls per lane, ${config.isolateSlices} slices`,
  )
  // The floor step's lanes (floor.mjs), each 2025-era one with the session id its initialize minted.
  const lanesOf = async (running) => {
    const lanes = await floorLanes(running, { legacy })
    const sessionless = lanes.filter((lane) => lane.sessionId === false).map((lane) => lane.id)
    if (sessionless.length > 0) throw new Error(`bench:ab: no session id minted for ${sessionless.join(', ')}`)
    return lanes
  }
  const { rounds, emptyUs } = await isolateLoop(group, config, lanesOf)
  const js = medians(rounds, 'cpuUsPerCall')
  const perCall = (a, b) => describeRatio(rounds, 'cpuUsPerCall', a, b)
  console.log(`\n| lane | JS µs/call | ×floor |\n| --- | --- | --- |`)
  for (const id of Object.keys(js)) console.log(`| ${id} | ${js[id].toFixed(1)} | ${id === 'hono' ? '' : perCall(id, 'hono')} |`)
  const over = (a, b) => median(rounds.map((round) => round[a].cpuUsPerCall - round[b].cpuUsPerCall)).toFixed(1)
  console.log(`\n(an empty loop request: ${emptyUs.toFixed(0)} µs, taken off every slice)`)
  console.log(`tree / ref (${built.ref.commit}), in-isolate: ${perCall('tree', 'ref')}, tree − ref ${over('tree', 'ref')} µs`)
  if (legacy) {
    const pair = ['tree-legacy', 'ref-legacy']
    console.log(`tree / ref, 2025-era call: ${perCall(...pair)}, tree − ref ${over(...pair)} µs`)
  }
}

try {
  const worker = isolate ? 'loop-edge' : 'edge'
  const old = buildRef(worker)
  const tree = telemetryOff ? build(`${worker}-telemetry-off`, { config: telemetryOffConfig(worker) }) : build(worker)
  log(
    `ref ${ref} (${old.commit}): ${old.gzipBytes} bytes gzip; tree${telemetryOff ? ' (telemetry off)' : ''}: ${tree.gzipBytes} bytes gzip`,
  )
  const built = { ref: old, tree }
  if (startup) await compareStartup(built)
  else if (isolate) await compareIsolate(built)
  else await compareCalls(built)
} finally {
  await stopAll()
  reportWorkerdWarnings(log)
}
