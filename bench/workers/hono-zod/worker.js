/**
 * Bench Worker: the bare Hono floor (workers/hono) that also builds the many-tools catalog's
 * first TOOL_COUNT input schemas with zod/mini at start-up, as a server given zod objects does,
 * and registers them with nothing. What those schemas cost to build, with no MCP runtime: the
 * part of the 500-zod-tool server's start-up (workers/tools, TOOL_EAGER) that is the user's own
 * code, not mcp-edge's (bench/lib/targets.mjs, issue 38 item 3).
 *
 * JavaScript for the reason given in extras.js (`cloudflare:workers` under Node's types).
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono'
import { catalog } from '../catalog.ts'

const RESULT = { content: [{ type: 'text', text: '5' }], resultType: 'complete' }
// Built and kept, as a server keeps its tools' schemas (esbuild keeps a call it cannot prove pure).
const _schemas = catalog(Number(env.TOOL_COUNT)).map((tool) => tool.input())

const app = new Hono()
app.post('/mcp', async (c) => {
  const body = await c.req.json()
  return c.json({ jsonrpc: '2.0', id: body.id, result: RESULT })
})

export default app
