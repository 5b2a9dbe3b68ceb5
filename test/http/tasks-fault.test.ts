/**
 * Fault tests of durable tasks over real HTTP: `wrangler dev` (the fixture Worker) is killed
 * with SIGKILL (its whole process group: nothing shuts down cleanly) while tasks run, and a new
 * `wrangler dev` starts on the same persisted state. Runs continue in the next alarm after two
 * new steps (FIXTURE_TASK_LIMITS), so the kills also land between alarms.
 *
 * Steps report their side effects to a sink (an HTTP server of this test), so the tests count how
 * often each step really ran. "New Worker code" in (c) is the restart with another
 * FIXTURE_STEP_PREFIX var: the step fixtures name their steps from it, so after the restart the
 * same task replays against a handler whose steps are named differently, which is what a deploy
 * of renamed steps looks like to the engine (the objects restart, as they do on a deploy).
 */
import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpc } from '../support/mcp.ts'
import { type Collector, startCollector } from '../support/otlp-collector.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const CAPABILITIES = { ...TASKS, partialResults: {}, elicitation: {} }
const LOG = 'dev.mcp-edge/partialLog'
const LIMITS = JSON.stringify({ maxStepsPerRun: 2 })
const TERMINAL = ['completed', 'failed', 'cancelled']

/** The side-effect sink: every event the steps report, and a way to wait for one. */
function startSink() {
  const events: Array<{ taskId: string; event: string }> = []
  const waiters = new Set<() => void>()
  const server: Server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      events.push(JSON.parse(body))
      for (const wake of waiters) wake()
      response.end('ok')
    })
  })
  const count = (taskId: string, event: string) => events.filter((e) => e.taskId === taskId && e.event === event).length
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!done()) return
        waiters.delete(check)
        resolve()
      }
      waiters.add(check)
      check()
    })
  return { server, events, count, until }
}

describe('durable tasks across crashes of wrangler dev', () => {
  const persistTo = mkdtempSync(join(tmpdir(), 'mcp-edge-fault-'))
  const sink = startSink()
  let sinkUrl = ''
  let server: WranglerServer | undefined
  // Spans go to a collector of this test: a task's runs must link to its creating call across kills.
  let collector: Collector

  const start = async (prefix = 'part') => {
    server = await startWrangler({
      config: 'test/fixture/wrangler.jsonc',
      persistTo,
      vars: { FIXTURE_TASK_LIMITS: LIMITS, FIXTURE_STEP_PREFIX: prefix, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint },
    })
  }
  /** SIGKILL the process group, then start again on the same state; `dead` runs in between. */
  const crashAndRestart = async (prefix = 'part', dead = () => {}) => {
    const running = server as WranglerServer
    process.kill(-running.pid, 'SIGKILL')
    await running.stop()
    dead()
    await start(prefix)
  }
  const url = () => (server as WranglerServer).url

  const create = async (name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) => {
    const { message } = await rpc(
      fetch,
      url(),
      'tools/call',
      { name, arguments: args },
      {
        capabilities: CAPABILITIES,
        meta: { partialResultToken: `fault-${name}`, ...meta },
      },
    )
    expect(message.result?.status, JSON.stringify(message)).toBe('working')
    return message.result.taskId as string
  }
  const get = async (taskId: string) =>
    (await rpc(fetch, url(), 'tasks/get', { taskId }, { capabilities: CAPABILITIES, meta: { [LOG]: { from: 0, limit: 1000 } } }))
      .message.result
  /** Poll (the pollIntervalMs way of a client) until every task is in one of `statuses`. */
  const until = async (taskIds: string[], statuses = TERMINAL, deadlineMs = 90_000) => {
    const deadline = Date.now() + deadlineMs
    const found = new Map<string, any>()
    for (;;) {
      for (const taskId of taskIds.filter((id) => !statuses.includes(found.get(id)?.status))) found.set(taskId, await get(taskId))
      if (taskIds.every((id) => statuses.includes(found.get(id)?.status)) || Date.now() > deadline) return found
      await new Promise((done) => setTimeout(done, 150))
    }
  }

  beforeAll(async () => {
    collector = await startCollector()
    await new Promise<void>((resolve) => sink.server.listen(0, '127.0.0.1', resolve))
    const address = sink.server.address()
    sinkUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`
    await start()
  }, 120_000)

  afterAll(async () => {
    await server?.stop()
    await new Promise((done) => sink.server.close(done))
    await collector?.close()
  })

  it('(a) a kill mid-run: the task completes with the result of an undisturbed run, its log contiguous from 0 without duplicates', async () => {
    const steps = 12
    const trace = 'a11ce0000000000000000000000000a1'
    const taskId = await create(
      'step_task',
      { steps, delayMs: 150, sink: sinkUrl },
      { traceparent: `00-${trace}-00000000000000a1-01` },
    )
    await sink.until(() => sink.count(taskId, 'part-5') > 0)
    // How often each step had reported when the process died (each step reports first, then works).
    const reports = () => [...Array(steps).keys()].map((i) => sink.count(taskId, `part-${i}`))
    let atKill: number[] = []
    await crashAndRestart('part', () => {
      atKill = reports()
    })
    const task = (await until([taskId])).get(taskId)
    const undisturbedId = await create('step_task', { steps, delayMs: 0 })
    const undisturbed = (await until([undisturbedId])).get(undisturbedId)
    expect(task.status, JSON.stringify(task)).toBe('completed')
    expect(undisturbed.status, JSON.stringify(undisturbed)).toBe('completed')
    expect(task.result.content).toEqual(undisturbed.result.content)
    const items = task._meta[LOG].items as Array<{ seq: number; taskId: string; content: Array<{ text: string }> }>
    expect(items.map((item) => [item.seq, item.content[0]?.text])).toEqual(
      [...Array(steps).keys()].map((i) => [i, `part ${i}\n`]),
    )
    expect(task._meta[LOG].complete).toBe(true)
    // Every step ran; only the one in flight at the kill may have run twice (at least once per step).
    const runs = [...Array(steps).keys()].map((i) => sink.count(taskId, `part-${i}`))
    expect(runs.every((count) => count >= 1)).toBe(true)
    expect(runs.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(steps + 1)
    // The trace: every run span (the last of them ran after the kill, in a new process) links to
    // the creating call's span, in the client's trace, read back from the task's storage. (That
    // span itself may be lost: the kill can come before its isolate's batch was sent.)
    const spans = await collector.waitFor((all) =>
      all.some(
        (span) =>
          span.name === 'task.run step_task' &&
          span.attributes['mcp_edge.task.id'] === taskId &&
          span.attributes['mcp_edge.task.status'] === 'completed',
      ),
    )
    const taskRuns = spans.filter((span) => span.name === 'task.run step_task' && span.attributes['mcp_edge.task.id'] === taskId)
    expect(taskRuns.length).toBeGreaterThanOrEqual(2)
    const creatorId = taskRuns[0]?.links[0]?.spanId
    expect(creatorId).toMatch(/^[0-9a-f]{16}$/)
    expect(creatorId).not.toBe('00000000000000a1') // the server's span, not the client's
    for (const run of taskRuns) expect(run.links).toEqual([expect.objectContaining({ traceId: trace, spanId: creatorId })])
    // A step's span goes out with the batch after it ends (a second after the batch's first span), so
    // those of the steps that ended in the killed process's last second may be lost with it. Every
    // step that ran after the restart (its first run, or again the one cut off by the kill) is there.
    const stepSpans = new Set(
      spans
        .filter((span) => span.attributes['mcp_edge.task.id'] === taskId && span.name.startsWith('task.step '))
        .map((span) => span.name),
    )
    const rerun = reports()
      .map((count, i) => (count > (atKill[i] ?? 0) ? i : -1))
      .filter((i) => i >= 0)
    expect(rerun.length).toBeGreaterThan(0)
    for (const i of rerun) expect(stepSpans).toContain(`task.step part-${i}`)
  }, 180_000)

  it('(b) a kill while input_required: after the restart, tasks/update answers it and it completes', async () => {
    const taskId = await create('approve_task', { topic: 'tides', sink: sinkUrl })
    const waiting = (await until([taskId], ['input_required'])).get(taskId)
    expect(waiting.inputRequests.approve.params.message).toBe('Approve the outline "1. tides 2. more tides"?')
    await crashAndRestart()
    expect((await get(taskId)).status).toBe('input_required')
    const update = await rpc(
      fetch,
      url(),
      'tasks/update',
      {
        taskId,
        inputResponses: { approve: { action: 'accept', content: { approve: true } } },
      },
      { capabilities: CAPABILITIES },
    )
    expect(update.message.result?.resultType).toBe('complete')
    const done = (await until([taskId])).get(taskId)
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'Article on 1. tides 2. more tides' }] } })
    expect([sink.count(taskId, 'outline'), sink.count(taskId, 'write')]).toEqual([1, 1])
  }, 180_000)

  it('(c) new code mid-task: with the same step names it completes; with renamed steps it fails, saying why, and runs no step twice', async () => {
    const same = await create('step_task', { steps: 6, delayMs: 250, sink: sinkUrl })
    await sink.until(() => sink.count(same, 'part-2') > 0)
    await crashAndRestart('part')
    const completed = (await until([same])).get(same)
    expect(completed).toMatchObject({ status: 'completed', result: { content: [{}, { text: 'sum 15' }] } })
    expect([0, 1].map((i) => sink.count(same, `part-${i}`))).toEqual([1, 1])

    const renamed = await create('step_task', { steps: 6, delayMs: 250, sink: sinkUrl })
    await sink.until(() => sink.count(renamed, 'part-2') > 0)
    await crashAndRestart('chunk')
    const failed = (await until([renamed])).get(renamed)
    const reason = `The task's code changed while it ran: step 1 is "chunk-0" now, but "part-0" ran there`
    expect(failed).toMatchObject({ status: 'failed', statusMessage: reason, error: { code: -32603, message: reason } })
    expect(sink.events.filter((e) => e.taskId === renamed && e.event.startsWith('chunk-'))).toEqual([])
    expect([0, 1].map((i) => sink.count(renamed, `part-${i}`))).toEqual([1, 1])
    await crashAndRestart('part')
  }, 240_000)

  it('(d) a cancel during a step: it settles cancelled, and the step is not run again, not even after a restart', async () => {
    const taskId = await create('step_task', { steps: 3, delayMs: 600_000, sink: sinkUrl })
    await sink.until(() => sink.count(taskId, 'part-0') > 0)
    const cancel = await rpc(fetch, url(), 'tasks/cancel', { taskId }, { capabilities: CAPABILITIES })
    expect(cancel.message.result?.resultType).toBe('complete')
    const cancelled = (await until([taskId])).get(taskId)
    expect(cancelled).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client' })
    await crashAndRestart()
    expect(await get(taskId)).toMatchObject({ status: 'cancelled', lastUpdatedAt: cancelled.lastUpdatedAt })
    expect([sink.count(taskId, 'part-0'), sink.count(taskId, 'part-1')]).toEqual([1, 0])
  }, 180_000)

  it('(e) 50 concurrent tasks across a kill: every one reaches a terminal state, none stays working', async () => {
    const taskIds = await Promise.all(
      Array.from({ length: 50 }, () => create('step_task', { steps: 4, delayMs: 300, sink: sinkUrl })),
    )
    await sink.until(() => taskIds.every((taskId) => sink.count(taskId, 'part-0') > 0))
    await crashAndRestart()
    const found = await until(taskIds, TERMINAL, 150_000)
    const statuses = taskIds.map((taskId) => found.get(taskId)?.status)
    expect(statuses.filter((status) => !TERMINAL.includes(status))).toEqual([])
    expect(statuses.filter((status) => status !== 'completed')).toEqual([])
  }, 240_000)
})
