/** The `add` tool as the SDK v2's `McpServer` registers it: the SDK Worker's and mcp-handler's (a peer on the same SDK). */
import type { McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod'

export function registerAdd(server: McpServer): McpServer {
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
}
