/**
 * Tasks extension figures (mcp-edge only), against the extras Worker and its SQLite Durable
 * Objects (in memory):
 * - creation latency: `tools/call` of an always-task tool → CreateTaskResult (the object is
 *   written before the handle returns);
 * - `tasks/get` latency on one finished task;
 * - partial-log append throughput: a task appends `count` partial results as fast as it can;
 *   from the create request to the first `tasks/get` that sees it completed, polling every
 *   POLL_MS; then the log is read back in pages of 1000 and every seq is checked.
 */
import { mcpRequest, send, TASKS_EXTENSION } from './mcp.mjs'
import { median, percentile } from './stats.mjs'

const POLL_MS = 5
const LOG_META = 'dev.mcp-edge/partialLog'
const CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} }, partialResults: {} }

async function createTask(target, tool, args) {
  const request = mcpRequest(
    'tools/call',
    { name: tool, arguments: args },
    {
      name: tool,
      capabilities: CAPABILITIES,
      meta: { partialResultToken: `bench-${tool}` },
    },
  )
  const { status, json } = await send(target.endpoint, request)
  if (status !== 200 || json?.result?.resultType !== 'task') throw new Error(`${tool}: no task handle: ${JSON.stringify(json)}`)
  return json.result.taskId
}

async function getTask(target, taskId, log) {
  const meta = log ? { [LOG_META]: log } : {}
  const { status, json } = await send(
    target.endpoint,
    mcpRequest('tasks/get', { taskId }, { name: taskId, capabilities: CAPABILITIES, meta }),
  )
  if (status !== 200 || !json?.result) throw new Error(`tasks/get ${taskId}: ${JSON.stringify(json)}`)
  return json.result
}

async function waitCompleted(target, taskId) {
  for (;;) {
    const task = await getTask(target, taskId)
    if (task.status === 'completed') return task
    if (task.status !== 'working') throw new Error(`task ${taskId} ended ${task.status}: ${JSON.stringify(task)}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

async function timed(calls, fn) {
  const times = []
  for (let i = 0; i < calls; i++) {
    const started = performance.now()
    await fn()
    times.push(performance.now() - started)
  }
  return { calls, p50Ms: median(times), p99Ms: percentile(times, 99) }
}

export async function taskLatencies(target, calls) {
  await waitCompleted(target, await createTask(target, 'task_noop', {})) // warm-up
  const creation = await timed(calls, () => createTask(target, 'task_noop', {}))
  const taskId = await createTask(target, 'task_noop', {})
  await waitCompleted(target, taskId)
  const get = await timed(calls, async () => {
    if ((await getTask(target, taskId)).status !== 'completed') throw new Error('task_noop is not completed')
  })
  return { creation, get }
}

/** Read the whole log back and check it holds seq 0..count-1 in order. */
async function verifyLog(target, taskId, count) {
  let from = 0
  for (;;) {
    const page = (await getTask(target, taskId, { from, limit: 1000 }))._meta?.[LOG_META]
    if (!page) throw new Error(`tasks/get returned no ${LOG_META}`)
    for (const item of page.items) {
      if (item.seq !== from) throw new Error(`partial log: expected seq ${from}, got ${item.seq}`)
      from++
    }
    if (page.complete || page.items.length === 0) break
  }
  if (from !== count) throw new Error(`partial log holds ${from} items, expected ${count}`)
  return from
}

export async function logThroughput(target, count, repeats) {
  await waitCompleted(target, await createTask(target, 'task_partials', { count: Math.min(count, 500) })) // warm-up
  const rates = []
  let verified = 0
  for (let i = 0; i < repeats; i++) {
    const started = performance.now()
    const taskId = await createTask(target, 'task_partials', { count })
    await waitCompleted(target, taskId)
    rates.push((count * 1000) / (performance.now() - started))
    verified = await verifyLog(target, taskId, count)
  }
  const emptyStarted = performance.now()
  await waitCompleted(target, await createTask(target, 'task_partials', { count: 0 }))
  return { count, repeats, chunksPerSecond: median(rates), verified, emptyTaskMs: performance.now() - emptyStarted }
}
