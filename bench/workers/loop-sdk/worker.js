/**
 * Bench Worker: `add` written as SDK code (`McpServer.registerTool`, `createMcpHandler`) on
 * mcp-edge/sdk, behind the in-isolate loop, beside loop-native/worker.js (the same tool on the
 * native API): the difference is what the adapter costs a call.
 */
import { createMcpHandler, McpServer } from 'mcp-edge/sdk'
import * as z from 'zod'
import { withLoop } from '../loop.js'

const server = new McpServer({ name: 'bench-adapter', version: '1.0.0' })
server.registerTool(
  'add',
  { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
  async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }),
)

export default withLoop(createMcpHandler(server))
