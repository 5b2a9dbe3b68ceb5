/**
 * The extras bench Worker: bench/workers/extras-server.ts behind mcp-edge's Hono adapter, with
 * its task and nonce Durable Objects, plus GET /bench/state?mode=hmac|aes&op=seal|open&n=N, which
 * seals or opens a requestState N times inside workerd (timed from outside by the caller).
 *
 * JavaScript, not TypeScript: tsconfig.node.json type-checks bench/ with Node's types, under which
 * src/cloudflare/ (cloudflare:workers, Durable Object types) does not compile. The typed parts
 * live in extras-server.ts and state-ops.ts.
 */
import { Hono } from 'hono'
import { cloudflareServices, createDurableObjects } from 'mcp-edge/cloudflare'
import { mcp } from 'mcp-edge'
import { server } from './server.ts'
import { prepareState, runStateOps } from './state-ops.ts'

export const { McpTaskObject, McpNonceLedger } = createDurableObjects(server)

const app = new Hono()
app.route(
  '/mcp',
  mcp(server, { services: cloudflareServices({ stateKeys: 'MCP_STATE_KEYS', tasks: 'MCP_TASKS', nonces: 'MCP_NONCES' }) }),
)
app.get('/bench/state', async (c) => {
  const mode = c.req.query('mode') === 'aes' ? 'aes' : 'hmac'
  const op = c.req.query('op') === 'open' ? 'open' : 'seal'
  const n = Number(c.req.query('n') ?? 0)
  await runStateOps(await prepareState(c.env.MCP_STATE_KEYS, mode), op, n)
  return c.json({ mode, op, n })
})

export default app
