/**
 * Bench Worker (c), the floor: a bare Hono app that parses the JSON-RPC body and returns the
 * fixed `tools/call` result of `add` (2 + 3). No validation, no MCP runtime: what any Worker
 * answering this request must at least spend.
 */
import { Hono } from 'hono'

const RESULT = { content: [{ type: 'text', text: '5' }], resultType: 'complete' }

const app = new Hono()
app.post('/mcp', async (c) => {
  const body = await c.req.json<{ id: string | number }>()
  return c.json({ jsonrpc: '2.0', id: body.id, result: RESULT })
})

export default app
