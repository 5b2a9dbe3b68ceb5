/**
 * Bench Worker (b): the same `add` tool on the official MCP TypeScript SDK v2
 * (`@modelcontextprotocol/server` createMcpHandler, stateless, classic zod). The factory runs once
 * per request, as the SDK documents for stateless servers.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod'

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench-sdk', version: '0.0.1' })
  server.registerTool(
    'add',
    {
      description: 'Add two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  )
  return server
})

export default {
  fetch: (request: Request) => handler.fetch(request),
}
