/**
 * Bench Worker (b): the same `add` tool on the official MCP TypeScript SDK v2
 * (`@modelcontextprotocol/server` createMcpHandler, stateless, classic zod). The factory runs once
 * per request, as the SDK documents for stateless servers.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import { registerAdd } from './add.ts'

const handler = createMcpHandler(() => registerAdd(new McpServer({ name: 'bench-sdk', version: '0.0.1' })))

export default {
  fetch: (request: Request) => handler.fetch(request),
}
