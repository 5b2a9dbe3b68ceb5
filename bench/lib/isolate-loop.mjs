/**
 * The JavaScript of one `tools/call add` without the HTTP around it: Workers of one workerd behind
 * the loop (workers/loop.js; each its own isolate), each handed requests in a loop inside one
 * request, timed by the process's CPU over the loop less the cost of an empty loop request. The
 * bench's lanes, alternated: the Hono floor (workers/loop-hono), the floor with a log line
 * (workers/loop-hono-log), a 2026-07-28 client and a 2025-era
 * client (with the sealed session id its `initialize` minted) of the template (workers/loop-edge);
 * `bench:ab --isolate` gives its own (the floor, the ref and the tree). Workerd's own per-request
 * work (HTTP parsing, the socket, the I/O) is left out, which the floor comparison over HTTP
 * includes; so is most of its noise.
 */
import { inTurn } from './compare.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { median } from './stats.mjs'

const LOOP_URL = 'http://127.0.0.1:8787/mcp'
const EMPTY_LOOPS = 21

/** One loop request of `calls` calls (`n=0`: the loop request alone); the answer's text. */
export async function post(target, calls, loop) {
  const response = await fetch(new URL(`/bench/loop?n=${calls}`, target.origin), { method: 'POST', body: JSON.stringify(loop) })
  const text = await response.text()
  if (!response.ok) throw new Error(`in-isolate loop of ${target.id} failed: HTTP ${response.status} ${text}`)
  return text
}

/** The last `data:` line's payload of an SSE body (or the body itself, when it has none). */
export const lastData = (sse) =>
  sse
    .split('\n')
    .findLast((line) => line.startsWith('data: '))
    ?.slice(6) ?? sse

/**
 * Set `lane.loop`: the loop request of `lane` (`{ id, target, request }`) and the answer every
 * call of the loop must repeat, checked like the HTTP lanes' first answer (cg-sdk.mjs too).
 */
export async function prepareLoop(lane) {
  const { headers, body } = lane.request
  // The headers an HTTP client sends with this body (the Host check, the native body read).
  const length = String(Buffer.byteLength(body))
  lane.loop = { url: LOOP_URL, headers: { ...headers, host: new URL(LOOP_URL).host, 'content-length': length }, body }
  lane.loop.expect = await post(lane.target, 1, lane.loop)
  // A JSON body, or an SSE one (a peer's 2025 answer): its last `data:` line.
  const json = JSON.parse(lane.loop.expect.startsWith('{') ? lane.loop.expect : lastData(lane.loop.expect))
  // A lane's own check of its answer (`answered`), else the add tool's: `5`.
  if (!(lane.answered ?? addAnswered)(json)) {
    throw new Error(`${lane.id} answered wrongly in the loop: ${lane.loop.expect}`)
  }
}

const addAnswered = (json) => json.result?.content?.[0]?.text === '5' && !json.result.isError

/** CPU (µs) of one loop request of `calls` calls. */
async function timedPost(pid, target, calls, loop) {
  const before = cpuMs(pid)
  await post(target, calls, loop)
  return (cpuMs(pid) - before) * 1000
}

/** The bench's lanes: the floor, the floor with a log line, and the template's 2026-07-28 and 2025-era calls. */
async function templateLanes(targets) {
  const sessionId = await legacyConnect(targets['loop-edge'].endpoint)
  if (!sessionId)
    throw new Error('the template minted no session id: the 2025-era lane would not be the one the HTTP floor measures')
  return [
    { id: 'hono', target: targets['loop-hono'], request: ADD_CALL },
    { id: 'hono-log', target: targets['loop-hono-log'], request: ADD_CALL },
    { id: 'edge', target: targets['loop-edge'], request: ADD_CALL },
    { id: 'edge-legacy', target: targets['loop-edge'], request: legacyAddCall(sessionId) },
  ]
}

/**
 * `group`: Workers behind the loop in one workerd (workerd.mjs startWorkers), by default
 * loop-edge, loop-hono and loop-hono-log. `lanesOf(targets)` gives the lanes, `{ id, target, request }` each
 * (ab.mjs `--isolate`: the floor, the ref and the tree).
 */
export async function isolateLoop(
  group,
  { isolateCalls: calls, isolateSlices: slices, isolateRounds: rounds, isolateWarmup },
  lanesOf = templateLanes,
) {
  const { pid, targets } = group
  const lanes = await lanesOf(targets)
  for (const lane of lanes) await prepareLoop(lane)
  for (const lane of lanes) await post(lane.target, isolateWarmup, lane.loop)
  // What a loop request costs besides its calls (the HTTP request, parsing the posted JSON).
  const empty = []
  for (let i = 0; i < EMPTY_LOOPS; i++) {
    const lane = lanes[i % lanes.length]
    empty.push(await timedPost(pid, lane.target, 0, lane.loop))
  }
  const emptyUs = median(empty)
  // A round interleaves the lanes in slices and takes each lane's median slice, so that a garbage
  // collection (tens of ms, charged to whichever slice it lands in) moves no round.
  const perSlice = Math.ceil(calls / slices)
  const results = []
  for (let round = 1; round <= rounds; round++) {
    const timed = Object.fromEntries(lanes.map((lane) => [lane.id, []]))
    for (let slice = 0; slice < slices; slice++) {
      for (const lane of inTurn(lanes, round + slice)) {
        timed[lane.id].push(((await timedPost(pid, lane.target, perSlice, lane.loop)) - emptyUs) / perSlice)
      }
    }
    results.push(Object.fromEntries(lanes.map((lane) => [lane.id, { cpuUsPerCall: median(timed[lane.id]) }])))
  }
  return { calls: perSlice * slices, slices, emptyUs, rounds: results }
}
