/**
 * The many-tools bench Worker (SDK v2): the same first TOOL_COUNT catalog tools on
 * `@modelcontextprotocol/server` createMcpHandler, registered in the per-request factory as the
 * SDK documents for stateless servers (the schemas themselves are built once, at start-up).
 *
 * JavaScript for the reason given in extras.js (`cloudflare:workers` under Node's types).
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import { env } from 'cloudflare:workers'
import { catalog } from '../catalog.ts'

const tools = catalog(Number(env.TOOL_COUNT)).map((tool) => ({ ...tool, input: tool.input() }))

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench-sdk-tools', version: '0.0.1' })
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
      async (args) => tool.handler(args),
    )
  }
  return server
})

export default {
  fetch: (request) => handler.fetch(request),
}
