/**
 * The engines bench Worker: three ways to keep a long job durable, side by side in one workerd.
 *
 * - mcp-edge tasks at /mcp: `task_noop` (creation and first `tasks/get`) and `task_steps`
 *   (`steps` steps, each returning `bytes` characters), run by the task Durable Object's alarm;
 *   GET /engine/footprint?taskId= reports what that task's object stores (rows and payload bytes
 *   per table, database size), through a subclass that adds only that method;
 * - a bare Durable Object: POST /bare/write stores the body as one row in a new object (the
 *   least a durable creation can cost), GET /bare/read?id= reads it back;
 * - a Cloudflare Workflow doing the same steps with `step.do`: POST /wf/create, GET /wf/status?id=.
 *
 * JavaScript for the reason given in extras.js (bench/ is type-checked with Node's types).
 */
import { DurableObject, WorkflowEntrypoint } from 'cloudflare:workers'
import { Hono } from 'hono'
import * as z from 'zod/mini'
import { cloudflareServices, createTaskObjectClass } from 'mcp-edge/cloudflare'
import { createMcpServer, mcp } from 'mcp-edge'

const count = z.int().check(z.minimum(0), z.maximum(100_000))
const server = createMcpServer({ name: 'bench-engines', version: '0.0.1' })
// Neither destroys anything (annotated so: unannotated tools count as destructive, and with no
// nonce ledger bound here the server warns at start-up that they could not ask for input).
const harmless = { destructiveHint: false }
server.tool(
  'task_noop',
  { description: 'A task that finishes at once', input: z.object({}), task: 'always', annotations: harmless },
  () => ({
    content: [{ type: 'text', text: 'done' }],
  }),
)
server.tool(
  'task_steps',
  {
    description: 'A task of `steps` steps returning `bytes` characters each',
    input: z.object({ steps: count, bytes: count }),
    task: 'always',
    annotations: harmless,
  },
  async ({ steps, bytes }, ctx) => {
    let total = 0
    for (let i = 0; i < steps; i++) total += (await ctx.step(`s${i}`, () => 'x'.repeat(bytes))).length
    return { content: [{ type: 'text', text: String(total) }] }
  },
)

const TABLES = {
  task: 'LENGTH(record)',
  value: 'LENGTH(name) + LENGTH(data) + 8',
  step: 'LENGTH(name) + LENGTH(data) + 24',
  partial_log: 'LENGTH(params) + 8',
}

export class McpTaskObject extends createTaskObjectClass(server) {
  /** Rows and payload bytes (column contents, integers counted as 8 bytes) per table, and the database size. */
  footprint() {
    const sql = this.ctx.storage.sql
    const tables = {}
    for (const [table, bytes] of Object.entries(TABLES)) {
      tables[table] = sql.exec(`SELECT COUNT(*) AS rows, COALESCE(SUM(${bytes}), 0) AS bytes FROM ${table}`).one()
    }
    return { tables, databaseSize: sql.databaseSize }
  }
}

export class BareObject extends DurableObject {
  write(record) {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS record (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    this.ctx.storage.sql.exec('INSERT OR REPLACE INTO record (id, body) VALUES (0, ?)', record)
  }

  read() {
    return this.ctx.storage.sql.exec('SELECT body FROM record WHERE id = 0').one().body
  }
}

export class StepsWorkflow extends WorkflowEntrypoint {
  async run(event, step) {
    let total = 0
    for (let i = 0; i < event.payload.steps; i++)
      total += (await step.do(`s${i}`, async () => 'x'.repeat(event.payload.bytes))).length
    return total
  }
}

const app = new Hono()
app.route('/mcp', mcp(server, { services: cloudflareServices({ stateKeys: 'MCP_STATE_KEYS', tasks: 'MCP_TASKS' }) }))
app.get('/engine/footprint', async (c) => {
  const taskId = c.req.query('taskId') ?? ''
  return c.json(await c.env.MCP_TASKS.get(c.env.MCP_TASKS.idFromName(taskId)).footprint())
})
app.post('/bare/write', async (c) => {
  const id = crypto.randomUUID()
  await c.env.BARE.get(c.env.BARE.idFromName(id)).write(await c.req.text())
  return c.json({ id })
})
app.get('/bare/read', async (c) => {
  const id = c.req.query('id') ?? ''
  return c.json({ body: await c.env.BARE.get(c.env.BARE.idFromName(id)).read() })
})
app.post('/wf/create', async (c) => {
  const instance = await c.env.STEPS.create({ params: await c.req.json() })
  return c.json({ id: instance.id })
})
app.get('/wf/status', async (c) => {
  const status = await (await c.env.STEPS.get(c.req.query('id') ?? '')).status()
  return c.json(status)
})

export default app
