/**
 * Durable tasks against the alternatives, on the engines Worker (bench/workers/engines/worker.js), its
 * Durable Objects and Workflows kept on disk in a temp dir:
 *
 * - creation and the first read: `tools/call` of an always-task tool → CreateTaskResult, then the
 *   first `tasks/get` of that task, beside a bare Durable Object write (one row in a new object)
 *   and its first read, and beside `Workflow.create()` and its first `status()`; one of each per
 *   round, alternated, so they share the machine's state; goal: task ≤ 2× bare;
 * - one step: a task (and a Workflow) of S steps and one of 1 step, each step returning BYTES
 *   characters, timed from creation until a poll sees it finished; (T_S − T_1) / (S − 1) is the
 *   latency of one step. A task's step is a synchronous SQLite insert inside the running alarm,
 *   so the task gets TASK_STEP_FACTOR times more steps than the Workflow, to rise above the noise
 *   of creation and polling (its runs then also continue across alarms, every 1000 steps). For the task, rows and payload bytes written per step come from its
 *   object's tables (every row but the record's is written once); for both, bytes on disk per
 *   step are the growth of the persisted directories.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { TMP } from './env.mjs'
import { mcpRequest, send, TASKS_EXTENSION } from './mcp.mjs'
import { median, percentile } from './stats.mjs'
import { startWorker } from './workerd.mjs'

const POLL_MS = 2
const STEP_BYTES = 100
const TASK_STEP_FACTOR = 10
const CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } }
/** About the size of a fresh task's record and call, so the bare write stores as much. */
const BARE_BODY = JSON.stringify({ record: 'r'.repeat(420), call: 'c'.repeat(300) })

const timedMs = async (fn) => {
  const started = performance.now()
  const value = await fn()
  return { ms: performance.now() - started, value }
}

async function json(url, init) {
  const response = await fetch(url, init)
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`)
  return response.json()
}

async function createTask(target, name, args) {
  const { status, json: body } = await send(
    target.endpoint,
    mcpRequest('tools/call', { name, arguments: args }, { name, capabilities: CAPABILITIES }),
  )
  if (status !== 200 || body?.result?.resultType !== 'task') throw new Error(`${name}: no task handle: ${JSON.stringify(body)}`)
  return body.result.taskId
}

async function getTask(target, taskId) {
  const { status, json: body } = await send(
    target.endpoint,
    mcpRequest('tasks/get', { taskId }, { name: taskId, capabilities: CAPABILITIES }),
  )
  if (status !== 200 || !body?.result) throw new Error(`tasks/get ${taskId}: ${JSON.stringify(body)}`)
  return body.result
}

const engines = {
  task: {
    create: (target, params) => createTask(target, 'task_steps', params),
    status: async (target, id) => {
      const task = await getTask(target, id)
      if (task.status === 'failed' || task.status === 'cancelled') throw new Error(`task ${id} ended ${task.status}`)
      return task.status === 'completed'
    },
  },
  workflow: {
    create: async (target, params) =>
      (await json(`${target.origin}/wf/create`, { method: 'POST', body: JSON.stringify(params) })).id,
    status: async (target, id) => {
      const status = await json(`${target.origin}/wf/status?id=${id}`)
      if (status.status === 'errored' || status.status === 'terminated')
        throw new Error(`workflow ${id}: ${JSON.stringify(status)}`)
      return status.status === 'complete'
    },
  },
}

function diskBytes(dir) {
  let total = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath ?? entry.path, entry.name)).size
  }
  return total
}

const summary = (times) => ({ calls: times.length, p50Ms: median(times), p99Ms: percentile(times, 99) })

/** Creation and first read, one of each kind per round. */
async function creation(target, calls) {
  const times = { bareWrite: [], bareRead: [], taskCreate: [], taskFirstGet: [], workflowCreate: [], workflowFirstStatus: [] }
  for (let round = -3; round < calls; round++) {
    const bare = await timedMs(() => json(`${target.origin}/bare/write`, { method: 'POST', body: BARE_BODY }))
    const bareRead = await timedMs(() => json(`${target.origin}/bare/read?id=${bare.value.id}`))
    const task = await timedMs(() => createTask(target, 'task_noop', {}))
    const taskGet = await timedMs(() => getTask(target, task.value))
    const workflow = await timedMs(() => engines.workflow.create(target, { steps: 0, bytes: 0 }))
    const workflowStatus = await timedMs(() => json(`${target.origin}/wf/status?id=${workflow.value}`))
    if (round < 0) continue // warm-up
    times.bareWrite.push(bare.ms)
    times.bareRead.push(bareRead.ms)
    times.taskCreate.push(task.ms)
    times.taskFirstGet.push(taskGet.ms)
    times.workflowCreate.push(workflow.ms)
    times.workflowFirstStatus.push(workflowStatus.ms)
  }
  const out = Object.fromEntries(Object.entries(times).map(([name, list]) => [name, summary(list)]))
  out.createVsBare = out.taskCreate.p50Ms / out.bareWrite.p50Ms
  out.firstGetVsBare = out.taskFirstGet.p50Ms / out.bareRead.p50Ms
  return out
}

/** Run one job of `steps` steps to its end; its time from creation, and the disk it grew by. */
async function runJob(target, engine, steps, persistTo) {
  const before = diskBytes(persistTo)
  const started = performance.now()
  const id = await engines[engine].create(target, { steps, bytes: STEP_BYTES })
  while (!(await engines[engine].status(target, id))) await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  return { id, ms: performance.now() - started, diskBytes: diskBytes(persistTo) - before }
}

async function perStep(target, engine, steps, repeats, persistTo) {
  const one = []
  const many = []
  for (let i = 0; i < repeats + 1; i++) {
    const short = await runJob(target, engine, 1, persistTo)
    const long = await runJob(target, engine, steps, persistTo)
    if (i === 0) continue // warm-up
    one.push(short)
    many.push(long)
  }
  const ms = (median(many.map((run) => run.ms)) - median(one.map((run) => run.ms))) / (steps - 1)
  const disk = (median(many.map((run) => run.diskBytes)) - median(one.map((run) => run.diskBytes))) / (steps - 1)
  return { steps, repeats, stepBytes: STEP_BYTES, msPerStep: ms, diskBytesPerStep: disk, one: one.at(-1), many: many.at(-1) }
}

async function footprint(target, taskId) {
  return json(`${target.origin}/engine/footprint?taskId=${taskId}`)
}

/** Rows and payload bytes a task writes per step: its tables after S steps minus after 1 step. */
async function taskWrites(target, task) {
  const [one, many] = await Promise.all([footprint(target, task.one.id), footprint(target, task.many.id)])
  const total = (print, key) => Object.values(print.tables).reduce((sum, table) => sum + table[key], 0)
  const per = (key) => (total(many, key) - total(one, key)) / (task.steps - 1)
  return { rowsPerStep: per('rows'), bytesPerStep: per('bytes'), tables: many.tables, databaseSize: many.databaseSize }
}

export async function taskEngines(scriptPath, { engineCalls, engineSteps, engineRepeats }) {
  const persistTo = mkdtempSync(join(TMP, 'engines-'))
  const target = await startWorker('engines', scriptPath, { persistTo })
  try {
    const results = { creation: await creation(target, engineCalls) }
    results.task = await perStep(target, 'task', engineSteps * TASK_STEP_FACTOR, engineRepeats, persistTo)
    results.task.writes = await taskWrites(target, results.task)
    results.workflow = await perStep(target, 'workflow', engineSteps, engineRepeats, persistTo)
    return results
  } finally {
    await target.dispose()
  }
}

const n = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–')

/** The report's section on task engines. */
export function taskEnginesMarkdown(engines) {
  if (!engines) return ''
  const { creation: c, task, workflow } = engines
  const row = (label, figure, how) => `| ${label} | p50 ${n(figure.p50Ms)} ms, p99 ${n(figure.p99Ms)} ms | ${how} |`
  return [
    '### Durable tasks: creation, first read and one step (engines Worker, on disk)',
    '',
    '| figure | value | how |',
    '| --- | --- | --- |',
    row(
      'task creation (tools/call → CreateTaskResult)',
      c.taskCreate,
      `${c.taskCreate.calls} calls; ${n(c.createVsBare)}× the bare write (goal ≤ 2×)`,
    ),
    row('bare Durable Object write (new object, one row)', c.bareWrite, 'POST → Worker → DO RPC → JSON'),
    row('Workflow.create()', c.workflowCreate, 'POST → Worker → create → JSON'),
    row('first tasks/get of a new task', c.taskFirstGet, `${n(c.firstGetVsBare)}× the bare read (goal ≤ 2×)`),
    row('bare Durable Object read', c.bareRead, 'GET → Worker → DO RPC → JSON'),
    row('first Workflow status()', c.workflowFirstStatus, 'GET → Worker → get + status → JSON'),
    `| one step, task (alarms + steps) | ${n(task.msPerStep, 3)} ms | ${task.steps}-step vs 1-step task (${STEP_BYTES} B per step), creation → completed seen by polling every ${POLL_MS} ms, median of ${task.repeats} |`,
    `| one step, Workflow (step.do) | ${n(workflow.msPerStep, 3)} ms | the same with a Workflow of ${workflow.steps} steps |`,
    `| rows written per step, task | ${n(task.writes.rowsPerStep)} | from the task object's tables (${Object.entries(
      task.writes.tables,
    )
      .map(([table, { rows }]) => `${table}: ${rows}`)
      .join(', ')} rows after ${task.steps} steps) |`,
    `| payload bytes written per step, task | ${n(task.writes.bytesPerStep, 0)} B | column contents of those rows |`,
    `| bytes on disk per step | task ${n(task.diskBytesPerStep, 0)} B, Workflow ${n(workflow.diskBytesPerStep, 0)} B | growth of the persisted Durable Object / Workflow directories (SQLite files, page granular) |`,
  ].join('\n')
}
