/**
 * The SSE response over a request's outbox (src/http/stream.ts): what is queued when the reader
 * pulls leaves in one write, in order, bounded in size; nothing waits to be batched.
 */
import { describe, expect, it } from 'vitest'
import { formatEvent } from '../../src/http/sse.ts'
import { sseResponse } from '../../src/http/stream.ts'
import { notification } from '../../src/protocol/jsonrpc.ts'
import { Outbox } from '../../src/server/outbox.ts'

const log = (data: string) => notification('notifications/message', { level: 'info', data })
const decoder = new TextDecoder()

function open(outbox: Outbox, final: Promise<never[]>) {
  const response = sseResponse(outbox, final, { abort() {} }, 60_000)
  return (response.body as ReadableStream<Uint8Array>).getReader()
}

describe('sseResponse', () => {
  it('sends everything queued at a pull as one write, in order', async () => {
    const outbox = new Outbox()
    const reader = open(outbox, new Promise(() => {}))
    for (const data of ['a', 'b', 'c']) outbox.push(log(data))
    const { value } = await reader.read()
    expect(decoder.decode(value)).toBe(['a', 'b', 'c'].map((data) => formatEvent(JSON.stringify(log(data)))).join(''))
    await reader.cancel()
  })

  it('does not hold a message back to batch it: a lone message leaves at once', async () => {
    const outbox = new Outbox()
    const reader = open(outbox, new Promise(() => {}))
    const read = reader.read()
    outbox.push(log('alone'))
    expect(decoder.decode((await read).value)).toBe(formatEvent(JSON.stringify(log('alone'))))
    await reader.cancel()
  })

  it('bounds one write to about 64 KiB of text, the rest follows in order', async () => {
    const outbox = new Outbox({ maxQueuedChunks: 10_000, maxBufferedBytes: 16 * 1024 * 1024 })
    const reader = open(outbox, new Promise(() => {}))
    const big = 'x'.repeat(10_000)
    for (let i = 0; i < 20; i++) outbox.push(log(`${i}:${big}`))
    const first = decoder.decode((await reader.read()).value)
    expect(first.length).toBeGreaterThanOrEqual(64 * 1024)
    expect(first.length).toBeLessThan(64 * 1024 + 10_200)
    let all = first
    while (!all.includes('"19:')) all += decoder.decode((await reader.read()).value)
    expect([...all.matchAll(/"data":"(\d+):/g)].map((match) => Number(match[1]))).toEqual([...Array(20).keys()])
    await reader.cancel()
  })
})

describe('respond', () => {
  it('ends the stream when the run fails after it began streaming, instead of sending keepalives forever', async () => {
    const { respond } = await import('../../src/http/respond.ts')
    const lane = {
      request: new Request('http://127.0.0.1/mcp', { method: 'POST' }),
      env: {},
      principal: undefined,
      services: {},
      respond: { stream: undefined, keepaliveMs: 60_000 },
      endpoint: '/mcp',
      waitUntil: undefined,
      challenge: () => undefined,
    }
    const response = await respond(lane, async (run) => {
      run.outbox.push(log('started'))
      await new Promise((resolve) => setTimeout(resolve, 5))
      throw new Error('a bug in the run')
    })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    expect(decoder.decode((await reader.read()).value)).toContain('started')
    await expect(reader.read()).rejects.toThrow('a bug in the run')
  })
})
