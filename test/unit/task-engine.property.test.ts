/**
 * A property test of the task engine (fast-check): random sequences of alarms, reads, answers,
 * cancellations, restarts (also in the middle of a run) and clock jumps, over a memory store that
 * fails at random points. Real restarts of the runtime belong to test/http/tasks-fault.test.ts;
 * this test checks, after every step of every sequence:
 *
 * - a terminal state, once stored, never changes (status, result, error, lastUpdatedAt);
 * - `get` shows what is stored (what it returned in the sequence, and a fault-free `get` after each step);
 * - the log is never rewritten, holds seqs 0..n-1, and seq i always means the i-th chunk;
 * - stored steps are the handler's steps, in order, with their values;
 *
 * and, once the faults stop, that the task reaches a terminal state (completed with the one right
 * result and the whole log, unless it was cancelled, expired, or failed saying why).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createMcpServer, input } from '../../packages/mcp-edge/src/index.ts'
import { TaskEngine } from '../../packages/mcp-edge/src/server/tasks/engine.ts'
import type { TaskCall } from '../../packages/mcp-edge/src/server/tasks/tasks.ts'
import { MemoryTaskStore } from '../support/memory-task-store.ts'

const CHUNKS = ['start', 'a1', 'a2', 'b1', 'c1']
const STEPS = [
  ['a', 1],
  ['b', 2],
  ['c', 3],
] as const
const TTL_MS = 10_000
const FAILURE_MESSAGES = [/^The task's run was interrupted \d+ times in a row/, /^The task's result could not be stored$/]

/** Yield to the timers once, so a command can land in the middle of a run. */
const turn = () => new Promise((resolve) => setTimeout(resolve, 0))

const server = createMcpServer({ name: 'property', version: '1', taskLimits: { maxStepsPerRun: 1, maxLostRuns: 3 } }).tool(
  'work',
  { input: z.object({}), task: 'always' },
  async (_args, ctx) => {
    await ctx.partial(`${CHUNKS[0]}`)
    const a = await ctx.step('a', async () => {
      await ctx.partial('a1')
      await turn()
      await ctx.partial('a2')
      return 1
    })
    const { go } = await ctx.ask({ go: input.form('Go on?', z.object({ ok: z.boolean() })) })
    const b = await ctx.step('b', async () => {
      await turn()
      await ctx.partial('b1')
      return 2
    })
    const c = await ctx.step('c', async () => {
      await ctx.partial('c1')
      return 3
    })
    return { content: [{ type: 'text', text: `${a + b + c} ${go.action}` }] }
  },
)

const CALL: TaskCall = {
  tool: 'work',
  arguments: {},
  prepared: undefined,
  protocolVersion: '2026-07-28',
  clientCapabilities: { elicitation: {}, partialResults: {} },
  principal: { subject: 'alice' },
  ttlMs: TTL_MS,
  pollIntervalMs: 100,
  partialLog: true,
}

type Command = 'alarm' | 'alarmThenCrash' | 'get' | 'answer' | 'cancel' | 'crash' | 'tick' | 'leap'
const COMMANDS: Command[] = [
  'alarm',
  'alarm',
  'alarm',
  'alarmThenCrash',
  'get',
  'answer',
  'answer',
  'cancel',
  'crash',
  'tick',
  'leap',
]

const expected = (error: unknown) => /injected fault|this instance is gone/.test(String(error))

async function tolerate<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation
  } catch (error) {
    if (!expected(error)) throw error
    return undefined
  }
}

async function scenario(commands: Command[], faultPlan: number[]) {
  const store = new MemoryTaskStore()
  const clock = { now: 0 }
  const connect = () => new TaskEngine(server, {}, store.connect(), () => clock.now)
  let engine = connect()
  expect(await engine.create('p1', CALL)).toHaveProperty('task')
  let op = 0
  let faulty = true
  store.fault = () => {
    if (faulty && faultPlan[op++ % Math.max(faultPlan.length, 1)] === 0) throw new Error('injected fault')
  }
  let terminal: string | undefined

  /** The invariants, with the faults off; `get` reads through the engine and must show what is stored. */
  const check = async (seen?: { status: string; result?: unknown }) => {
    faulty = false
    const shown = (await engine.get('alice'))?.task
    const record = store.parsed
    if (shown) expect(shown.status).toBe(record?.status)
    const stored = record && JSON.stringify([record.status, record.updatedAt, record.error, store.values.get('result')])
    if (terminal !== undefined && record) expect(stored).toBe(terminal)
    if (record && ['completed', 'failed', 'cancelled'].includes(record.status)) terminal ??= stored
    if (seen && record) {
      expect(seen.status).toBe(record.status)
      if (seen.status === 'completed') expect(seen.result).toEqual(JSON.parse(store.values.get('result') as string))
    }
    expect(store.rewrites).toBe(0)
    const seqs = [...store.log.keys()].sort((x, y) => x - y)
    expect(seqs).toEqual([...seqs.keys()])
    for (const seq of seqs) expect(JSON.parse(store.log.get(seq) as string).content[0].text).toBe(CHUNKS[seq])
    expect(store.steps.map((step) => [step.name, JSON.parse(step.json).value])).toEqual(STEPS.slice(0, store.steps.length))
    expect(store.steps.map((step) => step.index)).toEqual([...store.steps.keys()])
    faulty = true
  }

  for (const command of commands) {
    if (command === 'alarm') await tolerate(engine.alarm())
    else if (command === 'alarmThenCrash') {
      const running = engine.alarm().catch((error) => (expected(error) ? undefined : Promise.reject(error)))
      await turn()
      store.crash()
      engine = connect()
      await running
    } else if (command === 'get') {
      const found = await tolerate(engine.get('alice'))
      await check(found?.task)
      continue
    } else if (command === 'answer') await tolerate(engine.update('alice', { go: { action: 'accept', content: { ok: true } } }))
    else if (command === 'cancel') await tolerate(engine.cancel('alice'))
    else if (command === 'crash') {
      store.crash()
      engine = connect()
    } else clock.now += command === 'tick' ? 10 : TTL_MS / 2
    await check()
  }

  // The faults stop: the task must reach a terminal state by itself and by answering.
  faulty = false
  store.crash()
  engine = connect()
  for (let round = 0; round < 20; round++) {
    const task = (await engine.get('alice'))?.task
    if (!task || ['completed', 'failed', 'cancelled'].includes(task.status)) break
    if (task.status === 'input_required') await engine.update('alice', { go: { action: 'accept', content: { ok: true } } })
    await engine.alarm()
  }
  const final = (await engine.get('alice', { from: 0, limit: 100 })) ?? undefined
  await check(final?.task)
  if (!final) return // purged after it expired
  const { task, log } = final
  expect(['completed', 'failed', 'cancelled']).toContain(task.status)
  if (task.status === 'completed') {
    expect(task.result).toMatchObject({ content: [{ type: 'text', text: '6 accept' }] })
    expect(log?.items.map((item) => (item.content as Array<{ text: string }>)[0]?.text)).toEqual(CHUNKS)
  }
  if (task.status === 'failed' && task.statusMessage !== 'Task expired') {
    expect(FAILURE_MESSAGES.some((pattern) => pattern.test(task.statusMessage ?? ''))).toBe(true)
  }
}

describe('TaskEngine over a store that fails at random points (property)', () => {
  it('never changes a terminal state, shows what is stored, never rewrites the log, and ends once the faults stop', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...COMMANDS), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat({ max: 4 }), { maxLength: 64 }),
        scenario,
      ),
      { numRuns: 500 },
    )
  }, 60_000)
})
