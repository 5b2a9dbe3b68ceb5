import { describe, expect, it } from 'vitest'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import type { SseEvent } from '../../packages/mcp-edge/src/client/sse.ts'
import { encodeEvent, formatEvent, jsonEvent, KEEPALIVE } from '../../packages/mcp-edge/src/http/sse.ts'

const encoder = new TextEncoder()

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
}

async function collect(chunks: readonly Uint8Array[]): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  for await (const event of readSse(streamOf(chunks))) events.push(event)
  return events
}

/** Every way of cutting `bytes` into two chunks, plus one byte per chunk. */
function splits(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [[bytes]]
  for (let at = 1; at < bytes.length; at++) out.push([bytes.slice(0, at), bytes.slice(at)])
  out.push(Array.from(bytes, (byte) => new Uint8Array([byte])))
  return out
}

async function expectAtEveryBoundary(text: string, expected: SseEvent[]): Promise<void> {
  for (const chunks of splits(encoder.encode(text))) {
    const where = chunks.map((chunk) => chunk.length).join('+')
    expect(await collect(chunks), `split ${where}`).toEqual(expected)
  }
}

describe('formatEvent', () => {
  it('writes event and data lines and a blank-line terminator', () => {
    expect(formatEvent('{"jsonrpc":"2.0"}')).toBe('event: message\ndata: {"jsonrpc":"2.0"}\n\n')
    expect(formatEvent('x', 'custom')).toBe('event: custom\ndata: x\n\n')
  })

  it('splits data on every kind of line break, so a payload cannot end the event early', () => {
    expect(formatEvent('a\nb')).toBe('event: message\ndata: a\ndata: b\n\n')
    expect(formatEvent('a\r\nb\rc')).toBe('event: message\ndata: a\ndata: b\ndata: c\n\n')
    expect(formatEvent('a\n\nb')).toBe('event: message\ndata: a\ndata: \ndata: b\n\n')
    expect(formatEvent('a\n')).toBe('event: message\ndata: a\ndata: \n\n')
    expect(formatEvent('')).toBe('event: message\ndata: \n\n')
  })

  it('refuses event names with CR or LF (no injected fields)', () => {
    for (const name of ['a\nb', 'a\rb', 'message\ndata: forged', '\r\n']) {
      expect(() => formatEvent('x', name)).toThrow('SSE event names must not contain line breaks')
    }
  })

  it('encodes to UTF-8 bytes', () => {
    expect(new TextDecoder().decode(encodeEvent('é', 'm'))).toBe('event: m\ndata: é\n\n')
    expect(new TextDecoder().decode(KEEPALIVE)).toBe(':\n\n')
  })

  it('round-trips through readSse, including data that looks like SSE fields', async () => {
    const payloads = ['{"a":1}', 'line one\nline two', 'data: fake\n\nevent: fake', ': not a comment', '', 'ünïcödé 🌍']
    const wire = payloads.map((payload) => formatEvent(payload)).join('')
    expect(await collect([encoder.encode(wire)])).toEqual(payloads.map((data) => ({ event: 'message', data })))
  })
})

describe('jsonEvent', () => {
  it('frames JSON text as formatEvent does, line breaks in its strings included (JSON escapes them)', () => {
    const values = [{ a: 1 }, { text: 'one\ntwo\r\nthree\u2028' }, 'a\rb', [1, null, 'é🌍'], {}]
    for (const value of values) {
      const json = JSON.stringify(value)
      expect(jsonEvent(json)).toBe(formatEvent(json))
      expect(jsonEvent(json, 'ev:0-3')).toBe(formatEvent(json, 'message', 'ev:0-3'))
    }
  })

  it('refuses an id with a line break or NUL, as formatEvent does', () => {
    for (const id of ['a\nb', 'a\rb', 'a\0b']) expect(() => jsonEvent('{}', id)).toThrow('SSE ids must not contain')
  })
})

describe('readSse', () => {
  it('reads events whatever the chunk boundaries (LF)', async () => {
    await expectAtEveryBoundary('event: message\ndata: {"a":1}\n\n:\n\nevent: other\ndata: x\ndata: y\n\n', [
      { event: 'message', data: '{"a":1}' },
      { event: 'other', data: 'x\ny' },
    ])
  })

  it('reads events whatever the chunk boundaries (lone CR)', async () => {
    await expectAtEveryBoundary('data: a\rdata: b\r\revent: e\rdata: c\r\r', [
      { event: 'message', data: 'a\nb' },
      { event: 'e', data: 'c' },
    ])
  })

  it('decodes multi-byte UTF-8 split across chunks', async () => {
    await expectAtEveryBoundary('data: héllo 世界 🌍\n\n', [{ event: 'message', data: 'héllo 世界 🌍' }])
  })

  it('reads CRLF line endings delivered in one chunk', async () => {
    expect(await collect([encoder.encode('event: e\r\ndata: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n')])).toEqual([
      { event: 'e', data: 'a\nb' },
      { event: 'message', data: 'c' },
    ])
  })

  it('ignores comments, ids, retry and unknown fields', async () => {
    await expectAtEveryBoundary(': keepalive\n\nid: 7\nretry: 10\nfoo: bar\ndata: x\n: inside\n\n', [
      { event: 'message', data: 'x' },
    ])
  })

  it('removes one leading space only, and accepts a field with no space or no colon', async () => {
    expect(await collect([encoder.encode('data:x\ndata:  two\ndata\n\n')])).toEqual([{ event: 'message', data: 'x\n two\n' }])
  })

  it('does not dispatch an event without data, and resets the event name after each blank line', async () => {
    expect(await collect([encoder.encode('event: lonely\n\ndata: a\n\n')])).toEqual([{ event: 'message', data: 'a' }])
  })

  it('drops an event the stream cut off before its blank line', async () => {
    expect(await collect([encoder.encode('data: complete\n\ndata: cut off\n')])).toEqual([{ event: 'message', data: 'complete' }])
  })

  it('releases the stream when the consumer stops early', async () => {
    const stream = streamOf([encoder.encode('data: a\n\ndata: b\n\n')])
    for await (const event of readSse(stream)) {
      expect(event.data).toBe('a')
      break
    }
    expect(stream.locked).toBe(false)
  })
})
