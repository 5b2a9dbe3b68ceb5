/**
 * SDK-style fixture (h): a Worker whose default export is the SDK 2.x handler itself,
 * `export default createMcpHandler(createServer)`, as SDK 2.x's web-standard handler is written
 * for Workers and as agents' `examples/mcp-server` writes it. Before, mcp-edge's handler was a
 * function there, which the runtime takes for an entrypoint class, and the Worker did not start.
 * The import line names what it replaces (`// was:`). Test-only (test/http/sdk-v2-default.test.ts).
 */
import { createMcpHandler, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import * as z from 'zod/v4'

function createServer(): McpServer {
  const server = new McpServer({ name: 'sdk-v2-default', version: '1.0.0' })
  server.registerTool(
    'greet',
    { description: 'Greet someone by name', inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  )
  return server
}

export default createMcpHandler(createServer)
