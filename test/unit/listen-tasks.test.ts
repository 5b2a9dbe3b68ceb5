/**
 * Task statuses through the event hub, as a listen stream sees them (src/server/listen-tasks.ts):
 * the current state first, then only newer changes (an event that raced the read never shows an
 * older status after a newer one), a completed result read back whole (hub events carry none),
 * and the end once every task is terminal; and listen.ts wiring it into a stream (its order and the
 * replay's pace). The task backend is a map here; the hub is the test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { EventHub, McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { buildRequest, openStream } from '../support/mcp.ts'
import { HubTasks } from '../../packages/mcp-edge/src/server/events/listen-tasks.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { DetailedTask, TaskBackend } from '../../packages/mcp-edge/src/server/tasks/tasks.ts'

function backend(tasks: Record<string, DetailedTask>): TaskBackend {
  return {
    get: async (taskId, principal) => (principal === 'ada' && tasks[taskId] ? { task: tasks[taskId] } : undefined),
  } as TaskBackend
}

const task = (taskId: string, status: DetailedTask['status'], at: string, extra: Partial<DetailedTask> = {}): DetailedTask => ({
  taskId,
  status,
  createdAt: '2026-11-30T00:00:00.000Z',
  lastUpdatedAt: at,
  ttlMs: null,
  ...extra,
})
const event = (params: DetailedTask): McpEvent => ({ type: 'task', taskId: params.taskId, params: { ...params } })

describe('task statuses through the hub', () => {
  it('sends the current state first, drops events older than it, reads a completed result back, and ends', async () => {
    const stored = { t1: task('t1', 'working', '2026-11-30T00:00:02.000Z') }
    const forwarded: McpEvent[] = []
    const sent: unknown[] = []
    const hub = new HubTasks(backend(stored), 'ada', (forward) => forwarded.push(forward))
    // Raced the read: an older status (already superseded) and a newer one.
    hub.see(event(task('t1', 'input_required', '2026-11-30T00:00:01.000Z')) as never)
    const watch = await hub.start(['t1', 'foreign'], 'sub-1', (message) => sent.push(message))
    expect(watch.taskIds).toEqual(['t1'])
    expect(sent).toMatchObject([{ method: 'notifications/tasks', params: { taskId: 't1', status: 'working' } }])
    expect(forwarded).toEqual([])
    let ended = false
    void watch.ended.then(() => {
      ended = true
    })
    stored.t1 = task('t1', 'completed', '2026-11-30T00:00:03.000Z', { result: { content: [{ type: 'text', text: 'big' }] } })
    const { result: _left, ...status } = stored.t1
    hub.see(event(status as DetailedTask) as never)
    await watch.ended
    expect(ended).toBe(true)
    expect(forwarded).toHaveLength(1)
    expect(forwarded[0]).toMatchObject({ params: { status: 'completed', result: { content: [{ text: 'big' }] } } })
    // A late duplicate of the terminal status changes nothing.
    hub.see(event(status as DetailedTask) as never)
    await Promise.resolve()
    expect(forwarded).toHaveLength(1)
  })

  // Before, a completed status waited for its result while later events went on, so ids went
  // backwards along the stream (ev:0-11 sent, then ev:0-10); and a resource update that reached
  // the hub while the state was read went out before the task events held meanwhile.
  it("keeps the hub's order: other events wait behind a completed result being read, and behind events held during the read", async () => {
    const stored = { t1: task('t1', 'working', '2026-11-30T00:00:02.000Z') }
    let release: () => void = () => {}
    const reading = new Promise<void>((resolve) => {
      release = resolve
    })
    const slow: TaskBackend = {
      get: async (taskId: string, principal: string | null) => {
        if (stored.t1.status === 'completed') await reading
        return backend(stored).get(taskId, principal)
      },
    } as TaskBackend
    const order: string[] = []
    const hub = new HubTasks(slow, 'ada', (_event, id) => order.push(id ?? 'no id'))
    const update = (id: string) =>
      hub.inOrder(() => {
        order.push(id)
        return undefined
      })
    // While start reads the state: a task event and an update, in the hub's order, wait.
    hub.see(event(task('t1', 'working', '2026-11-30T00:00:04.000Z', { statusMessage: 'half' })) as never, 'ev:0-7')
    update('ev:0-8')
    const watch = await hub.start(['t1'], 'sub-1', () => {})
    expect(order).toEqual(['ev:0-7', 'ev:0-8'])
    // A completed status without its result: read back, and what follows waits for it.
    stored.t1 = task('t1', 'completed', '2026-11-30T00:00:05.000Z', { result: { content: [] } })
    hub.see(event(task('t1', 'completed', '2026-11-30T00:00:05.000Z')) as never, 'ev:0-10')
    update('ev:0-11')
    await Promise.resolve()
    expect(order).toEqual(['ev:0-7', 'ev:0-8'])
    // The hub's pace waits for the read-back too: no next replay batch while events are held here.
    let idle = false
    void hub.idle().then(() => {
      idle = true
    })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(idle).toBe(false)
    release()
    await watch.ended
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(order).toEqual(['ev:0-7', 'ev:0-8', 'ev:0-10', 'ev:0-11'])
    expect(idle).toBe(true)
    // Nothing pending: an update goes out at once.
    update('ev:0-12')
    expect(order.at(-1)).toBe('ev:0-12')
  })

  it('ends at once when every watched task is already terminal', async () => {
    const hub = new HubTasks(backend({ t: task('t', 'failed', '2026-11-30T00:00:01.000Z') }), 'ada', () => {})
    const watch = await hub.start(['t'], 1, () => {})
    await expect(watch.ended).resolves.toBeUndefined()
  })

  it('publishes status changes to the hub without the result', async () => {
    const published: McpEvent[] = []
    const server = createMcpServer({
      name: 'u',
      version: '1',
      events: { publish: async (given) => void published.push(given), listen: async () => ({ closed: new Promise(() => {}) }) },
    })
    server.taskChanged('t', 'ada', { taskId: 't', status: 'completed', result: { content: [] } })
    expect(published).toEqual([{ type: 'task', taskId: 't', params: { taskId: 't', status: 'completed' }, audience: ['ada'] }])
  })
})

// listen.ts's wiring of the above: the stream's other hub events go through `inOrder`, and the
// hub's replay pace waits for `idle()`. Before it was wired, an update heard while a completed
// result was read went out first (its id newer than the status after it), and the next replay
// batch was asked for while events were held back.
describe('a listen stream watching a task through a hub', () => {
  it('sends a resource update heard while a completed result is read after it, and paces the replay behind the read', async () => {
    const stored = { t1: task('t1', 'working', '2026-11-30T00:00:02.000Z') }
    let release: () => void = () => {}
    const reading = new Promise<void>((resolve) => {
      release = resolve
    })
    const tasks = {
      get: async (taskId: string, principal: string | null) => {
        if (stored.t1.status === 'completed') await reading
        return backend(stored).get(taskId, principal)
      },
      watch: async () => {
        throw new Error('statuses come through the hub')
      },
    } as unknown as TaskBackend
    let hub: { deliver: (event: McpEvent, id?: string) => void; pace: () => Promise<boolean> } | undefined
    const events: EventHub = {
      publish: async () => 0,
      listen: async (_subscription, deliver, signal, _after, pace) => {
        hub = { deliver, pace: pace as () => Promise<boolean> }
        return { closed: new Promise((resolve) => signal.addEventListener('abort', () => resolve())), cursor: 'ev:0-5', gaps: [] }
      },
    }
    const server = createMcpServer({ name: 'u', version: '1', events, listenTimeoutMs: 10_000 })
    server.resource('notes://all', { name: 'notes' }, (uri) => ({ contents: [{ uri, text: '' }] }))
    const handle = createMcpHandler(server, { authenticate: () => ({ subject: 'ada' }), services: () => ({ tasks }) })
    const listen = await openStream(
      (request) => handle(request, undefined),
      buildRequest(
        'http://127.0.0.1/mcp',
        'subscriptions/listen',
        { notifications: { taskIds: ['t1'], resourceSubscriptions: ['notes://all'] } },
        { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      ),
    )
    try {
      expect((await listen.next()).method).toBe('notifications/subscriptions/acknowledged')
      expect((await listen.next()).params).toMatchObject({ taskId: 't1', status: 'working' })
      const { deliver, pace } = hub as NonNullable<typeof hub>
      stored.t1 = task('t1', 'completed', '2026-11-30T00:00:03.000Z', { result: { content: [{ type: 'text', text: 'big' }] } })
      const { result: _left, ...status } = stored.t1
      deliver(event(status as DetailedTask), 'ev:0-6')
      deliver({ type: 'resourceUpdated', uri: 'notes://all' }, 'ev:0-7')
      let paced: boolean | undefined
      void pace().then((room) => {
        paced = room
      })
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(paced).toBeUndefined()
      release()
      const [completed, updated] = [await listen.next(), await listen.next()]
      expect([completed.method, completed.params?.status, completed.params?._meta?.['dev.mcp-edge/eventId']]).toEqual([
        'notifications/tasks',
        'completed',
        'ev:0-6',
      ])
      expect(completed.params?.result).toEqual({ content: [{ type: 'text', text: 'big' }] })
      expect([updated.method, updated.params?._meta?.['dev.mcp-edge/eventId']]).toEqual([
        'notifications/resources/updated',
        'ev:0-7',
      ])
      await vi.waitFor(() => expect(paced).toBe(true))
    } finally {
      await listen.close()
    }
  })
})

// Before, a failed publish was logged and nothing more: a stream watching the task through the hub
// never heard it, and waited for its timeout.
describe('task status publishes that fail', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })
  const failing = (failures: number, published: McpEvent[]) => {
    let left = failures
    return createMcpServer({
      name: 'u',
      version: '1',
      events: {
        publish: async (given) => {
          if (left-- > 0) throw new Error('hub unreachable')
          published.push(given)
        },
        listen: async () => ({ closed: new Promise(() => {}) }),
      },
    })
  }
  const quietly = () => {
    for (const level of ['warn', 'error'] as const) vi.spyOn(console, level).mockImplementation(() => {})
  }

  it('are tried again until the hub has them', async () => {
    vi.useFakeTimers()
    quietly()
    const published: McpEvent[] = []
    failing(2, published).taskChanged('t', 'ada', { taskId: 't', status: 'completed', lastUpdatedAt: 'T1' })
    await vi.advanceTimersByTimeAsync(50)
    expect(published).toEqual([])
    await vi.advanceTimersByTimeAsync(1_100)
    expect(published).toEqual([
      { type: 'task', taskId: 't', params: { taskId: 't', status: 'completed', lastUpdatedAt: 'T1' }, audience: ['ada'] },
    ])
  })

  it('are not tried again once a newer status of the task was reported, and give up after the last wait', async () => {
    vi.useFakeTimers()
    quietly()
    const published: McpEvent[] = []
    const server = failing(1, published)
    server.taskChanged('t', 'ada', { taskId: 't', status: 'working', lastUpdatedAt: 'T1' })
    server.taskChanged('t', 'ada', { taskId: 't', status: 'completed', lastUpdatedAt: 'T2' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(published.map((event) => (event as unknown as { params: { status: string } }).params.status)).toEqual(['completed'])
    const down: McpEvent[] = []
    failing(99, down).taskChanged('u', null, { taskId: 'u', status: 'failed', lastUpdatedAt: 'T3' })
    await vi.advanceTimersByTimeAsync(10_000)
    expect(down).toEqual([])
    expect(console.error).toHaveBeenCalledTimes(1)
  })
})
