/**
 * SEP-2998 partial tool results, our own conformance scenarios (the official suite has none),
 * over real HTTP against the fixture Worker under wrangler dev. Test names start with the check
 * id that test/conformance/sep-2998.yaml maps each MUST/SHOULD sentence of the SEP to.
 */
import { connect } from 'node:net'
import { describe, expect, inject, it } from 'vitest'
import { readToolCall, type ToolCallEvent } from '../../src/client/partial-results.ts'
import { buildRequest, rpc } from '../support/mcp.ts'
import { schemaErrors } from '../support/schema.ts'

const PARTIAL = { partialResults: {} }
const url = () => inject('fixtureUrl')

function streamCall(
  args: Record<string, unknown>,
  options: { token?: string | number; capabilities?: Record<string, unknown>; tool?: string } = {},
) {
  const meta = options.token === undefined ? {} : { partialResultToken: options.token }
  return rpc(
    fetch,
    url(),
    'tools/call',
    { name: options.tool ?? 'stream_text', arguments: args },
    { capabilities: options.capabilities ?? PARTIAL, meta },
  )
}

const partials = (notifications: Array<{ method: string; params: any }>) =>
  notifications
    .filter((notification) => notification.method === 'notifications/tools/partial_result')
    .map((notification) => notification.params)

const chunkText = (i: number, size = 8) => `${String(i).padStart(size, '0')}|`

describe('SEP-2998 partial results (own conformance scenarios)', () => {
  it('sep-2998-capability-gate: nothing is streamed unless the call declared partialResults and carried a token', async () => {
    const args = { chunks: 5 }
    const without = await streamCall(args, { token: 'prt-1', capabilities: {} })
    expect(partials(without.notifications)).toEqual([])
    expect(without.sse).toBe(false)
    const noToken = await streamCall(args)
    expect(partials(noToken.notifications)).toEqual([])
    const both = await streamCall(args, { token: 'prt-1' })
    expect(partials(both.notifications)).toHaveLength(5)
    expect(both.sse).toBe(true)
  })

  it('sep-2998-capabilities-per-request: a declaration on one call is not remembered for the next', async () => {
    const declared = await streamCall({ chunks: 2 }, { token: 'same-token' })
    expect(partials(declared.notifications)).toHaveLength(2)
    const next = await streamCall({ chunks: 2 }, { token: 'same-token', capabilities: {} })
    expect([next.sse, partials(next.notifications).length]).toEqual([false, 0])
  })

  it('sep-2998-token-scoping: each call gets only its own token, even when calls overlap', async () => {
    const [a, b] = await Promise.all([
      streamCall({ chunks: 20, delayMs: 2 }, { token: 'token-a' }),
      streamCall({ chunks: 20, delayMs: 2 }, { token: 7 }),
    ])
    expect(new Set(partials(a.notifications).map((params) => params.partialResultToken))).toEqual(new Set(['token-a']))
    expect(new Set(partials(b.notifications).map((params) => params.partialResultToken))).toEqual(new Set([7]))
  })

  it('sep-2998-seq-order: seq starts at 0 and rises by one per chunk, in order on the stream', async () => {
    const { notifications } = await streamCall({ chunks: 30 }, { token: 'seq' })
    const received = partials(notifications)
    expect(received.map((params) => params.seq)).toEqual([...Array(30).keys()])
    expect(received.map((params) => params.content[0].text)).toEqual([...Array(30).keys()].map((i) => chunkText(i)))
    expect(received.at(-1)?.final).toBe(true)
  })

  it('sep-2998-content-blocks: every chunk is a valid notification whose content is ContentBlock[] (official schema)', async () => {
    const { notifications, message } = await streamCall({}, { token: 'mixed', tool: 'stream_mixed' })
    const received = partials(notifications)
    expect(received.map((params) => params.content[0].type)).toEqual(['text', 'image', 'resource_link'])
    expect(received[0]?.structuredContent).toEqual({ rowsProcessed: 100 })
    for (const params of received) {
      expect(
        schemaErrors('JSONRPCNotification', { jsonrpc: '2.0', method: 'notifications/tools/partial_result', params }),
      ).toEqual([])
      for (const block of params.content) expect(schemaErrors('ContentBlock', block)).toEqual([])
    }
    expect(schemaErrors('CallToolResult', message.result)).toEqual([])
  })

  it('sep-2998-content-blocks: a tool that streams a malformed block fails the call instead of sending it', async () => {
    const { notifications, message } = await streamCall({}, { token: 'bad', tool: 'stream_invalid' })
    expect(partials(notifications)).toEqual([])
    expect(message.error).toEqual({ code: -32603, message: 'Internal error' })
  })

  it('sep-2998-final-self-contained: the final result holds everything, whether or not partials were seen', async () => {
    const streamed = await streamCall({ chunks: 12 }, { token: 'final' })
    const plain = await streamCall({ chunks: 12 }, { capabilities: {} })
    const everything = [...Array(12).keys()].map((i) => chunkText(i)).join('')
    expect(
      partials(streamed.notifications)
        .map((params) => params.content[0].text)
        .join(''),
    ).toBe(everything)
    expect(streamed.message.result?.content).toEqual([{ type: 'text', text: everything }])
    expect(plain.message.result?.content).toEqual([{ type: 'text', text: everything }])
    expect(schemaErrors('CallToolResult', streamed.message.result)).toEqual([])
  })

  it('sep-2998-graceful-without-capability: a streaming tool answers a client without the capability with plain JSON', async () => {
    const { sse, status, headers, message, notifications } = await streamCall(
      { chunks: 3 },
      { capabilities: { elicitation: {} } },
    )
    expect([sse, status, headers.get('content-type'), notifications.length]).toEqual([false, 200, 'application/json', 0])
    expect(message.result?.resultType).toBe('complete')
  })

  it('sep-2998-own-stream: partials ride the request’s own SSE stream, interleaved in order with progress', async () => {
    const response = await fetch(
      buildRequest(
        url(),
        'tools/call',
        { name: 'stream_text', arguments: { chunks: 4, progress: true } },
        { capabilities: PARTIAL, meta: { partialResultToken: 'own', progressToken: 'own-progress' } },
      ),
    )
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const events: ToolCallEvent[] = []
    const call = readToolCall(response, { partialResultToken: 'own' })
    let step = await call.next()
    while (!step.done) {
      events.push(step.value)
      step = await call.next()
    }
    expect(
      events.map((event) =>
        event.type === 'partial'
          ? `partial ${event.seq}`
          : event.type === 'notification'
            ? `progress ${event.params.progress}`
            : event.type,
      ),
    ).toEqual(['progress 1', 'partial 0', 'progress 2', 'partial 1', 'progress 3', 'partial 2', 'progress 4', 'partial 3'])
    expect(step.value).toMatchObject({ jsonrpc: '2.0', result: { resultType: 'complete' } })
  })

  it('sep-2998-streaming-hint: streaming tools advertise annotations.streamingHint, others do not', async () => {
    const { message } = await rpc(fetch, url(), 'tools/list')
    const tools = Object.fromEntries(message.result?.tools.map((tool: { name: string }) => [tool.name, tool]))
    expect(tools.stream_text.annotations).toEqual({ streamingHint: true })
    expect(tools.stream_mixed.annotations).toEqual({ streamingHint: true })
    expect(tools.greet.annotations).toBeUndefined()
  })
})

describe('partial results under load', () => {
  it('delivers every chunk of 100 concurrent streaming calls in order, without duplicates, with intact final results', async () => {
    const CHUNKS = 40
    const calls = Array.from({ length: 100 }, async (_, index) => {
      const token = `load-${index}`
      const response = await fetch(
        buildRequest(
          url(),
          'tools/call',
          { name: 'stream_text', arguments: { chunks: CHUNKS, size: 6 } },
          { capabilities: PARTIAL, meta: { partialResultToken: token } },
        ),
      )
      const seqs: number[] = []
      const texts: string[] = []
      const call = readToolCall(response, { partialResultToken: token })
      let step = await call.next()
      while (!step.done) {
        if (step.value.type === 'partial') {
          seqs.push(step.value.seq)
          texts.push((step.value.content[0] as { text: string }).text)
        } else expect(step.value.type).not.toBe('gap')
        step = await call.next()
      }
      return { seqs, texts, final: step.value as { result: { content: Array<{ text: string }> } } }
    })
    const everything = [...Array(CHUNKS).keys()].map((i) => chunkText(i, 6)).join('')
    for (const { seqs, texts, final } of await Promise.all(calls)) {
      expect(seqs).toEqual([...Array(CHUNKS).keys()])
      expect(texts.join('')).toBe(everything)
      expect(final.result.content).toEqual([{ type: 'text', text: everything }])
    }
  }, 120_000)

  it('sep-2998-backpressure: keeps the server’s buffer for a stalled reader under its limit while the tool keeps emitting', async () => {
    const LIMIT = 1024 * 1024 // the default maxBufferedBytes of a response stream
    const key = `flood-${Date.now()}`
    const chunks = 6000
    const size = 16 * 1024 // 6000 × 16 KiB ≈ 94 MiB emitted, far beyond every socket and proxy buffer
    const request = buildRequest(
      url(),
      'tools/call',
      { name: 'stream_flood', arguments: { key, chunks, size } },
      { capabilities: PARTIAL, meta: { partialResultToken: 'flood' } },
    )
    const body = await request.text()
    const { port } = new URL(url())
    // A raw socket that reads nothing until the tool is done: the reader is truly stalled.
    const socket = connect(Number(port), '127.0.0.1')
    socket.pause()
    const head = [...request.headers].map(([name, value]) => `${name}: ${value}`).join('\r\n')
    socket.write(
      `POST /mcp HTTP/1.1\r\n${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
    let stats: any = null
    const deadline = Date.now() + 60_000
    while (stats === null && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 200))
      const { message } = await rpc(fetch, url(), 'tools/call', { name: 'flood_status', arguments: { key } })
      stats = JSON.parse(message.result?.content?.[0]?.text)
    }
    expect(stats).not.toBeNull()
    expect(stats.emitted).toBe(chunks)
    expect(stats.peakBufferedBytes).toBeLessThanOrEqual(LIMIT)
    expect(stats.dropped + stats.coalesced).toBeGreaterThan(0)
    // The stream then drains to a complete final result.
    socket.resume()
    let raw = ''
    socket.setEncoding('utf8')
    for await (const chunk of socket) raw += chunk
    expect(raw).toContain('"result":{"content":[{"type":"text","text":"emitted 6000 chunks"}]')
  }, 120_000)
})
