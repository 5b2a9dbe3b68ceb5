/**
 * Bench Worker: the bare Hono floor (workers/hono) behind the check a deployed template makes, one
 * shared bearer token compared in constant time: the presented token's SHA-256 against the
 * secret's, computed once (what mcp-edge's `bearerToken` does; hono/bearer-auth hashes both sides
 * per request, more work than the template does). Measured beside `edge-token`, the template with
 * MCP_BEARER_TOKEN set and sent, as a deploy runs it (`edge` is `npm run dev`'s local-only mode).
 *
 * JavaScript for the reason given in extras.js (`cloudflare:workers` under Node's types).
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono'

const RESULT = { content: [{ type: 'text', text: '5' }], resultType: 'complete' }
const encoder = new TextEncoder()
const expected = crypto.subtle.digest('SHA-256', encoder.encode(env.MCP_BEARER_TOKEN))

async function authorized(header) {
  const presented = header?.match(/^Bearer (.+)$/)?.[1] ?? ''
  const [a, b] = await Promise.all([crypto.subtle.digest('SHA-256', encoder.encode(presented)), expected])
  const x = new Uint8Array(a)
  const y = new Uint8Array(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i]
  return diff === 0
}

const app = new Hono()
app.post('/mcp', async (c) => {
  if (!(await authorized(c.req.header('authorization')))) return c.json({ error: 'unauthorized' }, 401)
  const body = await c.req.json()
  return c.json({ jsonrpc: '2.0', id: body.id, result: RESULT })
})

export default app
