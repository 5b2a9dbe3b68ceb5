/**
 * A server as Jina's MCP server writes it (jina-ai/MCP: 22 tools, zod 3 schemas, a new SDK 1.x
 * `McpServer` built per request and handed to agents' `createMcpHandler`): `add` and 21 tools of
 * four fields each, registered on the `McpServer` class it is given. loop-sdk-factory serves it on
 * mcp-edge/sdk, loop-agents-factory on SDK 1.x + agents, each building it per request.
 */
import { z } from 'zod/v3'

export function createServer(McpServer) {
  const server = new McpServer({ name: 'bench-factory', version: '1.0.0' })
  server.tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, { readOnlyHint: true }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }))
  for (let i = 1; i < 22; i++) {
    server.tool(
      `read_${i}`,
      'Reads a page and answers with its text',
      {
        url: z.string().url().describe('The page'),
        count: z.number().int().min(1).max(100).default(10).describe('How many results'),
        mode: z.enum(['text', 'markdown', 'html']).optional(),
        tags: z.array(z.string()).max(5).optional(),
      },
      { readOnlyHint: true },
      async ({ url }) => ({ content: [{ type: 'text', text: url }] }),
    )
  }
  return server
}
