/**
 * TaskEngine with a memory store and a controlled clock: the parts of a task's life that are
 * about time and restarts (expiry, purge, a run lost to a restart) and the batching of the log.
 * The same engine runs inside the task Durable Object (test/workers/tasks.test.ts).
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createMcpServer, input } from '../../src/index.ts'
import { EXPIRED_RETENTION_MS, TaskEngine } from '../../src/server/task-engine.ts'
import type { TaskRecord, TaskStore } from '../../src/server/task-engine.ts'
import { LOG_BATCH_SIZE } from '../../src/server/task-log.ts'
import type { LogItem } from '../../src/server/task-log.ts'
import type { TaskCall } from '../../src/server/tasks.ts'

class MemoryStore implements TaskStore {
  record: TaskRecord | undefined
  log: LogItem[] = []
  batches: number[] = []
  alarm: number | undefined
  deleted = false

  load() {
    return this.record && structuredClone(this.record)
  }
  save(record: TaskRecord) {
    this.record = structuredClone(record)
  }
  appendLog(items: readonly LogItem[], record: TaskRecord) {
    this.batches.push(items.length)
    this.log.push(...items)
    this.save(record)
  }
  readLog(from: number, limit: number) {
    return this.log.filter((item) => item.seq >= from).slice(0, limit)
  }
  async deleteAll() {
    this.record = undefined
    this.log = []
    this.deleted = true
  }
  async setAlarm(at: number) {
    this.alarm = at
  }
}

let gate: () => void = () => {}
const server = createMcpServer({ name: 'engine-test', version: '1' })
  .tool('quick', { input: z.object({}), task: 'always' }, () => ({ content: [{ type: 'text', text: 'done' }] }))
  .tool('gated', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
    await new Promise<void>((resolve) => {
      gate = resolve
      ctx.signal.addEventListener('abort', () => resolve())
    })
    return { content: [{ type: 'text', text: 'released' }] }
  })
  .tool('chatty', { input: z.object({ n: z.int() }), task: 'always' }, async ({ n }, ctx) => {
    for (let i = 0; i < n; i++) await ctx.partial(`c${i}`)
    return { content: [] }
  })
  .tool('ask_twice', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
    const { a, b } = await ctx.ask({
      a: input.form('A?', z.object({ v: z.string() })),
      b: input.form('B?', z.object({ v: z.string() })),
    })
    return { content: [{ type: 'text', text: `${a.action}/${b.action}` }] }
  })

function call(tool: string, args: unknown = {}, extra: Partial<TaskCall> = {}): TaskCall {
  return {
    tool,
    arguments: args,
    prepared: undefined,
    protocolVersion: '2026-07-28',
    clientCapabilities: { elicitation: {}, partialResults: {} },
    principal: { subject: 'alice' },
    ttlMs: 10_000,
    pollIntervalMs: 100,
    partialLog: true,
    ...extra,
  }
}

function engine(store: MemoryStore, clock: { now: number }) {
  return new TaskEngine(server, {}, store, () => clock.now)
}

describe('TaskEngine', () => {
  it('creates a task durably with its first alarm, runs it on the alarm, then aims the alarm at expiry', async () => {
    const store = new MemoryStore()
    const clock = { now: 1_000 }
    const tasks = engine(store, clock)
    const task = await tasks.create('t1', call('quick'))
    expect(task).toEqual({
      taskId: 't1',
      status: 'working',
      createdAt: new Date(1000).toISOString(),
      lastUpdatedAt: new Date(1000).toISOString(),
      ttlMs: 10_000,
      pollIntervalMs: 100,
    })
    expect([store.record?.status, store.alarm]).toEqual(['working', 1_000])
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done' }] },
    })
    expect(store.alarm).toBe(11_000)
    expect(await tasks.get('bob')).toBeUndefined()
  })

  it('settles a run lost to a restart as failed, instead of leaving it working', async () => {
    const store = new MemoryStore()
    const clock = { now: 1_000 }
    const first = engine(store, clock)
    await first.create('t2', call('gated'))
    const running = first.alarm()
    expect(store.record?.attempts).toBe(1)
    // A new instance on the same storage (the runtime restarted): the run is gone.
    const second = engine(store, clock)
    expect((await second.get('alice'))?.task).toMatchObject({
      status: 'failed',
      statusMessage: 'The task was interrupted by a runtime restart',
      error: { code: -32603 },
    })
    gate()
    await running
  })

  it('fails an unfinished task at its ttl, keeps it readable for a while, then purges it', async () => {
    const store = new MemoryStore()
    const clock = { now: 0 }
    const tasks = engine(store, clock)
    await tasks.create('t3', call('gated', {}, { ttlMs: 1_000 }))
    const running = tasks.alarm()
    clock.now = 1_000
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'failed', statusMessage: 'Task expired' })
    await running
    expect(store.alarm).toBe(1_000 + EXPIRED_RETENTION_MS)
    clock.now = 1_000 + EXPIRED_RETENTION_MS
    await tasks.alarm()
    expect(store.deleted).toBe(true)
    expect(await tasks.get('alice')).toBeUndefined()
  })

  it('purges a finished task at its expiry', async () => {
    const store = new MemoryStore()
    const clock = { now: 0 }
    const tasks = engine(store, clock)
    await tasks.create('t4', call('quick', {}, { ttlMs: 5_000 }))
    await tasks.alarm()
    expect(store.alarm).toBe(5_000)
    clock.now = 5_000
    await tasks.alarm()
    expect(await tasks.get('alice')).toBeUndefined()
  })

  it('writes the partial log in batches, flushed before it is read', async () => {
    const store = new MemoryStore()
    const tasks = engine(store, { now: 0 })
    await tasks.create('t5', call('chatty', { n: 150 }))
    await tasks.alarm()
    expect(store.batches.every((size) => size <= LOG_BATCH_SIZE)).toBe(true)
    expect(store.batches.length).toBeLessThan(10)
    const { log } = (await tasks.get('alice', { from: 140, limit: 100 })) ?? {}
    expect(log?.items.map((item) => item.seq)).toEqual([140, 141, 142, 143, 144, 145, 146, 147, 148, 149])
    expect(log).toMatchObject({ nextSeq: 150, complete: true })
    expect(store.record?.nextSeq).toBe(150)
  })

  it('keeps a task input_required until every outstanding key is answered, ignoring others', async () => {
    const store = new MemoryStore()
    const tasks = engine(store, { now: 0 })
    await tasks.create('t6', call('ask_twice'))
    const running = tasks.alarm()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(Object.keys((await tasks.get('alice'))?.task.inputRequests ?? {})).toEqual(['a', 'b'])
    expect(tasks.update('alice', { a: { action: 'decline' }, zzz: 1 })).toBe(true)
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'input_required', inputRequests: { b: expect.any(Object) } })
    expect(tasks.update('bob', { b: { action: 'cancel' } })).toBe(false)
    tasks.update('alice', { b: { action: 'cancel' } })
    await running
    expect((await tasks.get('alice'))?.task).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'decline/cancel' }] },
    })
  })
})

describe('TaskEngine, found in review', () => {
  it('keeps the ttl while a run is live: an overdue run is failed and its signal aborted', async () => {
    const store = new MemoryStore()
    const tasks = new TaskEngine(server, {}, store)
    await tasks.create('t7', call('gated', {}, { ttlMs: 50 }))
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'failed', statusMessage: 'Task expired' })
  })

  it('serves two asks in flight at once, each resolving when its own keys are answered', async () => {
    const parallel = createMcpServer({ name: 'parallel', version: '1' }).tool(
      'two_asks',
      { input: z.object({}), task: 'always' },
      async (_args, ctx) => {
        const [a, b] = await Promise.all([
          ctx.ask({ a: input.form('A?', z.object({ v: z.string() })) }),
          ctx.ask({ b: input.form('B?', z.object({ v: z.string() })) }),
        ])
        return { content: [{ type: 'text', text: `${a.a.action}+${b.b.action}` }] }
      },
    )
    const store = new MemoryStore()
    const tasks = new TaskEngine(parallel, {}, store)
    await tasks.create('t8', call('two_asks'))
    const running = tasks.alarm()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(Object.keys((await tasks.get('alice'))?.task.inputRequests ?? {})).toEqual(['a', 'b'])
    tasks.update('alice', { b: { action: 'decline' } })
    expect((await tasks.get('alice'))?.task.status).toBe('input_required')
    tasks.update('alice', { a: { action: 'cancel' } })
    await running
    expect((await tasks.get('alice'))?.task).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'cancel+decline' }] },
    })
  })
})
