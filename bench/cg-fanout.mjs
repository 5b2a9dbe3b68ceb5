#!/usr/bin/env node
/**
 * `node bench/cg-fanout.mjs [--streams N] [--rounds R] [--tries T] [name=script.js …]`: workerd's
 * instructions per delivery on the fan-out path, for changes the loaded machine's CPU figures
 * cannot resolve (the scale bench's CPU per delivery moves by a fifth from run to run; this, by
 * about ±2% at 10 rounds, ±5–8% at 4: every stream's keepalive timer, all armed at about the same
 * time, fires inside the counted rounds or not). Each try starts the fan-out Worker (`fanout` variant: one isolate that also runs the
 * hub and the ledger objects, as profile-fanout.mjs) in a fresh workerd under valgrind's
 * callgrind (the `MINIFLARE_WORKERD_PATH` wrapper written here), opens N listen streams
 * (default 200) and N/5 2025 sessions' GET streams on `bench://fanout`, runs four warm-up rounds
 * and then R rounds (default 10) of one `touch`, at least 500 ms apart; callgrind's counters are
 * zeroed before the rounds and dumped after: workerd's main thread's instructions (where every
 * isolate and object runs; V8's background threads moved the totals by a tenth) over the rounds ÷
 * deliveries. Scripts alternate try by try: this tree's fan-out Worker (built unminified, as the
 * profile builds it, unless `tree=` names a script) and any given beside it, for example a copy
 * of an earlier build (`node bench/cg-fanout.mjs before=/tmp/before/worker.js`). Since 8cd7854 the
 * fan-out Worker shares hub sockets unless its `FANOUT_SHARE_SOCKETS` is "0" (none is passed here),
 * so a build from before that keeps a socket per stream: compare builds that agree on it.
 *
 * Instructions are not time (cache misses and the kernel's side of each socket write are left
 * out), and the count includes the touch call itself and the rounds' idle work, spread over the
 * deliveries. The dumps stay in the temp dir (`callgrind/`); workerd's binary has no symbols, so
 * `callgrind_annotate` cannot say where inside it they went. About 40 s a try; never part of `npm test`.
 */
import { build } from './lib/build.mjs'
import { disposeUnder, dumpInstructions, useCallgrind, valgrindOf, zeroCounts } from './lib/callgrind.mjs'
import { LEDGER_PACE_MS, openSession, openStream } from './lib/fanout-2025.mjs'
import { fanoutRounds, inBatches, openListener } from './lib/fanout.mjs'
import { median } from './lib/stats.mjs'
import { startWorker } from './lib/workerd.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at < 0 ? fallback : Number(args.splice(at, 2)[1])
}
const streams = option('--streams', 200)
const rounds = option('--rounds', 10)
const WARM_ROUNDS = 4
const tries = option('--tries', 2)
const sessions = Math.round(streams / 5)
const given = Object.fromEntries(args.map((pair) => pair.split('=')))
const scripts = given.tree ? given : { tree: build('fanout', { minify: false }).scriptPath, ...given }

const dumps = useCallgrind({ separateThreads: true })

async function countOne(id) {
  const target = await startWorker('fanout', scripts[id])
  const open = []
  try {
    const { endpoint } = target
    const fanout = fanoutRounds(endpoint, streams + sessions, LEDGER_PACE_MS)
    const opened = await inBatches(sessions, () => openSession(endpoint))
    open.push(...(await inBatches(sessions, (i) => openStream(opened[i], fanout.onUpdate))))
    open.push(...(await inBatches(streams, (i) => openListener(endpoint, `l${i}`, fanout.onUpdate))))
    // Warm-up rounds (with measure's own): the JIT's compilations, on threads callgrind counts too, mostly done.
    await fanout.measure(target.pid, WARM_ROUNDS - 1)
    const valgrind = valgrindOf(target.pid)
    zeroCounts(valgrind)
    await fanout.measure(target.pid, rounds - 1) // `rounds`: its warm-up round counts too
    const { instructions, dump } = dumpInstructions(dumps, valgrind)
    const wrong = open.filter((stream) => stream.heard !== WARM_ROUNDS + rounds)
    if (wrong.length > 0) throw new Error(`${wrong.length} streams heard ${wrong[0].heard} of ${WARM_ROUNDS + rounds} updates`)
    return { perDelivery: instructions / (rounds * (streams + sessions)), dump }
  } finally {
    await Promise.all(open.map((stream) => stream.close()))
    await disposeUnder(target)
  }
}

const ids = Object.keys(scripts)
const counts = Object.fromEntries(ids.map((id) => [id, []]))
for (let t = 0; t < tries; t++) {
  for (const id of t % 2 ? [...ids].reverse() : ids) {
    const { perDelivery, dump } = await countOne(id)
    counts[id].push(perDelivery / 1000)
    console.error(
      `[cg-fanout] try ${t + 1}/${tries}: ${id} ${(perDelivery / 1000).toFixed(1)}k instructions a delivery (${dump})`,
    )
  }
}
console.log(
  `\n| ${streams} listen + ${sessions} GET streams, ${rounds} rounds | k instructions per delivery (median) | every try |\n| --- | --- | --- |`,
)
for (const id of ids)
  console.log(`| ${id} | ${median(counts[id]).toFixed(1)} | ${counts[id].map((c) => c.toFixed(1)).join(', ')} |`)
