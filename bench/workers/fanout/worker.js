/**
 * The fan-out bench Worker: `touch` publishes `notifications/resources/updated` for a URI, which
 * every listen stream subscribed to it, and every 2025-era session's GET stream whose session
 * subscribed to it, should hear. `FANOUT_MODE` picks the delivery: "hub" (the McpEventHub Durable
 * Object, every isolate) or "isolate" (the in-isolate path, `events: 'isolate'`; no GET streams
 * then). 2025 sessions are sealed with `MCP_STATE_KEYS` (a binding the bench passes) and their
 * subscriptions and streams kept in the McpSessionLedger. JavaScript for the reason given in extras.js.
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono'
import * as z from 'zod/mini'
import { cloudflareEventHub, cloudflareServices, createDurableObjects } from 'mcp-edge/cloudflare'
import { createMcpServer, mcp } from 'mcp-edge'

const events = env.FANOUT_MODE === 'isolate' ? 'isolate' : cloudflareEventHub({ binding: 'MCP_EVENTS' })
// Warnings only: a log line per request would be most of what 1,000 sessions' set-up prints.
const server = createMcpServer({ name: 'bench-fanout', version: '0.0.1', events, telemetry: { logs: 'warn' } })

server.tool('touch', { description: 'Announce an update of uri', input: z.object({ uri: z.string() }) }, async ({ uri }) => {
  await server.notifyResourceUpdated(uri)
  return { content: [{ type: 'text', text: 'touched' }] }
})
server.resource('bench://fanout', { name: 'fanout' }, (uri) => ({ contents: [{ uri, text: '' }] }))

export const { McpEventHub, McpSessionLedger } = createDurableObjects(server)

const app = new Hono()
app.route('/mcp', mcp(server, { services: cloudflareServices({ stateKeys: 'MCP_STATE_KEYS', sessions: 'MCP_SESSIONS' }) }))
export default app
