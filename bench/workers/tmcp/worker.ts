/**
 * Bench Worker, a peer: the same `add` tool on `tmcp` with its HTTP transport
 * (`@tmcp/transport-http`; 2026-07-28 per-request clients, and 2025-era clients with a session
 * kept in this isolate's memory, its default) and its zod adapter, as its README shows it.
 */
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod'
import { HttpTransport } from '@tmcp/transport-http'
import { McpServer } from 'tmcp'
import * as z from 'zod'

const server = new McpServer(
  { name: 'bench-tmcp', version: '0.0.1', description: 'bench' },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: { listChanged: true } } },
)
server.tool(
  {
    name: 'add',
    description: 'Add two numbers',
    schema: z.object({ a: z.number(), b: z.number() }),
    annotations: { readOnlyHint: true },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

const transport = new HttpTransport(server, { path: '/mcp' })

export default {
  fetch: async (request: Request) => (await transport.respond(request)) ?? new Response(null, { status: 404 }),
}
