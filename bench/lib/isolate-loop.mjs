/**
 * The JavaScript of one `tools/call add` without the HTTP around it: the template and the Hono
 * floor in one isolate (workers/isolate-loop.js), each handed `calls` requests in a loop inside one
 * request, timed by workerd's CPU over the loop. Three lanes per round, alternated: the floor, a
 * 2026-07-28 client and a 2025-era client (with the sealed session id its `initialize` minted).
 * Workerd's own per-request work (HTTP parsing, the socket, the Request and Response it makes) is
 * left out, which the floor comparison over HTTP includes; so is most of its noise.
 */
import { inTurn } from './compare.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect } from './mcp.mjs'
import { cpuMs } from './proc.mjs'
import { median } from './stats.mjs'

const LOOP_URL = 'http://127.0.0.1:8787/mcp'

async function post(target, app, calls, loop) {
  const response = await fetch(new URL(`/bench/loop?app=${app}&n=${calls}`, target.origin), {
    method: 'POST',
    body: JSON.stringify(loop),
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`in-isolate loop of ${app} failed: HTTP ${response.status} ${text}`)
  return text
}

/** `target`: the running isolate-loop Worker. */
export async function isolateLoop(target, { isolateCalls: calls, isolateSlices: slices, isolateRounds: rounds, isolateWarmup }) {
  const sessionId = await legacyConnect(target.endpoint)
  const lanes = [
    { id: 'hono', app: 'hono', request: ADD_CALL },
    { id: 'edge', app: 'edge', request: ADD_CALL },
    { id: 'edge-legacy', app: 'edge', request: legacyAddCall(sessionId) },
  ]
  for (const lane of lanes) {
    const { headers, body } = lane.request
    // The headers an HTTP client sends with this body (the Host check, the native body read).
    const length = String(Buffer.byteLength(body))
    lane.loop = { url: LOOP_URL, headers: { ...headers, host: new URL(LOOP_URL).host, 'content-length': length }, body }
    lane.loop.expect = await post(target, lane.app, 1, lane.loop)
    // The answer every call of the loop must repeat, checked like the HTTP lanes' first answer.
    const json = JSON.parse(lane.loop.expect)
    if (json.result?.content?.[0]?.text !== '5' || json.result.isError) {
      throw new Error(`${lane.id} answered wrongly in the loop: ${lane.loop.expect}`)
    }
  }
  for (const lane of lanes) await post(target, lane.app, isolateWarmup, lane.loop)
  // A round interleaves the lanes in slices and takes each lane's median slice, so that a garbage
  // collection (tens of ms, charged to whichever slice it lands in) moves no round.
  const perSlice = Math.ceil(calls / slices)
  const results = []
  for (let round = 1; round <= rounds; round++) {
    const timed = Object.fromEntries(lanes.map((lane) => [lane.id, []]))
    for (let slice = 0; slice < slices; slice++) {
      for (const lane of inTurn(lanes, round + slice)) {
        const before = cpuMs(target.pid)
        await post(target, lane.app, perSlice, lane.loop)
        timed[lane.id].push(((cpuMs(target.pid) - before) * 1000) / perSlice)
      }
    }
    results.push(Object.fromEntries(lanes.map((lane) => [lane.id, { cpuUsPerCall: median(timed[lane.id]) }])))
  }
  return { calls: perSlice * slices, slices, rounds: results, sessionId: sessionId !== null }
}
