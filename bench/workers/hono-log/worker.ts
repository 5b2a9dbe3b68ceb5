/**
 * Bench Worker: the floor with a log line. The bare Hono floor (../hono/worker.ts) plus what a
 * Worker's author would write by hand to log each request: one `console.log(JSON.stringify({…}))`
 * with the fields of mcp-edge's request line (level, time, msg, trace and span ids, method, tool,
 * lane, protocol version, client, outcome, duration). What telemetry is judged against: it should
 * cost about what this line costs.
 */
import { Hono } from 'hono'

const RESULT = { content: [{ type: 'text', text: '5' }], resultType: 'complete' }

interface Call {
  id: string | number
  method: string
  params?: { name?: string; _meta?: Record<string, unknown> }
}

const app = new Hono()
app.post('/mcp', async (c) => {
  const started = Date.now()
  const body = await c.req.json<Call>()
  const ids = crypto.randomUUID().replaceAll('-', '')
  const client = body.params?._meta?.['io.modelcontextprotocol/clientInfo'] as { name: string; version: string } | undefined
  console.log(
    JSON.stringify({
      level: 'info',
      time: new Date(started).toISOString(),
      msg: 'mcp request',
      trace_id: ids,
      span_id: ids.slice(0, 16),
      method: body.method,
      target: body.params?.name,
      lane: '2026-07-28',
      protocol_version: c.req.header('mcp-protocol-version'),
      client: client ? `${client.name}/${client.version}` : undefined,
      outcome: RESULT.resultType,
      duration_ms: Date.now() - started,
    }),
  )
  return c.json({ jsonrpc: '2.0', id: body.id, result: RESULT })
})

export default app
