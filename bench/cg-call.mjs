#!/usr/bin/env node
/**
 * `node bench/cg-call.mjs [--calls N] [--rounds R] [--peers] [base=<dir or script of an earlier loop-edge build> …]`:
 * workerd's instructions per `tools/call add` inside one isolate, for cuts on the call path too
 * small for the loaded machine's CPU figures (issue 38's "≤ 0.5× the CPU per call of every
 * SDK-based peer"). One workerd under valgrind's callgrind (the `MINIFLARE_WORKERD_PATH` wrapper)
 * runs the Hono floor (loop-hono) and this tree's demo as shipped (loop-edge: telemetry on, the log
 * line and the span), each its own isolate behind the in-isolate loop (workers/loop.js), plus
 * each build of loop-edge given as `name=<dir or script>` (`base=…`) (a copy of an earlier build's directory, for example
 * `cp -r $TMPDIR/mcp-edge-bench-*\/build/loop-edge-min /tmp/before`). Lanes: the floor's call, the
 * template's 2026-07-28 call and its 2025-era call (with the session id its `initialize` minted),
 * the same for each given build. After a warm-up, each round takes every lane in turn (the order alternating
 * round by round): callgrind's counters are zeroed, one loop request of N calls (default 400) is
 * sent, the main thread's instructions are dumped; an empty loop request (n=0, counted the same
 * way, its median) is taken off, and the rest divided by N. Median over R rounds (default 3).
 *
 * `--peers` adds the SDK-based peers (peers.mjs `SDK_BASED`: the SDK v2 Worker, agents, Vercel's
 * mcp-handler, @hono/mcp), each behind the loop in its own isolate with its 2026-07-28 call, and
 * prints the tree's 2026-07-28 count over each beside issue 38's ≤ 0.5× (a CPU target, measured
 * over HTTP by `npm run bench`: this ratio of instructions inside the isolate is a guide to it,
 * without workerd's HTTP work, which both sides pay alike and which would pull the ratio up).
 *
 * Instructions are not time (cache misses and workerd's HTTP work outside the loop are left out),
 * but they repeat to well under 1% where the CPU figures move by a fifth. About a minute and a half;
 * needs valgrind; never part of `npm test`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { build } from './lib/build.mjs'
import { disposeUnder, dumpInstructions, useCallgrind, valgrindOf, zeroCounts } from './lib/callgrind.mjs'
import { inTurn } from './lib/compare.mjs'
import { post, prepareLoop } from './lib/isolate-loop.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect } from './lib/mcp.mjs'
import { median } from './lib/stats.mjs'
import { PEER_CPU_LIMIT, peerLoopJobs, SDK_BASED } from './lib/peers.mjs'
import { VARIANTS } from './lib/variants.mjs'
import { startWorkers, WORKERD_STDOUT } from './lib/workerd.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at < 0 ? fallback : Number(args.splice(at, 2)[1])
}
const peersAt = args.indexOf('--peers')
const withPeers = peersAt >= 0 && args.splice(peersAt, 1).length > 0
const calls = option('--calls', 400)
const rounds = option('--rounds', 3)
const WARMUP = 1000
const EMPTY = 3
const given = Object.fromEntries(args.map((pair) => pair.split('=')))

/** The built script in `path` (a build's directory, or the script itself). */
function scriptIn(path) {
  if (!existsSync(path)) throw new Error(`no build at ${path}`)
  if (!statSync(path).isDirectory()) return path
  const file = readdirSync(path).find((name) => name.endsWith('.js'))
  if (!file) throw new Error(`no .js in ${path}`)
  return join(path, file)
}

const scripts = { hono: build('loop-hono').scriptPath, tree: build('loop-edge').scriptPath }
for (const [id, path] of Object.entries(given)) scripts[id] = scriptIn(path)
// `--peers`: the SDK-based peers behind the loop too (peers.mjs builds), each in its own isolate.
const peers = withPeers ? peerLoopJobs().filter(([job]) => SDK_BASED.includes(job.slice('loop-'.length))) : []
for (const [job, options] of peers) scripts[job.slice('loop-'.length)] = build(job, options).scriptPath
const isPeer = (id) => SDK_BASED.includes(id) && !(id in given)
const ids = Object.keys(scripts)

// The Worker's log lines into a file, as the bench's workerd.mjs does, not through Miniflare's pipe.
const dumps = useCallgrind({ separateThreads: true, stdout: WORKERD_STDOUT })
const group = await startWorkers(
  ids,
  (id) => scripts[id],
  (id) => (id === 'hono' ? 'loop-hono' : isPeer(id) ? id : 'loop-edge'),
)

try {
  const valgrind = valgrindOf(group.pid)
  const lanes = [{ id: 'floor (hono)', target: group.targets.hono, request: ADD_CALL }]
  for (const id of ids.filter((id) => id !== 'hono' && !isPeer(id))) {
    const target = group.targets[id]
    const sessionId = await legacyConnect(target.endpoint)
    if (!sessionId) throw new Error(`${id} minted no session id`)
    lanes.push({ id: `${id} 2026-07-28`, target, request: ADD_CALL })
    lanes.push({ id: `${id} 2025 (session)`, target, request: legacyAddCall(sessionId) })
  }
  for (const id of ids.filter(isPeer)) {
    lanes.push({ id: `${id} (peer)`, target: group.targets[id], request: VARIANTS[id].call?.request ?? ADD_CALL })
  }
  for (const lane of lanes) {
    await prepareLoop(lane)
    lane.counts = []
  }
  console.error(`[cg-call] warming up (${WARMUP} calls a lane)`)
  for (const lane of lanes) await post(lane.target, WARMUP, lane.loop)
  const counted = async (lane, count) => {
    zeroCounts(valgrind)
    await post(lane.target, count, lane.loop)
    return dumpInstructions(dumps, valgrind).instructions
  }
  const empties = []
  for (let i = 0; i < EMPTY; i++) for (const lane of lanes) empties.push(await counted(lane, 0))
  const empty = median(empties)
  for (let round = 1; round <= rounds; round++) {
    for (const lane of inTurn(lanes, round)) {
      lane.counts.push(((await counted(lane, calls)) - empty) / calls / 1000)
      console.error(`[cg-call] round ${round}/${rounds}: ${lane.id} ${lane.counts.at(-1).toFixed(1)}k`)
    }
  }
  console.log(
    `\n| ${calls} calls a loop request, ${rounds} rounds, less an empty request (${(empty / 1000).toFixed(0)}k) | k instructions per tools/call (median) | × floor | every round |\n| --- | --- | --- | --- |`,
  )
  const floor = median(lanes[0].counts)
  for (const lane of lanes) {
    const value = median(lane.counts)
    console.log(
      `| ${lane.id} | ${value.toFixed(1)} | ${(value / floor).toFixed(2)} | ${lane.counts.map((c) => c.toFixed(1)).join(', ')} |`,
    )
  }
  const sdk = lanes.filter((lane) => lane.id.endsWith('(peer)'))
  if (sdk.length > 0) {
    const tree = median(lanes.find((lane) => lane.id === 'tree 2026-07-28').counts)
    console.log(`\n| tree 2026-07-28 / SDK-based peer, instructions (median) | issue 38's CPU target |\n| --- | --- |`)
    for (const lane of sdk) console.log(`| ${lane.id}: ${(tree / median(lane.counts)).toFixed(3)}× | ≤ ${PEER_CPU_LIMIT}× |`)
  }
} finally {
  await disposeUnder(group)
}
