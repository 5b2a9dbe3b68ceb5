/**
 * The whole pipeline in Node: `createMcpHandler` over a small server, with Web Request/Response.
 * Covers what is awkward over real HTTP: tiny page sizes, short listen timeouts, small keepalive
 * intervals, unbounded chunked bodies, and handlers that fail in particular ways.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import type { McpHttpOptions } from '../../packages/mcp-edge/src/http/handler.ts'
import { ToolError } from '../../packages/mcp-edge/src/server/errors.ts'
import { input } from '../../packages/mcp-edge/src/server/input/input.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { McpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { ServerOptions } from '../../packages/mcp-edge/src/server/types.ts'
import { records, recordsNamed } from '../support/logs.ts'

const ENDPOINT = 'http://127.0.0.1:8787/mcp'
const VERSION = '2026-07-28'
const SERVER_INFO = { name: 'unit', version: '1.0.0' }
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

type Message = {
  jsonrpc?: string
  id?: string | number
  method?: string
  params?: Record<string, unknown>
  result?: Record<string, unknown>
  error?: { code: number; message: string; data?: unknown }
}

interface Call {
  id?: string | number
  params?: Record<string, unknown>
  capabilities?: Record<string, unknown>
  meta?: Record<string, unknown>
  headers?: Record<string, string | null>
}

let nextId = 1

function request(method: string, call: Call = {}): Request {
  const params = call.params ?? {}
  const headers = new Headers({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
  })
  const name = method === 'resources/read' ? params.uri : params.name
  if (typeof name === 'string') headers.set('mcp-name', name)
  for (const [key, value] of Object.entries(call.headers ?? {})) {
    if (value === null) headers.delete(key)
    else headers.set(key, value)
  }
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': VERSION,
    'io.modelcontextprotocol/clientCapabilities': call.capabilities ?? {},
    ...call.meta,
  }
  const body = { jsonrpc: '2.0', id: call.id ?? nextId++, method, params: { ...params, _meta } }
  return new Request(ENDPOINT, { method: 'POST', headers, body: JSON.stringify(body) })
}

async function read(response: Response): Promise<{ status: number; sse: boolean; messages: Message[]; last: Message }> {
  const sse = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  const messages: Message[] = []
  if (sse && response.body) {
    for await (const event of readSse(response.body)) messages.push(JSON.parse(event.data) as Message)
  } else {
    const text = await response.text()
    if (text !== '') messages.push(JSON.parse(text) as Message)
  }
  return { status: response.status, sse, messages, last: messages.at(-1) ?? {} }
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function serve(configure: (server: McpServer) => void, options: Partial<ServerOptions> = {}, http: McpHttpOptions<unknown> = {}) {
  const server = createMcpServer({ ...SERVER_INFO, ...options })
  configure(server)
  const handle = createMcpHandler(server, http)
  return { server, handle: (req: Request) => handle(req, undefined) }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('request gates, in order', () => {
  const { handle } = serve((server) => {
    server.tool('echo', { input: z.object({}) }, () => text('ok'))
    server.tool('needs_sampling', { input: z.object({}), requires: ['sampling'] }, () => text('ok'))
  })
  const raw = (body: string, headers: Record<string, string> = {}) =>
    new Request(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    })

  it('answers every rejection with the status, code and id the spec gives', async () => {
    const cases: Array<[string, Request, number, number | undefined, string | number | undefined]> = [
      ['GET', new Request(ENDPOINT), 405, -32600, undefined],
      ['bad Accept', request('tools/list', { headers: { accept: 'application/json' } }), 406, -32600, undefined],
      ['bad content type', request('tools/list', { headers: { 'content-type': 'text/plain' } }), 415, -32600, undefined],
      ['invalid JSON', raw('{"jsonrpc":'), 400, -32700, undefined],
      [
        'batch',
        raw('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', { 'mcp-protocol-version': VERSION }),
        400,
        -32600,
        undefined,
      ],
      ['null id', raw('{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{}}'), 400, -32600, undefined],
      [
        'missing _meta',
        raw('{"jsonrpc":"2.0","id":"m","method":"tools/list","params":{}}', {
          'mcp-protocol-version': VERSION,
          'mcp-method': 'tools/list',
        }),
        400,
        -32602,
        'm',
      ],
      [
        'header mismatch',
        request('tools/list', { id: 'h', headers: { 'mcp-protocol-version': '2025-11-25' } }),
        400,
        -32020,
        'h',
      ],
      [
        'missing Mcp-Name',
        request('tools/call', { id: 'n', params: { name: 'echo' }, headers: { 'mcp-name': null } }),
        400,
        -32020,
        'n',
      ],
      ['unknown method', request('tools/unknown', { id: 'u' }), 404, -32601, 'u'],
      ['missing capability', request('tools/call', { id: 'c', params: { name: 'needs_sampling' } }), 400, -32021, 'c'],
      ['unknown tool', request('tools/call', { id: 't', params: { name: 'nope' } }), 200, -32602, 't'],
    ]
    for (const [label, req, status, code, id] of cases) {
      const { status: got, last } = await read(await handle(req))
      expect([label, got, last.error?.code, last.id]).toEqual([label, status, code, id])
    }
  })

  it('answers an unsupported version with -32022 and the supported list', async () => {
    const req = request('tools/list', {
      id: 'v',
      headers: { 'mcp-protocol-version': 'v999.0.0' },
      meta: { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' },
    })
    const { status, last } = await read(await handle(req))
    expect(status).toBe(400)
    expect(last).toEqual({
      jsonrpc: '2.0',
      id: 'v',
      error: {
        code: -32022,
        message: 'Unsupported protocol version: v999.0.0',
        data: { supported: [VERSION], requested: 'v999.0.0' },
      },
    })
  })

  it('accepts a notification with 202 and no body', async () => {
    const response = await handle(raw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}'))
    expect(response.status).toBe(202)
    expect(await response.text()).toBe('')
  })

  it('refuses GET with Allow: POST', async () => {
    const response = await handle(new Request(ENDPOINT))
    expect(response.headers.get('allow')).toBe('POST')
  })
})

describe('pagination through tools/list', () => {
  it('walks every tool with a small page size, following nextCursor', async () => {
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo']
    const { handle } = serve(
      (server) => {
        for (const name of names) server.tool(name, { input: z.object({}) }, () => text(name))
      },
      { pageSize: 2 },
    )
    const seen: string[] = []
    const cursors: Array<string | undefined> = []
    let cursor: string | undefined
    do {
      const { status, last } = await read(await handle(request('tools/list', { params: cursor === undefined ? {} : { cursor } })))
      expect(status).toBe(200)
      const result = last.result as {
        tools: { name: string }[]
        nextCursor?: string
        ttlMs: number
        cacheScope: string
        resultType: string
        _meta: unknown
      }
      expect(result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' })
      expect(result._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': SERVER_INFO })
      seen.push(...result.tools.map((tool) => tool.name))
      cursor = result.nextCursor
      cursors.push(cursor)
    } while (cursor !== undefined)
    expect(seen).toEqual(names)
    expect(cursors.map((value) => value !== undefined)).toEqual([true, true, false])
  })

  it('answers a forged cursor with -32602, echoing the id', async () => {
    const { handle } = serve((server) => server.tool('a', { input: z.object({}) }, () => text('a')), { pageSize: 1 })
    const { status, last } = await read(await handle(request('tools/list', { id: 9, params: { cursor: 'forged' } })))
    expect(status).toBe(200)
    expect(last).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32602, message: 'Invalid params: invalid cursor' } })
  })
})

describe('subscriptions/listen', () => {
  it('acknowledges the honoured filter, then ends gracefully after listenTimeoutMs with the listen result', async () => {
    const { handle } = serve((server) => server.tool('a', { input: z.object({}) }, () => text('a')), {
      listenTimeoutMs: 100,
      events: 'isolate',
    })
    const response = await handle(
      request('subscriptions/listen', {
        id: 'listen-1',
        params: { notifications: { toolsListChanged: true, promptsListChanged: true } },
      }),
    )
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('x-accel-buffering')).toBe('no')
    const { messages } = await read(response)
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        // No prompts are registered, so promptsListChanged is left out of the acknowledgement.
        params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION_ID]: 'listen-1' } },
      },
      {
        jsonrpc: '2.0',
        id: 'listen-1',
        result: {
          resultType: 'complete',
          _meta: { [SUBSCRIPTION_ID]: 'listen-1', 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
        },
      },
    ])
  })

  it('delivers list changes tagged with the subscription id, and only the types asked for', async () => {
    const { server, handle } = serve(
      (s) => {
        s.tool('a', { input: z.object({}) }, () => text('a'))
        s.prompt('p', {}, () => ({ messages: [] }))
      },
      { listenTimeoutMs: 60_000, events: 'isolate' },
    )
    const response = await handle(
      request('subscriptions/listen', { id: 7, params: { notifications: { toolsListChanged: true } } }),
    )
    const events = readSse(response.body as ReadableStream<Uint8Array>)
    const next = async () => JSON.parse(((await events.next()).value as { data: string }).data) as Message
    expect((await next()).method).toBe('notifications/subscriptions/acknowledged')
    server.notifyListChanged('prompts') // not asked for: nothing is sent
    server.tool('b', { input: z.object({}) }, () => text('b'))
    expect(await next()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { [SUBSCRIPTION_ID]: 7 } },
    })
    await events.return(undefined)
    await response.body?.cancel()
  })
})

describe('transport guards through the handler', () => {
  const { handle } = serve(
    (server) => server.tool('a', { input: z.object({}) }, () => text('a')),
    {},
    // The Host guard on its own: anonymous callers from any host (fail-closed has its own tests).
    { allowedHosts: ['mcp.example.com'], allowAnonymous: true },
  )

  it('refuses a Host outside allowedHosts with 403 and an id-less error', async () => {
    const response = await handle(request('tools/list', { headers: { host: 'evil.example' } }))
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Forbidden: host evil.example is not allowed' },
    })
  })

  it('serves a listed Host', async () => {
    expect((await handle(request('tools/list', { headers: { host: 'mcp.example.com' } }))).status).toBe(200)
  })

  it('refuses it the same way for a 2025-era initialize, and serves that client on a listed Host', async () => {
    const initialize = (host: string) =>
      handle(
        new Request(ENDPOINT, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
          }),
        }),
      )
    const refused = await initialize('evil.example')
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Forbidden: host evil.example is not allowed' },
    })
    const served = await initialize('mcp.example.com')
    expect(served.status).toBe(200)
    expect(((await served.json()) as Message).result?.protocolVersion).toBe('2025-11-25')
  })

  it('gives each JSON answer headers of its own (a change to one shows in no other)', async () => {
    const first = await handle(request('tools/list', { headers: { host: 'mcp.example.com' } }))
    expect(first.headers.get('content-type')).toBe('application/json')
    first.headers.set('content-type', 'text/plain')
    first.headers.set('x-changed', '1')
    const second = await handle(request('tools/list', { headers: { host: 'mcp.example.com' } }))
    expect(second.status).toBe(200)
    expect(second.headers.get('content-type')).toBe('application/json')
    expect(second.headers.has('x-changed')).toBe(false)
  })

  it('refuses a foreign Origin with 403', async () => {
    const response = await handle(request('tools/list', { headers: { host: 'mcp.example.com', origin: 'https://evil.example' } }))
    expect(response.status).toBe(403)
    expect((await response.json()).error.message).toBe('Forbidden: origin https://evil.example is not allowed')
  })
})

describe('authentication', () => {
  it('answers 401 with a Bearer challenge when authenticate returns nothing, without reading the body', async () => {
    const { handle } = serve(
      (server) => server.tool('a', { input: z.object({}) }, () => text('a')),
      {},
      { authenticate: () => undefined },
    )
    const req = request('tools/list')
    const response = await handle(req)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"')
    expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Unauthorized' } })
    expect(req.bodyUsed).toBe(false)
  })

  it('names the resource metadata in the challenge when configured', async () => {
    const { handle } = serve(
      (server) => server.tool('a', { input: z.object({}) }, () => text('a')),
      {},
      {
        authenticate: async () => null,
        resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource',
      },
    )
    const response = await handle(request('tools/list'))
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"',
    )
  })

  it('hands the principal to the handler', async () => {
    const { handle } = serve(
      (server) => server.tool('whoami', { input: z.object({}) }, (_args, ctx) => text(ctx.principal?.subject ?? 'nobody')),
      {},
      {
        authenticate: (req) => (req.headers.get('authorization') === 'Bearer good' ? { subject: 'user-42' } : undefined),
      },
    )
    const { last } = await read(
      await handle(request('tools/call', { params: { name: 'whoami' }, headers: { authorization: 'Bearer good' } })),
    )
    expect(last.result?.content).toEqual([{ type: 'text', text: 'user-42' }])
    expect(
      (await handle(request('tools/call', { params: { name: 'whoami' }, headers: { authorization: 'Bearer bad' } }))).status,
    ).toBe(401)
  })
})

describe('body size limit', () => {
  const { handle } = serve(
    (server) =>
      server
        .tool('a', { input: z.object({}) }, () => text('a'))
        .tool('echo', { input: z.object({ s: z.string() }) }, ({ s }) => text(s)),
    {},
    { maxBodyBytes: 1024 },
  )

  it('reads a chunked body fed one byte at a time, characters split across chunks kept whole', async () => {
    const word = 'é€😀 naïve'
    const bytes = new Uint8Array(await request('tools/call', { params: { name: 'echo', arguments: { s: word } } }).arrayBuffer())
    let next = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next === bytes.length) controller.close()
        else controller.enqueue(bytes.slice(next, ++next))
      },
    })
    const req = new Request(ENDPOINT, {
      method: 'POST',
      headers: request('tools/call', { params: { name: 'echo' } }).headers,
      body,
      duplex: 'half',
    } as RequestInit)
    expect(req.headers.get('content-length')).toBeNull()
    const { status, last } = await read(await handle(req))
    expect(status).toBe(200)
    expect(last.result?.content).toEqual([{ type: 'text', text: word }])
  })

  it('refuses an endless chunked body with 413 and stops reading it', async () => {
    let pulled = 0
    let cancelled!: () => void
    const wasCancelled = new Promise<void>((resolve) => {
      cancelled = resolve
    })
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++
        controller.enqueue(new Uint8Array(256).fill(0x20))
      },
      cancel() {
        cancelled()
      },
    })
    const req = new Request(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(req.headers.get('content-length')).toBeNull()
    const response = await handle(req)
    expect(response.status).toBe(413)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Request body too large: the limit is 1024 bytes' },
    })
    await wasCancelled
    expect(pulled).toBeLessThan(16)
  })

  it('refuses a declared Content-Length over the limit before reading', async () => {
    const req = new Request(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '5000' },
      body: 'x'.repeat(5000),
    })
    const response = await handle(req)
    expect(response.status).toBe(413)
    expect(req.bodyUsed).toBe(false)
  })

  it('accepts a body of exactly the limit', async () => {
    const base = JSON.parse(await request('tools/list', { id: 1 }).text()) as Record<string, unknown>
    const padding = 1024 - JSON.stringify({ ...base, pad: '' }).length
    const body = JSON.stringify({ ...base, pad: ' '.repeat(padding) })
    expect(new TextEncoder().encode(body).length).toBe(1024)
    const req = request('tools/list')
    const response = await handle(new Request(ENDPOINT, { method: 'POST', headers: req.headers, body }))
    expect(response.status).toBe(200)
  })
})

describe('SSE responses', () => {
  it('opens SSE at the first notification and fills silences with keepalive comments', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const { handle } = serve(
      (server) =>
        server.tool('slow', { input: z.object({}) }, async (_args, ctx) => {
          ctx.progress(1, 2, 'started')
          await gate
          return text('finished')
        }),
      {},
      { keepaliveMs: 10 },
    )
    const response = await handle(
      request('tools/call', { id: 'slow-1', params: { name: 'slow' }, meta: { progressToken: 'p1' } }),
    )
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let wire = ''
    // Read until a keepalive comment follows the progress event, then let the tool finish.
    while (!/"notifications\/progress"[^\n]*\n\n(?:[\s\S]*\n\n)?:\n\n/.test(wire)) {
      const { done, value } = await reader.read()
      if (done) throw new Error(`stream ended early: ${wire}`)
      wire += decoder.decode(value, { stream: true })
    }
    release()
    for (let step = await reader.read(); !step.done; step = await reader.read())
      wire += decoder.decode(step.value, { stream: true })
    const events = wire.split('\n\n').filter((block) => block !== '')
    expect(events[0]).toBe(
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2,"message":"started"}}',
    )
    expect(events.slice(1, -1).every((block) => block === ':')).toBe(true)
    expect(events.length).toBeGreaterThan(2)
    const final = JSON.parse((events.at(-1) as string).replace(/^event: message\ndata: /, '')) as Message
    expect(final).toMatchObject({ id: 'slow-1', result: { content: [{ type: 'text', text: 'finished' }] } })
  })

  it('answers with plain JSON when nothing is sent before the result', async () => {
    const { handle } = serve((server) =>
      server.tool('quiet', { input: z.object({}) }, (_args, ctx) => {
        ctx.progress(1) // no progressToken on this request: no notification
        return text('done')
      }),
    )
    const response = await handle(request('tools/call', { params: { name: 'quiet' } }))
    expect(response.headers.get('content-type')).toBe('application/json')
  })
})

describe('tool failures', () => {
  const { handle } = serve((server) => {
    server.tool(
      'typed',
      { input: z.object({ good: z.boolean() }), output: z.object({ temperature: z.number() }) },
      ({ good }) => ({ content: [], structuredContent: good ? { temperature: 21.5 } : { temperature: 'warm' } }),
    )
    server.tool('refuses', { input: z.object({}) }, () => {
      throw new ToolError('No flights on that date')
    })
    server.tool('crashes', { input: z.object({}) }, () => {
      throw new Error('db password is hunter2')
    })
    server.tool('strict', { input: z.object({ city: z.string() }) }, ({ city }) => text(city))
    server.tool(
      'checked_later',
      {
        input: z.object({ temperature: z.number() }),
        output: z.object({ temperature: z.number().refine(async (value) => value < 60, 'too hot') }),
      },
      ({ temperature }) => ({ content: [], structuredContent: { temperature } }),
    )
  })

  it('mirrors valid structuredContent as text', async () => {
    const { status, last } = await read(
      await handle(request('tools/call', { params: { name: 'typed', arguments: { good: true } } })),
    )
    expect(status).toBe(200)
    expect(last.result).toMatchObject({
      content: [{ type: 'text', text: '{"temperature":21.5}' }],
      structuredContent: { temperature: 21.5 },
      resultType: 'complete',
    })
  })

  it('answers -32603 when structuredContent does not match the outputSchema', async () => {
    const { status, last } = await read(
      await handle(request('tools/call', { id: 'o', params: { name: 'typed', arguments: { good: false } } })),
    )
    expect(status).toBe(200)
    expect(last).toEqual({
      jsonrpc: '2.0',
      id: 'o',
      error: { code: -32603, message: 'Tool typed returned structuredContent that does not match its outputSchema' },
    })
  })

  it('awaits an output schema with an async refinement: a match is mirrored, a mismatch is -32603', async () => {
    for (let i = 0; i < 2; i++) {
      const ok = await read(
        await handle(request('tools/call', { params: { name: 'checked_later', arguments: { temperature: 20 } } })),
      )
      expect(ok.last.result).toMatchObject({ content: [{ type: 'text', text: '{"temperature":20}' }] })
      const hot = await read(
        await handle(request('tools/call', { params: { name: 'checked_later', arguments: { temperature: 70 } } })),
      )
      expect(hot.last.error).toEqual({
        code: -32603,
        message: 'Tool checked_later returned structuredContent that does not match its outputSchema',
      })
    }
  })

  it('turns a ToolError into an isError result', async () => {
    const { status, last } = await read(await handle(request('tools/call', { params: { name: 'refuses' } })))
    expect(status).toBe(200)
    expect(last.result).toEqual({
      content: [{ type: 'text', text: 'No flights on that date' }],
      isError: true,
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': SERVER_INFO },
    })
  })

  it('turns a plain Error into a bare -32603, logs it, and leaks nothing', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    const response = await handle(request('tools/call', { id: 'x', params: { name: 'crashes' } }))
    const body = await response.text()
    expect(response.status).toBe(200)
    expect(JSON.parse(body)).toEqual({ jsonrpc: '2.0', id: 'x', error: { code: -32603, message: 'Internal error' } })
    expect(body).not.toContain('hunter2')
    // Two error lines: the failure with its stack, for the operator, and the request's own line.
    const [failure, line] = records(logged)
    expect(failure).toMatchObject({
      level: 'error',
      msg: 'request failed',
      method: 'tools/call',
      error: 'Error: db password is hunter2',
    })
    expect(line).toMatchObject({
      level: 'error',
      msg: 'mcp request',
      method: 'tools/call',
      target: 'crashes',
      error_code: -32603,
    })
    expect(JSON.stringify(line)).not.toContain('hunter2')
    expect(logged).toHaveBeenCalledTimes(2)
  })

  it('refuses stream bounds that are not positive integers, and keepalive intervals outside 1 ms to 2^31 - 1 ms, at start-up, naming the option', () => {
    const server = createMcpServer(SERVER_INFO)
    for (const stream of [{ maxQueuedChunks: 0 }, { maxBufferedBytes: -1 }, { maxBufferedBytes: 1.5 }]) {
      const [name] = Object.keys(stream)
      expect(() => createMcpHandler(server, { stream })).toThrow(`stream.${name} must be a positive integer`)
    }
    expect(() => createMcpHandler(server, { stream: { maxQueuedChunks: 1, maxBufferedBytes: 1024 } })).not.toThrow()
    // A keepalive of 0 or NaN would time out on every pull: an idle stream would spin sending comments.
    // A timer longer than 2^31 - 1 ms fires at once (the web's timer rule), so that would spin too.
    for (const keepaliveMs of [0, -1, Number.NaN, 2.5, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(() => createMcpHandler(server, { keepaliveMs })).toThrow(
        `keepaliveMs must be a positive integer up to 2147483647, or unset (got ${keepaliveMs})`,
      )
    }
    expect(() => createMcpHandler(server, { keepaliveMs: 1000 })).not.toThrow()
    expect(() => createMcpHandler(server, { keepaliveMs: 2 ** 31 - 1 })).not.toThrow()
  })

  it('answers a batch item whose run failed unexpectedly with -32603, logged, and the other items as usual', async () => {
    const { server, handle: serveBatch } = serve((server) => server.tool('echo', { input: z.object({}) }, () => text('ok')))
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    vi.spyOn(server, 'handle').mockRejectedValueOnce(new Error('boom hunter2'))
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } })
    const response = await serveBatch(
      new Request(ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify([call(1), call(2)]),
      }),
    )
    const body = await response.text()
    expect(response.status).toBe(200)
    const answers = JSON.parse(body) as Message[]
    expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error' } })
    expect(answers[1]?.id).toBe(2)
    expect(answers[1]?.result?.content).toEqual([{ type: 'text', text: 'ok' }])
    expect(body).not.toContain('hunter2')
    expect(recordsNamed(logged, 'request failed')).toEqual([
      expect.objectContaining({ method: 'batch item', error: 'Error: boom hunter2' }),
    ])
  })

  it('reports arguments that fail the input schema as an isError result (SEP-1303)', async () => {
    const { last } = await read(await handle(request('tools/call', { params: { name: 'strict', arguments: { city: 3 } } })))
    expect(last.result?.isError).toBe(true)
    const content = (last.result?.content ?? []) as { text: string }[]
    expect(content[0]?.text).toMatch(/^Invalid arguments for tool strict: city: /)
  })
})

describe('Mcp-Param headers through the handler', () => {
  const { handle } = serve((server) =>
    server.tool('deploy', { input: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }) }, ({ region }) =>
      text(region),
    ),
  )

  it('serves a call whose header mirrors the argument', async () => {
    const { status, last } = await read(
      await handle(
        request('tools/call', { params: { name: 'deploy', arguments: { region: 'eu' } }, headers: { 'mcp-param-region': 'eu' } }),
      ),
    )
    expect(status).toBe(200)
    expect(last.result?.content).toEqual([{ type: 'text', text: 'eu' }])
  })

  it('refuses a missing or different header with 400 -32020 before the tool runs', async () => {
    const missing = await read(
      await handle(request('tools/call', { id: 1, params: { name: 'deploy', arguments: { region: 'eu' } } })),
    )
    expect([missing.status, missing.last.error]).toEqual([
      400,
      { code: -32020, message: 'Header mismatch: missing Mcp-Param-Region header for argument region' },
    ])
    const different = await read(
      await handle(
        request('tools/call', { params: { name: 'deploy', arguments: { region: 'eu' } }, headers: { 'mcp-param-region': 'us' } }),
      ),
    )
    expect(different.last.error?.message).toBe(
      `Header mismatch: Mcp-Param-Region header value 'us' does not match body value "eu"`,
    )
  })
})

describe('multi-round-trip requests through the handler', () => {
  const states = new RequestStateCodec(createKeyRing(`k1:${Buffer.alloc(32, 5).toString('base64')}`), { onReject: () => {} })
  const { handle } = serve(
    (server) =>
      server.tool(
        'greet',
        { input: z.object({ formal: z.boolean() }), annotations: { readOnlyHint: true } },
        async ({ formal }, ctx) => {
          const { who } = await ctx.ask({ who: input.form('Name?', z.object({ name: z.string() })) })
          if (who.action !== 'accept') return { ...text('No name given'), isError: true }
          return text(`${formal ? 'Good day' : 'Hi'}, ${who.content.name}`)
        },
      ),
    {},
    { services: () => ({ requestState: states }) },
  )
  const capabilities = { elicitation: {} }

  it('asks, then answers once the retry brings the input and the sealed state', async () => {
    const first = await read(
      await handle(request('tools/call', { params: { name: 'greet', arguments: { formal: true } }, capabilities })),
    )
    const result = first.last.result as { resultType: string; inputRequests: Record<string, unknown>; requestState: string }
    expect(result.resultType).toBe('input_required')
    expect(result.inputRequests).toEqual({
      who: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    })
    const retry = await read(
      await handle(
        request('tools/call', {
          params: {
            name: 'greet',
            arguments: { formal: true },
            inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
            requestState: result.requestState,
          },
          capabilities,
        }),
      ),
    )
    expect(retry.last.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Good day, Ada' }] })
  })

  it('refuses a state replayed with different arguments, or tampered with, with -32602', async () => {
    const first = await read(
      await handle(request('tools/call', { params: { name: 'greet', arguments: { formal: true } }, capabilities })),
    )
    const state = (first.last.result as { requestState: string }).requestState
    const answers = { who: { action: 'accept', content: { name: 'Ada' } } }
    for (const [args, requestState] of [
      [{ formal: false }, state],
      [{ formal: true }, `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`],
    ] as const) {
      const { status, last } = await read(
        await handle(
          request('tools/call', {
            id: 'r',
            params: { name: 'greet', arguments: args, inputResponses: answers, requestState },
            capabilities,
          }),
        ),
      )
      expect([status, last.error]).toEqual([200, { code: -32602, message: 'Invalid params: invalid requestState' }])
    }
  })

  it('answers -32021 when the request cannot carry the question', async () => {
    const { status, last } = await read(
      await handle(request('tools/call', { params: { name: 'greet', arguments: { formal: true } } })),
    )
    expect(status).toBe(400)
    expect(last.error?.code).toBe(-32021)
    expect(last.error?.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
  })
})

describe('streams and cancellation', () => {
  it('aborts the handler signal when the client closes the SSE stream', async () => {
    let aborted!: () => void
    const sawAbort = new Promise<void>((resolve) => {
      aborted = resolve
    })
    const { handle } = serve((server) =>
      server.tool('forever', { input: z.object({}) }, async (_args, ctx) => {
        ctx.progress(1)
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
        aborted()
        return text('stopped')
      }),
    )
    const response = await handle(request('tools/call', { params: { name: 'forever' }, meta: { progressToken: 'p' } }))
    const events = readSse(response.body as ReadableStream<Uint8Array>)
    expect(JSON.parse(((await events.next()).value as { data: string }).data).method).toBe('notifications/progress')
    await events.return(undefined)
    await response.body?.cancel()
    await sawAbort
  })

  it('sends log messages at or above the requested level only, and none without a level', async () => {
    const { handle } = serve((server) =>
      server.tool('chatty', { input: z.object({}) }, (_args, ctx) => {
        for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, `${level} line`, 'unit')
        return text('done')
      }),
    )
    const filtered = await read(
      await handle(
        request('tools/call', { params: { name: 'chatty' }, meta: { 'io.modelcontextprotocol/logLevel': 'warning' } }),
      ),
    )
    expect(filtered.messages.map((message) => message.params?.level ?? 'response')).toEqual(['warning', 'error', 'response'])
    expect(filtered.messages[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'warning', data: 'warning line', logger: 'unit' },
    })
    const silent = await read(await handle(request('tools/call', { params: { name: 'chatty' } })))
    expect([silent.sse, silent.messages.length]).toEqual([false, 1])
    const invalid = await read(
      await handle(
        request('tools/call', { id: 'l', params: { name: 'chatty' }, meta: { 'io.modelcontextprotocol/logLevel': 'loud' } }),
      ),
    )
    expect(invalid.last).toEqual({
      jsonrpc: '2.0',
      id: 'l',
      error: { code: -32602, message: 'Invalid params: unknown log level "loud"' },
    })
  })

  it('streams partial results only when the call declared partialResults and sent a token', async () => {
    const { handle } = serve((server) =>
      server.tool('count', { input: z.object({}), streaming: true }, async (_args, ctx) => {
        for (const piece of ['one ', 'two ', 'three']) await ctx.partial(piece)
        return text('one two three')
      }),
    )
    const streamed = await read(
      await handle(
        request('tools/call', {
          params: { name: 'count' },
          capabilities: { partialResults: {} },
          meta: { partialResultToken: 'prt' },
        }),
      ),
    )
    expect(
      streamed.messages.slice(0, -1).map((message) => [message.method, message.params?.seq, message.params?.partialResultToken]),
    ).toEqual([
      ['notifications/tools/partial_result', 0, 'prt'],
      ['notifications/tools/partial_result', 1, 'prt'],
      ['notifications/tools/partial_result', 2, 'prt'],
    ])
    expect(streamed.last.result?.content).toEqual([{ type: 'text', text: 'one two three' }])
    // A token without the capability, or the capability without a token: no partials, plain JSON.
    for (const call of [{ meta: { partialResultToken: 'prt' } }, { capabilities: { partialResults: {} } }]) {
      const plain = await read(await handle(request('tools/call', { params: { name: 'count' }, ...call })))
      expect([plain.sse, plain.messages.length]).toEqual([false, 1])
    }
  })

  it('advertises streamingHint on streaming tools', async () => {
    const { handle } = serve((server) => {
      server.tool('count', { input: z.object({}), streaming: true, annotations: { readOnlyHint: true } }, () => text(''))
      server.tool('plain', { input: z.object({}) }, () => text(''))
    })
    const { last } = await read(await handle(request('tools/list')))
    const tools = (last.result?.tools ?? []) as Array<{ name: string; annotations?: unknown }>
    expect(tools.map((tool) => [tool.name, tool.annotations])).toEqual([
      ['count', { readOnlyHint: true, streamingHint: true }],
      ['plain', undefined],
    ])
  })
})

describe('resources, prompts and completion', () => {
  const { handle } = serve((server) => {
    server.resource('config://app', { name: 'config', mimeType: 'application/json' }, (uri) => ({
      contents: [{ uri, text: '{}' }],
    }))
    server.resourceTemplate('users://{id}/profile', { name: 'profile' }, (uri, { id }) =>
      id === 'ghost' ? undefined : { contents: [{ uri, text: `profile of ${id}` }] },
    )
    server.prompt(
      'greet',
      {
        args: z.object({ name: z.string(), tone: z.string().optional() }),
        complete: { name: (value) => Array.from({ length: 150 }, (_, index) => `${value}${index}`) },
      },
      ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Greet ${name}` } }] }),
    )
  })

  it('reads a templated resource with decoded variables and default cache hints', async () => {
    const { last } = await read(await handle(request('resources/read', { params: { uri: 'users://ada%20l/profile' } })))
    expect(last.result).toMatchObject({
      contents: [{ uri: 'users://ada%20l/profile', text: 'profile of ada l' }],
      ttlMs: 0,
      cacheScope: 'private',
      resultType: 'complete',
    })
  })

  it('answers a resource no one serves with -32602 and data.uri, never empty contents', async () => {
    for (const uri of ['users://ghost/profile', 'nothing://here']) {
      const { status, last } = await read(await handle(request('resources/read', { id: 'r', params: { uri } })))
      expect([status, last.error]).toEqual([200, { code: -32602, message: 'Resource not found', data: { uri } }])
    }
  })

  it('lists prompt arguments with required flags and checks them on get', async () => {
    const listed = await read(await handle(request('prompts/list')))
    expect(listed.last.result?.prompts).toEqual([
      {
        name: 'greet',
        arguments: [
          { name: 'name', required: true },
          { name: 'tone', required: false },
        ],
      },
    ])
    const missing = await read(
      await handle(request('prompts/get', { id: 'p', params: { name: 'greet', arguments: { tone: 'warm' } } })),
    )
    expect(missing.last.error).toEqual({ code: -32602, message: 'Missing required argument: name' })
    const wrongType = await read(await handle(request('prompts/get', { params: { name: 'greet', arguments: { name: 7 } } })))
    expect(wrongType.last.error).toEqual({ code: -32602, message: 'Invalid params: argument "name" must be a string' })
    const unknown = await read(await handle(request('prompts/get', { params: { name: 'nope' } })))
    expect(unknown.last.error).toEqual({ code: -32602, message: 'Unknown prompt: nope' })
  })

  it('caps completions at 100 values with total and hasMore', async () => {
    const { last } = await read(
      await handle(
        request('completion/complete', {
          params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } },
        }),
      ),
    )
    const completion = last.result?.completion as { values: string[]; total: number; hasMore: boolean }
    expect(completion.values).toHaveLength(100)
    expect(completion.values[99]).toBe('a99')
    expect([completion.total, completion.hasMore]).toEqual([150, true])
  })

  it("completes a fixed resource's URI with no values, an unknown one with -32602", async () => {
    const complete = async (uri: string) =>
      (
        await read(
          await handle(
            request('completion/complete', {
              params: { ref: { type: 'ref/resource', uri }, argument: { name: 'id', value: '' } },
            }),
          ),
        )
      ).last
    expect((await complete('config://app')).result?.completion).toEqual({ values: [], hasMore: false })
    expect((await complete('config://other')).error).toEqual({
      code: -32602,
      message: 'Unknown resource template: config://other',
    })
  })

  it('hides capability-gated methods the server does not offer (-32601, HTTP 404)', async () => {
    const { status, last } = await read(await handle(request('tools/list', { id: 'g' })))
    expect([status, last]).toEqual([
      404,
      { jsonrpc: '2.0', id: 'g', error: { code: -32601, message: 'Method not found: tools/list' } },
    ])
  })
})
