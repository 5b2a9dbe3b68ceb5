/**
 * The event hub inside workerd, with the real `McpEventHub` Durable Object and hibernatable
 * WebSockets: the hub itself filters by topic and principal (its publish count says how many
 * sockets got an event), it refuses what is not a listener, a hub restart ends the listen streams
 * it carried (and a new listen works), a slow listener's stream ends instead of growing or
 * dropping and its resume hears the rest, a `scheduled` or `queue` handler publishes like a request does, sharded hubs deliver a
 * multi-shard event once, and a missing binding fails at once with instructions. Across two
 * isolates: test/http/notifications.test.ts.
 */
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  runInDurableObject,
  SELF,
  waitOnExecutionContext,
} from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SUBSCRIPTION_HEADER } from '../../packages/mcp-edge/src/cloudflare/event-hub.ts'
import { cloudflareEventHub, shardOf } from '../../packages/mcp-edge/src/cloudflare/events.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import worker from '../fixture/worker.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'

const URL = 'http://127.0.0.1/mcp'
const fetcher = (request: Request) => SELF.fetch(request)
const hub = () => env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/0'))

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

async function listen(notifications: Record<string, unknown>, principal: string, meta?: Record<string, unknown>) {
  const stream = await openStream(
    fetcher,
    buildRequest(
      URL,
      'subscriptions/listen',
      { notifications },
      { headers: { authorization: `Bearer ${principal}` }, capabilities: TASKS, meta },
    ),
  )
  expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
  return stream
}

const notify = (args: Record<string, unknown>) => rpc(fetcher, URL, 'tools/call', { name: 'notify_resource', arguments: args })

describe('McpEventHub', () => {
  it('sends an event only to the sockets whose topic matches and whose principal may see it', async () => {
    const base = `test://hub-${crypto.randomUUID()}`
    const alice = await listen({ resourceSubscriptions: [base] }, 'alice')
    const bob = await listen({ resourceSubscriptions: [base] }, 'bob')
    const elsewhere = await listen({ resourceSubscriptions: [`${base}-other`] }, 'alice')
    try {
      expect(await hub().publish({ type: 'resourceUpdated', uri: `${base}/1`, audience: ['alice'] })).toBe(1)
      expect(await hub().publish({ type: 'resourceUpdated', uri: `${base}/2` })).toBe(2)
      expect(await hub().publish({ type: 'resourceUpdated', uri: `${base}-other` })).toBe(1)
      expect((await alice.next()).params?.uri).toBe(`${base}/1`)
      expect((await alice.next()).params?.uri).toBe(`${base}/2`)
      expect((await bob.next()).params?.uri).toBe(`${base}/2`)
      expect((await elsewhere.next()).params?.uri).toBe(`${base}-other`)
    } finally {
      await Promise.all([alice.close(), bob.close(), elsewhere.close()])
    }
  })

  it('sends an event once to a socket that asked for several of its topics, and once to each of several sockets', async () => {
    const base = `test://twice-${crypto.randomUUID()}`
    // Tagged with the update's own URI and one of its prefixes: the hub finds this socket under both.
    const both = await listen({ resourceSubscriptions: [base, `${base}/a`] }, 'alice')
    const other = await listen({ resourceSubscriptions: [base] }, 'bob')
    try {
      expect(await hub().publish({ type: 'resourceUpdated', uri: `${base}/a` })).toBe(2)
      expect(await hub().publish({ type: 'resourceUpdated', uri: `${base}/b` })).toBe(2)
      // The next message after the first update is the second: no copy of the first between them.
      expect([(await both.next()).params?.uri, (await both.next()).params?.uri]).toEqual([`${base}/a`, `${base}/b`])
      expect([(await other.next()).params?.uri, (await other.next()).params?.uri]).toEqual([`${base}/a`, `${base}/b`])
    } finally {
      await Promise.all([both.close(), other.close()])
    }
  })

  it('matches a listener with more topics than a socket may have tags, up to the largest filter listen accepts', async () => {
    const base = `test://wide-${crypto.randomUUID().slice(0, 8)}`
    // 330 topics of 34 characters ("resource:test://wide-12345678/0000") are 12,211 bytes of JSON, just
    // under MAX_SUBSCRIPTION_BYTES; each socket may have 10 tags.
    const uris = Array.from({ length: 330 }, (_, i) => `${base}/${String(i).padStart(4, '0')}`)
    const wide = await listen({ resourceSubscriptions: uris }, 'alice')
    try {
      expect(await hub().publish({ type: 'resourceUpdated', uri: `${uris[329]}/child` })).toBe(1)
      expect((await wide.next()).params?.uri).toBe(`${uris[329]}/child`)
    } finally {
      await wide.close()
    }
  })

  it('refuses a request that is not a WebSocket or carries no valid subscription with 400', async () => {
    const plain = await hub().fetch('https://hub/listen', { headers: { [SUBSCRIPTION_HEADER]: '%7B%22topics%22%3A%5B%5D%7D' } })
    expect([plain.status, plain.webSocket]).toEqual([400, null])
    for (const header of [
      undefined,
      '%7Bbroken',
      encodeURIComponent(JSON.stringify({ topics: 'list:tools', principal: null })),
    ]) {
      const headers: Record<string, string> = { upgrade: 'websocket' }
      if (header !== undefined) headers[SUBSCRIPTION_HEADER] = header
      const refused = await hub().fetch('https://hub/listen', { headers })
      expect(refused.status).toBe(400)
      expect(refused.webSocket).toBeNull()
    }
  })

  it('ends the listen streams it carried when the hub restarts; a new listen hears the next event', async () => {
    const uri = `test://restart-${crypto.randomUUID()}`
    const before = await listen({ resourceSubscriptions: [uri] }, 'alice')
    await runInDurableObject(hub(), (_instance, state) => state.abort('restart in a test')).catch(() => {})
    // The stream ends gracefully: its last message is the listen result.
    const end = await before.next()
    expect([end.method, end.result?.resultType]).toEqual([undefined, 'complete'])
    const after = await listen({ resourceSubscriptions: [uri] }, 'alice')
    try {
      await notify({ uri })
      expect((await after.next()).params?.uri).toBe(uri)
    } finally {
      await after.close()
    }
  })

  it('ends a slow listener’s stream rather than drop: what it got runs unbroken, and a resume hears the rest', async () => {
    const prefix = `test://slow-${crypto.randomUUID()}`
    const slow = await listen({ resourceSubscriptions: [prefix] }, 'alice')
    const count = 700 // past what a stream holds for its reader, within the log's 1,000 per topic
    const index = (message: { params?: any }) => Number(String(message.params?.uri).slice(prefix.length + 1))
    try {
      await rpc(fetcher, URL, 'tools/call', { name: 'notify_many', arguments: { prefix, count } })
      const seen: number[] = []
      let last = ''
      for (let message = await slow.next(); message.method !== undefined; message = await slow.next()) {
        seen.push(index(message))
        last = message.params._meta['dev.mcp-edge/eventId']
      }
      expect(seen.length).toBeLessThan(count)
      expect(seen).toEqual(seen.map((_, i) => i))
      const resumed = await listen({ resourceSubscriptions: [prefix] }, 'alice', { 'dev.mcp-edge/lastEventId': last })
      try {
        const rest: number[] = []
        while (rest.at(-1) !== count - 1) rest.push(index(await resumed.next()))
        expect(rest).toEqual(rest.map((_, i) => seen.length + i))
      } finally {
        await resumed.close()
      }
    } finally {
      await slow.close()
    }
  })
})

describe('a resume longer than one replay batch', () => {
  /** A listen stream's start id: open one, read its acknowledgement, close it. */
  async function startId(prefix: string, principal: string) {
    const stream = await openStream(
      fetcher,
      buildRequest(
        URL,
        'subscriptions/listen',
        { notifications: { resourceSubscriptions: [prefix] } },
        {
          headers: { authorization: `Bearer ${principal}` },
          capabilities: TASKS,
        },
      ),
    )
    const ack = await stream.next()
    await stream.close()
    return ack.params._meta['dev.mcp-edge/eventId'] as string
  }

  it('passes batches nobody here may see (the hub filters them) and hears the event after them', async () => {
    const prefix = `test://hidden-${crypto.randomUUID()}`
    const start = await startId(prefix, 'alice')
    for (let i = 0; i < 300; i++) await hub().publish({ type: 'resourceUpdated', uri: `${prefix}/${i}`, audience: ['bob'] })
    await hub().publish({ type: 'resourceUpdated', uri: `${prefix}/public` })
    const resumed = await listen({ resourceSubscriptions: [prefix] }, 'alice', { 'dev.mcp-edge/lastEventId': start })
    try {
      expect((await resumed.next()).params?.uri).toBe(`${prefix}/public`)
    } finally {
      await resumed.close()
    }
  })

  it('hears the event after a run of one URI longer than a batch, with ids that only grow (a pending copy takes the newer id)', async () => {
    const prefix = `test://same-${crypto.randomUUID()}`
    const start = await startId(prefix, 'alice')
    for (let i = 0; i < 300; i++) await hub().publish({ type: 'resourceUpdated', uri: `${prefix}/a` })
    await hub().publish({ type: 'resourceUpdated', uri: `${prefix}/b` })
    const resumed = await listen({ resourceSubscriptions: [prefix] }, 'alice', { 'dev.mcp-edge/lastEventId': start })
    try {
      const uris: string[] = []
      const ids: number[] = []
      while (uris.at(-1) !== `${prefix}/b`) {
        const message = await resumed.next()
        uris.push(message.params?.uri)
        ids.push(Number(String(message.params?._meta['dev.mcp-edge/eventId']).split('-')[1]))
      }
      // Copies still pending fold into one (when the reader is behind); none comes twice.
      expect(uris.length).toBeLessThanOrEqual(301)
      expect(new Set(uris.slice(0, -1))).toEqual(new Set([`${prefix}/a`]))
      expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b))
      expect(ids.at(-1)! - ids.at(-2)!).toBe(1)
    } finally {
      await resumed.close()
    }
  })
})

describe('task status changes through the hub', () => {
  it('reach listeners of the task’s owner, never another principal’s', async () => {
    const as = (principal: string) => ({ headers: { authorization: `Bearer ${principal}` }, capabilities: TASKS })
    const created = await rpc(
      fetcher,
      URL,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 60, label: 'hub' } },
      as('alice'),
    )
    const taskId = created.message.result?.taskId as string
    const marker = `test://after-${taskId}`
    const alice = await listen({ taskIds: [taskId], resourceSubscriptions: [marker] }, 'alice')
    const bob = await listen({ taskIds: [taskId], resourceSubscriptions: [marker] }, 'bob')
    try {
      // A watch starts with the task's current state (issue 10), then hears its changes.
      expect(await alice.next()).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'working' } })
      await rpc(fetcher, URL, 'tasks/cancel', { taskId }, as('alice'))
      expect(await alice.next()).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'cancelled' } })
      // The hub has sent the cancellation; bob would have heard it before this.
      await notify({ uri: marker })
      expect((await bob.next()).params?.uri).toBe(marker)
      expect((await alice.next()).params?.uri).toBe(marker)
    } finally {
      await Promise.all([alice.close(), bob.close()])
    }
  })
})

describe('a large task result through the hub', () => {
  // On Cloudflare a WebSocket message holds at most 1 MiB; local workerd takes more, so this checks
  // the whole path (status through the hub, result read back), and test/unit/listen-tasks.test.ts
  // that the hub event itself carries no result.
  it('reaches the listener whole: the hub carries the status, the result is read back', async () => {
    const bytes = 1536 * 1024
    const created = await rpc(
      fetcher,
      URL,
      'tools/call',
      { name: 'sized_task', arguments: { bytes } },
      {
        headers: { authorization: 'Bearer alice' },
        capabilities: TASKS,
      },
    )
    const taskId = created.message.result?.taskId as string
    const stream = await listen({ taskIds: [taskId] }, 'alice')
    try {
      for (;;) {
        const message = await stream.next()
        if (message.method !== 'notifications/tasks' || message.params.status !== 'completed') continue
        expect(message.params.result.content[0].text).toHaveLength(bytes)
        break
      }
    } finally {
      await stream.close()
    }
  })
})

describe('a tasks-only listen stream and a slow reader', () => {
  // Each result is over the 16 KiB the relay moves to a stream ahead of its reader, so the last
  // statuses wait in the listener's inbox. Before, the stream ended as soon as the last task did,
  // with them still there: the client got the stream's result without them.
  it('ends only once every task status is on the stream', async () => {
    const create = async () => {
      const created = await rpc(
        fetcher,
        URL,
        'tools/call',
        { name: 'sized_task', arguments: { bytes: 40_000, afterMs: 1500 } },
        { headers: { authorization: 'Bearer alice' }, capabilities: TASKS },
      )
      return created.message.result?.taskId as string
    }
    const taskIds = await Promise.all([create(), create(), create()])
    const stream = await listen({ taskIds }, 'alice')
    try {
      await new Promise((resolve) => setTimeout(resolve, 2500))
      const completed: string[] = []
      const working: string[] = []
      for (;;) {
        const message = await stream.next()
        // The state first: each task still running when the stream opened (else this tests nothing).
        if (message.method === 'notifications/tasks' && message.params.status === 'working') working.push(message.params.taskId)
        if (message.method === 'notifications/tasks' && message.params.status === 'completed') {
          expect(message.params.result.content[0].text).toHaveLength(40_000)
          completed.push(message.params.taskId)
        }
        if ('result' in message) break
      }
      expect(working.sort()).toEqual([...taskIds].sort())
      expect(completed.sort()).toEqual([...taskIds].sort())
    } finally {
      await stream.close()
    }
  })
})

describe('publishing outside a request', () => {
  it('reaches listen streams from a scheduled handler and from a queue consumer', async () => {
    const stream = await listen({ resourceSubscriptions: ['test://scheduled', 'test://queued'] }, 'alice')
    const fixtureEnv = env as Env
    try {
      const cron = createExecutionContext()
      await worker.scheduled!(createScheduledController({ cron: '*/5 * * * *', scheduledTime: Date.now() }), fixtureEnv, cron)
      await waitOnExecutionContext(cron)
      expect((await stream.next()).params?.uri).toBe('test://scheduled/*/5 * * * *')
      const queued = createExecutionContext()
      const batch = createMessageBatch('notes', [{ id: 'm1', timestamp: new Date(), attempts: 1, body: 'test://queued/1' }])
      await worker.queue!(batch, fixtureEnv, queued)
      await waitOnExecutionContext(queued)
      expect((await stream.next()).params?.uri).toBe('test://queued/1')
    } finally {
      await stream.close()
    }
  })
})

describe('cloudflareEventHub', () => {
  it('spreads topics over shards and delivers an event routed to several shards once', async () => {
    const shards = 4
    const events = cloudflareEventHub({ binding: 'MCP_EVENTS', shards })
    // A subscription to a URI and to its parent, on two different shards.
    let parent = ''
    let child = ''
    for (let i = 0; shardOf(`resource:${parent}`, shards) === shardOf(`resource:${child}`, shards); i++) {
      parent = `test://shard-${i}`
      child = `${parent}/leaf`
    }
    // A marker on the child's shard only: once it is heard, every copy sent before it on that socket was too.
    let marker = ''
    for (let i = 0; marker === '' || shardOf(`resource:${marker}`, shards) !== shardOf(`resource:${child}`, shards); i++) {
      marker = `test://marker-${i}`
    }
    const heard: McpEvent[] = []
    let arrived: () => void = () => {}
    const stop = new AbortController()
    await events.listen(
      { topics: new Set([`resource:${parent}`, `resource:${child}`, `resource:${marker}`]), principal: null },
      (event) => {
        heard.push(event)
        arrived()
      },
      stop.signal,
    )
    try {
      await events.publish({ type: 'resourceUpdated', uri: `${child}/deeper` })
      await events.publish({ type: 'resourceUpdated', uri: parent })
      await events.publish({ type: 'resourceUpdated', uri: marker })
      while (!heard.some((event) => event.type === 'resourceUpdated' && event.uri === marker)) {
        await new Promise<void>((resolve) => {
          arrived = resolve
        })
      }
      expect(heard).toEqual([
        { type: 'resourceUpdated', uri: `${child}/deeper` },
        { type: 'resourceUpdated', uri: parent },
        { type: 'resourceUpdated', uri: marker },
      ])
    } finally {
      stop.abort()
    }
  })

  it('fails at once, with instructions, when the binding is missing or shards is not a positive integer up to 128', () => {
    expect(() => cloudflareEventHub({ binding: 'NO_SUCH_BINDING' })).toThrow(
      'Binding NO_SUCH_BINDING is missing: bind the McpEventHub class in wrangler.jsonc (docs/deploy.md#configuration)',
    )
    expect(() => cloudflareEventHub({ binding: 'MCP_EVENTS', shards: 0 })).toThrow('shards must be a positive integer')
    // More would make ids longer than a resume reads (event-log.ts).
    expect(() => cloudflareEventHub({ binding: 'MCP_EVENTS', shards: 129 })).toThrow(
      'cloudflareEventHub: shards must be a positive integer up to 128, or unset (got 129)',
    )
    expect(() => cloudflareEventHub({ binding: 'MCP_EVENTS', shards: 128 })).not.toThrow()
  })
})
