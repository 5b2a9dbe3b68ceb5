/**
 * Bench Worker, a peer: the same `add` tool behind Cloudflare's `agents/mcp/server`
 * `createMcpHandler` (its stateless Worker wrapper over the official SDK v2's handler: route,
 * CORS and Host checks), with an SDK v2 factory run per request, classic zod, as its docs show it.
 */
import { McpServer } from '@modelcontextprotocol/server'
import { createMcpHandler } from 'agents/mcp/server'
import { registerAdd } from '../sdk/add.ts'

const handler = createMcpHandler(() => registerAdd(new McpServer({ name: 'bench-agents', version: '0.0.1' })))

export default {
  fetch: (request: Request, env: unknown, ctx: Parameters<typeof handler>[2]) => handler(request, env, ctx),
}
