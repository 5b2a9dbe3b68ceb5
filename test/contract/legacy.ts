/**
 * The 2025-era lane of the fixture Worker, run inside workerd (test/workers) and over real HTTP
 * (test/http): the handshake and its sealed session, each revision's shapes, server-to-client
 * requests answered by separate POSTs, batches, and every rejection with its JSON-RPC code and
 * HTTP status, where a tool was addressed checking that it did not run.
 */
import { describe, expect, it } from 'vitest'
import { answer, legacyConnect, legacyGet, legacyRequest, legacyRpc, legacyStream } from '../support/legacy.ts'
import type { LegacyClient } from '../support/legacy.ts'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import { buildRequest, rawPost, readResponse, rpc } from '../support/mcp.ts'

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
import type { ContractTarget } from './protocol.ts'

const REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const
const ELICITING = { elicitation: {}, sampling: {}, roots: {} }
let keys = 0
const freshKey = () => `legacy-${Date.now()}-${keys++}`

export function legacyContract(target: () => ContractTarget): void {
  const url = () => target().url
  const at = (path: string) => url().replace(/\/mcp$/, path)
  const connect = (options: Parameters<typeof legacyConnect>[2] = {}) => legacyConnect(target().fetch, url(), options)
  const call = (
    client: Partial<LegacyClient>,
    method: string,
    params?: Record<string, unknown>,
    extra?: Record<string, string | null>,
  ) => legacyRpc(target().fetch, url(), client, method, params, extra)
  const runsOf = async (key: string) =>
    Number(
      (await rpc(target().fetch, url(), 'tools/call', { name: 'read_runs', arguments: { key } })).message.result?.content?.[0]
        ?.text,
    )

  describe('the handshake', () => {
    it('negotiates every served revision, offers the newest for others, and seals a visible-ASCII session id', async () => {
      for (const version of [...REVISIONS, '2024-11-05', '2026-07-28']) {
        const client = await connect({ version })
        const result = client.initialize.message.result
        expect(client.initialize.status).toBe(200)
        expect(result.protocolVersion).toBe(version.startsWith('2025') ? version : '2025-11-25')
        expect(client.sessionId).toMatch(/^[\x21-\x7e]+$/)
      }
    })

    it('answers initialize from the registry, offering only what this lane delivers (list changes and subscriptions: a session stream)', async () => {
      const { initialize } = await connect()
      expect(initialize.message.result).toEqual({
        protocolVersion: '2025-11-25',
        capabilities: {
          logging: {},
          completions: {},
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          tools: { listChanged: true },
        },
        serverInfo: { name: 'mcp-edge-conformance-fixture', version: '1.0.0' },
        instructions: 'Fixture server for the MCP conformance suite.',
      })
    })

    it('answers ping and logging/setLevel with exactly {}, and an unknown level with -32602', async () => {
      const client = await connect()
      expect((await call(client, 'ping')).message.result).toEqual({})
      expect((await call(client, 'logging/setLevel', { level: 'debug' })).message.result).toEqual({})
      const bad = await call(client, 'logging/setLevel', { level: 'loud' })
      expect([bad.status, bad.message.error?.code]).toEqual([200, -32602])
    })

    it('rejects an initialize without protocolVersion, capabilities or clientInfo with -32602', async () => {
      for (const params of [
        { capabilities: {}, clientInfo: { name: 'x', version: '1' } },
        { protocolVersion: '2025-11-25', clientInfo: { name: 'x' } },
        { protocolVersion: '2025-11-25', capabilities: {} },
      ]) {
        const { status, message } = await call({}, 'initialize', params)
        expect([status, message.error?.code]).toEqual([200, -32602])
      }
    })

    it('answers resources/subscribe and unsubscribe with {}, and one without a uri with -32602', async () => {
      const client = await connect()
      for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
        expect((await call(client, method, { uri: 'test://watched-resource' })).message.result).toEqual({})
      }
      expect((await call(client, 'resources/subscribe', {})).message.error?.code).toBe(-32602)
    })
  })

  describe('results in each revision’s shapes', () => {
    it('never sends the 2026-only fields: resultType, ttlMs, cacheScope, serverInfo _meta, streamingHint', async () => {
      const client = await connect()
      for (const [method, params] of [
        ['tools/list', {}],
        ['resources/list', {}],
        ['resources/templates/list', {}],
        ['prompts/list', {}],
        ['resources/read', { uri: 'test://static-text' }],
        ['tools/call', { name: 'test_simple_text' }],
      ] as const) {
        const { result } = (await call(client, method, params)).message
        const text = JSON.stringify(result)
        for (const field of ['resultType', 'ttlMs', 'cacheScope', 'io.modelcontextprotocol/serverInfo', 'streamingHint']) {
          expect(text, `${method} ${field}`).not.toContain(`"${field}"`)
        }
      }
    })

    it('keeps only the fields a revision defines: 2025-03-26 tools have no title or outputSchema, no structuredContent', async () => {
      const old = await connect({ version: '2025-03-26' })
      const tools = (await call(old, 'tools/list')).message.result.tools as Record<string, unknown>[]
      expect(tools.every((tool) => !('title' in tool) && !('outputSchema' in tool) && !('_meta' in tool))).toBe(true)
      const mixed = (await call(old, 'tools/call', { name: 'stream_mixed', arguments: {} })).message.result
      expect(mixed.structuredContent).toBeUndefined()
      // resource_link is younger than 2025-03-26: it arrives as a text block naming the link.
      expect(mixed.content.map((block: { type: string }) => block.type)).toEqual(['text', 'image', 'text', 'text'])
      const recent = await connect({ version: '2025-06-18' })
      const shown = (await call(recent, 'tools/call', { name: 'stream_mixed', arguments: {} })).message.result
      expect(shown.structuredContent).toEqual({ rowsProcessed: 100 })
      expect(shown.content.map((block: { type: string }) => block.type)).toEqual(['text', 'image', 'resource_link', 'text'])
    })

    it('gives a streaming tool’s 2025 caller the whole streamed text and never a partial result', async () => {
      const client = await connect()
      const { message, notifications } = await call(client, 'tools/call', {
        name: 'stream_text',
        arguments: { chunks: 3, size: 1 },
        _meta: { partialResultToken: 'p', progressToken: 'q' },
      })
      expect(notifications.filter((note) => note.method === 'notifications/tools/partial_result')).toEqual([])
      expect(message.result.content[0]).toEqual({ type: 'text', text: '0|1|2|' })
    })

    it('runs a task-only tool inline for a 2025 client', async () => {
      const client = await connect()
      const { message } = await call(client, 'tools/call', { name: 'stream_task', arguments: { chunks: 2 } })
      expect(message.result.content[0]).toEqual({ type: 'text', text: 'part 0\npart 1\n' })
    })

    it('streams progress with the request’s token and logs at the lane’s level (info and above)', async () => {
      const client = await connect()
      const progress = await call(client, 'tools/call', {
        name: 'test_tool_with_progress',
        arguments: {},
        _meta: { progressToken: 'p-1' },
      })
      expect(progress.sse).toBe(true)
      expect(progress.notifications.map((note) => [note.method, note.params.progressToken, note.params.progress])).toEqual([
        ['notifications/progress', 'p-1', 0],
        ['notifications/progress', 'p-1', 50],
        ['notifications/progress', 'p-1', 100],
      ])
      const logs = await call(client, 'tools/call', { name: 'log_levels', arguments: {} })
      expect(logs.notifications.map((note) => note.params.level)).toEqual([
        'info',
        'notice',
        'warning',
        'error',
        'critical',
        'alert',
        'emergency',
      ])
    })
  })

  describe('server-to-client requests', () => {
    it('sends elicitation/create on the call’s stream, takes the answer by POST (202), then finishes the call', async () => {
      const client = await connect({ capabilities: ELICITING })
      const stream = await legacyStream(target().fetch, url(), client, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'Who?' },
      })
      const asked = await stream.next()
      expect(asked).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Who?' } })
      expect(typeof asked.id).toBe('string')
      const reply = await answer(target().fetch, url(), client, asked.id, {
        action: 'accept',
        content: { username: 'ada', email: 'a@b.c' },
      })
      expect(reply.status).toBe(202)
      const final = await stream.next()
      expect(final.id).toBe(stream.id)
      expect(final.result.content[0].text).toBe('User response: action=accept, content={"username":"ada","email":"a@b.c"}')
      // The same answer again, and an id that was never ours: 400, and nothing changes.
      const again = await answer(target().fetch, url(), client, asked.id, { action: 'decline' })
      expect([again.status, ((await again.json()) as { error: { code: number } }).error.code]).toEqual([400, -32600])
      const unknown = await answer(target().fetch, url(), client, 'not-ours', { action: 'decline' })
      expect(unknown.status).toBe(400)
    })

    it('sends a 2025-06-18 form without mode, and sampling and roots requests as they are', async () => {
      const client = await connect({ version: '2025-06-18', capabilities: ELICITING })
      const form = await legacyStream(target().fetch, url(), client, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'Who?' },
      })
      const asked = await form.next()
      expect(asked.params).toEqual({
        message: 'Who?',
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      })
      await answer(target().fetch, url(), client, asked.id, { action: 'decline' })
      expect((await form.next()).result.content[0].text).toBe('User response: action=decline')
      const sampling = await legacyStream(target().fetch, url(), client, 'tools/call', {
        name: 'test_sampling',
        arguments: { prompt: 'Hi' },
      })
      const sample = await sampling.next()
      expect(sample).toMatchObject({ method: 'sampling/createMessage', params: { maxTokens: 100 } })
      await answer(target().fetch, url(), client, sample.id, {
        role: 'assistant',
        content: { type: 'text', text: 'Hello' },
        model: 'm',
      })
      expect((await sampling.next()).result.content[0].text).toBe('LLM response: Hello')
    })

    it('refuses another principal’s answer (400) and keeps waiting for the caller’s own', async () => {
      const client = await connect({ capabilities: ELICITING, principal: 'alice' })
      const stream = await legacyStream(target().fetch, url(), client, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'Who?' },
      })
      const asked = await stream.next()
      const mallory = await connect({ capabilities: ELICITING, principal: 'mallory' })
      const foreign = await answer(target().fetch, url(), mallory, asked.id, {
        action: 'accept',
        content: { username: 'm', email: 'm' },
      })
      expect(foreign.status).toBe(400)
      expect((await answer(target().fetch, url(), client, asked.id, { action: 'decline' })).status).toBe(202)
      expect((await stream.next()).result.content[0].text).toBe('User response: action=decline')
    })

    it('ends a call whose answer does not come in time with a clear error, telling the client to drop the question, and refuses the late answer', async () => {
      const short = at('/short-input')
      const client = await legacyConnect(target().fetch, short, { capabilities: ELICITING })
      const stream = await legacyStream(target().fetch, short, client, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'Who?' },
      })
      const asked = await stream.next()
      // The client is told to drop the question it was asked, as the spec says a sender should
      // cancel a request it gives up on; then the call ends.
      expect(await stream.next()).toMatchObject({
        method: 'notifications/cancelled',
        params: { requestId: asked.id, reason: 'Request timed out' },
      })
      const final = await stream.next()
      expect(final.error).toEqual({
        code: -32603,
        message: "Request timed out waiting for the client's answer to the server's request",
      })
      expect((await answer(target().fetch, short, client, asked.id, { action: 'decline' })).status).toBe(400)
    })

    it('names a missing client capability with -32602 (the 2025 revisions have no -32021), before asking anything', async () => {
      const client = await connect({ capabilities: {} })
      const { status, message, sse } = await call(client, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'Who?' },
      })
      expect([status, sse, message.error?.code]).toEqual([200, false, -32602])
      expect(message.error?.message).toContain('elicitation')
      expect(message.error?.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
    })
  })

  describe('the session id', () => {
    it('answers a tampered, foreign or garbage session id with 404, running nothing', async () => {
      const alice = await connect({ principal: 'alice' })
      const sid = alice.sessionId as string
      // One character changed for another (the old test picked by the last character and left the id
      // as it was whenever the one it replaced was already that letter: 1 run in 64 failed).
      const tampered = `${sid.slice(0, -2)}${sid.at(-2) === 'A' ? 'B' : 'A'}${sid.slice(-1)}`
      expect(tampered).not.toBe(sid)
      for (const client of [
        { ...alice, sessionId: tampered },
        { ...alice, principal: 'bob' },
        { ...alice, sessionId: 'garbage' },
      ]) {
        const key = freshKey()
        const { status, message } = await call(client, 'tools/call', { name: 'count_runs', arguments: { key } })
        expect([status, message.error?.code]).toEqual([404, -32600])
        expect(await runsOf(key)).toBe(0)
      }
    })

    it('rejects a version header other than the session’s with 400, and an unknown one with -32022', async () => {
      const client = await connect({ version: '2025-06-18' })
      const other = await call(client, 'tools/list', {}, { 'mcp-protocol-version': '2025-11-25' })
      expect([other.status, other.message.error?.code]).toEqual([400, -32600])
      const unknown = await call({}, 'tools/list', {}, { 'mcp-protocol-version': '1999-01-01' })
      expect([unknown.status, unknown.message.error?.code]).toEqual([400, -32022])
      expect(unknown.message.error?.data).toEqual({
        supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
        requested: '1999-01-01',
      })
    })

    it('serves a request without a session as its header’s revision, with no client capabilities', async () => {
      const { message } = await call({ version: '2025-06-18' }, 'tools/call', {
        name: 'test_elicitation',
        arguments: { message: 'x' },
      })
      expect(message.error?.code).toBe(-32602)
      expect((await call({}, 'tools/call', { name: 'test_simple_text' })).message.result.content[0].type).toBe('text')
    })

    it.skipIf(!target().crossRequestContinuations)(
      'cancels a running call on notifications/cancelled from the same session',
      async () => {
        const client = await connect()
        const key = freshKey()
        const stream = await legacyStream(
          target().fetch,
          url(),
          client,
          'tools/call',
          { name: 'wait_for_abort', arguments: { key }, _meta: { progressToken: 'c' } },
          'cancel-me',
        )
        expect((await stream.next()).method).toBe('notifications/progress')
        // The same request id from another session cancels nothing.
        const stranger = await connect()
        await target().fetch(
          legacyRequest(url(), stranger, {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: 'cancel-me' },
          }),
        )
        const untouched = await rpc(target().fetch, url(), 'tools/call', { name: 'abort_status', arguments: { key } })
        expect(untouched.message.result.content[0].text).toBe('false')
        const cancelled = await target().fetch(
          legacyRequest(url(), client, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'cancel-me' } }),
        )
        expect(cancelled.status).toBe(202)
        await stream.next()
        const status = await rpc(target().fetch, url(), 'tools/call', { name: 'abort_status', arguments: { key } })
        expect(status.message.result.content[0].text).toBe('true')
        await stream.close()
      },
    )
  })

  describe('methods of the other era', () => {
    it('refuses a 2026-style request naming a 2025 revision in _meta with -32022 (2025 is spoken through initialize)', async () => {
      const { status, message } = await rpc(
        target().fetch,
        url(),
        'tools/list',
        {},
        {
          meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' },
          headers: { 'mcp-protocol-version': '2025-11-25' },
        },
      )
      expect([status, message.error?.code]).toEqual([400, -32022])
      expect(message.error?.data).toEqual({ supported: ['2026-07-28'], requested: '2025-11-25' })
    })

    it('answers 2026-only methods with -32601 on this lane, and 2025-only ones with -32601/404 on the stateless lane', async () => {
      const client = await connect()
      for (const method of ['server/discover', 'subscriptions/listen', 'tasks/get']) {
        const { status, message } = await call(client, method, {})
        expect([method, status, message.error?.code]).toEqual([method, 200, -32601])
      }
      for (const method of ['ping', 'initialize', 'logging/setLevel', 'resources/subscribe']) {
        const { status, message } = await rpc(target().fetch, url(), method, {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        })
        expect([method, status, message.error?.code]).toEqual([method, 404, -32601])
      }
    })
  })

  describe('2025-03-26 batches', () => {
    it('answers a batch with every response in one JSON array, and notifications in it with nothing', async () => {
      const client = await connect({ version: '2025-03-26' })
      const response = await target().fetch(
        legacyRequest(url(), client, [
          { jsonrpc: '2.0', id: 'a', method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'test_simple_text' } },
          { jsonrpc: '2.0', id: 'c', method: 'initialize', params: {} },
          { jsonrpc: '2.0', id: 'd', method: 'no/such' },
        ]),
      )
      const body = (await response.json()) as { id: string; result?: unknown; error?: { code: number } }[]
      expect(response.status).toBe(200)
      expect(body.map((item) => [item.id, item.error?.code ?? 'ok'])).toEqual([
        ['a', 'ok'],
        ['b', 'ok'],
        ['c', -32600],
        ['d', -32601],
      ])
    })

    it('streams a batch whose calls send notifications, every response as its own event', async () => {
      const client = await connect({ version: '2025-03-26' })
      const { sse, notifications } = await readResponse(
        await target().fetch(
          legacyRequest(url(), client, [
            {
              jsonrpc: '2.0',
              id: 'p',
              method: 'tools/call',
              params: { name: 'test_tool_with_progress', _meta: { progressToken: 7 } },
            },
            { jsonrpc: '2.0', id: 'q', method: 'ping' },
          ]),
        ),
      )
      expect(sse).toBe(true)
      expect(notifications.filter((note) => note.method === 'notifications/progress')).toHaveLength(3)
    })

    it('refuses a batch of more than 32 messages with -32600 and HTTP 400, running none of them', async () => {
      const client = await connect({ version: '2025-03-26' })
      const key = freshKey()
      const items = Array.from({ length: 33 }, (_, index) => ({
        jsonrpc: '2.0',
        id: index,
        method: 'tools/call',
        params: { name: 'count_runs', arguments: { key } },
      }))
      const { status, message } = await readResponse(await target().fetch(legacyRequest(url(), client, items)))
      expect([status, message.error?.code]).toEqual([400, -32600])
      expect(await runsOf(key)).toBe(0)
    })

    it.skipIf(!target().crossRequestContinuations)('cancels one request of a batch, not the others', async () => {
      const client = await connect({ version: '2025-03-26' })
      const [a, b] = [freshKey(), freshKey()]
      const response = await target().fetch(
        legacyRequest(url(), client, [
          {
            jsonrpc: '2.0',
            id: 'a',
            method: 'tools/call',
            params: { name: 'wait_for_abort', arguments: { key: a }, _meta: { progressToken: 'a' } },
          },
          {
            jsonrpc: '2.0',
            id: 'b',
            method: 'tools/call',
            params: { name: 'wait_for_abort', arguments: { key: b }, _meta: { progressToken: 'b' } },
          },
        ]),
      )
      const events = readSse(response.body as ReadableStream<Uint8Array>)
      for (let seen = 0; seen < 2; ) if (JSON.parse((await events.next()).value.data).method === 'notifications/progress') seen++
      await target().fetch(
        legacyRequest(url(), client, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a' } }),
      )
      for (;;) if (JSON.parse((await events.next()).value.data).id === 'a') break
      const status = async (key: string) =>
        (await rpc(target().fetch, url(), 'tools/call', { name: 'abort_status', arguments: { key } })).message.result.content[0]
          .text
      expect([await status(a), await status(b)]).toEqual(['true', 'false'])
      await events.return(undefined)
    })

    it('refuses batches after 2025-03-26, and an empty batch, with -32600 and HTTP 400', async () => {
      const recent = await connect({ version: '2025-06-18' })
      const cases: [LegacyClient, unknown[]][] = [
        [recent, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]],
        [await connect({ version: '2025-03-26' }), []],
      ]
      for (const [client, items] of cases) {
        const { status, message } = await readResponse(await target().fetch(legacyRequest(url(), client, items)))
        expect([status, message.error?.code]).toEqual([400, -32600])
      }
    })
  })

  describe('the transport checks apply to 2025 requests alike', () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    })
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

    it('refuses a foreign Origin (403), a bad Accept (406), a bad content type (415) and a large body (413)', async () => {
      const cases: [Record<string, string>, string, number][] = [
        [{ ...headers, origin: 'https://evil.example' }, initialize, 403],
        [{ ...headers, accept: 'application/json' }, initialize, 406],
        [{ ...headers, 'content-type': 'text/plain' }, initialize, 415],
        [headers, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } }), 413],
      ]
      for (const [given, body, status] of cases) {
        const response = await rawPost(target().fetch, url(), body, given)
        expect(response.status).toBe(status)
        expect(response.message.error?.code).toBe(-32600)
      }
    })

    it('answers a GET without a session id with 405, naming POST, DELETE and GET (a session’s) as allowed', async () => {
      const response = await target().fetch(new Request(url(), { method: 'GET', headers: { host: '127.0.0.1' } }))
      expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST, DELETE, GET'])
    })
  })

  describe('a session’s GET stream (event hub and session ledger)', () => {
    const get = (client: Partial<LegacyClient>, extra?: Record<string, string>) => legacyGet(target().fetch, url(), client, extra)
    const publish = (uri: string) => rpc(target().fetch, url(), 'tools/call', { name: 'notify_resource', arguments: { uri } })

    it('opens with the retry and, for 2025-11-25, a priming event (an id, empty data); 2025-06-18 gets the retry only', async () => {
      const newest = await get(await connect())
      expect([newest.response.status, newest.response.headers.get('content-type')]).toEqual([200, 'text/event-stream'])
      // The priming id is the stream's place in the hub's log (event-log.ts), where a resume starts.
      expect(await newest.raw()).toMatch(/^retry: 1000\nid: ev:0-\d+~[\w-]+\ndata: \n\n/)
      newest.close()
      const older = await get(await connect({ version: '2025-06-18' }))
      expect(await older.raw()).toMatch(/^retry: 1000\n\n/)
      older.close()
    })

    it('delivers updates of the URIs the session subscribed to (in 2025 shapes), not of others, and stops after unsubscribe', async () => {
      const client = await connect()
      const stream = await get(client)
      await stream.raw()
      // Subscribed after the stream opened: the stream reads the session's subscriptions per update.
      expect((await call(client, 'resources/subscribe', { uri: 'test://watched-a' })).message.result).toEqual({})
      await publish('test://other')
      await publish('test://watched-a')
      expect(await stream.next()).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri: 'test://watched-a' },
      })
      expect((await call(client, 'resources/unsubscribe', { uri: 'test://watched-a' })).message.result).toEqual({})
      await publish('test://watched-a')
      // Order shows absence: the next thing the stream carries is a later subscription's update.
      expect((await call(client, 'resources/subscribe', { uri: 'test://watched-b' })).message.result).toEqual({})
      await publish('test://watched-b')
      expect((await stream.next()).params).toEqual({ uri: 'test://watched-b' })
      stream.close()
    })

    it('announces list changes, without _meta', async () => {
      const client = await connect()
      const stream = await get(client)
      await stream.raw()
      await rpc(target().fetch, url(), 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
      expect(await stream.next()).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} })
      await rpc(target().fetch, url(), 'tools/call', { name: 'test_trigger_prompt_change', arguments: {} })
      expect((await stream.next()).method).toBe('notifications/prompts/list_changed')
      stream.close()
    })

    it('carries server.notifyLog messages at the session’s level: the lane’s info, or what logging/setLevel set', async () => {
      const quiet = await connect()
      expect((await call(quiet, 'logging/setLevel', { level: 'error' })).message.result).toEqual({})
      const streams = [await get(await connect()), await get(quiet)]
      for (const stream of streams) await stream.raw()
      const log = (levels: string[]) =>
        rpc(target().fetch, url(), 'tools/call', { name: 'notify_log', arguments: { levels, logger: 'probe' } })
      // Order shows absence: what a stream carries next is the first message its level admits.
      await log(['debug', 'warning', 'error'])
      const heard = [await streams[0]?.next(), await streams[1]?.next()]
      expect(heard[0]).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'warning', logger: 'probe', data: { said: 'warning' } },
      })
      expect(heard[1]?.params).toEqual({ level: 'error', logger: 'probe', data: { said: 'error' } })
      for (const stream of streams) stream.close()
    })

    it('keeps the subscriptions for the session: a new stream of the same session hears them', async () => {
      const client = await connect()
      expect((await call(client, 'resources/subscribe', { uri: 'test://kept' })).message.result).toEqual({})
      const first = await get(client)
      await first.raw()
      first.close()
      const again = await get(client)
      await again.raw()
      await publish('test://kept')
      expect((await again.next()).params).toEqual({ uri: 'test://kept' })
      again.close()
    })

    // One request ends another's stream by resolving a promise: workerd runs its continuation in
    // the stream's own request, which the Workers test pool turns off (as for notifications/cancelled;
    // `crossRequestContinuations`).
    it.skipIf(!target().crossRequestContinuations)(
      'ends the older stream when the session opens another (one stream per session), and ends on DELETE',
      async () => {
        const client = await connect()
        const first = await get(client)
        await first.raw()
        const second = await get(client)
        await second.raw()
        expect(await first.endsWithin(5000)).toBe(true)
        const ended = await target().fetch(
          new Request(url(), { method: 'DELETE', headers: { host: '127.0.0.1', 'mcp-session-id': client.sessionId as string } }),
        )
        expect(ended.status).toBe(204)
        expect(await second.endsWithin(5000)).toBe(true)
        expect((await get(client)).response.status).toBe(404)
      },
    )

    it('opens a 2025-11-25 call’s stream with a priming event of its own (p:…) and the retry; 2025-06-18’s with neither', async () => {
      const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'test_reconnection', arguments: {} } }
      const text = async (client: LegacyClient) => {
        const response = await target().fetch(legacyRequest(url(), client, body))
        expect(response.headers.get('content-type')).toBe('text/event-stream')
        return response.text()
      }
      const newest = await text(await connect())
      expect(newest).toMatch(/^retry: 1000\nid: p:[\w-]+\.0\ndata: \n\n/)
      expect(newest).toContain('Reconnection probe done')
      expect(await text(await connect({ version: '2025-06-18' }))).toMatch(/^event: message\ndata: /)
      // A 2026-07-28 call's stream has no event ids at all (the revision removed resumption).
      const modern = await target().fetch(
        buildRequest(url(), 'tools/call', { name: 'test_reconnection', arguments: {} }, { meta: { [LOG_LEVEL]: 'info' } }),
      )
      const modernText = await modern.text()
      expect(modernText).toMatch(/^event: message\ndata: .*notifications\/message/)
      expect(modernText).not.toMatch(/^(id|retry):/m)
    })

    it('answers a GET resuming a call’s stream with 405 (calls are not resumed); one resuming its own stream opens anew', async () => {
      const client = await connect()
      const resumed = await get(client, { 'last-event-id': 'p:AAAAAAAAAAAA.0' })
      expect([resumed.response.status, resumed.response.headers.get('allow')]).toEqual([405, 'POST, GET, DELETE'])
      expect(JSON.parse(await resumed.raw(/\}\s*$/)).error.code).toBe(-32600)
      const first = await get(client)
      const id = /^id: (ev:0-\d+~[\w-]+)$/m.exec(await first.raw())?.[1] as string
      first.close()
      const again = await get(client, { 'last-event-id': id })
      expect(again.response.status).toBe(200)
      expect(await again.raw()).toMatch(/^retry: 1000\nid: ev:0-\d+~[\w-]+\ndata: \n\n/)
      // Each stream's priming id is its own (2025 streamable-http: ids unique across a session's streams).
      expect(/^id: (\S+)$/m.exec(await again.raw())?.[1]).not.toBe(id)
      again.close()
    })

    it('resumes from Last-Event-ID: what was published after that event arrives, in order, each once, then live events', async () => {
      const client = await connect()
      const [a, b] = [`test://resume-${crypto.randomUUID()}`, `test://resume-${crypto.randomUUID()}`]
      for (const uri of [a, b]) expect((await call(client, 'resources/subscribe', { uri })).message.result).toEqual({})
      const first = await get(client)
      await first.raw()
      await publish(a)
      const id = new RegExp(`^id: (ev:0-\\d+)\nevent: message\ndata: .*${a}`, 'm').exec(await first.raw(/resume.*\n\n/))?.[1]
      expect(id).toEqual(expect.any(String))
      first.close()
      await publish(b)
      await publish(a)
      const again = await get(client, { 'last-event-id': id as string })
      expect(await again.raw()).toMatch(/^retry: 1000\nid: ev:0-\d+~[\w-]+\ndata: \n\n/)
      expect((await again.next()).params).toEqual({ uri: b })
      expect((await again.next()).params).toEqual({ uri: a })
      await publish(b)
      expect((await again.next()).params).toEqual({ uri: b })
      again.close()
    })

    it('resumes past more than one replay batch of updates the session does not hear, to the one it does', async () => {
      const client = await connect()
      const uri = `test://far-${crypto.randomUUID()}`
      expect((await call(client, 'resources/subscribe', { uri })).message.result).toEqual({})
      const first = await get(client)
      const id = /^id: (\S+)$/m.exec(await first.raw())?.[1]
      first.close()
      // 300 updates of URIs it did not subscribe to (each replay batch holds at most 128), then one it did.
      await rpc(target().fetch, url(), 'tools/call', { name: 'notify_many', arguments: { prefix: `${uri}-not`, count: 300 } })
      await publish(uri)
      const again = await get(client, { 'last-event-id': id as string })
      expect((await again.next()).params).toEqual({ uri })
      again.close()
    })

    it('tells a GET resuming from an id its log does not reach to re-read: a list change per list, an update per subscribed URI', async () => {
      const client = await connect()
      const uri = `test://gap-${crypto.randomUUID()}`
      expect((await call(client, 'resources/subscribe', { uri })).message.result).toEqual({})
      const stream = await get(client, { 'last-event-id': 'AAAAAAAAAAAA.0' })
      const heard = [await stream.next(), await stream.next(), await stream.next(), await stream.next()]
      expect(heard.map((message) => [message.method, message.params]).sort()).toEqual([
        ['notifications/prompts/list_changed', {}],
        ['notifications/resources/list_changed', {}],
        ['notifications/resources/updated', { uri }],
        ['notifications/tools/list_changed', {}],
      ])
      stream.close()
    })

    it('refuses a GET without Accept: text/event-stream (406), with an unknown session (404), from a foreign Origin (403)', async () => {
      const client = await connect()
      expect((await get(client, { accept: 'application/json' })).response.status).toBe(406)
      expect((await get({ ...client, sessionId: 'not-a-session' })).response.status).toBe(404)
      expect((await get(client, { origin: 'https://evil.example' })).response.status).toBe(403)
    })

    it('refuses a subscription to a URI over 2,048 characters with -32602', async () => {
      const client = await connect()
      const long = await call(client, 'resources/subscribe', { uri: `test://${'x'.repeat(2048)}` })
      expect(long.message.error?.code).toBe(-32602)
    })

    it('refuses a subscription past 64 resources with -32602, keeping the 64', async () => {
      const client = await connect()
      for (let i = 0; i < 64; i++) {
        expect((await call(client, 'resources/subscribe', { uri: `test://many/${i}` })).message.result).toEqual({})
      }
      const over = await call(client, 'resources/subscribe', { uri: 'test://many/64' })
      expect(over.message.error?.code).toBe(-32602)
      const stream = await get(client)
      await stream.raw()
      await publish('test://many/64')
      await publish('test://many/63')
      expect((await stream.next()).params).toEqual({ uri: 'test://many/63' })
      stream.close()
    })
  })

  describe('ending a session (DELETE) and its log level (with the session ledger)', () => {
    const remove = (sessionId: string | null | undefined, headers: Record<string, string> = {}) =>
      target().fetch(
        new Request(url(), {
          method: 'DELETE',
          headers: { host: '127.0.0.1', ...(sessionId ? { 'mcp-session-id': sessionId } : {}), ...headers },
        }),
      )

    it('ends a session on DELETE (204): then every request with its id is 404, a second DELETE too', async () => {
      const client = await connect()
      const other = await connect()
      expect((await call(client, 'ping')).status).toBe(200)
      const ended = await remove(client.sessionId)
      expect([ended.status, await ended.text()]).toEqual([204, ''])
      for (const method of ['ping', 'tools/list']) {
        const after = await call(client, method)
        expect([after.status, after.message.error?.code]).toEqual([404, -32600])
      }
      expect((await remove(client.sessionId)).status).toBe(404)
      // Only that session ended.
      expect((await call(other, 'ping')).message.result).toEqual({})
    })

    it('refuses a DELETE that cannot end anything, and ends nothing: tampered or unknown ids, a foreign Origin, no id', async () => {
      const client = await connect()
      const id = client.sessionId as string
      const tampered = `${id.slice(0, -4)}${id.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`
      expect((await remove(tampered)).status).toBe(404)
      expect((await remove('not-a-session')).status).toBe(404)
      expect((await remove(id, { origin: 'https://evil.example' })).status).toBe(403)
      const bare = await remove(undefined)
      expect([bare.status, bare.headers.get('allow')]).toEqual([405, 'POST, DELETE, GET'])
      // A protocol version header that is not the session's: -32600, and the session lives on.
      expect((await remove(id, { 'mcp-protocol-version': '2025-03-26' })).status).toBe(400)
      expect((await call(client, 'ping')).message.result).toEqual({})
    })

    it('lets only the session’s principal end it: another principal, or nobody, gets 404 and ends nothing', async () => {
      const alice = await connect({ principal: 'alice' })
      const id = alice.sessionId as string
      expect((await remove(id, { authorization: 'Bearer bob' })).status).toBe(404)
      expect((await remove(id)).status).toBe(404)
      expect((await call(alice, 'ping')).message.result).toEqual({})
      expect((await remove(id, { authorization: 'Bearer alice' })).status).toBe(204)
      expect((await call(alice, 'ping')).status).toBe(404)
    })

    it('keeps logging/setLevel for the session: later calls log from that level; another session from info', async () => {
      const client = await connect()
      expect((await call(client, 'logging/setLevel', { level: 'error' })).message.result).toEqual({})
      const levels = async (who: LegacyClient) =>
        (await call(who, 'tools/call', { name: 'log_levels', arguments: {} })).notifications.map((note) => note.params.level)
      expect(await levels(client)).toEqual(['error', 'critical', 'alert', 'emergency'])
      expect((await call(client, 'logging/setLevel', { level: 'debug' })).message.result).toEqual({})
      expect(await levels(client)).toEqual(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
      expect((await levels(await connect()))[0]).toBe('info')
      // An unknown level is -32602 and changes nothing.
      expect((await call(client, 'logging/setLevel', { level: 'loud' })).message.error?.code).toBe(-32602)
      expect((await levels(client))[0]).toBe('debug')
    })
  })

  describe("legacy: 'reject'", () => {
    it('answers initialize and any 2025 request with -32022 naming the revision served, and serves 2026 requests', async () => {
      const modernOnly = at('/modern-only')
      const { status, message } = await legacyRpc(target().fetch, modernOnly, {}, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      })
      expect([status, message.error?.code]).toEqual([400, -32022])
      expect(message.error?.data).toEqual({ supported: ['2026-07-28'], requested: '2025-06-18' })
      expect(message.error?.message).toContain('2026-07-28')
      const later = await legacyRpc(target().fetch, modernOnly, { version: '2025-11-25' }, 'tools/list')
      expect([later.status, later.message.error?.data?.requested]).toEqual([400, '2025-11-25'])
      // The same server as /mcp, its 2026-07-28 requests served as there.
      const modern = await rpc(target().fetch, modernOnly, 'tools/list', {}, { meta: {} })
      const served = await rpc(target().fetch, target().url, 'tools/list', {}, { meta: {} })
      expect(modern.status).toBe(200)
      expect(modern.message.result.tools).toEqual(served.message.result.tools)
      expect(modern.message.result.tools[0]).toMatchObject({ name: 'test_simple_text' })
    })
  })
}
