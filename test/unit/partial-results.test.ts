import { describe, expect, it } from 'vitest'
import { PartialResultReader, readToolCall } from '../../packages/mcp-edge/src/client/partial-results.ts'
import type { ToolCallEvent } from '../../packages/mcp-edge/src/client/partial-results.ts'
import { formatEvent } from '../../packages/mcp-edge/src/http/sse.ts'

const TOKEN = 'prt-1'
const chunk = (seq: number, extra: Record<string, unknown> = {}) => ({
  partialResultToken: TOKEN,
  seq,
  content: [{ type: 'text', text: `#${seq}` }],
  ...extra,
})
/** A compact view of what a reader released: seq numbers, and gaps as 'gap from-to'. */
const view = (events: readonly ToolCallEvent[]) =>
  events.map((event) =>
    event.type === 'partial' ? event.seq : event.type === 'gap' ? `gap ${event.from}-${event.to}` : event.method,
  )

describe('PartialResultReader', () => {
  it('releases chunks in order as they arrive', () => {
    const reader = new PartialResultReader(TOKEN)
    expect(reader.accept(chunk(0))).toEqual([{ type: 'partial', seq: 0, content: [{ type: 'text', text: '#0' }] }])
    expect(view(reader.accept(chunk(1)))).toEqual([1])
    expect(reader.nextSeq).toBe(2)
    expect(reader.finish()).toEqual([])
  })

  it('buffers out-of-order chunks until the missing ones arrive', () => {
    const reader = new PartialResultReader(TOKEN)
    expect(reader.accept(chunk(2))).toEqual([])
    expect(reader.accept(chunk(1))).toEqual([])
    expect(view(reader.accept(chunk(0)))).toEqual([0, 1, 2])
    expect(view(reader.accept(chunk(3)))).toEqual([3])
    expect(reader.dropped).toBe(0)
  })

  it('drops duplicates, whether already applied or still buffered', () => {
    const reader = new PartialResultReader(TOKEN)
    reader.accept(chunk(0))
    expect(reader.accept(chunk(0))).toEqual([])
    reader.accept(chunk(2))
    expect(reader.accept(chunk(2, { content: [{ type: 'text', text: 'other' }] }))).toEqual([])
    expect(reader.dropped).toBe(2)
    expect(view(reader.accept(chunk(1)))).toEqual([1, 2])
    expect(reader.finish()).toEqual([])
  })

  it('drops chunks of a token it did not issue, and malformed chunks', () => {
    const reader = new PartialResultReader(TOKEN)
    expect(reader.accept({ ...chunk(0), partialResultToken: 'someone-else' })).toEqual([])
    expect(reader.accept({ ...chunk(0), seq: 0.5 })).toEqual([])
    expect(reader.accept({ ...chunk(0), seq: '0' })).toEqual([])
    expect(reader.accept({ partialResultToken: TOKEN, seq: 0 })).toEqual([])
    expect(reader.dropped).toBe(4)
    expect(reader.nextSeq).toBe(0)
    expect(view(reader.accept(chunk(0)))).toEqual([0])
  })

  it('tells a numeric token from its string spelling', () => {
    const reader = new PartialResultReader(7)
    expect(reader.accept({ ...chunk(0), partialResultToken: '7' })).toEqual([])
    expect(view(reader.accept({ ...chunk(0), partialResultToken: 7 }))).toEqual([0])
  })

  it('keeps structuredContent, final and taskId', () => {
    const reader = new PartialResultReader(TOKEN)
    expect(reader.accept(chunk(0, { structuredContent: { rows: 3 }, final: true, taskId: 'task-9' }))).toEqual([
      {
        type: 'partial',
        seq: 0,
        content: [{ type: 'text', text: '#0' }],
        structuredContent: { rows: 3 },
        final: true,
        taskId: 'task-9',
      },
    ])
  })

  it('reports a gap when more than maxBuffered chunks wait, then goes on', () => {
    const reader = new PartialResultReader(TOKEN, { maxBuffered: 2 })
    expect(reader.accept(chunk(2))).toEqual([])
    expect(reader.accept(chunk(3))).toEqual([])
    expect(reader.accept(chunk(4))).toEqual([
      { type: 'gap', from: 0, to: 1 },
      ...[2, 3, 4].map((seq) => ({ type: 'partial', seq, content: [{ type: 'text', text: `#${seq}` }] })),
    ])
    // A chunk from inside the gap turns up late: it is stale now.
    expect(reader.accept(chunk(1))).toEqual([])
    expect(reader.dropped).toBe(1)
    expect(view(reader.accept(chunk(5)))).toEqual([5])
  })

  it('reports every gap at finish and applies what was buffered', () => {
    const reader = new PartialResultReader(TOKEN)
    expect(view(reader.accept(chunk(0)))).toEqual([0])
    expect(reader.accept(chunk(2))).toEqual([])
    expect(reader.accept(chunk(5))).toEqual([])
    expect(reader.accept(chunk(6))).toEqual([])
    expect(view(reader.finish())).toEqual(['gap 1-1', 2, 'gap 3-4', 5, 6])
    expect(reader.finish()).toEqual([])
  })
})

const sseResponse = (messages: readonly object[]) =>
  new Response(messages.map((message) => formatEvent(JSON.stringify(message))).join(''), {
    headers: { 'content-type': 'text/event-stream' },
  })
const partial = (seq: number, token: string | number = TOKEN) => ({
  jsonrpc: '2.0',
  method: 'notifications/tools/partial_result',
  params: chunk(seq, { partialResultToken: token }),
})
const final = (id: number) => ({
  jsonrpc: '2.0',
  id,
  result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] },
})

async function drive(call: AsyncGenerator<ToolCallEvent, Record<string, unknown> | undefined>) {
  const events: ToolCallEvent[] = []
  for (let step = await call.next(); ; step = await call.next()) {
    if (step.done) return { events, result: step.value }
    events.push(step.value)
  }
}

describe('readToolCall', () => {
  it('returns a JSON response as is, with no events', async () => {
    const response = Response.json(final(1))
    const { events, result } = await drive(readToolCall(response, { partialResultToken: TOKEN }))
    expect(events).toEqual([])
    expect(result).toEqual(final(1))
  })

  it('yields partial chunks in seq order, other notifications as they come, and returns the final response', async () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 50 } }
    const response = sseResponse([partial(1), partial(0), progress, partial(0, 'foreign'), partial(0), partial(2), final(1)])
    const { events, result } = await drive(readToolCall(response, { partialResultToken: TOKEN }))
    expect(view(events)).toEqual([0, 1, 'notifications/progress', 2])
    expect(events[2]).toEqual({
      type: 'notification',
      method: 'notifications/progress',
      params: { progressToken: 'p', progress: 50 },
    })
    expect(result).toEqual(final(1))
  })

  it('reports missing chunks as a gap before the final response', async () => {
    const response = sseResponse([partial(0), partial(3), final(1)])
    const { events, result } = await drive(readToolCall(response, { partialResultToken: TOKEN }))
    expect(view(events)).toEqual([0, 'gap 1-2', 3])
    expect(result).toEqual(final(1))
  })

  it('reports a gap when maxBuffered overflows mid-stream', async () => {
    const response = sseResponse([partial(1), partial(2), final(1)])
    const { events } = await drive(readToolCall(response, { partialResultToken: TOKEN, maxBuffered: 1 }))
    expect(view(events)).toEqual(['gap 0-0', 1, 2])
  })

  it('skips responses to other requests when requestId is given', async () => {
    const response = sseResponse([partial(0), final(99), partial(1), final(7)])
    const { events, result } = await drive(readToolCall(response, { partialResultToken: TOKEN, requestId: 7 }))
    expect(view(events)).toEqual([0, 1])
    expect(result).toEqual(final(7))
  })

  it('returns undefined when the stream ends without a response, after flushing what it buffered', async () => {
    const response = sseResponse([partial(0), partial(2)])
    const { events, result } = await drive(readToolCall(response, { partialResultToken: TOKEN }))
    expect(view(events)).toEqual([0, 'gap 1-1', 2])
    expect(result).toBeUndefined()
  })
})
