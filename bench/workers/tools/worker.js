/**
 * The many-tools bench Worker (mcp-edge): the first TOOL_COUNT tools of bench/workers/catalog.ts,
 * registered at start-up as a user's Worker would, behind the Hono adapter, with their schemas
 * given as functions (built on first use, README "Many tools"), or, with TOOL_EAGER, as zod
 * objects built at start-up, as the docs teach (mcp-edge converts either to JSON Schema on first use). Both are bindings set per instance by bench/lib/variants.mjs. No Durable Objects:
 * the catalog's tools are plain calls.
 *
 * JavaScript for the reason given in extras.js (`cloudflare:workers` under Node's types).
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono/tiny'
import { createMcpServer, mcp } from 'mcp-edge'
import { catalog } from '../catalog.ts'

const server = createMcpServer({ name: 'bench-tools', version: '0.0.1' })
for (const tool of catalog(Number(env.TOOL_COUNT))) {
  const input = env.TOOL_EAGER ? tool.input() : tool.input
  server.tool(tool.name, { description: tool.description, input, annotations: tool.annotations }, tool.handler)
}

const app = new Hono()
app.route('/mcp', mcp(server))
export default app
