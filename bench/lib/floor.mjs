/**
 * The floor comparison: `tools/call add` on mcp-edge (the demo as the templates ship it, and the
 * same with telemetry off), the SDK v2 Worker and a bare Hono floor, each in its own workerd, plus
 * the floor with one hand-written JSON log line per request (`hono-log`), plus the runtimes serving
 * the same call to a 2025-era client (mcp-edge's legacy lane with the sealed session id its
 * `initialize` minted; the SDK's stateless legacy fallback, which mints none), plus the demo
 * as deployed (`edge-token`, its bearer token set and sent, each checked to refuse a wrong or
 * missing token) beside the floor making the same token check (`hono-token`). Ten lanes per round, alternated.
 */
import { alternateLoad } from './compare.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect, verifyCall, verifyTokenChecked } from './mcp.mjs'
import { VARIANTS } from './variants.mjs'

/**
 * The `tools/call add` lanes of running Workers, by id, each answer verified: a 2026-07-28 lane on
 * each that serves it, and a 2025-era lane (after one `initialize`) on each that serves those
 * (not the floors) when `legacy` is set.
 */
export async function floorLanes(targets, { legacy = true } = {}) {
  const lanes = []
  for (const [id, target] of Object.entries(targets)) {
    // The revisions the Worker serves (variants.mjs `eras`; the floors answer any body alike).
    const variant = VARIANTS[target.variant] ?? VARIANTS[id]
    const eras = variant?.eras ?? ['modern', 'legacy']
    // A variant's own call where it has one (edge-token and hono-token send the token).
    if (eras.includes('modern')) lanes.push({ id, target, request: variant?.call?.request ?? ADD_CALL })
    if (!legacy || !eras.includes('legacy')) continue
    const sessionId = await legacyConnect(target.endpoint)
    lanes.push({ id: `${id}-legacy`, target, request: legacyAddCall(sessionId), sessionId: sessionId !== null })
  }
  for (const lane of lanes) {
    lane.expectBody = await verifyCall(lane.target.endpoint, lane.request)
    if (lane.request.headers?.authorization) await verifyTokenChecked(lane.target.endpoint, lane.request)
  }
  return lanes
}

/**
 * `targets`: running `edge`, `edge-off`, `sdk`, `hono` and `hono-log` Workers, and `edge-token` and
 * `hono-token` (the demo as deployed, with its bearer token, beside the floor making the same check).
 */
export async function floorLoad(targets, config, log) {
  const lanes = await floorLanes(targets)
  const rounds = await alternateLoad(lanes, config, log)
  const sessions = Object.fromEntries(lanes.filter((lane) => 'sessionId' in lane).map((lane) => [lane.id, lane.sessionId]))
  return { rounds, sessions }
}
