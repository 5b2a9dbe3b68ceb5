// Regressions: each case failed before its fix (SSE CRLF split across chunks, multi-variable
// URI-template operators, partial merging that lost annotations or beat the byte budget,
// misplaced x-mcp-header, unbounded listen inboxes).
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import { Listener, ListenHub, MAX_INBOX } from '../../packages/mcp-edge/src/server/events/listen-hub.ts'
import { Outbox } from '../../packages/mcp-edge/src/server/outbox.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { compileUriTemplate } from '../../packages/mcp-edge/src/server/uri-template.ts'
import { drain } from './support.ts'

const enc = new TextEncoder()
async function sse(parts: string[]) {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(enc.encode(p))
      c.close()
    },
  })
  const out = []
  for await (const e of readSse(stream)) out.push(e)
  return out
}

describe('regressions', () => {
  it('B1 readSse: CRLF split between chunks', async () => {
    expect(await sse(['event: e\r', '\ndata: a\r\ndata: b\r\n\r\n'])).toEqual([{ event: 'e', data: 'a\nb' }])
  })
  it('B1b readSse: CRLF split between data lines', async () => {
    expect(await sse(['data: a\r', '\ndata: b\r\n\r\n'])).toEqual([{ event: 'message', data: 'a\nb' }])
  })
  it('B2 uri-template {;x,y}', () => {
    expect(compileUriTemplate('map://pt{;x,y}').match('map://pt;x=1;y=2')).toEqual({ x: '1', y: '2' })
  })
  it('B2b uri-template {.a,b}', () => {
    expect(compileUriTemplate('file:///n{.a,b}').match('file:///n.x.y')).toEqual({ a: 'x', b: 'y' })
  })
  it('B2c uri-template {#a,b}', () => {
    expect(compileUriTemplate('doc://g{#a,b}').match('doc://g#x,y')).toEqual({ a: 'x', b: 'y' })
  })
  it('B3 outbox merge keeps annotations of the incoming chunk', () => {
    const o = new Outbox({ maxQueuedChunks: 1 })
    void o.pushPartial('t', { content: [{ type: 'text', text: 'a' }] })
    void o.pushPartial('t', { content: [{ type: 'text', text: 'b', annotations: { audience: ['user'] } }] })
    const sent = drain(o).flatMap((m) => (m as { params: { content: unknown[] } }).params.content)
    expect(sent).toContainEqual({ type: 'text', text: 'b', annotations: { audience: ['user'] } })
  })
  it('B4 outbox budget with chunks each under the budget', () => {
    const o = new Outbox({ maxQueuedChunks: 2, maxBufferedBytes: 1000 })
    void o.pushPartial('t', { content: [{ type: 'text', text: '' }] })
    void o.pushPartial('t', { content: [{ type: 'text', text: 'x'.repeat(700) }] })
    void o.pushPartial('t', { content: [{ type: 'text', text: 'y'.repeat(800) }] })
    expect(o.stats.peakBufferedBytes).toBeLessThanOrEqual(1000)
  })
  it('B5 x-mcp-header under items fails at the tool’s first use (its schema is converted then)', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    server.tool('t', { input: z.object({ tags: z.array(z.string().meta({ 'x-mcp-header': 'Tag' })) }) }, () => ({
      content: [],
    }))
    expect(() => server.headerParams('t')).toThrow(/^tool "t" at \/properties\/tags\/items: x-mcp-header/)
  })
  it('B5b x-mcp-header inside anyOf fails', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    expect(() =>
      server.tool(
        't',
        { input: { jsonSchema: { type: 'object', properties: { p: { anyOf: [{ type: 'string', 'x-mcp-header': 'P' }] } } } } },
        () => ({ content: [] }),
      ),
    ).toThrow()
  })
  it('B6 listen inboxes stay bounded and do not repeat a pending notification', () => {
    const hub = new ListenHub()
    const listener = new Listener('l1', { resourceSubscriptions: ['file:///data'], toolsListChanged: true }, null)
    hub.add(listener)
    for (let i = 0; i < 5000; i++) hub.publish({ type: 'resourceUpdated', uri: `file:///data/${i}` })
    for (let i = 0; i < 5000; i++) hub.publish({ type: 'listChanged', list: 'tools' })
    expect(listener.pending).toBe(MAX_INBOX)
    const inbox = listener.take()
    expect(inbox.filter((message) => message.method === 'notifications/tools/list_changed')).toHaveLength(1)
    expect(inbox.at(-1)?.method).toBe('notifications/tools/list_changed')
  })
  it('an in-isolate publish counts the listeners that took the event, not every listener (its span says so)', () => {
    const hub = new ListenHub()
    hub.add(new Listener('a', { resourceSubscriptions: ['file:///data'] }, null))
    hub.add(new Listener('b', { toolsListChanged: true }, null))
    hub.add(new Listener('c', { resourceSubscriptions: ['file:///data'] }, 'alice'))
    expect(hub.publish({ type: 'resourceUpdated', uri: 'file:///data/1' })).toBe(2)
    expect(hub.publish({ type: 'resourceUpdated', uri: 'file:///data/2', audience: ['alice'] })).toBe(1)
    expect(hub.publish({ type: 'listChanged', list: 'prompts' })).toBe(0)
  })
})

describe('regressions found in review', () => {
  it('counts structuredContent in the byte budget of a stream', () => {
    const outbox = new Outbox({ maxBufferedBytes: 100_000 })
    const big = { rows: 'r'.repeat(10_000) }
    for (let i = 0; i < 200; i++) void outbox.pushPartial('t', { content: [], structuredContent: big })
    expect(outbox.stats.peakBufferedBytes).toBeLessThanOrEqual(100_000)
    expect(outbox.stats.dropped).toBeGreaterThan(150)
  })
})

describe('configuration errors, found in review', () => {
  it('answers 500 saying what to set when the env-dependent services cannot be built, and builds them once', async () => {
    const { createMcpHandler } = await import('../../packages/mcp-edge/src/http/handler.ts')
    const { createKeyRing } = await import('../../packages/mcp-edge/src/server/request-state.ts')
    let builds = 0
    const handle = createMcpHandler(createMcpServer<{ KEYS?: string }>({ name: 's', version: '1' }), {
      services: (env: { KEYS?: string }) => {
        builds++
        createKeyRing(env.KEYS)
        return {}
      },
    })
    const env = {}
    for (let i = 0; i < 2; i++) {
      const response = await handle(new Request('http://127.0.0.1/mcp', { method: 'POST', body: '{}' }), env)
      expect(response.status).toBe(500)
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32603,
          message: expect.stringMatching(
            /^Server misconfigured: MCP_STATE_KEYS is not set\. Generate one with: .*wrangler secret put MCP_STATE_KEYS/,
          ),
        },
      })
    }
    expect(builds).toBe(1)
  })

  it('keeps any other failure to build the services generic (500), with no message of its own', async () => {
    const { createMcpHandler } = await import('../../packages/mcp-edge/src/http/handler.ts')
    const handle = createMcpHandler(createMcpServer({ name: 's', version: '1' }), {
      services: () => {
        throw new Error('secret detail')
      },
    })
    const response = await handle(new Request('http://127.0.0.1/mcp', { method: 'POST', body: '{}' }), {})
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Server misconfigured: see the server logs' },
    })
  })
})
