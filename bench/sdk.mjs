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
 * one, say) as lanes of its own, printed beside the tree's (`name / sdk`). Then, in a workerd of
 * their own, a 22-tool server built per request as Jina's is (workers/loop-factory): through the
 * adapter (loop-sdk-factory) beside the same code on SDK 1.x + agents (loop-agents-factory),
 * `sdk-factory / agents-factory` for a call and for a 2025-era client's `tools/list` (`-list`
 * lanes), and what building it costs a call (`sdk-factory − sdk`). A `name=script.js` whose name
 * starts with `sdk-factory` is an earlier build of loop-sdk-factory, measured beside it there.
 */
import { build } from './lib/build.mjs'
import { describeRatio, medians } from './lib/compare.mjs'
import { config } from './lib/config.mjs'
import { removeTmpOnExit } from './lib/env.mjs'
import { floorLanes } from './lib/floor.mjs'
import { isolateLoop } from './lib/isolate-loop.mjs'
import { legacyRequest } from './lib/mcp.mjs'
import { median } from './lib/stats.mjs'
import { sdkCostTargets } from './lib/targets.mjs'
import { reportWorkerdWarnings, startWorkers } from './lib/workerd.mjs'

// Its builds, logs and workerd state go when it ends (it prints its figures, and writes nothing else).
removeTmpOnExit()

const log = (line) => console.error(`[bench:sdk] ${line}`)
/** The tools of the server built per request (workers/loop-factory/catalog.js): what its `tools/list` answers. */
const FACTORY_TOOLS = 22
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
// A name starting `sdk-factory` is a build of loop-sdk-factory instead, measured beside the tree's there.
const others = Object.fromEntries(process.argv.slice(2).map((pair) => pair.split('=')))
const isFactory = (id) => id.startsWith('sdk-factory')
const otherCalls = Object.keys(others).filter((id) => !isFactory(id))
const otherFactories = Object.keys(others).filter(isFactory)

/** Run `ids` as Workers of one workerd behind the in-isolate loop, with `config`; its rounds and empty loop. */
async function measure(ids, config, { lists = [] } = {}) {
  const group = await startWorkers(
    ids,
    (id) => others[id] ?? built[id].scriptPath,
    (id) => (id in built ? `loop-${id}` : isFactory(id) ? 'loop-sdk-factory' : 'loop-sdk'),
  )
  try {
    log(
      `${ids.join(', ')}: ${config.isolateRounds} rounds × ${config.isolateCalls} calls per lane, ${config.isolateSlices} slices`,
    )
    const lanesOf = async (running) => {
      const lanes = await floorLanes(running, { legacy: true })
      // agents' handler of an SDK 1.x server built per request mints none: its 2025-era lane is stateless.
      const sessionless = lanes.filter((lane) => lane.sessionId === false && !lane.id.startsWith('agents')).map((lane) => lane.id)
      if (sessionless.length > 0) throw new Error(`bench:sdk: no session id minted for ${sessionless.join(', ')}`)
      // `lists`: a 2025-era client's `tools/list` too, in the session its call lane opened (what a
      // client sends on connect, and after a list change).
      for (const id of lists) {
        const call = lanes.find((lane) => lane.id === `${id}-legacy`)
        const sessionId = call.request.headers['mcp-session-id']
        lanes.push({
          id: `${id}-list`,
          target: call.target,
          request: legacyRequest('tools/list', {}, sessionId),
          answered: (json) => json.result?.tools?.length === FACTORY_TOOLS,
        })
      }
      return lanes
    }
    return await isolateLoop(group, config, lanesOf)
  } finally {
    await group.dispose()
  }
}

try {
  // The target's lanes run in a workerd of their own: the per-request servers' garbage (collected
  // on workerd's other threads too) is kept out of the process CPU their slices are charged.
  const { rounds, emptyUs } = await measure(['native', 'sdk', ...otherCalls], config)
  printLanes(rounds, emptyUs)
  const over = difference(rounds)
  console.log(
    `sdk / native, 2026-07-28 call: ${describeRatio(rounds, 'cpuUsPerCall', 'sdk', 'native')}, sdk − native ${over('sdk', 'native')} µs`,
  )
  console.log(
    `sdk / native, 2025-era call: ${describeRatio(rounds, 'cpuUsPerCall', 'sdk-legacy', 'native-legacy')}, sdk − native ${over('sdk-legacy', 'native-legacy')} µs`,
  )
  for (const id of otherCalls) {
    for (const suffix of ['', '-legacy'])
      console.log(`${id}${suffix} / sdk${suffix}: ${describeRatio(rounds, 'cpuUsPerCall', `${id}${suffix}`, `sdk${suffix}`)}`)
  }
  for (const target of sdkCostTargets(rounds)) {
    const verdict = target.met ? 'met' : `MISSED (${target.gap})`
    console.log(`target: ${target.name}: ${target.measured.toFixed(3)}×, ${verdict}${target.settled ? '' : ', not settled'}`)
  }

  // A server built per request (about 1 ms a call: a tenth of the calls per slice), beside the
  // adapter's server built once, in a workerd of their own.
  const factory = await measure(
    ['sdk', 'sdk-factory', 'agents-factory', ...otherFactories],
    { ...config, isolateCalls: Math.max(100, Math.round(config.isolateCalls / 10)) },
    { lists: ['sdk-factory', 'agents-factory', ...otherFactories] },
  )
  printLanes(factory.rounds, factory.emptyUs)
  const overFactory = difference(factory.rounds)
  // SDK 1.x serves the 2025 revisions only: the peer has a 2025-era lane alone, and it is stateless
  // (agents' handler of an SDK 1.x server mints no session), where mcp-edge checks the sealed session each call.
  console.log(
    `server built per request, 2025-era call: sdk-factory / agents-factory ${describeRatio(factory.rounds, 'cpuUsPerCall', 'sdk-factory-legacy', 'agents-factory-legacy')} (agents: stateless)`,
  )
  console.log(
    `server built per request, 2025-era tools/list (${FACTORY_TOOLS} tools): sdk-factory / agents-factory ${describeRatio(factory.rounds, 'cpuUsPerCall', 'sdk-factory-list', 'agents-factory-list')}`,
  )
  for (const id of otherFactories)
    for (const suffix of ['', '-legacy', '-list'])
      console.log(
        `${id}${suffix} / sdk-factory${suffix}: ${describeRatio(factory.rounds, 'cpuUsPerCall', `${id}${suffix}`, `sdk-factory${suffix}`)}`,
      )
  for (const suffix of ['', '-legacy'])
    console.log(
      `a server built per request (its schemas, registrations and handler) costs a ${suffix ? '2025-era' : '2026-07-28'} call: sdk-factory − sdk ${overFactory(`sdk-factory${suffix}`, `sdk${suffix}`)} µs`,
    )
  const kib = (id) => `${id} ${(built[id].gzipBytes / 1024).toFixed(2)} KiB`
  console.log(`bundles, gzip: ${Object.keys(built).map(kib).join(', ')}`)
} finally {
  reportWorkerdWarnings(log)
}

/** Each lane's median µs per call, and the empty loop taken off. */
function printLanes(rounds, emptyUs) {
  const js = medians(rounds, 'cpuUsPerCall')
  console.log('\n| lane | JS µs/call |\n| --- | --- |')
  for (const id of Object.keys(js)) console.log(`| ${id} | ${js[id].toFixed(1)} |`)
  console.log(`\n(an empty loop request: ${emptyUs.toFixed(0)} µs, taken off every slice)`)
}

/** The median over rounds of one lane's µs per call less another's. */
function difference(rounds) {
  return (a, b) => median(rounds.map((round) => round[a].cpuUsPerCall - round[b].cpuUsPerCall)).toFixed(1)
}
