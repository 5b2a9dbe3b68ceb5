/**
 * mcp-edge/client's request builder, MRTR loop and `McpClient`, in Node against the real server
 * pipeline in-process (`createMcpHandler` over a small server): the headers and `_meta` it builds
 * pass the server's own validation, streams are read in order, input rounds run to completion,
 * listen streams deliver, errors keep their code, status and challenge, and closing a call's
 * stream aborts the tool.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { McpClient, McpClientError } from '../../packages/mcp-edge/src/client/client.ts'
import { resolveInput, TooManyInputRounds } from '../../packages/mcp-edge/src/client/input-rounds.ts'
import { createMcpRequest, paramHeaders } from '../../packages/mcp-edge/src/client/request.ts'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { decodeHeaderValue } from '../../packages/mcp-edge/src/http/headers.ts'
import { encodeHeaderValue } from '../../packages/mcp-edge/src/protocol/header-values.ts'
import { input } from '../../packages/mcp-edge/src/server/input/input.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'

const ENDPOINT = 'http://127.0.0.1:8787/mcp'
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const REGION = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }

describe('createMcpRequest', () => {
  it('carries the required _meta and the headers that mirror it', async () => {
    const request = createMcpRequest(
      ENDPOINT,
      'tools/call',
      { name: 'add', arguments: { a: 1 } },
      {
        id: 7,
        capabilities: { partialResults: {} },
        clientInfo: { name: 'test', version: '1' },
        meta: { progressToken: 'p' },
        token: 'secret',
      },
    )
    expect(Object.fromEntries(request.headers)).toEqual({
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer secret',
      'content-type': 'application/json',
      'mcp-method': 'tools/call',
      'mcp-name': 'add',
      'mcp-protocol-version': '2026-07-28',
    })
    expect(await request.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name: 'add',
        arguments: { a: 1 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { partialResults: {} },
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
          progressToken: 'p',
        },
      },
    })
  })

  it('spells a value that is not plain ASCII as base64, and the server reads it back', () => {
    for (const value of ['notes://Grüße', ' padded ', '=?base64?SGk=?=', '', 'tab\there']) {
      const spelled = encodeHeaderValue(value)
      expect(spelled).toMatch(/^=\?base64\?[A-Za-z0-9+/=]*\?=$/)
      expect(decodeHeaderValue(spelled)).toBe(value)
    }
    expect(encodeHeaderValue('tools/call')).toBe('tools/call')
    const read = createMcpRequest(ENDPOINT, 'resources/read', { uri: 'notes://Grüße' }, { id: 1 })
    expect(decodeHeaderValue(read.headers.get('mcp-name') as string)).toBe('notes://Grüße')
  })

  it('adds Mcp-Param-* headers for x-mcp-header arguments that are present', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        shard: { type: 'integer', 'x-mcp-header': 'Shard' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
        nested: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
      },
    }
    expect(paramHeaders('t', schema, { region: 'Zürich', shard: 3, dry: false, nested: { zone: 'a' } })).toEqual({
      'mcp-param-Region': encodeHeaderValue('Zürich'),
      'mcp-param-Shard': '3',
      'mcp-param-Dry-Run': 'false',
      'mcp-param-Zone': 'a',
    })
    expect(paramHeaders('t', schema, { region: null })).toEqual({})
    expect(() => paramHeaders('t', { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } }, {})).toThrow(
      /only on string, integer or boolean/,
    )
  })
})

describe('resolveInput (MRTR)', () => {
  it('answers each round, echoes requestState, and stops at a complete result', async () => {
    const sent: unknown[] = []
    const results = [
      { resultType: 'input_required', inputRequests: { a: { method: 'elicitation/create' } }, requestState: 's1' },
      { resultType: 'input_required', requestState: 's2' }, // load shedding: retried at once, with state only
      { resultType: 'input_required', inputRequests: { b: { method: 'elicitation/create' } } },
      { resultType: 'complete', content: [] },
    ]
    const asked: Array<[string[], number]> = []
    const result = await resolveInput(
      async (retry, round) => {
        sent.push({ round, ...retry })
        return results[round] as Record<string, unknown>
      },
      async (requests, round) => {
        asked.push([Object.keys(requests), round])
        return Object.fromEntries(Object.keys(requests).map((key) => [key, { action: 'accept' }]))
      },
    )
    expect(result).toEqual({ resultType: 'complete', content: [] })
    expect(asked).toEqual([
      [['a'], 0],
      [['b'], 2],
    ])
    expect(sent).toEqual([
      { round: 0 },
      { round: 1, requestState: 's1', inputResponses: { a: { action: 'accept' } } },
      { round: 2, requestState: 's2' },
      { round: 3, inputResponses: { b: { action: 'accept' } } },
    ])
  })

  it('gives up after maxRounds', async () => {
    const again = async () => ({ resultType: 'input_required', requestState: 'again' })
    await expect(resolveInput(again, async () => ({}), { maxRounds: 3 })).rejects.toBeInstanceOf(TooManyInputRounds)
  })
})

describe('McpClient against the server pipeline', () => {
  const states = new RequestStateCodec(createKeyRing(`k1:${Buffer.alloc(32, 9).toString('base64')}`), { onReject: () => {} })
  const server = createMcpServer({ name: 'client-test', version: '1.0.0', events: 'isolate', listenTimeoutMs: 60_000 })
  let aborted: (() => void) | undefined
  const toolSawAbort = new Promise<void>((resolve) => {
    aborted = resolve
  })
  server.tool('story', { input: z.object({ n: z.number() }), streaming: { assemble: true } }, async ({ n }, ctx) => {
    for (let i = 0; i < n; i++) {
      ctx.progress(i + 1, n)
      await ctx.partial(`s${i} `)
    }
    return { content: [] }
  })
  server.tool('endless', { input: z.object({}), streaming: true }, async (_args, ctx) => {
    await ctx.partial('first')
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()))
    aborted?.()
    return text('never seen')
  })
  server.tool('greet', { input: z.object({}), annotations: { readOnlyHint: true } }, async (_args, ctx) => {
    const { first } = await ctx.ask({ first: input.form('First name?', z.object({ name: z.string() })) })
    const { last } = await ctx.ask({ last: input.form('Last name?', z.object({ name: z.string() })) })
    if (first.action !== 'accept' || last.action !== 'accept') return text('declined')
    return text(`Hello, ${first.content.name} ${last.content.name}`)
  })
  server.tool('regional', { input: { jsonSchema: REGION as never } }, (args) => text(`region ${JSON.stringify(args)}`))
  server.resource('notes://all', { name: 'notes' }, (uri) => ({ contents: [{ uri, text: '[]' }] }))
  const handle = createMcpHandler(server, { services: () => ({ requestState: states }) })
  const fetcher = (request: Request) => handle(request, undefined)
  const client = new McpClient({ url: ENDPOINT, fetch: fetcher, capabilities: { elicitation: {}, partialResults: {} } })

  it('reads a list', async () => {
    const { tools } = await client.request('tools/list', {})
    expect((tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['story', 'endless', 'greet', 'regional'])
  })

  it('streams partial results in order with progress, then returns the final result', async () => {
    const events: string[] = []
    const result = await client.callTool(
      'story',
      { n: 3 },
      {
        onEvent: (event) => {
          if (event.type === 'partial') events.push(`seq ${event.seq}`)
          else if (event.type === 'notification') events.push(`${event.method} ${event.params.progress}`)
        },
      },
    )
    expect(events).toEqual([
      'notifications/progress 1',
      'seq 0',
      'notifications/progress 2',
      'seq 1',
      'notifications/progress 3',
      'seq 2',
    ])
    expect(result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 's0 s1 s2 ' }] })
  })

  it('runs the MRTR loop through answer() until the call completes', async () => {
    const messages: string[] = []
    const result = await client.callTool(
      'greet',
      {},
      {
        answer: async (requests) => {
          const [key, request] = Object.entries(requests)[0] as [string, { params: { message: string } }]
          messages.push(request.params.message)
          return { [key]: { action: 'accept', content: { name: key === 'first' ? 'Ada' : 'Lovelace' } } }
        },
      },
    )
    expect(messages).toEqual(['First name?', 'Last name?'])
    expect(result.content).toEqual([{ type: 'text', text: 'Hello, Ada Lovelace' }])
    // Without answer(), the input_required result itself is returned.
    expect((await client.callTool('greet', {})).resultType).toBe('input_required')
  })

  it('sends Mcp-Param-* headers the server accepts, for any value', async () => {
    const inputSchema = REGION
    const result = await client.callTool('regional', { region: 'Zürich Nord' }, { inputSchema })
    expect(result.content).toEqual([{ type: 'text', text: 'region {"region":"Zürich Nord"}' }])
    // Without the schema no header goes out, and the server refuses the call (-32020, HTTP 400).
    const refused = await client.callTool('regional', { region: 'eu' }).catch((error) => error)
    expect(refused).toBeInstanceOf(McpClientError)
    expect(refused).toMatchObject({ code: -32020, status: 400 })
  })

  it('turns errors into McpClientError with the code, HTTP status and challenge', async () => {
    const unknown = await client.request('tools/call', { name: 'nope', arguments: {} }).catch((error) => error)
    expect(unknown).toMatchObject({ name: 'McpClientError', code: -32602, status: 200 })
    const missing = await client.callTool('greet', {}, { capabilities: {} }).catch((error) => error)
    expect(missing).toMatchObject({ code: -32021, status: 400 })
    // Not a loopback host, no authentication configured: fail closed.
    const remote = new McpClient({ url: 'http://mcp.example.com/mcp', fetch: fetcher })
    const refused = await remote.request('tools/list', {}).catch((error) => error)
    expect(refused).toMatchObject({ status: 401, challenge: 'Bearer realm="mcp"' })
    // A body that is neither JSON nor SSE (a proxy's error page) says what came back.
    const proxy = new McpClient({ url: ENDPOINT, fetch: async () => new Response('<h1>Bad gateway</h1>', { status: 502 }) })
    await expect(proxy.request('tools/list', {})).rejects.toThrow('HTTP 502: <h1>Bad gateway</h1>')
  })

  it('aborting a call closes its stream, and the tool sees the abort', async () => {
    const controller = new AbortController()
    const call = client.callTool('endless', {}, { signal: controller.signal, onEvent: () => controller.abort() })
    await expect(call).rejects.toThrow()
    await toolSawAbort
  })

  it('listens: the acknowledgement, then the notifications asked for, until the caller stops', async () => {
    const stream = client.listen({ resourceSubscriptions: ['notes://all'] })
    const ack = await stream.next()
    expect(ack.value).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: ['notes://all'] } },
    })
    await server.notifyResourceUpdated('notes://all')
    expect((await stream.next()).value).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'notes://all' },
    })
    await stream.return(undefined)
  })

  it('returns the listen result when the server ends the subscription', async () => {
    const short = createMcpServer({ name: 'short', version: '1', events: 'isolate', listenTimeoutMs: 50 })
    short.resource('a://b', { name: 'b' }, (uri) => ({ contents: [{ uri, text: '' }] }))
    const shortHandle = createMcpHandler(short, {})
    const listener = new McpClient({ url: ENDPOINT, fetch: (request) => shortHandle(request, undefined) })
    const seen: string[] = []
    const stream = listener.listen({ resourceSubscriptions: ['a://b'] })
    let step = await stream.next()
    for (; !step.done; step = await stream.next()) seen.push(step.value.method)
    expect(seen).toEqual(['notifications/subscriptions/acknowledged'])
    expect(step.value).toMatchObject({ resultType: 'complete' })
  })
})
