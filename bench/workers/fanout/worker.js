/**
 * The fan-out bench Worker: `touch` publishes `notifications/resources/updated` for a URI, which
 * every listen stream subscribed to it, and every 2025-era session's GET stream whose session
 * subscribed to it, should hear. `FANOUT_MODE` picks the delivery: "hub" (the McpEventHub Durable
 * Object, every isolate) or "isolate" (the in-isolate path, `events: 'isolate'`; no GET streams
 * then). 2025 sessions are sealed with `MCP_STATE_KEYS` (a binding the bench passes) and their
 * subscriptions and streams kept in the McpSessionLedger. The scale step (bench/lib/scale.mjs)
 * passes `FANOUT_CAPACITY` (listeners per hub object), `FANOUT_SHARE_SOCKETS` ("0": a hub socket
 * per stream, instead of `shareSockets`' one per isolate and subscription) and `FANOUT_LISTEN_STREAMS` (the per-caller
 * cap of one isolate, 1,000 by default: its thousands of streams share one anonymous caller), and
 * reads `GET /hub`: the capacity, and the hub objects of shard 0 with the listener sockets each holds.
 * JavaScript for the reason given in extras.js.
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono'
import * as z from 'zod/mini'
import { cloudflareEventHub, cloudflareServices, createDurableObjects, HUB_CAPACITY, sharedHubSockets } from 'mcp-edge/cloudflare'
import { createMcpServer, mcp } from 'mcp-edge'

const capacity = env.FANOUT_CAPACITY ? Number(env.FANOUT_CAPACITY) : undefined
// One hub socket per isolate and subscription, as the durable template ships; FANOUT_SHARE_SOCKETS "0": one per stream.
const shareSockets = env.FANOUT_SHARE_SOCKETS === '0' ? undefined : sharedHubSockets
const events = env.FANOUT_MODE === 'isolate' ? 'isolate' : cloudflareEventHub({ binding: 'MCP_EVENTS', capacity, shareSockets })
const limits = env.FANOUT_LISTEN_STREAMS ? { listenStreams: Number(env.FANOUT_LISTEN_STREAMS) } : undefined
// Warnings only: a log line per request would be most of what 1,000 sessions' set-up prints.
const server = createMcpServer({ name: 'bench-fanout', version: '0.0.1', events, limits, telemetry: { logs: 'warn' } })

server.tool(
  'touch',
  {
    description: 'Announce an update of uri',
    input: z.object({ uri: z.string() }),
    annotations: { destructiveHint: false },
  },
  async ({ uri }) => {
    await server.notifyResourceUpdated(uri)
    return { content: [{ type: 'text', text: 'touched' }] }
  },
)
server.resource('bench://fanout', { name: 'fanout' }, (uri) => ({ contents: [{ uri, text: '' }] }))

export const { McpEventHub, McpSessionLedger } = createDurableObjects(server)

const app = new Hono()
/** The capacity in force, and shard 0's hub object and its relays, each with the listener sockets it holds. */
app.get('/hub', async (c) => {
  const object = (name) => env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(name))
  const own = await object('events/0').stats()
  const relays = await Promise.all(own.relays.map(async (name) => ({ name, sockets: (await object(name).stats()).sockets })))
  return c.json({ capacity: capacity ?? HUB_CAPACITY, objects: [{ name: 'events/0', sockets: own.sockets }, ...relays] })
})
app.route('/mcp', mcp(server, { services: cloudflareServices({ stateKeys: 'MCP_STATE_KEYS', sessions: 'MCP_SESSIONS' }) }))
export default app
