/**
 * Bench Worker, a peer: the 22-tool server of loop-factory/catalog.js built per request on the
 * official SDK 1.x and served by agents' `createMcpHandler` (agents/mcp), as Jina's MCP server
 * runs, behind the in-isolate loop; loop-sdk-factory is the same code on mcp-edge/sdk.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { createMcpHandler } from 'agents/mcp'
import { withLoop } from '../loop.js'
import { createServer } from '../loop-factory/catalog.js'

export default withLoop({ fetch: (request, env, ctx) => createMcpHandler(createServer(McpServer))(request, env, ctx) })
