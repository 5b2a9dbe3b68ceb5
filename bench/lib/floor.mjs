/**
 * The floor comparison: `tools/call add` on mcp-edge (the template), the SDK v2 Worker and a bare
 * Hono floor, each in its own workerd, plus both runtimes serving the same call to a 2025-era
 * client (mcp-edge's legacy lane with the sealed session id its `initialize` minted; the SDK's
 * stateless legacy fallback, which mints none). Five lanes per round, alternated.
 */
import { alternateLoad } from './compare.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect, verifyCall } from './mcp.mjs'

/** `targets`: running `edge`, `sdk` and `hono` Workers. */
export async function floorLoad(targets, config, log) {
  const lanes = []
  for (const worker of ['edge', 'sdk', 'hono']) {
    const target = targets[worker]
    lanes.push({ id: worker, target, request: ADD_CALL })
    if (worker === 'hono') continue
    const sessionId = await legacyConnect(target.endpoint)
    lanes.push({ id: `${worker}-legacy`, target, request: legacyAddCall(sessionId), sessionId: sessionId !== null })
  }
  for (const lane of lanes) lane.expectBody = await verifyCall(lane.target.endpoint, lane.request)
  const rounds = await alternateLoad(lanes, config, log)
  const sessions = Object.fromEntries(lanes.filter((lane) => 'sessionId' in lane).map((lane) => [lane.id, lane.sessionId]))
  return { rounds, sessions }
}
