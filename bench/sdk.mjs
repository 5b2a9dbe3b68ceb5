#!/usr/bin/env node
/**
 * `npm run bench:sdk`: what mcp-edge/sdk costs a call (issue 36: at most 1.05× the same tool on the
 * native API). The `add` tool on the native API (workers/loop-native) and as SDK code on the adapter
 * (workers/loop-sdk), two Workers of one workerd behind the in-isolate loop, called by a 2026-07-28
 * client and by a 2025-era client (with the session id its `initialize` minted), lanes interleaved
 * in slices and alternated per round (lib/isolate-loop.mjs): the JavaScript of a call, without the
 * HTTP around it. Prints each lane's µs per call and `sdk / native` with its 95% interval, the
 * verdict against the target (lib/targets.mjs `sdkCostTargets`), and both bundles (gzip), each
 * built as a deploy builds it. `name=script.js` adds another build of loop-sdk (a copy of an earlier
 * one, say) as lanes of its own, printed beside the tree's (`name / sdk`).
 */
import { build } from './lib/build.mjs'
import { describeRatio, medians } from './lib/compare.mjs'
import { config } from './lib/config.mjs'
import { removeTmpOnExit } from './lib/env.mjs'
import { floorLanes } from './lib/floor.mjs'
import { isolateLoop } from './lib/isolate-loop.mjs'
import { median } from './lib/stats.mjs'
import { sdkCostTargets } from './lib/targets.mjs'
import { reportWorkerdWarnings, startWorkers } from './lib/workerd.mjs'

// Its builds, logs and workerd state go when it ends (it prints its figures, and writes nothing else).
removeTmpOnExit()

const log = (line) => console.error(`[bench:sdk] ${line}`)
const built = {
  native: build('loop-native'),
  sdk: build('loop-sdk'),
  // A 22-tool server built per request, as Jina's is: through the adapter, and on SDK 1.x + agents.
  'sdk-factory': build('loop-sdk-factory'),
  'agents-factory': build('loop-agents-factory'),
}
log(
  `bundles (gzip): ${Object.entries(built)
    .map(([id, { gzipBytes }]) => `${id} ${gzipBytes} bytes`)
    .join(', ')}`,
)
// `name=script.js`: another build of loop-sdk (a copy of an earlier one, say) as lanes of its own.
const others = Object.fromEntries(process.argv.slice(2).map((pair) => pair.split('=')))

let group
try {
  group = await startWorkers(
    [...Object.keys(built), ...Object.keys(others)],
    (id) => others[id] ?? built[id].scriptPath,
    (id) => (id in built ? `loop-${id}` : 'loop-sdk'),
  )
  log(`${config.isolateRounds} rounds × ${config.isolateCalls} calls per lane, ${config.isolateSlices} slices`)
  const lanesOf = async (running) => {
    const lanes = await floorLanes(running, { legacy: true })
    // agents' handler of an SDK 1.x server built per request mints none: its 2025-era lane is stateless.
    const sessionless = lanes.filter((lane) => lane.sessionId === false && !lane.id.startsWith('agents')).map((lane) => lane.id)
    if (sessionless.length > 0) throw new Error(`bench:sdk: no session id minted for ${sessionless.join(', ')}`)
    return lanes
  }
  const { rounds, emptyUs } = await isolateLoop(group, config, lanesOf)
  const js = medians(rounds, 'cpuUsPerCall')
  const over = (a, b) => median(rounds.map((round) => round[a].cpuUsPerCall - round[b].cpuUsPerCall)).toFixed(1)
  console.log('\n| lane | JS µs/call |\n| --- | --- |')
  for (const id of Object.keys(js)) console.log(`| ${id} | ${js[id].toFixed(1)} |`)
  console.log(`\n(an empty loop request: ${emptyUs.toFixed(0)} µs, taken off every slice)`)
  console.log(
    `sdk / native, 2026-07-28 call: ${describeRatio(rounds, 'cpuUsPerCall', 'sdk', 'native')}, sdk − native ${over('sdk', 'native')} µs`,
  )
  console.log(
    `sdk / native, 2025-era call: ${describeRatio(rounds, 'cpuUsPerCall', 'sdk-legacy', 'native-legacy')}, sdk − native ${over('sdk-legacy', 'native-legacy')} µs`,
  )
  // SDK 1.x serves the 2025 revisions only: the peer has a 2025-era lane alone.
  console.log(
    `server built per request, 2025-era call: sdk-factory / agents-factory ${describeRatio(rounds, 'cpuUsPerCall', 'sdk-factory-legacy', 'agents-factory-legacy')}`,
  )
  for (const suffix of ['', '-legacy'])
    console.log(
      `the build's cost, ${suffix ? '2025-era' : '2026-07-28'} call: sdk-factory − sdk ${over(`sdk-factory${suffix}`, `sdk${suffix}`)} µs`,
    )
  for (const id of Object.keys(others)) {
    for (const suffix of ['', '-legacy'])
      console.log(`${id}${suffix} / sdk${suffix}: ${describeRatio(rounds, 'cpuUsPerCall', `${id}${suffix}`, `sdk${suffix}`)}`)
  }
  for (const target of sdkCostTargets(rounds)) {
    const verdict = target.met ? 'met' : `MISSED (${target.gap})`
    console.log(`target: ${target.name}: ${target.measured.toFixed(3)}×, ${verdict}${target.settled ? '' : ', not settled'}`)
  }
  const kib = (id) => `${id} ${(built[id].gzipBytes / 1024).toFixed(2)} KiB`
  console.log(`bundles, gzip: ${Object.keys(built).map(kib).join(', ')}`)
} finally {
  await group?.dispose()
  reportWorkerdWarnings(log)
}
