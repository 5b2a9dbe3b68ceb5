/**
 * The event log's pure parts (server/events/event-log.ts): the cursor a stream resumes from (its
 * encoding, what is refused), the re-read hints for topics past the log's reach, and the SSE id
 * a logged event carries on a 2025 GET stream, and a listener of logged events that lags instead
 * of dropping. The log itself, in the hub's SQLite storage:
 * test/workers/event-log.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { formatEvent } from '../../packages/mcp-edge/src/http/sse.ts'
import {
  decodeCursor,
  encodeCursor,
  gapHints,
  MAX_CURSOR_CHARS,
  MAX_SHARDS,
} from '../../packages/mcp-edge/src/server/events/event-log.ts'
import { legacyEventNotification } from '../../packages/mcp-edge/src/server/legacy/session-stream.ts'
import { SSE_ID } from '../../packages/mcp-edge/src/server/events/event-log.ts'
import { Listener, MAX_INBOX } from '../../packages/mcp-edge/src/server/events/listen-hub.ts'
import { Relay } from '../../packages/mcp-edge/src/server/events/listen-relay.ts'
import { Outbox } from '../../packages/mcp-edge/src/server/outbox.ts'
import { notification } from '../../packages/mcp-edge/src/protocol/jsonrpc.ts'
import { drain } from './support.ts'

describe('cursors', () => {
  it('name each shard’s newest seq, shards in ascending order, and read back as written', () => {
    const text = encodeCursor(
      new Map([
        [3, 9],
        [0, 17],
        [1, 0],
      ]),
      1,
    )
    expect(text).toBe('ev:0-17.1-0.3-9')
    expect(decodeCursor(text)).toEqual(
      new Map([
        [0, 17],
        [1, 0],
        [3, 9],
      ]),
    )
    expect(decodeCursor(encodeCursor(new Map(), 1))).toEqual(new Map())
    // A new log's numbers: its creation time in ms, times 100 (cloudflare/event-log.ts).
    expect(decodeCursor('ev:0-179600000000000')?.get(0)).toBe(179_600_000_000_000)
    // A priming id: the cursor, then the stream's own nonce.
    expect(decodeCursor('ev:0-17.3-9~AAAAAAAAAAAA')).toEqual(
      new Map([
        [0, 17],
        [3, 9],
      ]),
    )
  })

  it('say over how many shards the hub spread topics when it is more than one, in a pair that names no shard', () => {
    const spread = encodeCursor(new Map([[2, 5]]), 4)
    expect(spread).toBe('ev:2-5.9999-4')
    expect([...(decodeCursor(spread) ?? [])]).toEqual([[2, 5]])
    expect(decodeCursor(spread)?.shards).toBe(4)
    const primed = `${encodeCursor(
      new Map([
        [3, 9],
        [0, 1],
      ]),
      16,
    )}~AAAAAAAAAAAA`
    expect(primed).toBe('ev:0-1.3-9.9999-16~AAAAAAAAAAAA')
    expect(decodeCursor(primed)?.shards).toBe(16)
    // One shard, or an id given before ids said their spread: none said, taken as it is.
    expect(encodeCursor(new Map([[0, 17]]), 1)).toBe('ev:0-17')
    expect(decodeCursor('ev:0-17')?.shards).toBeUndefined()
    expect(decodeCursor('ev:0-17.3-9')?.shards).toBeUndefined()
  })

  it('refuse what is not one: another kind of id, a malformed pair, a shard twice, a number too long, too many characters', () => {
    for (const text of [
      'p:AAAAAAAAAAAA.0',
      'AAAAAAAAAAAA.0',
      'ev:0',
      'ev:0-1.',
      'ev:0-1.0-2',
      'ev:-1-2',
      'ev:0-1e3',
      'ev:0-1234567890123456',
      'ev:0-1\n',
      'ev:0-1.9999-1',
      'ev:0-1.9999-129',
      'ev:0-1/4',
      `ev:${Array.from({ length: 400 }, (_, shard) => `${shard}-123456`).join('.')}`,
    ]) {
      expect(decodeCursor(text), text).toBeUndefined()
    }
    expect(`ev:${Array.from({ length: 400 }, (_, shard) => `${shard}-123456`).join('.')}`.length).toBeGreaterThan(
      MAX_CURSOR_CHARS,
    )
    // The longest a hub makes fits: every shard of the most a hub has, 15-digit numbers, the spread and a priming nonce.
    const longest = `${encodeCursor(new Map(Array.from({ length: MAX_SHARDS }, (_, shard) => [shard, 999_999_999_999_999])), MAX_SHARDS)}~${'A'.repeat(43)}`
    expect(decodeCursor(longest)?.size).toBe(MAX_SHARDS)
  })
})

describe('gap hints', () => {
  it('make a client read again what it may have missed: a list change per list, an update per resource', () => {
    expect(gapHints(['list:tools', 'resource:notes://all', 'task:t1', 'log', 'resources:all', 'list:prompts'])).toEqual([
      { type: 'listChanged', list: 'tools' },
      { type: 'resourceUpdated', uri: 'notes://all' },
      { type: 'listChanged', list: 'prompts' },
    ])
  })
})

describe('SSE ids of logged events', () => {
  it('ride on the 2025 notification unseen by JSON, and the formatter writes them first', () => {
    const message = legacyEventNotification({ type: 'listChanged', list: 'tools' }, undefined, 'ev:0-4')
    expect(JSON.stringify(message)).not.toContain('ev:0-4')
    expect((message as { [SSE_ID]?: string })[SSE_ID]).toBe('ev:0-4')
    expect(formatEvent('{}', 'message', 'ev:0-4')).toBe('id: ev:0-4\nevent: message\ndata: {}\n\n')
    expect(() => formatEvent('{}', 'message', 'ev:0-4\ndata: x')).toThrow(/line breaks/)
    expect(() => formatEvent('{}', 'message', 'a\0b')).toThrow(/NUL/)
  })
})

describe('a listener of logged events', () => {
  it('stops taking at MAX_INBOX instead of dropping the oldest (its stream ends and resumes); without ids it drops', () => {
    const topics = new Set(['list:tools', 'resource:r://x'])
    const logged = new Listener('L', topics, null)
    const plain = new Listener('P', topics, null)
    for (let i = 0; i <= MAX_INBOX; i++) {
      const event = { type: 'resourceUpdated', uri: `r://x/${i}` } as const
      logged.offer(event, `ev:0-${i + 1}`)
      plain.offer(event)
    }
    expect([logged.pending, logged.lagging]).toEqual([MAX_INBOX, true])
    const kept = logged.take().map((message) => message.params as { uri: string; _meta: object })
    expect(kept[0]?.uri).toBe('r://x/0')
    expect(kept.at(-1)?._meta).toMatchObject({ 'dev.mcp-edge/eventId': `ev:0-${MAX_INBOX}` })
    expect(logged.offer({ type: 'listChanged', list: 'tools' }, 'ev:0-999')).toBe(true)
    expect(logged.pending).toBe(0)
    expect([plain.pending, plain.lagging, (plain.take()[0]?.params as { uri?: string } | undefined)?.uri]).toEqual([
      MAX_INBOX,
      false,
      'r://x/1',
    ])
  })

  it('moves a pending copy to the newer id, so ids only grow along the stream', () => {
    const listener = new Listener('L', new Set(['resource:r://x']), null)
    listener.offer({ type: 'resourceUpdated', uri: 'r://x/a' }, 'ev:0-1')
    listener.offer({ type: 'resourceUpdated', uri: 'r://x/b' }, 'ev:0-2')
    listener.offer({ type: 'resourceUpdated', uri: 'r://x/a' }, 'ev:0-3')
    const sent = listener.take().map((message) => message.params as { uri: string; _meta: Record<string, string> })
    expect(sent.map((params) => [params.uri, params._meta['dev.mcp-edge/eventId']])).toEqual([
      ['r://x/b', 'ev:0-2'],
      ['r://x/a', 'ev:0-3'],
    ])
  })

  // A resume past the log hints one re-read per topic, and a filter may hold some 700 URIs:
  // before, hints past MAX_INBOX gave way to each other and the oldest were lost unsaid.
  it('keeps every re-read hint of a resume, however many topics, while plain id-less entries give way past MAX_INBOX', () => {
    const uris = Array.from({ length: MAX_INBOX + 144 }, (_, i) => `r://x/${i}`)
    const listener = new Listener('L', new Set(['resource:r://x']), null)
    for (const uri of uris) listener.offer({ type: 'resourceUpdated', uri }, undefined, true)
    listener.offer({ type: 'resourceUpdated', uri: 'r://x/live' })
    expect(listener.pending).toBe(uris.length + 1)
    const sent = listener.take(uris.length + 1).map((message) => (message.params as { uri: string }).uri)
    expect(sent).toEqual([...uris, 'r://x/live'])
  })

  // Found by review: the hints now come before the replay, and counted toward the lag, 256 of them
  // made the first replayed event lag; the stream ended, and its resume (from the same id) again.
  it('takes a replayed event with an id behind any number of hints: hints do not count toward the lag', () => {
    const uris = Array.from({ length: MAX_INBOX + 44 }, (_, i) => `r://x/${i}`)
    const listener = new Listener('L', new Set(['resource:r://x', 'list:tools']), null)
    for (const uri of uris) listener.offer({ type: 'resourceUpdated', uri }, undefined, true)
    expect(listener.offer({ type: 'listChanged', list: 'tools' }, 'ev:0-7')).toBe(true)
    expect([listener.pending, listener.lagging]).toEqual([uris.length + 1, false])
    // Past MAX_INBOX entries other than hints it lags, as before.
    for (let i = 0; i < MAX_INBOX; i++) listener.offer({ type: 'resourceUpdated', uri: `r://x/id/${i}` }, `ev:0-${8 + i}`)
    expect([listener.pending, listener.lagging]).toEqual([uris.length + MAX_INBOX, true])
    // Taken, the hints leave the count: a later event with an id is taken again once there is room.
    listener.take(uris.length + MAX_INBOX)
    expect(listener.pending).toBe(0)
  })

  // A listen stream's ids are in _meta, not SSE ids: the relay tells the outbox which it must keep.
  // Before, one large message over the stream's budget (a task's result) dropped the older updates
  // and hints, and the later id hid the loss from a client that resumed.
  it("keeps a listen stream's updates with ids and its hints in the outbox when a large message takes it over budget", async () => {
    const outbox = new Outbox({ maxBufferedBytes: 2000 })
    const listener = new Listener('L', new Set(['resource:r://x']), null)
    const relay = new Relay(listener, outbox, false)
    const stop = new AbortController()
    const running = relay.run(stop.signal, Date.now() + 60_000, undefined)
    relay.deliver({ type: 'resourceUpdated', uri: 'r://x/hinted' }, undefined, true)
    for (let i = 1; i <= 5; i++) relay.deliver({ type: 'resourceUpdated', uri: `r://x/${i}` }, `ev:0-${i}`)
    relay.deliver({ type: 'resourceUpdated', uri: 'r://x/live' })
    outbox.push(notification('notifications/message', { level: 'info', data: 'big'.padEnd(5000, '!') }), { droppable: true })
    stop.abort()
    await running
    const uris = drain(outbox).map((message) => (message as { params: { uri?: string } }).params.uri ?? 'big')
    expect(uris).toEqual(['r://x/hinted', 'r://x/1', 'r://x/2', 'r://x/3', 'r://x/4', 'r://x/5', 'big'])
    expect(outbox.stats.droppedMessages).toBe(1)
  })

  it('still takes re-read hints (no id) when full or lagging, giving way only among entries without ids', () => {
    const listener = new Listener('L', new Set(['resource:r://x', 'list:tools']), null)
    for (let i = 0; i <= MAX_INBOX; i++) listener.offer({ type: 'resourceUpdated', uri: `r://x/${i}` }, `ev:0-${i + 1}`)
    expect(listener.lagging).toBe(true)
    expect(listener.offer({ type: 'listChanged', list: 'tools' })).toBe(true)
    const sent = listener.take(MAX_INBOX + 1)
    expect(sent).toHaveLength(MAX_INBOX + 1)
    expect(sent[0]?.params).toMatchObject({ uri: 'r://x/0' })
    expect(sent.at(-1)?.method).toBe('notifications/tools/list_changed')
  })
})
