/**
 * The hub's event log inside workerd: `SqlEventLog` on a real Durable Object's SQLite storage
 * (numbering, replay once each and in order, the count and age bounds, gaps, a wiped log,
 * numbering kept across a restart), and listen streams resuming through the real `McpEventHub`:
 * after a drop, after a hub restart, past the log's reach (a re-read hint), and a resume id that
 * is not one (-32602); and across shards, an id naming every shard. The 2025 GET stream resuming with a real client: test/http/resume.test.ts.
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { MAX_REPLAY_EVENTS, SEQS_PER_MS, SqlEventLog } from '../../packages/mcp-edge/src/cloudflare/event-log.ts'
import { SUBSCRIPTION_HEADER } from '../../packages/mcp-edge/src/cloudflare/event-hub.ts'
import { cloudflareEventHub, shardOf } from '../../packages/mcp-edge/src/cloudflare/events.ts'
import { decodeCursor } from '../../packages/mcp-edge/src/server/events/event-log.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'

const URL = 'http://127.0.0.1/mcp'
const fetcher = (request: Request) => SELF.fetch(request)
const hub = () => env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/0'))
/** A hub object of its own: a fresh log. */
const fresh = () => env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(`log-test/${crypto.randomUUID()}`))
const ID = 'dev.mcp-edge/eventId'
const RESUME = 'dev.mcp-edge/lastEventId'
const update = (uri: string): McpEvent => ({ type: 'resourceUpdated', uri })

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

/** A listen stream on `uris` (or a whole filter), resumed after `after` when given; its acknowledgement's id. */
async function listen(uris: string[] | Record<string, unknown>, after?: string) {
  const meta = after === undefined ? undefined : { [RESUME]: after }
  const notifications = Array.isArray(uris) ? { resourceSubscriptions: uris } : uris
  const stream = await openStream(
    fetcher,
    buildRequest(URL, 'subscriptions/listen', { notifications }, { meta, capabilities: TASKS }),
  )
  const ack = await stream.next()
  expect(ack.method).toBe('notifications/subscriptions/acknowledged')
  return { stream, start: ack.params._meta[ID] as string }
}

/** A new log's start: its creation time in ms, times `SEQS_PER_MS` (cloudflare/event-log.ts). */
function started(log: SqlEventLog): number {
  const s = log.head
  expect(s).toBeGreaterThan((Date.now() - 60_000) * SEQS_PER_MS)
  expect(s).toBeLessThanOrEqual(Date.now() * SEQS_PER_MS)
  return s
}

const notify = (uri: string) => rpc(fetcher, URL, 'tools/call', { name: 'notify_resource', arguments: { uri } })

describe('SqlEventLog', () => {
  it('numbers events, and replays those after a seq on the asked topics, in order, once each', async () => {
    await runInDurableObject(fresh(), (_instance, state) => {
      const log = new SqlEventLog(state.storage.sql)
      const s = started(log)
      expect(log.append(update('a://x/1'), ['resource:a://x/1', 'resource:a://x'])).toBe(s + 1)
      expect(log.append(update('b://y'), ['resource:b://y'])).toBe(s + 2)
      expect(log.append(update('a://x/2'), ['resource:a://x/2', 'resource:a://x'])).toBe(s + 3)
      const replay = log.replay(['resource:a://x', 'resource:a://x/1'], s)
      expect(replay).toEqual({
        events: [
          { seq: s + 1, event: update('a://x/1') },
          { seq: s + 3, event: update('a://x/2') },
        ],
        gaps: [],
        floors: [],
        head: s + 3,
        more: false,
      })
      expect(log.replay(['resource:a://x'], s + 1).events.map((row) => row.seq)).toEqual([s + 3])
      expect(log.replay(['resource:a://x'], s + 3)).toEqual({ events: [], gaps: [], floors: [], head: s + 3, more: false })
    })
  })

  it('replays in bounded batches: at most MAX_REPLAY_EVENTS, and says more follow; the next batch starts after the last', async () => {
    await runInDurableObject(fresh(), (_instance, state) => {
      const log = new SqlEventLog(state.storage.sql)
      const s = started(log)
      const count = MAX_REPLAY_EVENTS + 40
      for (let i = 0; i < count; i++) log.append(update(`m://many/${i % 2}`), [`resource:m://many/${i % 2}`, 'resource:m://many'])
      const topics = ['resource:m://many', 'resource:m://many/0']
      const first = log.replay(topics, s)
      expect(first.more).toBe(true)
      expect(first.events.map((row) => row.seq)).toEqual(Array.from({ length: MAX_REPLAY_EVENTS }, (_, i) => s + i + 1))
      const next = log.replay(topics, s + MAX_REPLAY_EVENTS)
      expect(next.more).toBe(false)
      expect(next.events.map((row) => row.seq)).toEqual(Array.from({ length: 40 }, (_, i) => s + MAX_REPLAY_EVENTS + 1 + i))
    })
  })

  it('bounds a batch by bytes of event JSON too, but always returns at least one event', async () => {
    await runInDurableObject(fresh(), (_instance, state) => {
      const log = new SqlEventLog(state.storage.sql)
      const s = started(log)
      const big = (n: number): McpEvent => ({ type: 'log', level: 'info', data: 'x'.repeat(n) })
      for (let i = 0; i < 3; i++) log.append(big(400), ['log'])
      const twoFit = log.replay(['log'], s, {}, { events: 100, bytes: 1000 })
      expect([twoFit.events.map((row) => row.seq), twoFit.more]).toEqual([[s + 1, s + 2], true])
      const tooBig = log.replay(['log'], s, {}, { events: 100, bytes: 100 })
      expect([tooBig.events.map((row) => row.seq), tooBig.more]).toEqual([[s + 1], true])
      expect(log.replay(['log'], s + 2, {}, { events: 100, bytes: 100 }).more).toBe(false)
    })
  })

  it('keeps a topic’s newest events within the count: a cursor before them is told, one after them and other topics are not', async () => {
    await runInDurableObject(fresh(), (_instance, state) => {
      const log = new SqlEventLog(state.storage.sql)
      const s = started(log)
      const bounds = { maxEvents: 2 }
      log.append(update('q://quiet'), ['resource:q://quiet'], bounds)
      for (let i = 0; i < 4; i++) log.append(update('n://noisy'), ['resource:n://noisy'], bounds)
      expect(log.replay(['resource:n://noisy'], s, bounds)).toMatchObject({ gaps: ['resource:n://noisy'], floors: [s + 3] })
      expect(log.replay(['resource:n://noisy'], s, bounds).events.map((row) => row.seq)).toEqual([s + 4, s + 5])
      expect(log.replay(['resource:n://noisy'], s + 3, bounds)).toMatchObject({ gaps: [] })
      expect(log.replay(['resource:q://quiet'], s, bounds)).toMatchObject({ gaps: [], events: [{ seq: s + 1 }] })
      // The bound is kept by a count per topic, which matches the rows.
      const counts = state.storage.sql.exec('SELECT topic, n FROM event_count ORDER BY topic').toArray()
      expect(counts).toEqual([
        { topic: 'resource:n://noisy', n: 2 },
        { topic: 'resource:q://quiet', n: 1 },
      ])
      // A log that keeps nothing: every event is past its reach.
      log.append(update('z://none'), ['resource:z://none'], { maxEvents: 0 })
      expect(log.replay(['resource:z://none'], s + 5, bounds)).toEqual({
        events: [],
        gaps: ['resource:z://none'],
        floors: [s + 6],
        head: s + 6,
        more: false,
      })
    })
  })

  it('drops events past the age bound (a cursor before them is told), and tells a cursor from a wiped log about every topic', async () => {
    await runInDurableObject(fresh(), async (_instance, state) => {
      const log = new SqlEventLog(state.storage.sql)
      const s = started(log)
      log.append(update('o://old'), ['resource:o://old'])
      await scheduler.wait(5) // the clock moves on I/O in workerd
      expect(log.replay(['resource:o://old'], s, { maxAgeMs: 1 })).toEqual({
        events: [],
        gaps: ['resource:o://old'],
        floors: [s + 1],
        head: s + 1,
        more: false,
      })
      expect(state.storage.sql.exec('SELECT count(*) AS n FROM event_log').one().n).toBe(0)
      expect(state.storage.sql.exec('SELECT count(*) AS n FROM event_count').one().n).toBe(0)
      expect(log.replay(['resource:o://old', 'list:tools'], s + 7)).toEqual({
        events: [],
        gaps: ['resource:o://old', 'list:tools'],
        // A cursor from a wiped log: everything may be lost, whatever the stream was told.
        floors: [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
        head: s + 1,
        more: false,
      })
    })
  })

  it('numbers a log made again past its predecessor: a cursor from before is told about every topic, however far the new log went', async () => {
    await runInDurableObject(fresh(), async (_instance, state) => {
      const before = new SqlEventLog(state.storage.sql)
      for (let i = 0; i < 3; i++) before.append(update(`w://wiped/${i}`), ['resource:w://wiped'])
      const cursor = before.head
      // Its storage lost (as when the object is deleted, or its class moved): the log is made again.
      for (const table of ['event_log', 'event_floor', 'event_count', 'event_meta']) state.storage.sql.exec(`DROP TABLE ${table}`)
      await scheduler.wait(2) // the clock moves on I/O in workerd
      const again = new SqlEventLog(state.storage.sql)
      expect(again.head).toBeGreaterThan(cursor)
      // More events than the old cursor's number would count from 1.
      for (let i = 0; i < 5; i++) again.append(update(`w://wiped/${i}`), ['resource:w://wiped'])
      expect(again.replay(['resource:w://wiped', 'list:tools'], cursor)).toEqual({
        events: [],
        gaps: ['resource:w://wiped', 'list:tools'],
        floors: [again.head - 5, again.head - 5],
        head: again.head,
        more: false,
      })
    })
  })

  it('keeps a multi-shard event’s id with its rows, also in a log made before rows had ids', async () => {
    await runInDurableObject(fresh(), (_instance, state) => {
      // The hub object made its tables already: put the old table in their place.
      state.storage.sql.exec('DROP TABLE event_log')
      state.storage.sql.exec(`CREATE TABLE event_log (topic TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL,
        event TEXT NOT NULL, PRIMARY KEY (topic, seq))`)
      state.storage.sql.exec(
        'INSERT INTO event_log VALUES (?, 1, ?, ?)',
        'list:tools',
        Date.now(),
        '{"type":"listChanged","list":"tools"}',
      )
      state.storage.sql.exec("INSERT OR REPLACE INTO event_meta VALUES ('head', 1)")
      state.storage.sql.exec("DELETE FROM event_meta WHERE key = 'forgotten'")
      // A log numbered from 1, as logs were before they started at their creation time, keeps its numbers.
      const log = new SqlEventLog(state.storage.sql)
      log.append({ type: 'listChanged', list: 'tools' }, ['list:tools'], {}, 'copy-1')
      expect(log.replay(['list:tools'], 0).events).toEqual([
        { seq: 1, event: { type: 'listChanged', list: 'tools' } },
        { seq: 2, event: { type: 'listChanged', list: 'tools' }, id: 'copy-1' },
      ])
    })
  })

  it('keeps its numbering across a restart of its object', async () => {
    const id = env.MCP_EVENTS.idFromName(`log-test/${crypto.randomUUID()}`)
    const first = await runInDurableObject(env.MCP_EVENTS.get(id), (_instance, state) =>
      new SqlEventLog(state.storage.sql).append(update('r://1'), ['resource:r://1']),
    )
    await runInDurableObject(env.MCP_EVENTS.get(id), (_instance, state) => state.abort('restart in a test')).catch(() => {})
    await runInDurableObject(env.MCP_EVENTS.get(id), (_instance, state) => {
      const log = new SqlEventLog(state.storage.sql)
      expect(log.append(update('r://2'), ['resource:r://2'])).toBe(first + 1)
      expect(log.replay(['resource:r://1'], first - 1).events).toEqual([{ seq: first, event: update('r://1') }])
    })
  })
})

describe('McpEventHub and its log', () => {
  /** A raw listener socket on `topics`, resumed after `after` when given; the messages it hears. */
  async function socket(stub: ReturnType<typeof fresh>, topics: string[], after?: number) {
    const connect = { topics, principal: null, ...(after === undefined ? {} : { after }) }
    const response = await stub.fetch('https://hub/listen', {
      headers: { upgrade: 'websocket', [SUBSCRIPTION_HEADER]: encodeURIComponent(JSON.stringify(connect)) },
    })
    const ws = response.webSocket!
    const heard: unknown[] = []
    ws.addEventListener('message', (message) => heard.push(JSON.parse(String(message.data))))
    ws.accept()
    return { ws, heard }
  }
  const until = async (done: () => boolean) => {
    for (let turn = 0; turn < 200 && !done(); turn++) await scheduler.wait(5)
  }

  it('sends a session’s announcement live only: no seq, no row in the log, nothing replayed', async () => {
    const stub = fresh()
    const s = await runInDurableObject(stub, (_instance, state) => new SqlEventLog(state.storage.sql).head)
    const live = await socket(stub, ['session:n1', 'resource:u://1'])
    const announcement: McpEvent = { type: 'session', nonce: 'n1' }
    expect(await stub.publish(announcement)).toBe(1)
    expect(await stub.publish(update('u://1'))).toBe(1)
    await until(() => live.heard.length === 2)
    // The update after it is the log's first event.
    expect(live.heard).toEqual([{ event: announcement }, { seq: s + 1, event: update('u://1') }])
    await runInDurableObject(stub, (_instance, state) => {
      const rows = state.storage.sql.exec<{ topic: string; seq: number }>('SELECT topic, seq FROM event_log').toArray()
      expect(rows.length).toBeGreaterThan(0)
      expect(rows.filter((row) => row.seq !== s + 1 || row.topic.startsWith('session:'))).toEqual([])
      expect(new SqlEventLog(state.storage.sql).head).toBe(s + 1)
    })
    const resumed = await socket(stub, ['session:n1', 'resource:u://1'], s)
    await until(() => resumed.heard.length === 1)
    await scheduler.wait(20)
    expect(resumed.heard).toEqual([{ seq: s + 1, event: update('u://1') }])
    live.ws.close(1000)
    resumed.ws.close(1000)
  })
})

describe('a listen stream resuming through the hub', () => {
  it('hears what was published while it was away, in order, once, then live events', async () => {
    const base = `test://resume-${crypto.randomUUID()}`
    const first = await listen([base])
    await notify(`${base}/1`)
    const heard = await first.stream.next()
    expect(heard.params.uri).toBe(`${base}/1`)
    expect(heard.params._meta[ID]).not.toBe(first.start)
    await first.stream.close()
    await notify(`${base}/2`)
    await notify(`${base}/3`)
    const again = await listen([base], heard.params._meta[ID])
    try {
      await notify(`${base}/4`)
      const uris = [await again.stream.next(), await again.stream.next(), await again.stream.next()].map((m) => m.params.uri)
      expect(uris).toEqual([`${base}/2`, `${base}/3`, `${base}/4`])
    } finally {
      await again.stream.close()
    }
  })

  it('puts no SSE id on a listen stream (the 2026-07-28 transport has none): the id rides in _meta', async () => {
    const base = `test://no-sse-id-${crypto.randomUUID()}`
    const response = await SELF.fetch(
      buildRequest(URL, 'subscriptions/listen', { notifications: { resourceSubscriptions: [base] } }),
    )
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (!text.includes('acknowledged')) text += decoder.decode((await reader.read()).value)
    await notify(`${base}/x`)
    while (!text.includes(`${base}/x"`)) text += decoder.decode((await reader.read()).value)
    expect(text).not.toMatch(/^id:/m)
    expect(text).toMatch(/"dev\.mcp-edge\/eventId":"ev:0-\d+"/)
    await reader.cancel()
  })

  it('loses nothing across a hub restart: the event published meanwhile is replayed from its log', async () => {
    const uri = `test://restart-${crypto.randomUUID()}`
    const before = await listen([uri])
    await runInDurableObject(hub(), (_instance, state) => state.abort('restart in a test')).catch(() => {})
    const end = await before.stream.next()
    expect(end.result?.resultType).toBe('complete')
    await notify(uri)
    const after = await listen([uri], before.start)
    try {
      const replayed = await after.stream.next()
      expect([replayed.method, replayed.params.uri]).toEqual(['notifications/resources/updated', uri])
      // Replayed from the log (a re-read hint would carry no id): the numbering outlived the restart.
      expect(replayed.params._meta[ID]).toMatch(/^ev:0-\d+$/)
    } finally {
      await after.stream.close()
    }
  })

  it('is told to re-read what the log no longer holds: an update of the subscribed URI, then what it does hold', async () => {
    const base = `test://window-${crypto.randomUUID()}`
    const first = await listen([base])
    await first.stream.close()
    for (const i of [1, 2]) await hub().publish(update(`${base}/${i}`), undefined, undefined, { maxEvents: 1 })
    const again = await listen([base], first.start)
    try {
      const [hint, kept] = [await again.stream.next(), await again.stream.next()]
      expect(kept.params.uri).toBe(`${base}/2`)
      expect([hint.method, hint.params.uri]).toEqual(['notifications/resources/updated', base])
      expect(hint.params._meta[ID]).toBeUndefined()
    } finally {
      await again.stream.close()
    }
  })

  it('gives a task’s status changes ids; a resumed watch starts with the task’s current state', async () => {
    const created = await rpc(
      fetcher,
      URL,
      'tools/call',
      { name: 'slow_compute', arguments: { seconds: 60, label: 'log' } },
      { capabilities: TASKS },
    )
    const taskId = created.message.result?.taskId as string
    const first = await listen({ taskIds: [taskId] })
    expect(await first.stream.next()).toMatchObject({ params: { taskId, status: 'working' } })
    await first.stream.close()
    const second = await listen({ taskIds: [taskId] }, first.start)
    try {
      expect(await second.stream.next()).toMatchObject({ params: { taskId, status: 'working' } })
      await rpc(fetcher, URL, 'tasks/cancel', { taskId }, { capabilities: TASKS })
      const cancelled = await second.stream.next()
      expect(cancelled).toMatchObject({ method: 'notifications/tasks', params: { taskId, status: 'cancelled' } })
      expect(cancelled.params._meta[ID]).toMatch(/^ev:0-\d+$/)
    } finally {
      await second.stream.close()
    }
    // Resumed after the cancellation was published: the current state (cancelled) once, then the end.
    const third = await listen({ taskIds: [taskId] }, first.start)
    expect(await third.stream.next()).toMatchObject({ params: { taskId, status: 'cancelled' } })
    expect((await third.stream.next()).result?.resultType).toBe('complete')
  })

  it('refuses a resume id that is not one of its event ids with -32602, opening no stream', async () => {
    for (const after of ['p:AAAAAAAAAAAA.0', 'ev:0-x', 42]) {
      const refused = await rpc(
        fetcher,
        URL,
        'subscriptions/listen',
        { notifications: { toolsListChanged: true } },
        { meta: { [RESUME]: after } },
      )
      expect(refused.message.error?.code).toBe(-32602)
      expect(refused.message.error?.message).toContain(RESUME)
      expect(refused.sse).toBe(false)
    }
  })
})

describe('cloudflareEventHub across shards', () => {
  it('names every shard in each id, and a resume replays each shard after its own number', async () => {
    const shards = 4
    const events = cloudflareEventHub({ binding: 'MCP_EVENTS', shards })
    const base = `test://sharded-${crypto.randomUUID()}`
    let [a, b] = ['', '']
    for (let i = 0; a === '' || shardOf(`resource:${a}`, shards) === shardOf(`resource:${b}`, shards); i++) {
      ;[a, b] = [`${base}/a${i}`, `${base}/b${i}`]
    }
    const topics = new Set([`resource:${a}`, `resource:${b}`])
    /** A listener's heard updates and ids, and a way to wait for the n-th. */
    const listener = () => {
      const heard: Array<{ uri: string; id: string | undefined }> = []
      let wake = () => {}
      return {
        heard,
        deliver: (event: McpEvent, id?: string) => {
          if (event.type === 'resourceUpdated') heard.push({ uri: event.uri, id })
          wake()
        },
        async until(count: number) {
          while (heard.length < count) await new Promise<void>((resolve) => (wake = resolve))
        },
      }
    }
    const first = listener()
    const stopFirst = new AbortController()
    const opened = await events.listen({ topics, principal: null }, first.deliver, stopFirst.signal)
    expect(decodeCursor(opened.cursor ?? '')?.size).toBe(2)
    await events.publish(update(a))
    await first.until(1)
    const last = first.heard[0]?.id ?? ''
    expect(decodeCursor(last)?.size).toBe(2)
    stopFirst.abort()
    await events.publish(update(b))
    await events.publish(update(a))
    const second = listener()
    const stopSecond = new AbortController()
    const resumed = await events.listen({ topics, principal: null }, second.deliver, stopSecond.signal, decodeCursor(last))
    try {
      await second.until(2)
      // Shards have no common order; each shard's events come once, in its order.
      expect(second.heard.map((entry) => entry.uri).sort()).toEqual([a, b].sort())
      expect(resumed.gaps).toEqual([])
      await events.publish(update(b))
      await second.until(3)
      expect(second.heard.map((entry) => entry.uri)).toHaveLength(3)
      // A cursor that lacks a shard (the shard count changed): that shard's topics are gaps.
      const partial = new Map([...(decodeCursor(last) ?? [])].slice(0, 1))
      const stopThird = new AbortController()
      const third = await events.listen({ topics, principal: null }, () => {}, stopThird.signal, partial)
      stopThird.abort()
      expect(third.gaps).toHaveLength(1)
    } finally {
      stopSecond.abort()
    }
  })

  // Found by review: on a shared socket (the templates' setting) and a relay, the replay reached the
  // stream before the caller's hints, so a client gone after a replayed id resumed past the gap and
  // was never hinted. Shared sockets are off in the test pool; test/http/shared-sockets.test.ts
  // resumes through one.
  it('gives the caller the gaps to hint before the replay, which waits for the hints', async () => {
    const base = `test://hint-first-${crypto.randomUUID()}`
    const topics = new Set([`resource:${base}`])
    const events = cloudflareEventHub({ binding: 'MCP_EVENTS' })
    const first = await events.listen({ topics, principal: null }, () => {}, AbortSignal.abort())
    for (const i of [1, 2]) await hub().publish(update(`${base}/${i}`), undefined, undefined, { maxEvents: 1 })
    const heard: string[] = []
    const again = new AbortController()
    try {
      const path = await events.listen(
        { topics, principal: null },
        (event) => heard.push(event.type === 'resourceUpdated' ? event.uri : event.type),
        again.signal,
        decodeCursor(first.cursor ?? ''),
        undefined,
        undefined,
        async (gaps) => {
          await new Promise((resolve) => setTimeout(resolve, 20))
          heard.push(`hint ${gaps.join(' ')}`)
        },
      )
      expect(path.gaps).toEqual([`resource:${base}`])
      await vi.waitFor(() => expect(heard).toEqual([`hint resource:${base}`, `${base}/2`]))
    } finally {
      again.abort()
    }
  })

  it('says where a stream resumed from nowhere starts without the shards it must hint: resumed from there, it is hinted again', async () => {
    const topics = new Set([`resource:test://nowhere-${crypto.randomUUID()}`])
    const resume = async (after: string) => {
      const stop = new AbortController()
      const path = await cloudflareEventHub({ binding: 'MCP_EVENTS' }).listen(
        { topics, principal: null },
        () => {},
        stop.signal,
        decodeCursor(after) ?? null,
      )
      stop.abort()
      return path
    }
    // An id from another spread names no shard of this hub: every topic hinted, and no head in the id.
    const foreign = await resume('ev:0-1.1-1.9999-2')
    expect(foreign.gaps).toEqual([...topics])
    expect(foreign.cursor).toBe('ev:')
    const again = await resume(foreign.cursor ?? '')
    expect(again.gaps).toEqual([...topics])
    // An id past the log's head (a log wiped since): every topic hinted, and no head in the id either.
    const ahead = await resume('ev:0-999999999999999')
    expect([ahead.gaps, ahead.cursor]).toEqual([[...topics], 'ev:'])
    // A known id is said as it is: nothing to hint.
    const known = await cloudflareEventHub({ binding: 'MCP_EVENTS' }).listen(
      { topics, principal: null },
      () => {},
      AbortSignal.abort(),
    )
    expect((await resume(known.cursor ?? '')).gaps).toEqual([])
  })

  it('takes an id from another spread of topics (the shard count changed) as unknown: every topic is hinted', async () => {
    const base = `test://respread-${crypto.randomUUID()}`
    const topics = new Set(Array.from({ length: 6 }, (_, i) => `resource:${base}/${i}`))
    const ids = async (shards: number) => {
      const stop = new AbortController()
      const opened = await cloudflareEventHub({ binding: 'MCP_EVENTS', shards }).listen(
        { topics, principal: null },
        () => {},
        stop.signal,
      )
      stop.abort()
      return opened.cursor ?? ''
    }
    const [two, four] = [await ids(2), await ids(4)]
    expect(decodeCursor(two)?.shards).toBe(2)
    const resume = async (shards: number, after: string) => {
      const stop = new AbortController()
      const path = await cloudflareEventHub({ binding: 'MCP_EVENTS', shards }).listen(
        { topics, principal: null },
        () => {},
        stop.signal,
        decodeCursor(after),
      )
      stop.abort()
      return path.gaps?.length
    }
    // From its own spread: nothing missed. From another: its shards held other topics.
    expect(await resume(2, two)).toBe(0)
    expect(await resume(4, four)).toBe(0)
    expect(await resume(4, two)).toBe(topics.size)
    expect(await resume(2, four)).toBe(topics.size)
    expect(await resume(1, two)).toBe(topics.size)
    // An id that says no spread (given before ids said it) is taken as it is.
    expect(await resume(2, two.replace('.9999-2', ''))).toBe(0)
  })
})
