/**
 * Result budgets (docs/results.md): the pure budget and preview logic (server/results/budget.ts),
 * and a server with `results` over `memoryResultStore` through `McpServer.handle`: a result under
 * its budget passes byte for byte, one over it becomes a preview and a link that only its caller
 * reads, page by page; an expired link says so; bad links and options are refused.
 */
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import {
  DEFAULT_MAX_RESULT_BYTES,
  fitsBudget,
  prefixWithin,
  previewResult,
  resultBytes,
  spilledBody,
  utf8Bytes,
} from '../../packages/mcp-edge/src/server/results/budget.ts'
import {
  memoryResultStore,
  newResultId,
  pageOf,
  parseResultUri,
  resultUri,
} from '../../packages/mcp-edge/src/server/results/store.ts'
import type { ResultStore } from '../../packages/mcp-edge/src/server/results/store.ts'
import { resultBudgets } from '../../packages/mcp-edge/src/server/results/spill.ts'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { McpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { Principal } from '../../packages/mcp-edge/src/server/types.ts'
import type { CallToolResult } from '../../packages/mcp-edge/src/protocol/types.ts'
import { configError, sendAs } from './support.ts'

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })

describe('budget and preview', () => {
  it('counts UTF-8 bytes as TextEncoder does, lone surrogates as their replacement character', () => {
    for (const sample of ['', 'abc', 'héllo', '€', '😀', 'a😀b', '\ud83d', '\ude00x', 'x\ud83d']) {
      expect(utf8Bytes(sample), JSON.stringify(sample)).toBe(new TextEncoder().encode(sample).byteLength)
    }
  })

  it('measures text as UTF-8, embedded resources and structured content as JSON, and media not at all', () => {
    expect(resultBytes(text('héllo'))).toBe(6)
    const embedded = { type: 'resource' as const, resource: { uri: 'a://b', text: 'c' } }
    const mixed: CallToolResult = {
      content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }, embedded],
      structuredContent: { a: 1 },
    }
    expect(resultBytes(mixed)).toBe(JSON.stringify(embedded).length + 7)
    expect(fitsBudget(text('x'.repeat(100)), 100)).toBe(true)
    expect(fitsBudget(text('x'.repeat(101)), 100)).toBe(false)
    expect(fitsBudget(text('é'.repeat(50)), 100)).toBe(true)
    expect(fitsBudget(text('é'.repeat(51)), 100)).toBe(false)
  })

  it('cuts a prefix within a byte count, never inside a surrogate pair', () => {
    expect(prefixWithin('abcdef', 4)).toBe('abcd')
    expect(prefixWithin('ab😀cd', 5)).toBe('ab')
    expect(prefixWithin('ab😀cd', 6)).toBe('ab😀')
    expect(pageOf('ab😀cd', 0, 3)).toBe('ab')
    expect(pageOf('ab😀cd', 2, 2)).toBe('😀')
  })

  it('stores text as text and anything else as the JSON of the result', () => {
    expect(
      spilledBody({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({ text: 'a\nb', mimeType: 'text/plain' })
    const structured: CallToolResult = { content: [{ type: 'text', text: 'a' }], structuredContent: { n: 1 } }
    expect(spilledBody(structured)).toEqual({ text: JSON.stringify(structured), mimeType: 'application/json' })
  })

  it('previews the first text within the budget, keeps structured content that fits in half, links the whole', () => {
    const link = { uri: 'mcp-edge://results/x', bytes: 10_000, mimeType: 'text/plain', expiresAt: 0 }
    const big: CallToolResult = { content: [{ type: 'text', text: 'y'.repeat(10_000) }], structuredContent: { small: true } }
    const preview = previewResult(big, 4096, link, 10_000)
    expect(resultBytes(preview)).toBeLessThanOrEqual(4096)
    expect(preview.structuredContent).toEqual({ small: true })
    expect(preview.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(
        /^y{2000,}\n\n\[Result truncated: showing the first \d+ of 10000 bytes\. The full result is at mcp-edge:\/\/results\/x/,
      ),
    })
    expect(preview.content[1]).toMatchObject({ type: 'resource_link', uri: link.uri, mimeType: 'text/plain', size: 10_000 })
    const large = previewResult({ ...big, structuredContent: { blob: 'z'.repeat(3000) } }, 4096, undefined, 13_000)
    expect(large.structuredContent).toBeUndefined()
    expect(large.content).toHaveLength(1)
    expect((large.content[0] as { text: string }).text).toMatch(/too large to store and was not kept\.\]$/)
  })

  it('counts no image or audio against the budget, and keeps them in a preview', () => {
    const image = { type: 'image' as const, data: 'A'.repeat(200_000), mimeType: 'image/png' }
    // An image alone is media for the host, not text for the model: it fits whatever its size.
    expect(fitsBudget({ content: [{ type: 'text', text: 'a screenshot' }, image] }, 4096)).toBe(true)
    const mixed: CallToolResult = { content: [{ type: 'text', text: 'y'.repeat(10_000) }, image] }
    expect(fitsBudget(mixed, 4096)).toBe(false)
    const preview = previewResult(mixed, 4096, undefined, 10_000)
    expect(preview.content.map((block) => block.type)).toEqual(['text', 'image'])
    expect(preview.content[1]).toBe(image)
  })

  it('keeps the structured content of a tool with an output schema, whatever its size', () => {
    const big: CallToolResult = {
      content: [{ type: 'text', text: 'y'.repeat(10_000) }],
      structuredContent: { blob: 'z'.repeat(3000) },
    }
    expect(previewResult(big, 4096, undefined, 13_000).structuredContent).toBeUndefined()
    expect(previewResult(big, 4096, undefined, 13_000, true).structuredContent).toEqual(big.structuredContent)
  })

  it('parses only well-formed result links', () => {
    const id = newResultId(1_900_000_000_000)
    expect(parseResultUri(resultUri(id))).toEqual({ id, expiresAt: 1_900_000_000_000, from: 0 })
    expect(parseResultUri(resultUri(id, 42))).toEqual({ id, expiresAt: 1_900_000_000_000, from: 42 })
    for (const bad of [
      `${resultUri(id)}?from=-1`,
      `${resultUri(id)}?from=01`,
      `${resultUri(id)}x`,
      'mcp-edge://results/',
      `mcp-edge://results/${id.slice(0, -1)}`,
    ]) {
      expect(parseResultUri(bad), bad).toBeUndefined()
    }
  })
})

const ALICE: Principal = { subject: 'alice' }
const BOB: Principal = { subject: 'bob' }

function serverWith(store: ResultStore, ttlMs?: number): McpServer {
  const server = createMcpServer({
    name: 't',
    version: '1',
    results: resultBudgets({ store, pageChars: 40_000, ...(ttlMs ? { ttlMs } : {}) }),
  })
  server.tool('echo', { input: z.object({ n: z.number() }) }, ({ n }) => text('r'.repeat(n)))
  server.tool('wide', { input: z.object({}), maxResultBytes: 200_000 }, () => text('w'.repeat(150_000)))
  return server
}

const send = (...args: Parameters<typeof sendAs>) => sendAs<any>(...args) as Promise<{ result?: any; error?: any }>

describe('a server with results', () => {
  it('passes a result within the budget unchanged, and advertises resources for the links', async () => {
    const server = serverWith(memoryResultStore())
    const { result } = await send(server, 'tools/call', { name: 'echo', arguments: { n: DEFAULT_MAX_RESULT_BYTES } }, ALICE)
    expect(result.content).toEqual([{ type: 'text', text: 'r'.repeat(DEFAULT_MAX_RESULT_BYTES) }])
    expect((await send(server, 'server/discover', {})).result.capabilities.resources).toEqual({})
  })

  it('spills a result over the budget: a preview and a link its caller reads in pages, in both eras', async () => {
    const server = serverWith(memoryResultStore())
    for (const version of ['2026-07-28', '2025-11-25']) {
      const { result } = await send(server, 'tools/call', { name: 'echo', arguments: { n: 100_000 } }, ALICE, version)
      expect(resultBytes(result)).toBeLessThanOrEqual(DEFAULT_MAX_RESULT_BYTES)
      const link = result.content[1]
      expect(link).toMatchObject({ type: 'resource_link', size: 100_000, mimeType: 'text/plain' })
      let uri: string | undefined = link.uri
      let whole = ''
      const pages: number[] = []
      while (uri) {
        const read = await send(server, 'resources/read', { uri }, ALICE, version)
        const [contents] = read.result.contents
        whole += contents.text
        pages.push(contents.text.length)
        expect(contents._meta['mcp-edge/totalChars']).toBe(100_000)
        uri = contents._meta['mcp-edge/nextUri']
      }
      expect(pages).toEqual([40_000, 40_000, 20_000])
      expect(whole).toBe('r'.repeat(100_000))
    }
  })

  it('refuses the link to another principal, and to an unauthenticated caller, exactly as an unknown URI', async () => {
    const server = serverWith(memoryResultStore())
    const { result } = await send(server, 'tools/call', { name: 'echo', arguments: { n: 70_000 } }, ALICE)
    const uri = result.content[1].uri as string
    const unknown = resultUri(newResultId(Date.now() + 60_000))
    const notFound = (await send(server, 'resources/read', { uri: unknown }, ALICE)).error
    expect(notFound).toEqual({ code: -32602, message: 'Resource not found', data: { uri: unknown } })
    for (const who of [BOB, undefined]) {
      expect((await send(server, 'resources/read', { uri }, who)).error).toEqual({ ...notFound, data: { uri } })
    }
    expect((await send(server, 'resources/read', { uri: `${uri}?from=70000` }, ALICE)).error).toMatchObject({
      code: -32602,
      message: 'Resource not found',
    })
  })

  it('says a link expired after its time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const server = serverWith(memoryResultStore(), 1000)
    const { result } = await send(server, 'tools/call', { name: 'echo', arguments: { n: 70_000 } }, ALICE)
    const uri = result.content[1].uri as string
    expect((await send(server, 'resources/read', { uri }, ALICE)).result.contents[0].text).toHaveLength(40_000)
    vi.setSystemTime(Date.now() + 1000)
    const { error } = await send(server, 'resources/read', { uri }, ALICE)
    vi.useRealTimers()
    expect(error).toMatchObject({ code: -32602, message: 'Resource expired: stored results are kept for 1000 ms', data: { uri } })
  })

  it('a tool with its own larger budget passes whole and declares anthropic/maxResultSizeChars', async () => {
    const server = serverWith(memoryResultStore())
    const { result } = await send(server, 'tools/call', { name: 'wide', arguments: {} }, ALICE)
    expect(result.content).toEqual([{ type: 'text', text: 'w'.repeat(150_000) }])
    const tools = (await send(server, 'tools/list', {})).result.tools
    expect(tools.find((tool: { name: string }) => tool.name === 'wide')._meta).toEqual({
      'anthropic/maxResultSizeChars': 200_000,
    })
    expect(tools.find((tool: { name: string }) => tool.name === 'echo')._meta).toBeUndefined()
  })

  it('sends a partial result over the budget as its preview and link, and one within it as sent', async () => {
    const server = serverWith(memoryResultStore())
    server.tool('stream', { input: z.object({}), streaming: true }, async (_args, ctx) => {
      await ctx.partial('small')
      await ctx.partial({ content: [{ type: 'text', text: 's'.repeat(80_000) }], final: true })
      return text('done')
    })
    const handle = createMcpHandler(server)
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { partialResults: {} },
      partialResultToken: 't',
    }
    const response = await handle(
      new Request('http://localhost/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'stream', arguments: {}, _meta: meta },
        }),
      }),
      undefined,
    )
    const messages = []
    for await (const event of readSse(response.body as ReadableStream<Uint8Array>)) messages.push(JSON.parse(event.data))
    const partials = messages
      .filter((message) => message.method === 'notifications/tools/partial_result')
      .map((message) => message.params)
    expect(partials[0].content).toEqual([{ type: 'text', text: 'small' }])
    expect(partials[1]).toMatchObject({
      seq: 1,
      final: true,
      content: [{ type: 'text' }, { type: 'resource_link', size: 80_000 }],
    })
    expect(messages.at(-1).result.content).toEqual([{ type: 'text', text: 'done' }])
  })

  it('keeps results whole without the results option', async () => {
    const server = createMcpServer({ name: 't', version: '1' })
    server.tool('echo', { input: z.object({}) }, () => text('q'.repeat(300_000)))
    const { result } = await send(server, 'tools/call', { name: 'echo', arguments: {} }, ALICE)
    expect(result.content[0].text).toHaveLength(300_000)
  })

  it('refuses bad options at start-up', () => {
    const store = memoryResultStore()
    expect(
      configError(() => createMcpServer({ name: 't', version: '1', results: resultBudgets({ store, ttlMs: 0 }) })).message,
    ).toMatch(/results\.ttlMs must be a positive integer/)
    expect(configError(() => createMcpServer({ name: 't', version: '1', results: resultBudgets({} as never) })).message).toMatch(
      /results\.store must be a result store/,
    )
    // The options object as written before resultBudgets: start-up says what to write.
    expect(configError(() => createMcpServer({ name: 't', version: '1', results: { store } as never })).message).toBe(
      'The results option must be built by resultBudgets({ store }) (docs/results.md)',
    )
    const server = createMcpServer({ name: 't', version: '1' })
    expect(configError(() => server.tool('x', { input: z.object({}), maxResultBytes: -1 }, () => text(''))).message).toMatch(
      /maxResultBytes must be a positive integer/,
    )
  })
})
