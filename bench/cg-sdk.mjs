#!/usr/bin/env node
/**
 * `node bench/cg-sdk.mjs [--calls N] [--repeats R] [--warmup W] [name=script.js …]`: what
 * mcp-edge/sdk costs a `tools/call`, counted in instructions, for changes the loaded machine's
 * CPU figures (`npm run bench:sdk`) cannot resolve. The same Workers as bench:sdk (the `add` tool
 * on the native API, workers/loop-native, and as SDK code on the adapter, workers/loop-sdk),
 * built as it builds them, run in one workerd under valgrind's callgrind (lib/callgrind.mjs),
 * each called by a 2026-07-28 client and by a 2025-era client (with the session id its
 * `initialize` minted) behind the in-isolate loop (workers/loop.js). After W warm-up calls per
 * lane (default 5,000: the JIT's tiers done), each repeat counts, lane by lane in alternating
 * order, a loop request of N calls (default 1,000) and an empty one (`n=0`), counters zeroed
 * before each: (loop − empty) ÷ N is the lane's instructions a call, without the loop request's own
 * HTTP. workerd's main thread (where the isolate runs) and every thread (V8's background
 * compiler and collector too, whose share moves with timing) are both printed; medians over R
 * repeats (default 3), and sdk ÷ native per era.
 *
 * `name=script.js` adds a build of the loop-sdk Worker (a copy of an earlier one, say) as lanes of
 * its own (`native…` names a build of loop-native instead), to compare a change: every lane is an
 * isolate of the same workerd. Instructions are not time (cache misses and page faults are left
 * out); a call on this machine is about 400k. About 3 minutes; never part of `npm test`.
 */
import { readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { build } from './lib/build.mjs'
import { disposeUnder, dumpInstructions, useCallgrind, valgrindOf, zeroCounts } from './lib/callgrind.mjs'
import { inTurn } from './lib/compare.mjs'
import { floorLanes } from './lib/floor.mjs'
import { post, prepareLoop } from './lib/isolate-loop.mjs'
import { median } from './lib/stats.mjs'
import { reportWorkerdWarnings, startWorkers, WORKERD_STDOUT } from './lib/workerd.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at < 0 ? fallback : Number(args.splice(at, 2)[1])
}
const calls = option('--calls', 1000)
const repeats = option('--repeats', 3)
const warmup = option('--warmup', 5000)
const log = (line) => console.error(`[cg-sdk] ${line}`)

const scripts = {
  native: build('loop-native').scriptPath,
  sdk: build('loop-sdk').scriptPath,
  ...Object.fromEntries(args.map((pair) => pair.split('='))),
}
log(
  `builds: ${Object.entries(scripts)
    .map(([id, path]) => `${id}=${path}`)
    .join(' ')}`,
)
const variantOf = (id) => (id.startsWith('native') ? 'loop-native' : 'loop-sdk')
const dumps = useCallgrind({ separateThreads: true, stdout: WORKERD_STDOUT })

/** Instructions (main thread, every thread) of one loop request of `n` calls on `lane`, counters zeroed first. */
function counted(valgrind, lane, n) {
  zeroCounts(valgrind)
  return post(lane.target, n, lane.loop).then(() => {
    const { instructions, allThreads, dump } = dumpInstructions(dumps, valgrind)
    // Each dump is a file per thread: keep the folder small over a run's many dumps.
    const prefix = `${dump.split('-')[0]}-`
    for (const file of readdirSync(dumps)) if (file.startsWith(prefix)) rmSync(join(dumps, file))
    return { main: instructions, all: allThreads }
  })
}

const group = await startWorkers(Object.keys(scripts), (id) => scripts[id], variantOf)
const valgrind = valgrindOf(group.pid)
try {
  const lanes = await floorLanes(group.targets, { legacy: true })
  const unminted = lanes.filter((lane) => lane.sessionId === false)
  if (unminted.length > 0) throw new Error(`no session id minted for ${unminted.map((lane) => lane.id).join(', ')}`)
  for (const lane of lanes) await prepareLoop(lane)
  log(`warming up: ${warmup} calls per lane (${lanes.map((lane) => lane.id).join(', ')})`)
  for (const lane of lanes) await post(lane.target, warmup, lane.loop)
  const perCall = Object.fromEntries(lanes.map((lane) => [lane.id, { main: [], all: [] }]))
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const lane of inTurn(lanes, repeat)) {
      const loop = await counted(valgrind, lane, calls)
      const empty = await counted(valgrind, lane, 0)
      perCall[lane.id].main.push((loop.main - empty.main) / calls)
      perCall[lane.id].all.push((loop.all - empty.all) / calls)
      const last = (kind) => (perCall[lane.id][kind].at(-1) / 1000).toFixed(1)
      log(`repeat ${repeat}/${repeats}: ${lane.id} ${last('main')}k instructions a call (every thread ${last('all')}k)`)
    }
  }
  const k = (values) => (median(values) / 1000).toFixed(1)
  console.log(
    `\n| ${calls} calls a count, ${repeats} repeats | k instructions a call, main thread (median) | every thread | main thread, every repeat |`,
  )
  console.log('| --- | --- | --- | --- |')
  for (const lane of lanes) {
    const { main, all } = perCall[lane.id]
    console.log(`| ${lane.id} | ${k(main)} | ${k(all)} | ${main.map((c) => (c / 1000).toFixed(1)).join(', ')} |`)
  }
  const ratio = (a, b, kind) => (median(perCall[a][kind]) / median(perCall[b][kind])).toFixed(3)
  for (const id of Object.keys(scripts).filter((id) => variantOf(id) === 'loop-sdk')) {
    for (const [era, suffix] of [
      ['2026-07-28', ''],
      ['2025-era', '-legacy'],
    ])
      console.log(
        `${id} / native, ${era} call: ${ratio(id + suffix, `native${suffix}`, 'main')}× main thread, ${ratio(id + suffix, `native${suffix}`, 'all')}× every thread`,
      )
  }
} finally {
  await disposeUnder(group)
  reportWorkerdWarnings(log)
}
