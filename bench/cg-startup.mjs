#!/usr/bin/env node
/**
 * `node bench/cg-startup.mjs [--rounds N] [--variant V] [name=script.js …]`: a Worker's start-up
 * counted in instructions, for changes too small for `bench:ab -- --startup` (it resolves about 3%
 * on this machine; this, about 0.05%). Each round starts a fresh workerd under valgrind's callgrind
 * (the `MINIFLARE_WORKERD_PATH` wrapper written here), sends the variant's first call, checks
 * the answer and reads workerd's instruction count from spawn to that answer (every thread, as
 * workerd's CPU figure counts them). Scripts alternate round by round. Without scripts it builds
 * this tree's minimal template (the `minimal` variant, issue 38's ≤ 1.10× the floor) once as
 * `tree`; give a ref's build beside it to compare (for example a copy of an earlier `tree` build).
 *
 * `--floor` adds the Hono floor (its own build and call, the `hono` variant) to the rounds and
 * prints each script's median over the floor's beside issue 38's ≤ 1.10× (a CPU target: the
 * ratio of instructions is a guide to it, not its verdict, which `npm run bench` gives).
 *
 * Counts repeat to about ±0.1M instructions, with one jump of about 1.3M that a start takes or
 * not (two modes): compare medians of several rounds, or a mode with the same mode. Instructions
 * are not time: page faults and cache misses are left out (the first `toISOString` of an isolate
 * pages in ICU data, for example). Needs valgrind; about 15 s a start; never part of `npm test`.
 */
import { join } from 'node:path'
import { build } from './lib/build.mjs'
import { disposeUnder, dumpInstructions, useCallgrind, valgrindOf } from './lib/callgrind.mjs'
import { ROOT } from './lib/env.mjs'
import { verifyCall } from './lib/mcp.mjs'
import { median } from './lib/stats.mjs'
import { MINIMAL_STARTUP_LIMIT } from './lib/targets.mjs'
import { VARIANTS } from './lib/variants.mjs'
import { startWorker } from './lib/workerd.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at < 0 ? fallback : args.splice(at, 2)[1]
}
const rounds = Number(option('--rounds', 3))
const variant = option('--variant', 'minimal')
const floorAt = args.indexOf('--floor')
const withFloor = floorAt >= 0 && args.splice(floorAt, 1).length > 0
const { worker, config } = VARIANTS[variant]
const scripts = Object.fromEntries(args.map((pair) => pair.split('=')))
if (Object.keys(scripts).length === 0) {
  const options = config ? { config: join(ROOT, 'bench/workers', config, 'wrangler.jsonc') } : {}
  scripts.tree = build(worker, options).scriptPath
}

/** The floor: its id in the rounds, the variant whose call it answers. */
const FLOOR = 'floor (hono)'
const variantOf = (id) => (id === FLOOR ? 'hono' : variant)
if (withFloor) scripts[FLOOR] = build('hono').scriptPath

const dumps = useCallgrind()

/** Instructions from spawn to now of the callgrind under `pid` (the wrapper Miniflare spawned). */
const instructions = (pid) => dumpInstructions(dumps, valgrindOf(pid)).instructions / 1e6

const ids = Object.keys(scripts)
const counts = Object.fromEntries(ids.map((id) => [id, []]))
for (let round = 0; round < rounds; round++) {
  for (const id of round % 2 ? [...ids].reverse() : ids) {
    const target = await startWorker(variantOf(id), scripts[id])
    try {
      const { request, answer } = VARIANTS[variantOf(id)].call
      await verifyCall(target.endpoint, request, answer)
      counts[id].push(instructions(target.pid))
      console.error(`[cg-startup] round ${round + 1}/${rounds}: ${id} ${counts[id].at(-1).toFixed(2)}M`)
    } finally {
      await disposeUnder(target)
    }
  }
}
console.log(`\n| ${variant} | M instructions, spawn → first answer (median) | every round |\n| --- | --- | --- |`)
for (const id of ids)
  console.log(`| ${id} | ${median(counts[id]).toFixed(2)} | ${counts[id].map((c) => c.toFixed(2)).join(', ')} |`)
if (withFloor) {
  const floor = median(counts[FLOOR])
  console.log(`\n| ${variant} / floor, instructions (median) | issue 38's CPU target |\n| --- | --- |`)
  for (const id of ids.filter((id) => id !== FLOOR))
    console.log(`| ${id}: ${(median(counts[id]) / floor).toFixed(3)}× | ≤ ${MINIMAL_STARTUP_LIMIT.toFixed(2)}× |`)
}
