/**
 * SEP-2998 partial tool results, our own conformance scenarios (the official suite has none),
 * over real HTTP against the fixture Worker under wrangler dev. Test names start with the check
 * id that test/conformance/sep-2998.yaml maps each MUST/SHOULD sentence of the SEP to.
 */
import { request as httpRequest } from 'node:http'
import type { IncomingMessage } from 'node:http'
import { Readable } from 'node:stream'
import { describe, expect, inject, it } from 'vitest'
import { readToolCall, type ToolCallEvent } from '../../packages/mcp-edge/src/client/partial-results.ts'
import { DEFAULT_MAX_BUFFERED_BYTES } from '../../packages/mcp-edge/src/server/outbox.ts'
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

/** The default maxBufferedBytes of a response stream. */
const LIMIT = DEFAULT_MAX_BUFFERED_BYTES

function floodRequest(args: Record<string, unknown>, token: string): Request {
  return buildRequest(
    url(),
    'tools/call',
    { name: 'stream_flood', arguments: args },
    { capabilities: PARTIAL, meta: { partialResultToken: token } },
  )
}

/** What a stream_flood run reported, once `ready` holds (the fixture records it; there is no event to await). */
async function floodStatus(key: string, ready: (stats: any) => boolean): Promise<any> {
  const deadline = Date.now() + 60_000
  for (;;) {
    const { message } = await rpc(fetch, url(), 'tools/call', { name: 'flood_status', arguments: { key } })
    const stats = JSON.parse(message.result?.content?.[0]?.text)
    if (stats !== null && ready(stats)) return stats
    if (Date.now() > deadline) throw new Error(`stream_flood ${key}: ${JSON.stringify(stats)}`)
    await new Promise((done) => setTimeout(done, 100))
  }
}

/**
 * Send a request over node:http and read none of its response until `resume()`: the reader is
 * truly stalled (node stops reading the socket, so TCP pushes back on the server).
 */
async function stalledCall(request: Request): Promise<{ resume(): Response }> {
  const body = Buffer.from(await request.text())
  const target = new URL(request.url)
  const headers = { ...Object.fromEntries(request.headers), 'content-length': String(body.length) }
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers },
      resolve,
    )
    outgoing.on('error', reject)
    outgoing.end(body)
  })
  response.pause()
  expect(response.headers['content-type']).toBe('text/event-stream')
  return {
    resume: () => new Response(Readable.toWeb(response) as ReadableStream, { headers: { 'content-type': 'text/event-stream' } }),
  }
}

/** Read a tools/call response with the client helper: chunks, gaps and the final response. */
async function readCall(response: Response, token: string) {
  const partials: Array<{ seq: number; content: unknown[] }> = []
  const gaps: Array<{ from: number; to: number }> = []
  const call = readToolCall(response, { partialResultToken: token })
  let step = await call.next()
  for (; !step.done; step = await call.next()) {
    if (step.value.type === 'partial') partials.push(step.value)
    else if (step.value.type === 'gap') gaps.push(step.value)
  }
  return { partials, gaps, final: step.value as { result: any } }
}

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

  it('sep-2998-backpressure: a tool that awaits each chunk is held for a stalled reader, then every chunk arrives as sent', async () => {
    const key = `patient-${Date.now()}`
    const size = 16 * 1024
    // 1500 × 16 KiB ≈ 23 MiB fill every socket and proxy buffer; then 20,000 tiny chunks, so the
    // stream's queue reaches its chunk-count limit long before half its byte budget.
    const smallFrom = 1500
    const chunks = smallFrom + 20_000
    const call = await stalledCall(floodRequest({ key, chunks, size, wait: true, smallFrom }, 'patient'))
    // The tool is held: its stream's queue is full (maxQueuedChunks, 256, pending) and it awaits room.
    const held = await floodStatus(key, (stats) => stats.emitted - stats.sent >= 256 || stats.bufferedBytes >= LIMIT / 2)
    expect(held.finished).toBe(false)
    expect(held.emitted).toBeLessThan(chunks)
    const { partials: received, gaps, final } = await readCall(call.resume(), 'patient')
    expect(gaps).toEqual([])
    expect(received.map((event) => event.seq)).toEqual([...Array(chunks).keys()])
    const text = (i: number) => `${String(i).padStart(8, '0')}|${i >= smallFrom ? '' : 'x'.repeat(size)}`
    expect(received.every((event, i) => (event.content[0] as { text: string }).text === text(i))).toBe(true)
    const stats = final.result.structuredContent.stats
    expect(stats).toMatchObject({ emitted: chunks, coalesced: 0, dropped: 0 })
    // At most half the budget plus the one chunk pushed with room left.
    expect(stats.peakBufferedBytes).toBeLessThan(LIMIT / 2 + size + 200)
  }, 120_000)

  it('sep-2998-client-gaps: a tool that never waits gets merged and dropped chunks for a stalled reader; the client reports exactly the dropped seqs as gaps', async () => {
    const key = `flood-${Date.now()}`
    const chunks = 6000
    const size = 16 * 1024 // 6000 × 16 KiB ≈ 94 MiB emitted, far beyond every socket and proxy buffer
    const call = await stalledCall(floodRequest({ key, chunks, size }, 'flood'))
    const done = await floodStatus(key, (stats) => stats.finished)
    expect(done.emitted).toBe(chunks)
    expect(done.peakBufferedBytes).toBeLessThanOrEqual(LIMIT)
    expect(done.dropped).toBeGreaterThan(0)
    expect(done.coalesced).toBeGreaterThan(0)
    // The stream then drains to a complete final result.
    const { partials: received, gaps, final } = await readCall(call.resume(), 'flood')
    expect(final.result.content).toEqual([{ type: 'text', text: `emitted ${chunks} chunks` }])
    const missing = gaps.reduce((total, gap) => total + gap.to - gap.from + 1, 0)
    expect(missing).toBe(done.dropped)
    expect(received.length + done.dropped).toBe((received.at(-1)?.seq ?? -1) + 1)
    // A merged chunk holds whole, consecutive chunks in order; what was dropped is simply absent.
    const indexes = received.flatMap((event) => {
      const pieces = (event.content[0] as { text: string }).text.match(new RegExp(`\\d{8}\\|x{${size}}`, 'g')) ?? []
      expect(pieces.join('')).toBe((event.content[0] as { text: string }).text)
      const numbers = pieces.map((text) => Number(text.slice(0, 8)))
      expect(numbers).toEqual(numbers.map((_, i) => (numbers[0] as number) + i))
      return numbers
    })
    expect(indexes).toEqual(indexes.toSorted((a, b) => a - b))
    expect(new Set(indexes).size).toBe(indexes.length)
    expect(indexes.length).toBeLessThan(chunks)
    expect(indexes.at(-1)).toBe(chunks - 1)
  }, 120_000)
})
