/**
 * Bench Worker, a peer: the same `add` tool on `@hono/mcp` (its `StreamableHTTPTransport` over the
 * official SDK v1's `McpServer`, which speaks the 2025 revisions only), classic zod, one server and
 * one transport for the isolate, connected on the first request, as its README shows it (no
 * session id generator: stateless).
 */
import { StreamableHTTPTransport } from '@hono/mcp'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Hono } from 'hono'
import * as z from 'zod'

const mcpServer = new McpServer({ name: 'bench-hono-mcp', version: '0.0.1' })
mcpServer.registerTool(
  'add',
  {
    description: 'Add two numbers',
    inputSchema: { a: z.number(), b: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

const transport = new StreamableHTTPTransport()
const app = new Hono()
app.all('/mcp', async (c) => {
  if (!mcpServer.isConnected()) await mcpServer.connect(transport)
  return transport.handleRequest(c)
})

export default app
