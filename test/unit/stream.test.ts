/**
 * The SSE response over a request's outbox (src/http/stream.ts): what is queued when the reader
 * pulls leaves in one write, in order, bounded in size; nothing waits to be batched.
 */
import { describe, expect, it, vi } from 'vitest'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import type { Run } from '../../packages/mcp-edge/src/http/lane.ts'
import { formatEvent, jsonEvent } from '../../packages/mcp-edge/src/http/sse.ts'
import { sseResponse } from '../../packages/mcp-edge/src/http/stream.ts'
import { notification } from '../../packages/mcp-edge/src/protocol/jsonrpc.ts'
import { Outbox, partialParams } from '../../packages/mcp-edge/src/server/outbox.ts'
import { records } from '../support/logs.ts'

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

  it('does not hold an awaited partial result back to batch it: each leaves as its own write', async () => {
    const outbox = new Outbox()
    const reader = open(outbox, new Promise(() => {}))
    for (let i = 0; i < 3; i++) {
      const chunk = { content: [{ type: 'text' as const, text: `chunk ${i}` }] }
      const read = reader.read()
      await outbox.pushPartial('t', chunk)
      expect(decoder.decode((await read).value)).toBe(
        jsonEvent(JSON.stringify(notification('notifications/tools/partial_result', partialParams('t', i, chunk)))),
      )
    }
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
  const events = async (response: Response) => {
    const out: { id?: unknown; method?: string; error?: { code: number; message: string } }[] = []
    for await (const event of readSse(response.body as ReadableStream<Uint8Array>)) out.push(JSON.parse(event.data))
    return out
  }

  it('ends a stream whose run fails after it began streaming with -32603 for its id, logged and not leaked', async () => {
    const { respond } = await import('../../packages/mcp-edge/src/http/respond.ts')
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    let failNow!: () => void
    const response = await respond(lane, 7, async (run: Run) => {
      run.outbox.push(log('started'))
      await new Promise<void>((resolve) => {
        failNow = resolve
      })
      throw new Error('a bug in the run')
    })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reading = events(response)
    failNow()
    const received = await reading
    expect(received.map((message) => message.method ?? message.id)).toEqual(['notifications/message', 7])
    expect(received[1]?.error).toEqual({ code: -32603, message: 'Internal error' })
    expect(JSON.stringify(received)).not.toContain('a bug')
    expect(records(logged)).toEqual([
      expect.objectContaining({ level: 'error', msg: 'request failed', error: 'Error: a bug in the run' }),
    ])
    logged.mockRestore()
  })

  it('ends a batch stream however its items end', async () => {
    const { respondBatch } = await import('../../packages/mcp-edge/src/http/respond.ts')
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    let failNow!: () => void
    const response = await respondBatch(lane, [
      async (run: Run) => {
        run.outbox.push(log('started'))
        return undefined
      },
      async () => {
        await new Promise<void>((resolve) => {
          failNow = resolve
        })
        throw new Error('unexpected')
      },
    ])
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reading = events(response)
    failNow()
    expect((await reading).map((message) => message.method)).toEqual(['notifications/message'])
    expect(records(logged)).toEqual([
      expect.objectContaining({ level: 'error', msg: 'request failed', method: 'batch', error: 'Error: unexpected' }),
    ])
    logged.mockRestore()
  })
})
