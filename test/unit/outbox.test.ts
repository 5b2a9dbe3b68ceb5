import { afterEach, describe, expect, it, vi } from 'vitest'
import { notification } from '../../packages/mcp-edge/src/protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../../packages/mcp-edge/src/protocol/jsonrpc.ts'
import type { ContentBlock } from '../../packages/mcp-edge/src/protocol/types.ts'
import { PartialResultReader } from '../../packages/mcp-edge/src/client/partial-results.ts'
import { sseResponse } from '../../packages/mcp-edge/src/http/stream.ts'
import { legacyEventNotification } from '../../packages/mcp-edge/src/server/legacy/session-stream.ts'
import { Outbox, partialParams } from '../../packages/mcp-edge/src/server/outbox.ts'
import { drain } from './support.ts'
import type { OutboxText, PartialChunk, StreamMessage } from '../../packages/mcp-edge/src/server/outbox.ts'

const log = (data: string) => notification('notifications/message', { level: 'info', data })
const progress = (token: string, value: number) =>
  notification('notifications/progress', { progressToken: token, progress: value })
const text = (value: string): { content: ContentBlock[] } => ({ content: [{ type: 'text', text: value }] })
/** What a transport reads, parsed: a message, `undefined` once closed and empty, `null` after `ms` without one. */
const parsed = (item: OutboxText | undefined | null) => (item ? (JSON.parse(item.json) as StreamMessage) : item)
const next = async (outbox: Outbox, ms?: number) => parsed(await outbox.nextText(ms))
const poll = (outbox: Outbox) => parsed(outbox.pollText())
/** A taken message's params. */
const params = (item: StreamMessage | undefined | null) => (item as JsonRpcNotification).params as Record<string, unknown>

/** Whether `promise` has settled, checked without waiting for time to pass. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending')
  return (await Promise.race([promise, Promise.resolve(pending)])) !== pending
}

describe('Outbox: order and progress', () => {
  it('delivers messages in push order', () => {
    const outbox = new Outbox()
    outbox.push(log('a'))
    outbox.push(log('b'))
    void outbox.pushPartial('t', text('c'))
    outbox.push(log('d'))
    expect(
      drain(outbox).map((message) => params(message).data ?? (params(message).content as { text: string }[])[0]?.text),
    ).toEqual(['a', 'b', 'c', 'd'])
  })

  it('sends a message as it was at the push, with its SSE id, whatever the producer changes after', () => {
    const outbox = new Outbox()
    const update = legacyEventNotification({ type: 'resourceUpdated', uri: 'test://a' }, undefined, 'ev:0-4')
    outbox.push(update)
    outbox.push(log('plain'))
    ;(update.params as { uri: string }).uri = 'test://changed'
    expect(outbox.pollText()).toEqual({
      json: '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}',
      id: 'ev:0-4',
    })
    expect(outbox.pollText()).toEqual({ json: JSON.stringify(log('plain')) })
  })

  it('keeps every progress update, in order, while the reader keeps up', () => {
    const outbox = new Outbox()
    outbox.push(progress('A', 1))
    outbox.push(log('x'))
    outbox.push(progress('A', 2))
    expect(drain(outbox).map((message) => params(message).progress ?? params(message).data)).toEqual([1, 'x', 2])
  })

  it('under pressure, keeps only the newest pending progress of a token, per token', () => {
    const outbox = new Outbox({ maxQueuedChunks: 2 })
    outbox.push(progress('A', 1))
    outbox.push(log('x'))
    outbox.push(progress('B', 1))
    outbox.push(progress('A', 2))
    outbox.push(progress('A', 3))
    expect(
      drain(outbox).map((message) => [
        (message as JsonRpcNotification).method,
        params(message).progressToken ?? null,
        params(message).progress ?? null,
      ]),
    ).toEqual([
      ['notifications/message', null, null],
      ['notifications/progress', 'B', 1],
      ['notifications/progress', 'A', 3],
    ])
  })

  it('does not replace progress that was already sent', () => {
    const outbox = new Outbox()
    outbox.push(progress('A', 1))
    expect(params(drain(outbox)[0]).progress).toBe(1)
    outbox.push(progress('A', 2))
    expect(drain(outbox).map((message) => params(message).progress)).toEqual([2])
  })

  it('calls onFirstMessage at the first push, once', () => {
    let calls = 0
    const outbox = new Outbox({}, () => calls++)
    expect(calls).toBe(0)
    void outbox.pushPartial('t', text('x'))
    outbox.push(log('y'))
    expect(calls).toBe(1)
  })
})

describe('Outbox: partial results', () => {
  it('builds notifications/tools/partial_result with seq from 0, per token', () => {
    const outbox = new Outbox()
    void outbox.pushPartial('a', text('one'))
    void outbox.pushPartial('b', { content: [{ type: 'text', text: 'uno' }], structuredContent: { n: 1 }, final: false })
    void outbox.pushPartial('a', text('two'))
    expect(drain(outbox)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/partial_result',
        params: { partialResultToken: 'a', seq: 0, content: [{ type: 'text', text: 'one' }] },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/partial_result',
        params: {
          partialResultToken: 'b',
          seq: 0,
          content: [{ type: 'text', text: 'uno' }],
          structuredContent: { n: 1 },
          final: false,
        },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/partial_result',
        params: { partialResultToken: 'a', seq: 1, content: [{ type: 'text', text: 'two' }] },
      },
    ])
  })

  it('serialises a partial result to the JSON of its notification, byte for byte', () => {
    const chunks: Array<[string | number, PartialChunk]> = [
      ['t', text('plain')],
      [7, { content: [{ type: 'text', text: 'line\nbreak "quoted" é🌍' }], structuredContent: { n: [1, null], s: 'x' } }],
      ['tok "q"\n', { content: [], structuredContent: null, final: true }],
      ['f', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], final: false }],
      // A value JSON cannot hold is left out, as JSON.stringify leaves such a key out of an object.
      ['u', { content: [], structuredContent: () => 1 }],
      ['u', { content: [{ type: 'text', text: 'x', annotations: { priority: 1 } }], structuredContent: 0 }],
    ]
    const outbox = new Outbox()
    const seqs = new Map<string | number, number>()
    for (const [token, chunk] of chunks) void outbox.pushPartial(token, chunk)
    for (const [token, chunk] of chunks) {
      const seq = seqs.get(token) ?? 0
      seqs.set(token, seq + 1)
      expect(outbox.pollText()).toEqual({
        json: JSON.stringify(notification('notifications/tools/partial_result', partialParams(token, seq, chunk))),
      })
    }
  })

  it('throws a chunk JSON cannot hold back to the tool, unsent, uncounted and taking no seq', () => {
    const outbox = new Outbox()
    const bad = { content: [{ type: 'text' as const, text: 'x', _meta: { n: 1n } }] }
    expect(() => outbox.pushPartial('t', bad)).toThrow(TypeError)
    expect(() => outbox.pushPartial('t', { content: [], structuredContent: { n: 2n } })).toThrow(TypeError)
    void outbox.pushPartial('t', { ...text('ok'), final: (() => true) as unknown as boolean })
    expect(drain(outbox)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/partial_result',
        params: { partialResultToken: 't', seq: 0, content: [{ type: 'text', text: 'ok' }] },
      },
    ])
    expect(outbox.stats).toMatchObject({ emitted: 1, sent: 1 })
  })

  it('sends the chunk of a producer that waits as it was when pushed', () => {
    const outbox = new Outbox()
    const block = { type: 'text' as const, text: 'first' }
    const chunk = { content: [block], structuredContent: { step: 1 } }
    void outbox.pushPartial('t', chunk)
    chunk.structuredContent.step = 2
    block.text = 'changed'
    expect(params(poll(outbox))).toMatchObject({ content: [{ type: 'text', text: 'first' }], structuredContent: { step: 1 } })
  })

  it('gives every chunk of a producer that awaits its own seq and boundary, past maxQueuedChunks and half the budget', async () => {
    const outbox = new Outbox({ maxBufferedBytes: 2000, maxQueuedChunks: 4 })
    const producer = (async () => {
      for (let i = 0; i < 200; i++) await outbox.pushPartial('t', text(`line ${i}\n`))
      outbox.close()
    })()
    const received: Array<[unknown, unknown]> = []
    for (let message = await next(outbox); message !== undefined; message = await next(outbox)) {
      received.push([params(message).seq, (params(message).content as { text: string }[])[0]?.text])
    }
    await producer
    expect(received).toEqual([...Array(200).keys()].map((i) => [i, `line ${i}\n`]))
    expect(outbox.stats).toMatchObject({ emitted: 200, sent: 200, coalesced: 0, dropped: 0 })
  })

  it('merges the text chunks a producer pushes while its wait is pending into one chunk with one seq', () => {
    const outbox = new Outbox({ maxQueuedChunks: 2 })
    const waits = ['a', 'b', 'c', 'd'].map((piece) => outbox.pushPartial('t', text(piece)))
    // a and b were pushed with room in the queue; c and d while the producer's wait (from b) was pending.
    expect(waits[1]).toBe(waits[3])
    const sent = drain(outbox)
    expect(sent.map((message) => [params(message).seq, params(message).content])).toEqual([
      [0, [{ type: 'text', text: 'a' }]],
      [1, [{ type: 'text', text: 'b' }]],
      [2, [{ type: 'text', text: 'cd' }]],
    ])
    expect(outbox.stats).toMatchObject({ emitted: 4, sent: 3, coalesced: 1, dropped: 0 })
  })

  it('does not merge while there is room', () => {
    const outbox = new Outbox({ maxQueuedChunks: 10 })
    for (const piece of ['a', 'b', 'c', 'd']) void outbox.pushPartial('t', text(piece))
    expect(drain(outbox)).toHaveLength(4)
    expect(outbox.stats.coalesced).toBe(0)
  })

  it('gives a dropped chunk its seq, so a receiver sees exactly the dropped chunks as gaps', () => {
    const outbox = new Outbox({ maxBufferedBytes: 600, maxQueuedChunks: 1000 })
    for (let i = 0; i < 40; i++) void outbox.pushPartial('t', text(`chunk-${i}`))
    expect(outbox.stats.dropped).toBeGreaterThan(0)
    expect(outbox.stats.coalesced).toBeGreaterThan(0)
    const sent = drain(outbox)
    const seqs = sent.map((message) => params(message).seq as number)
    expect(seqs).toEqual(seqs.toSorted((a, b) => a - b))
    expect(outbox.stats.sent).toBe(sent.length)
    // Every seq handed out was either sent or dropped, and the newest chunk was sent.
    expect(outbox.stats.sent + outbox.stats.dropped).toBe((seqs.at(-1) as number) + 1)
    expect(outbox.stats.emitted).toBe(outbox.stats.sent + outbox.stats.dropped + outbox.stats.coalesced)
    const reader = new PartialResultReader('t')
    const events = [...sent.flatMap((message) => reader.accept(params(message))), ...reader.finish()]
    const missing = events.reduce((total, event) => total + (event.type === 'gap' ? event.to - event.from + 1 : 0), 0)
    expect(missing).toBe(outbox.stats.dropped)
    expect(events.filter((event) => event.type === 'partial')).toHaveLength(sent.length)
  })

  it('never merges chunks with structuredContent, non-text content or a final flag into the pending chunk', () => {
    const outbox = new Outbox({ maxQueuedChunks: 1 })
    void outbox.pushPartial('t', text('a'))
    void outbox.pushPartial('t', { content: [{ type: 'text', text: 'b' }], structuredContent: { rows: 1 } })
    void outbox.pushPartial('t', text('c')) // the pending chunk has structuredContent: not merged into it
    void outbox.pushPartial('t', { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })
    void outbox.pushPartial('t', text('d')) // the pending chunk is an image: not merged into it
    void outbox.pushPartial('t', { content: [{ type: 'text', text: 'e' }], final: true })
    void outbox.pushPartial('t', text('f')) // the pending chunk is final: not merged into it
    const contents = drain(outbox).map((message) => params(message).content)
    expect(contents).toEqual([
      [{ type: 'text', text: 'a' }],
      [{ type: 'text', text: 'b' }],
      [{ type: 'text', text: 'c' }],
      [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }],
      [{ type: 'text', text: 'de' }],
      [{ type: 'text', text: 'f' }],
    ])
  })

  it('carries the final flag of a merged chunk', () => {
    const outbox = new Outbox({ maxQueuedChunks: 1 })
    void outbox.pushPartial('t', text('a'))
    void outbox.pushPartial('t', text('b'))
    void outbox.pushPartial('t', { content: [{ type: 'text', text: 'c' }], final: true })
    expect(drain(outbox).map((message) => params(message))).toEqual([
      { partialResultToken: 't', seq: 0, content: [{ type: 'text', text: 'a' }] },
      { partialResultToken: 't', seq: 1, content: [{ type: 'text', text: 'bc' }], final: true },
    ])
  })

  it('never merges chunks of different tokens', () => {
    const outbox = new Outbox({ maxQueuedChunks: 1 })
    void outbox.pushPartial('a', text('1'))
    void outbox.pushPartial('b', text('2'))
    void outbox.pushPartial('a', text('3'))
    expect(drain(outbox).map((message) => [params(message).partialResultToken, params(message).seq])).toEqual([
      ['a', 0],
      ['b', 0],
      ['a', 1],
    ])
  })
})

describe('Outbox: byte budget', () => {
  it('never holds more than maxBufferedBytes for a producer that never waits, and keeps the newest chunks in order', () => {
    const outbox = new Outbox({ maxBufferedBytes: 2000, maxQueuedChunks: 1000 })
    for (let i = 0; i < 500; i++) void outbox.pushPartial('t', text(`[${i}]`.padEnd(50, '.')))
    expect(outbox.stats.peakBufferedBytes).toBeLessThanOrEqual(2000)
    expect(outbox.stats.bufferedBytes).toBeLessThanOrEqual(2000)
    expect(outbox.stats.dropped).toBeGreaterThan(0)
    const sent = drain(outbox)
    const indexes = sent.flatMap((message) =>
      [...JSON.stringify(params(message).content).matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])),
    )
    expect(indexes.at(-1)).toBe(499)
    expect(indexes).toEqual(indexes.toSorted((a, b) => a - b))
    expect(new Set(indexes).size).toBe(indexes.length)
    expect(outbox.stats.emitted).toBe(outbox.stats.sent + outbox.stats.dropped + outbox.stats.coalesced)
  })

  it('stays within budget while coalescing, and what is sent is still in order', () => {
    const outbox = new Outbox({ maxBufferedBytes: 2000, maxQueuedChunks: 4 })
    for (let i = 0; i < 2000; i++) void outbox.pushPartial('t', text(`[${i}]`))
    expect(outbox.stats.peakBufferedBytes).toBeLessThanOrEqual(2000)
    expect(outbox.stats.coalesced).toBeGreaterThan(0)
    expect(outbox.stats.dropped).toBeGreaterThan(0)
    const sent = drain(outbox)
    const indexes = sent.flatMap((message) =>
      [...JSON.stringify(params(message).content).matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])),
    )
    expect(indexes.at(-1)).toBe(1999)
    expect(indexes).toEqual(indexes.toSorted((a, b) => a - b))
    expect(new Set(indexes).size).toBe(indexes.length)
    const seqs = sent.map((message) => params(message).seq as number)
    expect(seqs).toEqual(seqs.toSorted((a, b) => a - b))
    expect(outbox.stats.sent + outbox.stats.dropped).toBe((seqs.at(-1) as number) + 1)
  })

  it('holds a producer that awaits at half the budget plus its one chunk, and drops nothing of it', async () => {
    const outbox = new Outbox({ maxBufferedBytes: 4000, maxQueuedChunks: 1000 })
    const producer = (async () => {
      for (let i = 0; i < 100; i++) await outbox.pushPartial('t', text('x'.repeat(300)))
      outbox.close()
    })()
    let count = 0
    for (let message = await next(outbox); message !== undefined; message = await next(outbox)) count++
    await producer
    expect(count).toBe(100)
    expect(outbox.stats.peakBufferedBytes).toBeLessThan(2000 + 396)
    expect(outbox.stats).toMatchObject({ dropped: 0, coalesced: 0 })
  })

  it('drops droppable log messages when over budget, and counts them', () => {
    const outbox = new Outbox({ maxBufferedBytes: 1000 })
    for (let i = 0; i < 30; i++) outbox.push(log(`line ${i}`.padEnd(100, '.')), { droppable: true })
    expect(outbox.stats.droppedMessages).toBeGreaterThan(0)
    expect(outbox.stats.dropped).toBe(0)
    expect(outbox.stats.peakBufferedBytes).toBeLessThanOrEqual(1000)
    const kept = drain(outbox)
    expect(kept.length + outbox.stats.droppedMessages).toBe(30)
    expect(String(params(kept.at(-1)).data)).toMatch(/^line 29\./)
  })

  it('keeps the newest message even when it alone is over the budget, dropping older droppable ones', () => {
    const outbox = new Outbox({ maxBufferedBytes: 300 })
    outbox.push(log('old'), { droppable: true })
    outbox.push(log('big'.padEnd(1000, '!')), { droppable: true })
    expect(drain(outbox).map((message) => String(params(message).data).slice(0, 3))).toEqual(['big'])
    expect(outbox.stats.droppedMessages).toBe(1)
  })

  // A 2025 GET stream's updates carry SSE ids: one dropped would be hidden from a client that
  // resumes from a later id, so they stay (their pushers bound them), and only id-less ones go.
  // (A listen stream's ids are in _meta; the relay pushes those as not droppable: event-log.test.ts.)
  it('never drops a droppable message that carries an event id, even over the budget; drops an id-less one instead', () => {
    const outbox = new Outbox({ maxBufferedBytes: 300 })
    const update = (n: number) => legacyEventNotification({ type: 'resourceUpdated', uri: `test://${n}` }, undefined, `ev:0-${n}`)
    outbox.push(log('plain'.padEnd(200, '.')), { droppable: true })
    for (let n = 1; n <= 4; n++) outbox.push(update(n), { droppable: true })
    outbox.push(log('big'.padEnd(400, '!')), { droppable: true })
    const sent: (OutboxText | undefined)[] = []
    for (let text = outbox.pollText(); text !== undefined; text = outbox.pollText()) sent.push(text)
    expect(sent.map((text) => text?.id ?? JSON.parse(text?.json ?? '{}').params.data.slice(0, 5))).toEqual([
      'ev:0-1',
      'ev:0-2',
      'ev:0-3',
      'ev:0-4',
      'big!!',
    ])
    expect(outbox.stats.droppedMessages).toBe(1)
  })

  it('never drops a message that is not droppable, nor the chunk pushed with room', () => {
    const outbox = new Outbox({ maxBufferedBytes: 300 })
    outbox.push(log('important'.padEnd(400, '!')))
    for (let i = 0; i < 10; i++) void outbox.pushPartial('t', text('x'.repeat(100)))
    const sent = drain(outbox)
    expect((sent[0] as JsonRpcNotification | undefined)?.method).toBe('notifications/message')
    expect(sent.map((message) => params(message).seq)).toEqual([undefined, 0])
    expect(outbox.stats.dropped).toBe(9)
  })
})

describe('Outbox: backpressure', () => {
  it('pushPartial resolves at once while the queue has room', async () => {
    const outbox = new Outbox({ maxBufferedBytes: 1000 })
    expect(await settled(outbox.pushPartial('t', text('x')))).toBe(true)
  })

  it('waits while at least half the budget is held, and resolves once the reader drains below it', async () => {
    const outbox = new Outbox({ maxBufferedBytes: 1000, maxQueuedChunks: 1000 })
    let wait = outbox.pushPartial('t', text('y'.repeat(50)))
    while (outbox.stats.bufferedBytes < 500) wait = outbox.pushPartial('t', text('y'.repeat(50)))
    expect(await settled(wait)).toBe(false)
    await next(outbox)
    while (outbox.stats.bufferedBytes >= 500) await next(outbox)
    expect(await settled(wait)).toBe(true)
  })

  it('waits at maxQueuedChunks pending entries, whatever their size', async () => {
    const outbox = new Outbox({ maxQueuedChunks: 3 })
    const waits = [1, 2, 3].map((i) => outbox.pushPartial('t', text(String(i))))
    expect(await settled(waits[1] as Promise<void>)).toBe(true)
    expect(await settled(waits[2] as Promise<void>)).toBe(false)
    await next(outbox)
    expect(await settled(waits[2] as Promise<void>)).toBe(true)
  })

  it('resolves a pending wait when the outbox is closed or discarded', async () => {
    for (const end of ['close', 'discard'] as const) {
      const outbox = new Outbox({ maxBufferedBytes: 400 })
      let wait = Promise.resolve()
      for (let i = 0; i < 3; i++) wait = outbox.pushPartial('t', text('z'.repeat(60)))
      expect(await settled(wait)).toBe(false)
      outbox[end]()
      expect(await settled(wait)).toBe(true)
    }
  })

  it('loses nothing when the producer awaits', async () => {
    const outbox = new Outbox({ maxBufferedBytes: 2000, maxQueuedChunks: 1000 })
    const producer = (async () => {
      for (let i = 0; i < 300; i++) await outbox.pushPartial('t', text(`[${i}]`.padEnd(60, '.')))
      outbox.close()
    })()
    const received: string[] = []
    for (let message = await next(outbox); message !== undefined; message = await next(outbox)) {
      received.push((params(message).content as { text: string }[])[0]?.text ?? '')
    }
    await producer
    expect(received).toHaveLength(300)
    expect(received.map((value) => Number(/\d+/.exec(value)?.[0]))).toEqual([...Array(300).keys()])
    expect(outbox.stats).toMatchObject({ emitted: 300, sent: 300, dropped: 0, coalesced: 0 })
    expect(outbox.stats.peakBufferedBytes).toBeLessThanOrEqual(2000)
  })
})

describe('Outbox: close and discard', () => {
  it('close() keeps pending messages, refuses new ones quietly, then next() ends', async () => {
    const outbox = new Outbox()
    outbox.push(log('a'))
    outbox.close()
    expect(outbox.closed).toBe(true)
    expect(() => outbox.push(log('late'))).not.toThrow()
    expect(() => outbox.pushPartial('t', text('late'))).not.toThrow()
    expect(params(await next(outbox)).data).toBe('a')
    expect(await next(outbox)).toBeUndefined()
    expect(outbox.stats.emitted).toBe(0)
  })

  it('close() wakes a waiting reader', async () => {
    const outbox = new Outbox()
    const waiting = next(outbox)
    expect(await settled(waiting)).toBe(false)
    outbox.close()
    expect(await waiting).toBeUndefined()
  })

  it('a waiting reader gets a message pushed later', async () => {
    const outbox = new Outbox()
    const waiting = next(outbox)
    outbox.push(log('hello'))
    expect(params(await waiting).data).toBe('hello')
  })

  it('discard() forgets what is pending', async () => {
    const outbox = new Outbox()
    outbox.push(log('a'))
    void outbox.pushPartial('t', text('b'))
    outbox.discard()
    expect(outbox.closed).toBe(true)
    expect(outbox.stats.bufferedBytes).toBe(0)
    expect(await next(outbox)).toBeUndefined()
    expect(drain(outbox)).toEqual([])
  })
})

describe('Outbox: nextText with a timeout', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('returns null when nothing arrives in time, and the next message is not lost', async () => {
    vi.useFakeTimers()
    const outbox = new Outbox()
    const first = next(outbox, 1000)
    await vi.advanceTimersByTimeAsync(999)
    expect(await settled(first)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await first).toBeNull()
    outbox.push(log('later'))
    expect(params(await next(outbox, 1000)).data).toBe('later')
  })

  it('returns a message pushed while waiting, before the timeout', async () => {
    vi.useFakeTimers()
    const outbox = new Outbox()
    const waiting = next(outbox, 1000)
    outbox.push(log('now'))
    expect(params(await waiting).data).toBe('now')
    // The timer was cleared: advancing past it changes nothing and nothing is consumed.
    outbox.push(log('after'))
    await vi.advanceTimersByTimeAsync(2000)
    expect(drain(outbox).map((message) => params(message).data)).toEqual(['after'])
  })

  it('a waiting reader takes the message that woke it, so a push later in the same turn cannot drop it', async () => {
    for (const wait of [(outbox: Outbox) => next(outbox), (outbox: Outbox) => next(outbox, 1000)]) {
      const outbox = new Outbox({ maxBufferedBytes: 300 })
      const waiting = wait(outbox)
      outbox.push(log('big'.padEnd(1000, '!')), { droppable: true })
      outbox.push(log('after'), { droppable: true })
      expect(String(params(await waiting).data).slice(0, 3)).toBe('big')
      expect(drain(outbox).map((message) => params(message).data)).toEqual(['after'])
      expect(outbox.stats.droppedMessages).toBe(0)
    }
  })

  it('arms no timer when a message is already queued (once per SSE pull)', async () => {
    const outbox = new Outbox()
    outbox.push(log('ready'))
    const armed = vi.spyOn(globalThis, 'setTimeout')
    try {
      expect(params(await next(outbox, 1000)).data).toBe('ready')
      expect(armed).not.toHaveBeenCalled()
    } finally {
      armed.mockRestore()
    }
  })

  it('keeps one timer across waits that a message ends, and still times out a wait from its own start', async () => {
    vi.useFakeTimers()
    const outbox = new Outbox()
    const armed = vi.spyOn(globalThis, 'setTimeout')
    const cleared = vi.spyOn(globalThis, 'clearTimeout')
    try {
      for (let i = 0; i < 20; i++) {
        const waiting = next(outbox, 1000)
        await vi.advanceTimersByTimeAsync(100)
        outbox.push(log(`m${i}`))
        expect(params(await waiting).data).toBe(`m${i}`)
      }
      // 2 s have passed: the first timer fired once with no one waiting; the next wait armed it again.
      expect(armed.mock.calls.length).toBeLessThanOrEqual(3)
      expect(cleared).not.toHaveBeenCalled()
      // A wait that starts late in the kept timer's span still gets its full 1,000 ms.
      await vi.advanceTimersByTimeAsync(100)
      const last = next(outbox, 1000)
      await vi.advanceTimersByTimeAsync(999)
      expect(await settled(last)).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      expect(await last).toBeNull()
      // Closing clears what is armed.
      outbox.close()
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      armed.mockRestore()
      cleared.mockRestore()
    }
  })

  it('keeps waiting when what woke it was dropped as it arrived', async () => {
    vi.useFakeTimers()
    // A budget no chunk fits in keeps the producer waiting, so its next chunk is droppable.
    const outbox = new Outbox({ maxBufferedBytes: 100, maxQueuedChunks: 0 })
    void outbox.pushPartial('t', text('first'))
    poll(outbox)
    const waiting = next(outbox, 1000)
    void outbox.pushPartial('t', text('x'.repeat(500)))
    expect(outbox.stats.dropped).toBe(1)
    expect(await settled(waiting)).toBe(false)
    outbox.push(log('then'))
    expect(params(await waiting).data).toBe('then')
  })

  it('returns undefined once closed and empty', async () => {
    vi.useFakeTimers()
    const outbox = new Outbox()
    const waiting = next(outbox, 1000)
    outbox.close()
    expect(await waiting).toBeUndefined()
    expect(await next(outbox, 1000)).toBeUndefined()
  })
})

describe('Outbox: a chunk larger than the budget, dropped as it arrives', () => {
  /** A chunk of `bytes` accounted bytes (the 96-byte envelope, then structuredContent's JSON). */
  const sized = (bytes: number, tag = 'x') => ({ content: [], structuredContent: { s: tag.repeat(bytes - 96 - 8) } })

  /** A producer's wait pending, then a chunk over the budget drops everything droppable, itself included. */
  function emptiedByTrim() {
    const outbox = new Outbox({ maxBufferedBytes: 1000, maxQueuedChunks: 1000 })
    void outbox.pushPartial('t', sized(108))
    const wait = outbox.pushPartial('t', sized(392)) // half the budget: the producer is told to wait
    void outbox.pushPartial('t', sized(250)) // it did not: droppable
    void outbox.pushPartial('t', sized(250))
    poll(outbox)
    poll(outbox)
    void outbox.pushPartial('t', sized(1100))
    return { outbox, wait }
  }

  it('releases the waiting producer once the drop left room', async () => {
    const { outbox, wait } = emptiedByTrim()
    expect(outbox.stats).toMatchObject({ bufferedBytes: 0, dropped: 3 })
    expect(await settled(wait)).toBe(true)
  })

  it('streams on after it: an SSE reader gets the later chunks, and a producer that awaits is not held', async () => {
    const { outbox } = emptiedByTrim()
    const stream = sseResponse(outbox, new Promise(() => {}), { abort() {} }, 60_000).body as ReadableStream<Uint8Array>
    const reader = stream.getReader()
    const received: string[] = []
    const reading = (async () => {
      for (let part = await reader.read(); !part.done; part = await reader.read())
        received.push(new TextDecoder().decode(part.value))
    })()
    // A producer that awaits each chunk: each wait ends once the reader has taken enough.
    for (const chunk of [sized(1100, 'B'), sized(600, 'C')]) {
      const wait = outbox.pushPartial('t', chunk)
      await vi.waitFor(async () => expect(await settled(wait)).toBe(true))
    }
    await vi.waitFor(() => expect(received.join('')).toContain('CCCC'))
    expect(received.join('')).toContain('BBBB')
    await reader.cancel()
    await reading
  })
})
