/**
 * The Tasks extension inside workerd, with the real task Durable Objects (SQLite storage,
 * alarms): creation is durable before the handle, the methods, input during a task,
 * cancellation, ownership, the partial-result log, live notifications on listen streams, ttl;
 * steps continuing across alarms, stored answers, and storage within limits (the fixture's
 * FIXTURE_TASK_LIMITS: 3 new steps per run, calls up to 64 KiB, results up to 4 MiB).
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SqliteTaskStore } from '../../packages/mcp-edge/src/cloudflare/sqlite-task-store.ts'
import type { TaskObjectRpc } from '../../packages/mcp-edge/src/cloudflare/task-object.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'

const URL = 'http://127.0.0.1/mcp'
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const WITH_PARTIALS = { ...TASKS, partialResults: {} }
const WITH_ELICITATION = { ...TASKS, elicitation: {} }
const fetcher = (request: Request) => SELF.fetch(request)
const as = (principal: string) => ({ authorization: `Bearer ${principal}` })

function call(
  method: string,
  params: Record<string, unknown>,
  options: { principal?: string; capabilities?: Record<string, unknown>; meta?: Record<string, unknown> } = {},
) {
  return rpc(fetcher, URL, method, params, {
    capabilities: options.capabilities ?? TASKS,
    headers: as(options.principal ?? 'alice'),
    ...(options.meta ? { meta: options.meta } : {}),
  })
}

async function create(name: string, args: Record<string, unknown>, options: Parameters<typeof call>[2] = {}) {
  const { message } = await call('tools/call', { name, arguments: args }, options)
  expect(message.result?.resultType).toBe('task')
  return message.result as {
    taskId: string
    status: string
    createdAt: string
    lastUpdatedAt: string
    ttlMs: number
    pollIntervalMs: number
  }
}

async function get(taskId: string, options: Parameters<typeof call>[2] = {}) {
  return (await call('tasks/get', { taskId }, options)).message
}

async function until(taskId: string, done: (task: any) => boolean, principal = 'alice') {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const { result } = await get(taskId, { principal })
    if (done(result)) return result
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`task ${taskId} never reached the expected state`)
}

const terminal = (task: any) => ['completed', 'failed', 'cancelled'].includes(task?.status)

const PARTIALS_FILTER = 'dev.mcp-edge/partialResults'

/** A listen stream on `taskIds` (and the tasks' partial results, with `partials`), as `principal`; the caller closes it. */
function listenTo(taskIds: string[], capabilities: Record<string, unknown>, principal = 'alice', id?: string, partials = false) {
  return openStream(
    fetcher,
    buildRequest(
      URL,
      'subscriptions/listen',
      { notifications: { taskIds, ...(partials ? { [PARTIALS_FILTER]: true } : {}) } },
      { capabilities, headers: as(principal), ...(id ? { id } : {}) },
    ),
  )
}

/** Every message of a listen stream up to the notification that the task settled. */
async function untilSettled(stream: Awaited<ReturnType<typeof listenTo>>) {
  const seen: any[] = []
  while (!seen.some((message) => message.method === 'notifications/tasks' && terminal(message.params)))
    seen.push(await stream.next())
  return seen
}

describe('tasks on Durable Objects', () => {
  it('returns a handle only once the task is durably created, then runs it to completion', async () => {
    const task = await create('slow_compute', { seconds: 0.05, label: 'x' })
    expect(Object.keys(task).sort()).toEqual([
      '_meta',
      'createdAt',
      'lastUpdatedAt',
      'pollIntervalMs',
      'resultType',
      'status',
      'taskId',
      'ttlMs',
    ])
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/)
    expect(task).toMatchObject({ status: 'working', ttlMs: 3_600_000, pollIntervalMs: 200 })
    // The task object itself has the record before the handle exists.
    const object = env.MCP_TASKS.get(env.MCP_TASKS.idFromName(task.taskId)) as unknown as TaskObjectRpc
    expect((await object.get('alice'))?.task.taskId).toBe(task.taskId)
    const done = await until(task.taskId, terminal)
    expect(done).toMatchObject({
      resultType: 'complete',
      status: 'completed',
      result: { resultType: 'complete', content: [{ type: 'text', text: 'computed x after 0.05s' }] },
    })
    expect('requestState' in done).toBe(false)
  })

  it('keeps a task invisible to other principals: get, update and cancel answer as for an unknown id', async () => {
    const task = await create(
      'confirm_delete',
      { filename: 'secret.txt' },
      { principal: 'alice', capabilities: WITH_ELICITATION },
    )
    await until(task.taskId, (t) => t.status === 'input_required')
    for (const [method, params] of [
      ['tasks/get', { taskId: task.taskId }],
      ['tasks/update', { taskId: task.taskId, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } }],
      ['tasks/cancel', { taskId: task.taskId }],
    ] as const) {
      const { status, message } = await call(method, params, { principal: 'bob' })
      expect([method, status, message.error]).toEqual([method, 200, { code: -32602, message: `Unknown task: ${task.taskId}` }])
    }
    const untouched = await get(task.taskId)
    expect(untouched.result?.status).toBe('input_required')
    await call('tasks/cancel', { taskId: task.taskId })
  })

  it('fails a task whose handler needs an input type the creating request did not declare', async () => {
    const task = await create('confirm_delete', { filename: 'x.txt' })
    const failed = await until(task.taskId, terminal)
    expect(failed).toMatchObject({
      status: 'failed',
      error: { code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } },
    })
  })

  it('asks for input inside a task, ignores unknown keys, and resumes the same handler when answered', async () => {
    const task = await create('multi_input', {}, { capabilities: WITH_ELICITATION })
    const waiting = await until(task.taskId, (t) => t.status === 'input_required')
    expect(Object.keys(waiting.inputRequests)).toEqual(['name', 'confirm'])
    expect(waiting.inputRequests.name).toMatchObject({
      method: 'elicitation/create',
      params: { mode: 'form', message: 'What is your name?' },
    })
    const ack = await call('tasks/update', {
      taskId: task.taskId,
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } }, stray: { nonsense: true } },
    })
    expect(ack.message.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) })
    const partial = await get(task.taskId)
    expect(partial.result?.status).toBe('input_required')
    expect(Object.keys(partial.result?.inputRequests)).toEqual(['confirm'])
    await call('tasks/update', { taskId: task.taskId, inputResponses: { confirm: { action: 'decline' } } })
    const done = await until(task.taskId, terminal)
    expect(done.result.content).toEqual([{ type: 'text', text: 'name=Ada confirm=decline' }])
  })

  it('cancels cooperatively: the handler sees its signal, the task settles cancelled and never changes again', async () => {
    const task = await create('slow_compute', { seconds: 60, label: 'long' })
    await until(task.taskId, () => true)
    const ack = await call('tasks/cancel', { taskId: task.taskId })
    expect(ack.message.result?.resultType).toBe('complete')
    const cancelled = await until(task.taskId, terminal)
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client' })
    expect((await call('tasks/cancel', { taskId: task.taskId })).message.result?.resultType).toBe('complete')
    expect((await call('tasks/update', { taskId: task.taskId, inputResponses: {} })).message.result?.resultType).toBe('complete')
    expect((await get(task.taskId)).result).toMatchObject({ status: 'cancelled', lastUpdatedAt: cancelled.lastUpdatedAt })
  })

  it('settles a tool error as completed with isError, and a protocol error as failed with the JSON-RPC error', async () => {
    const toolError = await until((await create('failing_job', {})).taskId, terminal)
    expect(toolError).toMatchObject({ status: 'completed', result: { isError: true } })
    const protocolError = await until((await create('protocol_error_job', {})).taskId, terminal)
    expect(protocolError).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'The job hit an internal error' },
      statusMessage: 'The job hit an internal error',
    })
    expect('result' in protocolError).toBe(false)
  })

  it('never returns a task to a client that did not declare the extension on that request', async () => {
    const optional = await call(
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 0, label: 'sync' } },
      { capabilities: {} },
    )
    expect(optional.message.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'computed sync after 0s' }],
    })
    const required = await call(
      'tools/call',
      { name: 'stream_task', arguments: { chunks: 1 } },
      { capabilities: { partialResults: {} } },
    )
    expect(required.status).toBe(400)
    expect(required.message.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    })
  })

  it('fails an unfinished task once its ttl has passed, when the alarm runs', async () => {
    const task = await create('short_lived_task', {})
    expect(task.ttlMs).toBe(300)
    const stub = env.MCP_TASKS.get(env.MCP_TASKS.idFromName(task.taskId))
    await until(task.taskId, () => true)
    await new Promise((resolve) => setTimeout(resolve, 350))
    await runDurableObjectAlarm(stub)
    const expired = (await get(task.taskId)).result
    expect(expired).toMatchObject({ status: 'failed', statusMessage: 'Task expired', error: { code: -32603 } })
  })
})

describe('the task-mode partial-result log', () => {
  it('sep-2998-task-taskid: appends every partial of a task, in order, each carrying the taskId, readable from any seq', async () => {
    const task = await create(
      'stream_task',
      { chunks: 150 },
      { capabilities: WITH_PARTIALS, meta: { partialResultToken: 'log-token' } },
    )
    await until(task.taskId, terminal)
    const read = async (from: number, limit: number) =>
      (await call('tasks/get', { taskId: task.taskId }, { meta: { 'dev.mcp-edge/partialLog': { from, limit } } })).message.result
        ?._meta?.['dev.mcp-edge/partialLog']
    const first = await read(0, 100)
    expect(first.items).toHaveLength(100)
    expect(first.nextSeq).toBe(100)
    expect(first.complete).toBe(false)
    const rest = await read(first.nextSeq, 100)
    expect(rest).toMatchObject({ nextSeq: 150, complete: true })
    const items = [...first.items, ...rest.items]
    expect(items.map((item: { seq: number }) => item.seq)).toEqual([...Array(150).keys()])
    expect(new Set(items.map((item: { taskId: string }) => item.taskId))).toEqual(new Set([task.taskId]))
    expect(new Set(items.map((item: { partialResultToken: string }) => item.partialResultToken))).toEqual(new Set(['log-token']))
    expect(items[42].content).toEqual([{ type: 'text', text: 'part 42\n' }])
    const middle = await read(120, 5)
    expect(middle.items.map((item: { seq: number }) => item.seq)).toEqual([120, 121, 122, 123, 124])
    const final = (await get(task.taskId)).result
    expect(final.result.content[0].text).toBe(
      items.map((item: { content: Array<{ text: string }> }) => item.content[0]?.text).join(''),
    )
  })

  it('keeps no log for a task whose creating request did not declare partialResults', async () => {
    const task = await create('stream_task', { chunks: 5 })
    await until(task.taskId, terminal)
    const { message } = await call(
      'tasks/get',
      { taskId: task.taskId },
      { meta: { 'dev.mcp-edge/partialLog': { from: 0, limit: 10 } } },
    )
    expect(message.result?._meta?.['dev.mcp-edge/partialLog']).toEqual({ items: [], nextSeq: 0, complete: true })
  })

  it('rejects a malformed log query with -32602', async () => {
    const task = await create('stream_task', { chunks: 1 })
    const { message } = await call('tasks/get', { taskId: task.taskId }, { meta: { 'dev.mcp-edge/partialLog': { from: -1 } } })
    expect(message.error?.code).toBe(-32602)
  })

  it('streams notifications/tasks and live partials to a listen stream that names the task', async () => {
    const task = await create(
      'stream_task',
      { chunks: 6, delayMs: 40 },
      { capabilities: WITH_PARTIALS, meta: { partialResultToken: 'live' } },
    )
    const stream = await listenTo([task.taskId, 'not-a-task'], WITH_PARTIALS, 'alice', 'listen-tasks', true)
    try {
      const ack = await stream.next()
      expect(ack.params?.notifications).toEqual({ taskIds: [task.taskId], [PARTIALS_FILTER]: true })
      const seen = await untilSettled(stream)
      // The task's state when the watch began comes first.
      expect(seen[0]).toMatchObject({ method: 'notifications/tasks', params: { taskId: task.taskId } })
      for (const message of seen) {
        expect(message.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-tasks')
        expect(message.params.taskId).toBe(task.taskId)
      }
      const live = seen.filter((message) => message.method === 'notifications/tools/partial_result')
      expect(live.length).toBeGreaterThan(0)
      const seqs = live.map((message) => message.params.seq)
      expect(seqs).toEqual([...Array(seqs.length).keys()].map((i) => i + (seqs[0] as number)))
      expect(seen.at(-1).params).toMatchObject({ status: 'completed', result: { resultType: 'complete' } })
      // Nothing is left on the filter once the task is terminal: the stream ends with the listen result.
      expect(await stream.next()).toMatchObject({ id: 'listen-tasks', result: { resultType: 'complete' } })
    } finally {
      await stream.close()
    }
  })

  it('sends partial results only to a listener whose filter asked for them and that declared partialResults', async () => {
    for (const [capabilities, partials] of [
      [TASKS, true],
      [WITH_PARTIALS, false],
    ] as const) {
      const task = await create(
        'stream_task',
        { chunks: 4, delayMs: 40 },
        { capabilities: WITH_PARTIALS, meta: { partialResultToken: 'quiet' } },
      )
      const stream = await listenTo([task.taskId], capabilities, 'alice', undefined, partials)
      try {
        expect((await stream.next()).params?.notifications).toEqual({ taskIds: [task.taskId] })
        const seen = await untilSettled(stream)
        expect(new Set(seen.map((message) => message.method))).toEqual(new Set(['notifications/tasks']))
      } finally {
        await stream.close()
      }
    }
  })

  it('ends a listen stream at once when none of its task ids is watched, or when its task is already terminal', async () => {
    const unknown = await listenTo(['not-a-task'], TASKS, 'alice', 'listen-none')
    try {
      expect((await unknown.next()).params?.notifications).toEqual({ taskIds: [] })
      expect(await unknown.next()).toMatchObject({ id: 'listen-none', result: { resultType: 'complete' } })
    } finally {
      await unknown.close()
    }
    const task = await create('slow_compute', { seconds: 0, label: 'done' })
    await until(task.taskId, terminal)
    const finished = await listenTo([task.taskId], TASKS, 'alice', 'listen-done')
    try {
      expect((await finished.next()).params?.notifications).toEqual({ taskIds: [task.taskId] })
      expect(await finished.next()).toMatchObject({ method: 'notifications/tasks', params: { status: 'completed' } })
      expect(await finished.next()).toMatchObject({ id: 'listen-done', result: { resultType: 'complete' } })
    } finally {
      await finished.close()
    }
  })

  it('rejects a subscription to more than 100 tasks with -32602', async () => {
    const taskIds = Array.from({ length: 101 }, (_, index) => `t-${index}`)
    const { message } = await call('subscriptions/listen', { notifications: { taskIds } })
    expect(message.error).toEqual({ code: -32602, message: 'Invalid params: at most 100 taskIds per subscription' })
  })

  it('does not let another principal watch the task', async () => {
    const task = await create('slow_compute', { seconds: 60, label: 'watched' })
    const stream = await listenTo([task.taskId], TASKS, 'bob')
    try {
      expect((await stream.next()).params?.notifications).toEqual({ taskIds: [] })
    } finally {
      await stream.close()
      await call('tasks/cancel', { taskId: task.taskId })
    }
  })
})

/** Run `body` inside the task's object, on its SQLite storage. */
function inObject<T>(taskId: string, body: (sql: SqlStorage) => T): Promise<T> {
  const stub = env.MCP_TASKS.get(env.MCP_TASKS.idFromName(taskId))
  return runInDurableObject(stub, (_instance, state) => body(state.storage.sql))
}

const record = (taskId: string) =>
  inObject(taskId, (sql) => JSON.parse(sql.exec<{ record: string }>('SELECT record FROM task').one().record))

describe('durable tasks', () => {
  it('runs a task built from steps across alarms, three new steps per run, logging each chunk once', async () => {
    const task = await create('step_task', { steps: 8 }, { capabilities: WITH_PARTIALS, meta: { partialResultToken: 'steps' } })
    const done = await until(task.taskId, terminal)
    const text = [...Array(8).keys()].map((i) => `part ${i}\n`).join('')
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text }, { text: 'sum 28' }] } })
    expect(await record(task.taskId)).toMatchObject({ runs: 3, running: false, lostRuns: 0 })
    const rows = await inObject(task.taskId, (sql) => sql.exec<{ name: string }>('SELECT name FROM step ORDER BY idx').toArray())
    expect(rows.map((row) => row.name)).toEqual([...Array(8).keys()].map((i) => `part-${i}`))
    const log = (await call('tasks/get', { taskId: task.taskId }, { meta: { 'dev.mcp-edge/partialLog': { from: 0 } } })).message
      .result._meta['dev.mcp-edge/partialLog']
    expect(log.items.map((item: { seq: number; content: Array<{ text: string }> }) => [item.seq, item.content[0]?.text])).toEqual(
      [...Array(8).keys()].map((i) => [i, `part ${i}\n`]),
    )
  })

  it('stores an answer before tasks/update returns, then replays the handler with it, without repeating the first step', async () => {
    const task = await create('approve_task', { topic: 'tides' }, { capabilities: WITH_ELICITATION })
    const waiting = await until(task.taskId, (t) => t.status === 'input_required')
    expect(waiting.inputRequests.approve.params.message).toBe('Approve the outline "1. tides 2. more tides"?')
    await call('tasks/update', {
      taskId: task.taskId,
      inputResponses: { approve: { action: 'accept', content: { approve: true } } },
    })
    const stored = await inObject(
      task.taskId,
      (sql) => sql.exec("SELECT COUNT(*) AS n FROM value WHERE name = 'answer:approve'").one().n,
    )
    expect(stored).toBe(1)
    const done = await until(task.taskId, terminal)
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Article on 1. tides 2. more tides' }] } })
    expect(await record(task.taskId)).toMatchObject({ runs: 2 })
  })

  it('refuses arguments too large for a task with -32602 at creation, and the object stores nothing', async () => {
    const { status, message } = await call('tools/call', { name: 'sized_task', arguments: { bytes: 1, pad: 'p'.repeat(70_000) } })
    expect(status).toBe(200)
    expect(message.error).toEqual({
      code: -32602,
      message: expect.stringMatching(/^Invalid params: the call takes 70\d{3} bytes; a task stores at most 65536$/),
    })
    const object = env.MCP_TASKS.get(env.MCP_TASKS.idFromName('refused-task')) as unknown as TaskObjectRpc
    const call70k = { tool: 'sized_task', arguments: { bytes: 1, pad: 'p'.repeat(70_000) }, prepared: null }
    expect(
      await object.create('refused-task', {
        ...call70k,
        protocolVersion: '2026-07-28',
        clientCapabilities: {},
        ttlMs: null,
        pollIntervalMs: 1,
        partialLog: false,
      }),
    ).toHaveProperty('refused')
    expect(
      await inObject(
        'refused-task',
        (sql) =>
          sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'").one().n,
      ),
    ).toBe(0)
  })

  it('stores a result larger than a SQLite row in parts and returns it whole; reports ttlMs: null as the schema allows', async () => {
    const task = await create('sized_task', { bytes: 3_000_000 })
    expect(task.ttlMs).toBeNull()
    const done = await until(task.taskId, terminal)
    expect(done.status).toBe('completed')
    expect(done.result.content[0].text).toBe('r'.repeat(3_000_000))
    const parts = await inObject(task.taskId, (sql) =>
      sql
        .exec<{ n: number; largest: number }>(
          "SELECT COUNT(*) AS n, MAX(LENGTH(data)) AS largest FROM value WHERE name = 'result'",
        )
        .one(),
    )
    expect(parts).toEqual({ n: 6, largest: 512 * 1024 })
  })

  it('returns a stored result whole when its parts split multi-byte characters', async () => {
    const task = await create('sized_task', { bytes: 600_000, fill: '€' })
    const done = await until(task.taskId, terminal)
    expect(done.status).toBe('completed')
    expect(done.result.content[0].text).toBe('€'.repeat(600_000))
    // Read back from storage by a store of its own (the live object answered from memory above).
    const stub = env.MCP_TASKS.get(env.MCP_TASKS.idFromName(task.taskId))
    const stored = await runInDurableObject(stub, (_instance, state) => new SqliteTaskStore(state.storage).result())
    expect(JSON.parse(stored as string).content[0].text).toBe('€'.repeat(600_000))
    // The first byte of each later part: a UTF-8 continuation byte (80–BF) means a '€' was cut there.
    const firsts = await inObject(task.taskId, (sql) =>
      sql
        .exec<{ first: string }>("SELECT hex(substr(data, 1, 1)) AS first FROM value WHERE name = 'result' ORDER BY part")
        .toArray()
        .slice(1)
        .map((row) => row.first),
    )
    expect(firsts.length).toBeGreaterThan(1)
    expect(firsts.some((first) => /^[89AB]/.test(first))).toBe(true)
  })

  it('fails a task whose result is larger than maxResultBytes, saying so', async () => {
    const task = await create('sized_task', { bytes: 5_000_000 })
    const done = await until(task.taskId, terminal)
    expect(done).toMatchObject({ status: 'failed', error: { code: -32603 } })
    expect(done.statusMessage).toMatch(/^The task's result takes 5\d{6} bytes; a task stores at most 4194304$/)
  })
})
