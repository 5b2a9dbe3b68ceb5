/**
 * Abuse limits: the JSON nesting limit (checked before `JSON.parse`), the per-principal cap on
 * listen streams through the handler, and the live-task cap, which asks the backend about the
 * tasks it counts only when a caller is at the cap.
 */
import { describe, expect, it } from 'vitest'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import {
  DEFAULT_MAX_LISTEN_STREAMS,
  DEFAULT_MAX_LIVE_TASKS,
  Limits,
  parseJsonBody,
} from '../../packages/mcp-edge/src/server/limits.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { DEFAULT_TASK_LIMITS } from '../../packages/mcp-edge/src/server/tasks/limits.ts'

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('parseJsonBody', () => {
  it('parses up to the depth limit and refuses deeper nesting with -32600 before parsing', () => {
    // 64 arrays, each holding the next: the innermost is empty.
    let value: unknown = parseJsonBody(nested(64), 64)
    for (let depth = 1; depth < 64; depth++) {
      expect(value).toHaveLength(1)
      value = (value as unknown[])[0]
    }
    expect(value).toEqual([])
    expect(() => parseJsonBody(nested(65), 64)).toThrow(
      expect.objectContaining({ code: -32600, status: 400, message: 'Invalid Request: JSON nested deeper than 64 levels' }),
    )
    // A million brackets would overflow a recursive parser; the scan stops at the limit.
    expect(() => parseJsonBody(nested(1_000_000), 64)).toThrow(expect.objectContaining({ code: -32600 }))
  })

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(parseJsonBody(JSON.stringify({ a: `\\"${'['.repeat(500)}` }), 64)).toEqual({ a: `\\"${'['.repeat(500)}` })
  })

  it('answers invalid JSON with -32700', () => {
    expect(() => parseJsonBody('{"a":', 64)).toThrow(expect.objectContaining({ code: -32700 }))
  })
})

describe('listen stream cap', () => {
  it('answers 429 past the cap for one principal, and frees the slot when a stream ends', async () => {
    // Declared single-isolate, so toolsListChanged is honoured and each stream stays open.
    const server = createMcpServer({ name: 'l', version: '1', limits: { listenStreams: 1 }, events: 'isolate' }).tool(
      'a',
      { input: { jsonSchema: { type: 'object' } } },
      () => ({ content: [] }),
    )
    const handle = createMcpHandler(server, { authenticate: (request) => ({ subject: request.headers.get('x-user') ?? 'x' }) })
    const listen = (user: string, signal?: AbortSignal) =>
      handle(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          signal,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'subscriptions/listen',
            'x-user': user,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 'l',
            method: 'subscriptions/listen',
            params: {
              notifications: { toolsListChanged: true },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        }),
        {},
      )
    const first = new AbortController()
    const open = await listen('ada', first.signal)
    expect(open.headers.get('content-type')).toContain('text/event-stream')
    const refused = await listen('ada')
    expect(refused.status).toBe(429)
    expect((await refused.json()).error).toMatchObject({ code: -32600, data: { limit: 1 } })
    expect((await listen('grace', new AbortController().signal)).status).toBe(200)
    first.abort()
    // The stream ends once its relay has seen the abort, and the slot is released before that.
    await open.text()
    expect((await listen('ada', new AbortController().signal)).status).toBe(200)
  })
})

describe('live task cap', () => {
  /** Tasks in memory: the cap's only question about them is whether one is still live. */
  function memoryTasks() {
    const status = new Map<string, string>()
    let asked = 0
    const isLive = async (taskId: string) => {
      asked++
      return status.get(taskId) === 'working'
    }
    let next = 0
    const create = async () => {
      const taskId = `t${next++}`
      status.set(taskId, 'working')
      return { taskId }
    }
    return { isLive, create, status, asked: () => asked }
  }

  /** What the tools/call path does with a slot: reserve, create, commit; release in any case. */
  async function createWith(limits: Limits, subject: string, tasks: ReturnType<typeof memoryTasks>, expiresAt = Infinity) {
    const slot = await limits.reserveTask(subject, tasks.isLive)
    try {
      const task = await tasks.create()
      slot.commit(task.taskId, expiresAt)
      return task
    } finally {
      slot.release()
    }
  }

  it('creates up to the cap, asks about counted tasks only at the cap, and frees finished ones', async () => {
    const limits = new Limits({ liveTasks: 2 })
    const tasks = memoryTasks()
    await createWith(limits, 'ada', tasks)
    await createWith(limits, 'ada', tasks)
    expect(tasks.asked()).toBe(0)
    await expect(createWith(limits, 'ada', tasks)).rejects.toMatchObject({ status: 429, code: -32600 })
    expect(tasks.status.size).toBe(2) // nothing was created
    await createWith(limits, 'grace', tasks) // another principal has its own slots
    tasks.status.set('t0', 'completed')
    await expect(createWith(limits, 'ada', tasks)).resolves.toEqual({ taskId: 't3' })
  })

  it('holds the cap against concurrent calls: the check and the reservation are one step', async () => {
    const limits = new Limits({ liveTasks: 2 })
    const tasks = memoryTasks()
    const slow = { ...tasks, create: () => new Promise<{ taskId: string }>((done) => setTimeout(() => done(tasks.create()), 5)) }
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => createWith(limits, 'ada', slow)))
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(2)
    expect(tasks.status.size).toBe(2)
  })

  it('frees the slot of a creation that failed or was refused, and forgets expired tasks without asking', async () => {
    let now = 1000
    const limits = new Limits({ liveTasks: 1 }, () => now)
    const tasks = memoryTasks()
    const failing = { ...tasks, create: async (): Promise<{ taskId: string }> => Promise.reject(new Error('store down')) }
    await expect(createWith(limits, 'ada', failing)).rejects.toThrow('store down')
    await createWith(limits, 'ada', tasks, 2000)
    now = 2000 // past the counted task's expiry: it no longer counts, and nobody is asked
    await createWith(limits, 'ada', tasks, 3000)
    expect(tasks.asked()).toBe(0)
  })

  it('refuses a cap that is not a positive integer, naming it', () => {
    for (const liveTasks of [Number.NaN, 0, -1, 1.5]) {
      expect(() => new Limits({ liveTasks })).toThrow(/limits.liveTasks must be a positive integer/)
    }
    expect(() => new Limits({ listenStreams: Number('1OO') })).toThrow(/limits.listenStreams/)
  })

  it("checks a server's given limits when it is created; unset ones are the defaults, built at first use", () => {
    expect(() => createMcpServer({ name: 'l', version: '1', limits: { liveTasks: 0 } })).toThrow(/limits.liveTasks/)
    expect(() => createMcpServer({ name: 'l', version: '1', taskLimits: { maxSteps: 0 } })).toThrow(/taskLimits.maxSteps/)
    const server = createMcpServer({ name: 'l', version: '1' })
    expect([server.limits.listenStreams, server.limits.liveTasks]).toEqual([DEFAULT_MAX_LISTEN_STREAMS, DEFAULT_MAX_LIVE_TASKS])
    expect(server.limits).toBe(server.limits)
    expect(server.taskLimits).toEqual(DEFAULT_TASK_LIMITS)
    expect(createMcpServer({ name: 'l', version: '1', limits: { liveTasks: 3 } }).limits.liveTasks).toBe(3)
  })
})
