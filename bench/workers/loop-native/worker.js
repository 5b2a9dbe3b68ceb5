/**
 * Bench Worker: `add` on mcp-edge's native API (`createMcpServer`, `server.tool`, `mcp()`), with the
 * runtime's default telemetry and sealed 2025 sessions, behind the in-isolate loop.
 * loop-sdk/worker.js is the same tool as SDK code through mcp-edge/sdk (which binds MCP_STATE_KEYS by
 * convention): the difference is what the adapter costs a call.
 */
import { Hono } from 'hono/tiny'
import { createMcpServer, mcp } from 'mcp-edge'
import { cloudflareServices } from 'mcp-edge/cloudflare'
import * as z from 'zod'
import { withLoop } from '../loop.js'

const server = createMcpServer({ name: 'bench-adapter', version: '1.0.0' })
// Read-only, as the template's `add` is (an unannotated tool counts as destructive, and with no
// nonce ledger bound the server warns at start-up); loop-sdk's says the same.
const annotations = { readOnlyHint: true }
server.tool(
  'add',
  { description: 'Adds two numbers', input: z.object({ a: z.number(), b: z.number() }), annotations },
  ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }),
)

const app = new Hono()
app.route('/mcp', mcp(server, { services: cloudflareServices({ stateKeys: 'MCP_STATE_KEYS' }) }))

export default withLoop(app)
