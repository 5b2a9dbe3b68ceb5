/**
 * Bench Worker: the 22-tool server of loop-factory/catalog.js built per request, as Jina's is, on
 * mcp-edge/sdk (`createMcpHandler(createServer())` inside `fetch`), behind the in-isolate loop;
 * loop-agents-factory is the same code on SDK 1.x + agents.
 */
import { createMcpHandler, McpServer } from 'mcp-edge/sdk'
import { withLoop } from '../loop.js'
import { createServer } from '../loop-factory/catalog.js'

export default withLoop({ fetch: (request, env, ctx) => createMcpHandler(createServer(McpServer))(request, env, ctx) })
