/**
 * TaskEngine over a memory store with a controlled clock: creation, runs that survive a restart
 * (the replay model with stored answers and steps), runs that continue across alarms under low
 * limits, expiry, cancellation during a step, storage limits, watchers and the log's batching.
 * A restart is `store.crash()` (the old instance can no longer write) and a new engine on the
 * same store. The same engine runs inside the task Durable Object (test/workers/tasks.test.ts),
 * and test/http/tasks-fault.test.ts kills real `wrangler dev` processes.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createMcpServer, input, ToolError } from '../../packages/mcp-edge/src/index.ts'
import type { TaskLimits } from '../../packages/mcp-edge/src/server/tasks/limits.ts'
import { ALARM_GRACE_MS, EXPIRED_RETENTION_MS, TaskEngine } from '../../packages/mcp-edge/src/server/tasks/engine.ts'
import type { Watcher } from '../../packages/mcp-edge/src/server/tasks/engine.ts'
import { LOG_BATCH_SIZE } from '../../packages/mcp-edge/src/server/tasks/log.ts'
import type { TaskCall } from '../../packages/mcp-edge/src/server/tasks/tasks.ts'
import { MemoryTaskStore } from '../support/memory-task-store.ts'

/** Side effects of steps, by `<tag>:<step>`, and promises that resolve when one first happens. */
const effects = new Map<string, number>()
const waiting = new Map<string, () => void>()
function effect(key: string): number {
  const count = (effects.get(key) ?? 0) + 1
  effects.set(key, count)
  waiting.get(key)?.()
  return count
}
function reached(key: string): Promise<void> {
  return new Promise((resolve) => (effects.has(key) ? resolve() : waiting.set(key, resolve)))
}
/** Never resolves; rejects when the signal aborts. */
function hold(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))))
}
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

/** A server whose `steps` tool names its steps `<prefix>-<i>`: two prefixes are two versions of the code. */
function stepServer(prefix: string, limits: Partial<TaskLimits> = {}) {
  return createMcpServer({ name: 'engine-test', version: '1', taskLimits: limits }).tool(
    'steps',
    {
      input: z.object({ tag: z.string(), n: z.int(), blockAt: z.int(), advanceMs: z.int() }),
      task: 'always',
      streaming: { assemble: true },
    },
    async ({ tag, n, blockAt, advanceMs }, ctx) => {
      let total = 0
      for (let i = 0; i < n; i++) {
        total += await ctx.step(`${prefix}-${i}`, async () => {
          const times = effect(`${tag}:${prefix}-${i}`)
          clock.now += advanceMs
          await ctx.partial(`chunk ${i}\n`)
          if (i === blockAt && times === 1) await hold(ctx.signal)
          return i
        })
      }
      return text(`total ${total}`)
    },
  )
}

const clock = { now: 1_000 }
const server = stepServer('step')
  .tool('quick', { input: z.object({}), task: 'always' }, () => text('done'))
  .tool('chatty', { input: z.object({ n: z.int() }), task: 'always' }, async ({ n }, ctx) => {
    for (let i = 0; i < n; i++) await ctx.partial(`c${i}`)
    return { content: [] }
  })
  .tool('approve', { input: z.object({ tag: z.string() }), task: 'always' }, async ({ tag }, ctx) => {
    const outline = await ctx.step('outline', () => {
      effect(`${tag}:outline`)
      return 'A, B'
    })
    const { ok } = await ctx.ask({ ok: input.form(`Approve ${outline}?`, z.object({ approve: z.boolean() })) })
    const verdict = await ctx.step('write', () => (ok.action === 'accept' && ok.content.approve ? 'written' : 'dropped'))
    return text(`${outline}: ${verdict}`)
  })
  .tool('two_asks', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
    const [a, b] = await Promise.all([
      ctx.ask({ a: input.form('A?', z.object({ v: z.string() })) }),
      ctx.ask({ b: input.form('B?', z.object({ v: z.string() })) }),
    ])
    return text(`${a.a.action}+${b.b.action}`)
  })
  .tool('stuck', { input: z.object({ tag: z.string() }), task: 'always' }, async ({ tag }, ctx) => {
    await ctx.step('forever', async () => {
      effect(`${tag}:forever`)
      await hold(ctx.signal)
    })
    return text('never')
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

/** Arguments of the `steps` tool, as the task stores them (parsed, defaults filled in). */
function steps(tag: string, n: number, extra: { blockAt?: number; advanceMs?: number } = {}) {
  return { tag, n, blockAt: -1, advanceMs: 0, ...extra }
}

function engine(store: MemoryTaskStore, on = server) {
  return new TaskEngine(on, {}, store.connect(), () => clock.now)
}

async function created(store: MemoryTaskStore, taskId: string, taskCall: TaskCall, on = server) {
  const tasks = engine(store, on)
  expect(await tasks.create(taskId, taskCall)).toHaveProperty('task')
  return tasks
}

async function logTexts(tasks: TaskEngine<unknown>) {
  const page = (await tasks.get('alice', { from: 0, limit: 1000 }))?.log
  return page?.items.map((item) => [item.seq, (item.content as Array<{ text: string }>)[0]?.text])
}

describe('TaskEngine: creation and a plain run', () => {
  it('creates a task durably with its first alarm, runs it on the alarm, then aims the alarm at expiry', async () => {
    const store = new MemoryTaskStore()
    clock.now = 1_000
    const tasks = await created(store, 't1', call('quick'))
    expect((await tasks.get('alice'))?.task).toEqual({
      taskId: 't1',
      status: 'working',
      createdAt: new Date(1000).toISOString(),
      lastUpdatedAt: new Date(1000).toISOString(),
      ttlMs: 10_000,
      pollIntervalMs: 100,
    })
    expect([store.parsed?.status, store.alarm]).toEqual(['working', 1_000])
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'completed', result: text('done') })
    expect(JSON.parse(store.values.get('result') ?? '{}')).toMatchObject({ resultType: 'complete', ...text('done') })
    expect(store.alarm).toBe(11_000)
    expect(await tasks.get('bob')).toBeUndefined()
  })

  it('refuses a call larger than maxCallBytes, storing nothing', async () => {
    const small = stepServer('s', { maxCallBytes: 300 })
    const store = new MemoryTaskStore()
    const outcome = await engine(store, small).create('t-big', call('steps', steps('x'.repeat(400), 1)))
    expect(outcome).toEqual({
      refused: expect.stringMatching(/^Invalid params: the call takes \d+ bytes; a task stores at most 300$/),
    })
    expect([store.record, store.values.size, store.alarm]).toEqual([undefined, 0, undefined])
  })

  it('reports ttlMs: null as asked, and still fails the task at maxLifeMs, then purges it', async () => {
    const short = stepServer('s', { maxLifeMs: 5_000 }).tool('stuck', { input: z.object({}), task: 'always' }, async (_a, ctx) =>
      hold(ctx.signal),
    )
    const store = new MemoryTaskStore()
    clock.now = 0
    const tasks = await created(store, 't-null', call('stuck', {}, { ttlMs: null }), short)
    expect((await tasks.get('alice'))?.task.ttlMs).toBeNull()
    expect(store.alarm).toBe(0)
    const running = tasks.alarm()
    clock.now = 5_000
    expect((await tasks.get('alice'))?.task).toMatchObject({
      status: 'failed',
      ttlMs: null,
      statusMessage: 'Task expired',
      error: { code: -32603, message: 'Task expired: it did not finish within the longest a task lives (5000 ms)' },
    })
    await running
    expect(store.alarm).toBe(5_000 + EXPIRED_RETENTION_MS)
    clock.now = 5_000 + EXPIRED_RETENTION_MS
    await tasks.alarm()
    expect(store.record).toBeUndefined()
    expect(await tasks.get('alice')).toBeUndefined()
  })

  it('keeps the ttl while a run is live: an overdue run is failed and its signal aborted', async () => {
    const store = new MemoryTaskStore()
    const tasks = new TaskEngine(server, {}, store.connect())
    await tasks.create('t-ttl', call('stuck', { tag: 't-ttl' }, { ttlMs: 50 }))
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'failed', statusMessage: 'Task expired' })
  })

  it('keeps the ttl when its timer fires before the clock reaches it (Node timers may fire a millisecond early)', async () => {
    const store = new MemoryTaskStore()
    clock.now = 0
    const tasks = await created(store, 't-early', call('stuck', { tag: 't-early' }, { ttlMs: 30 }))
    const run = tasks.alarm()
    await reached('t-early:forever')
    // The timer (30 ms) fires while the clock still says 0: not due yet, so it must be set again.
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(store.parsed?.status).toBe('working')
    clock.now = 30
    await run
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'failed', statusMessage: 'Task expired' })
  })
})

describe('TaskEngine: restarts, steps and replays', () => {
  it('resumes a run lost to a restart: completed steps are not run again, and the log holds each chunk once', async () => {
    const store = new MemoryTaskStore()
    clock.now = 0
    const first = await created(store, 'r1', call('steps', steps('r1', 4, { blockAt: 2 })))
    first.alarm().catch(() => {})
    await reached('r1:step-2')
    store.crash()
    clock.now = 10
    const second = engine(store)
    expect((await second.get('alice'))?.task.status).toBe('working')
    expect([store.parsed?.running, store.parsed?.lostRuns, store.alarm]).toEqual([false, 1, 10])
    await second.alarm()
    expect((await second.get('alice'))?.task).toMatchObject({
      status: 'completed',
      result: {
        content: [
          { type: 'text', text: 'chunk 0\nchunk 1\nchunk 2\nchunk 3\n' },
          { type: 'text', text: 'total 6' },
        ],
      },
    })
    expect([0, 1, 2, 3].map((i) => effects.get(`r1:step-${i}`))).toEqual([1, 1, 2, 1])
    expect(await logTexts(second)).toEqual([0, 1, 2, 3].map((i) => [i, `chunk ${i}\n`]))
    expect(store.rewrites).toBe(0)
  })

  it('runs again after a restart with new code of the same step names, and fails, saying why, when a name changed', async () => {
    for (const [tag, prefix] of [
      ['same', 'step'],
      ['renamed', 'part'],
    ] as const) {
      const store = new MemoryTaskStore()
      const first = await created(store, tag, call('steps', steps(tag, 3, { blockAt: 1 })))
      first.alarm().catch(() => {})
      await reached(`${tag}:step-1`)
      store.crash()
      const second = engine(store, stepServer(prefix))
      await second.get('alice')
      await second.alarm()
      const task = (await second.get('alice'))?.task
      if (prefix === 'step') {
        expect(task).toMatchObject({ status: 'completed', result: { content: [expect.anything(), text('total 3').content[0]] } })
        expect([0, 1, 2].map((i) => effects.get(`same:step-${i}`))).toEqual([1, 2, 1])
      } else {
        const message = `The task's code changed while it ran: step 1 is "part-0" now, but "step-0" ran there`
        expect(task).toMatchObject({ status: 'failed', statusMessage: message, error: { code: -32603, message } })
        expect(effects.get('renamed:part-0')).toBeUndefined()
        expect(effects.get('renamed:step-0')).toBe(1)
      }
    }
  })

  it('continues across alarms between steps, one new step per run with maxStepsPerRun: 1', async () => {
    const one = stepServer('one', { maxStepsPerRun: 1 })
    const store = new MemoryTaskStore()
    clock.now = 100
    const tasks = await created(store, 'y1', call('steps', steps('y1', 3)), one)
    for (const done of [1, 2]) {
      await tasks.alarm()
      expect([store.steps.length, store.parsed?.status, store.parsed?.running, store.alarm]).toEqual([
        done,
        'working',
        false,
        100,
      ])
    }
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task.status).toBe('completed')
    expect(store.parsed?.runs).toBe(3)
    expect([0, 1, 2].map((i) => effects.get(`y1:one-${i}`))).toEqual([1, 1, 1])
    expect(await logTexts(tasks)).toEqual([0, 1, 2].map((i) => [i, `chunk ${i}\n`]))
  })

  it('continues in the next alarm once a run has run maxRunMs, between steps', async () => {
    const timed = stepServer('timed', { maxRunMs: 100 })
    const store = new MemoryTaskStore()
    clock.now = 0
    const tasks = await created(store, 'y2', call('steps', steps('y2', 5, { advanceMs: 40 })), timed)
    await tasks.alarm()
    // Steps at 0, 40 and 80 ms start within the budget; the fourth would start at 120 ms.
    expect([store.steps.length, store.parsed?.status]).toEqual([3, 'working'])
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task.status).toBe('completed')
  })

  it('fails after more than maxLostRuns lost runs in a row without progress, saying so', async () => {
    const fragile = createMcpServer({ name: 'fragile', version: '1', taskLimits: { maxLostRuns: 2 } }).tool(
      'stuck',
      { input: z.object({ tag: z.string() }), task: 'always' },
      async ({ tag }, ctx) => {
        await ctx.step('forever', async () => {
          effect(`${tag}:forever:${effects.get(`${tag}:runs`) ?? 0}`)
          await hold(ctx.signal)
        })
        return text('never')
      },
    )
    const store = new MemoryTaskStore()
    let tasks = await created(store, 'lost', call('stuck', { tag: 'lost' }), fragile)
    for (let run = 0; run < 3; run++) {
      tasks.alarm().catch(() => {})
      await reached(`lost:forever:${run}`)
      effect('lost:runs')
      store.crash()
      tasks = engine(store, fragile)
      await tasks.get('alice')
    }
    expect(store.parsed).toMatchObject({
      status: 'failed',
      lostRuns: 2,
      statusMessage: "The task's run was interrupted 3 times in a row without progress (restarts, evictions or platform limits)",
    })
  })
})

describe('TaskEngine: an alarm the runtime lost', () => {
  // Seen under `wrangler dev` after a restart: a working task between runs whose alarm never came
  // stayed working for good, though its client kept polling (tasks-fault.test.ts (a), at times).
  it('is set again by a read once ALARM_GRACE_MS has passed since it was set, and the task then runs', async () => {
    const store = new MemoryTaskStore()
    clock.now = 1_000
    const tasks = await created(store, 't-lost-alarm', call('quick'))
    expect(store.alarm).toBe(1_000)
    store.alarm = undefined
    clock.now = 1_000 + ALARM_GRACE_MS
    expect((await tasks.get('alice'))?.task.status).toBe('working')
    expect(store.alarm).toBeUndefined()
    clock.now += 1
    await tasks.get('alice')
    expect(store.alarm).toBe(clock.now)
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'completed', result: text('done') })
  })

  it('is set again at the first read after a restart, before any grace has passed', async () => {
    const store = new MemoryTaskStore()
    clock.now = 1_000
    await created(store, 't-restart-alarm', call('quick'))
    store.alarm = undefined
    await engine(store).get('alice')
    expect(store.alarm).toBe(1_000)
  })

  it('is not set by reads while a run is live, past the grace, nor for a task that ended', async () => {
    const stuck = stepServer('s').tool('stuck', { input: z.object({}), task: 'always' }, async (_a, ctx) => hold(ctx.signal))
    const store = new MemoryTaskStore()
    clock.now = 1_000
    const tasks = await created(store, 't-live-run', call('stuck', {}), stuck)
    const running = tasks.alarm()
    store.alarm = undefined
    clock.now += 2 * ALARM_GRACE_MS
    expect((await tasks.get('alice'))?.task.status).toBe('working')
    expect(store.alarm).toBeUndefined()
    expect(await tasks.cancel('alice')).toBe(true)
    await running
    store.alarm = undefined
    clock.now += 2 * ALARM_GRACE_MS
    expect((await tasks.get('alice'))?.task.status).toBe('cancelled')
    expect(store.alarm).toBeUndefined()
  })
})

describe('TaskEngine: input during a task', () => {
  it('stores answers before tasks/update returns; a restarted instance replays with them and does not repeat steps', async () => {
    const store = new MemoryTaskStore()
    clock.now = 0
    const first = await created(store, 'in1', call('approve', { tag: 'in1' }))
    await first.alarm()
    expect(store.parsed).toMatchObject({ status: 'input_required', running: false, inputRequests: { ok: expect.any(Object) } })
    expect((await first.get('alice'))?.task.inputRequests?.ok).toMatchObject({ params: { message: 'Approve A, B?' } })
    store.crash()
    clock.now = 50
    const second = engine(store)
    expect(await second.update('alice', { ok: { action: 'accept', content: { approve: true } }, stray: 1 })).toBe(true)
    expect([store.values.get('answer:ok'), store.values.has('answer:stray'), store.parsed?.status, store.alarm]).toEqual([
      JSON.stringify({ action: 'accept', content: { approve: true } }),
      false,
      'working',
      50,
    ])
    store.crash()
    const third = engine(store)
    await third.alarm()
    expect((await third.get('alice'))?.task).toMatchObject({ status: 'completed', result: text('A, B: written') })
    expect(effects.get('in1:outline')).toBe(1)
  })

  it('keeps a task input_required until every outstanding key is answered, and serves parallel asks', async () => {
    const store = new MemoryTaskStore()
    const tasks = await created(store, 'in2', call('two_asks'))
    await tasks.alarm()
    expect(Object.keys((await tasks.get('alice'))?.task.inputRequests ?? {})).toEqual(['a', 'b'])
    expect(await tasks.update('bob', { b: { action: 'cancel' } })).toBe(false)
    await tasks.update('alice', { b: { action: 'decline' } })
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'input_required', inputRequests: { a: expect.any(Object) } })
    expect(Object.keys((await tasks.get('alice'))?.task.inputRequests ?? {})).toEqual(['a'])
    await tasks.update('alice', { a: { action: 'cancel' } })
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'completed', result: text('cancel+decline') })
  })
})

describe('TaskEngine: cancellation and terminal states', () => {
  it('cancels during a step: settles cancelled, stores no step, and a later alarm runs nothing again', async () => {
    const store = new MemoryTaskStore()
    const tasks = await created(store, 'c1', call('stuck', { tag: 'c1' }))
    const running = tasks.alarm()
    await reached('c1:forever')
    expect(await tasks.cancel('alice')).toBe(true)
    await running
    expect(store.parsed).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client', running: false })
    const cancelledAt = store.parsed?.updatedAt
    store.crash()
    const later = engine(store)
    await later.alarm()
    expect(await later.cancel('alice')).toBe(true)
    expect(await later.update('alice', { x: 1 })).toBe(true)
    expect([store.steps.length, effects.get('c1:forever'), store.parsed?.status, store.parsed?.updatedAt]).toEqual([
      0,
      1,
      'cancelled',
      cancelledAt,
    ])
  })

  it('settles a tool error as completed with isError', async () => {
    const failing = createMcpServer({ name: 'f', version: '1' }).tool('bad', { input: z.object({}), task: 'always' }, () => {
      throw new ToolError('disk full')
    })
    const store = new MemoryTaskStore()
    const tasks = await created(store, 'e1', call('bad'), failing)
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({ status: 'completed', result: { isError: true } })
  })
})

describe('TaskEngine: storage within limits', () => {
  const limited = createMcpServer({
    name: 'limited',
    version: '1',
    taskLimits: { maxResultBytes: 1000, maxStepBytes: 200, maxLogItemBytes: 300, maxInputBytes: 400 },
  })
    .tool('big_result', { input: z.object({ n: z.int() }), task: 'always' }, ({ n }) => text('r'.repeat(n)))
    .tool('big_step', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
      await ctx.step('huge', () => 's'.repeat(500))
      return text('never')
    })
    .tool('big_partial', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
      await ctx.partial('p'.repeat(500))
      return text('never')
    })
    .tool('big_input', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
      await ctx.ask({ long: input.form('q'.repeat(500), z.object({ v: z.string() })) })
      return text('never')
    })

  it.each([
    ['big_result', { n: 2000 }, /^The task's result takes 2\d{3} bytes; a task stores at most 1000$/],
    ['big_step', {}, /^ctx\.step\("huge"\) returned 5\d\d bytes of JSON; a step stores at most 200$/],
    ['big_partial', {}, /^ctx\.partial: a partial result of 6\d\d bytes; a task logs at most 300$/],
    ['big_input', {}, /^The task asked for \d+ bytes of input requests; a task stores at most 400$/],
  ])('%s: fails the task with a clear message instead of storing too much', async (tool, args, message) => {
    const store = new MemoryTaskStore()
    const tasks = await created(store, `l-${tool}`, call(tool, args), limited)
    await tasks.alarm()
    const task = (await tasks.get('alice'))?.task
    expect(task?.status).toBe('failed')
    expect(task?.statusMessage).toMatch(message)
    expect(store.values.has('result')).toBe(false)
  })

  it('fails the task clearly when the store refuses its result, and the failure is what is stored', async () => {
    const store = new MemoryTaskStore()
    const tasks = await created(store, 'l-refused', call('big_result', { n: 10 }), limited)
    let refusals = 0
    store.fault = (op) => {
      if (op === 'settle' && refusals++ === 0) throw new Error('string or blob too big: SQLITE_TOOBIG')
    }
    await tasks.alarm()
    expect((await tasks.get('alice'))?.task).toMatchObject({
      status: 'failed',
      statusMessage: "The task's result could not be stored",
    })
    expect(store.parsed?.status).toBe('failed')
  })
})

describe('TaskEngine: the log and watchers', () => {
  it('writes the partial log in batches, flushed before it is read', async () => {
    const store = new MemoryTaskStore()
    const tasks = await created(store, 'b1', call('chatty', { n: 150 }))
    await tasks.alarm()
    expect(store.batches.every((size) => size <= LOG_BATCH_SIZE)).toBe(true)
    expect(store.batches.length).toBeLessThan(10)
    const { log } = (await tasks.get('alice', { from: 140, limit: 100 })) ?? {}
    expect(log?.items.map((item) => item.seq)).toEqual([140, 141, 142, 143, 144, 145, 146, 147, 148, 149])
    expect(log).toMatchObject({ nextSeq: 150, complete: true })
  })

  it('sends a watcher the current state, then changes (partials only when asked), and ends it when the task ends', async () => {
    const store = new MemoryTaskStore()
    const tasks = await created(store, 'w1', call('steps', steps('w1', 2)))
    const seen: Record<string, string[]> = { all: [], status: [] }
    const ended: string[] = []
    const watcher = (name: string, partials: boolean): Watcher => ({
      partials,
      send: (message) => seen[name]?.push(message.method === 'notifications/tasks' ? (message.params as any).status : 'partial'),
      end: () => ended.push(name),
    })
    expect(await tasks.watch('bob', watcher('all', true))).toBeUndefined()
    expect(typeof (await tasks.watch('alice', watcher('all', true)))).toBe('function')
    await tasks.watch('alice', watcher('status', false))
    await tasks.alarm()
    expect(seen).toEqual({ all: ['working', 'partial', 'partial', 'completed'], status: ['working', 'completed'] })
    expect(ended).toEqual(['all', 'status'])
    const late: string[] = []
    await tasks.watch('alice', { partials: true, send: (m) => late.push((m.params as any).status), end: () => late.push('end') })
    expect(late).toEqual(['completed', 'end'])
  })
})
