/**
 * The protocol contract of the fixture Worker, run twice: inside workerd (test/workers) and over
 * real HTTP against `wrangler dev` (test/http). Every rejection of the Streamable HTTP transport
 * and of the stateless protocol core is asserted with its JSON-RPC code and its HTTP status, and
 * where a tool was addressed, that the tool did not run.
 */
import { describe, expect, it } from 'vitest'
import { buildRequest, type Fetcher, meta, openStream, rawPost, readResponse, rpc } from '../support/mcp.ts'

export interface ContractTarget {
  url: string
  fetch: Fetcher
  /**
   * Whether one request's promise, resolved by another request, continues in its own request (as
   * in workerd behind wrangler dev and on Cloudflare: `handle_cross_request_promise_resolution`).
   * The Workers test pool turns that flag off for the Worker under test (it adds
   * `no_handle_cross_request_promise_resolution`; bench/README.md), so there such a continuation
   * runs in the resolving request; tests that depend on it run over HTTP only.
   */
  crossRequestContinuations?: boolean
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/list',
}
const body = (method: string, params: Record<string, unknown>, id: number | string = 7) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })
let keys = 0
const freshKey = () => `contract-${Date.now()}-${keys++}`

export function protocolContract(target: () => ContractTarget): void {
  const call = (method: string, params: Record<string, unknown> = {}, options: Parameters<typeof rpc>[4] = {}) =>
    rpc(target().fetch, target().url, method, params, options)
  const runsOf = async (key: string) =>
    Number((await call('tools/call', { name: 'read_runs', arguments: { key } })).message.result?.content?.[0]?.text)

  /** Send a count_runs call that must be rejected, then check the handler never ran. */
  async function rejectedWithoutRunning(
    send: (key: string) => Promise<{ status: number; message: { id?: unknown; error?: { code: number } } }>,
    code: number,
    status: number,
  ) {
    const key = freshKey()
    const { status: got, message } = await send(key)
    expect(message.error?.code).toBe(code)
    expect(got).toBe(status)
    expect(await runsOf(key)).toBe(0)
    return message
  }

  describe('transport rejections', () => {
    it('answers GET and DELETE without a 2025 session id with 405 and Allow: POST, DELETE, GET (a 2025 session’s)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await target().fetch(new Request(target().url, { method, headers: { host: '127.0.0.1' } }))
        expect(response.status).toBe(405)
        expect(response.headers.get('allow')).toBe('POST, DELETE, GET')
        expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600)
      }
    })

    it('refuses an Accept header without text/event-stream with 406', async () => {
      const { status, message } = await rawPost(target().fetch, target().url, body('tools/list', { _meta: meta() }), {
        ...HEADERS,
        accept: 'application/json',
      })
      expect(status).toBe(406)
      expect(message.error?.code).toBe(-32600)
    })

    it('refuses a body that is not application/json with 415', async () => {
      const { status } = await rawPost(target().fetch, target().url, body('tools/list', { _meta: meta() }), {
        ...HEADERS,
        'content-type': 'text/plain',
      })
      expect(status).toBe(415)
    })

    it('refuses a body over the size limit with 413, before running anything', async () => {
      const key = freshKey()
      const huge = body('tools/call', { name: 'count_runs', arguments: { key, pad: 'x'.repeat(1024 * 1024) }, _meta: meta() })
      const { status, message } = await rawPost(target().fetch, target().url, huge, {
        ...HEADERS,
        'mcp-method': 'tools/call',
        'mcp-name': 'count_runs',
      })
      expect(status).toBe(413)
      expect(message.error?.code).toBe(-32600)
      expect(await runsOf(key)).toBe(0)
    })

    it('answers malformed JSON with -32700 and HTTP 400, without an id', async () => {
      const { status, message } = await rawPost(target().fetch, target().url, '{"jsonrpc": "2.0", "id": 1,', HEADERS)
      expect(status).toBe(400)
      expect(message.error?.code).toBe(-32700)
      expect('id' in message).toBe(false)
    })

    it('answers batches, responses and non-2.0 messages with -32600 and HTTP 400', async () => {
      const cases = [
        JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }]),
        JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} }),
        JSON.stringify({ jsonrpc: '1.0', id: 4, method: 'tools/list', params: { _meta: meta() } }),
        JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list', params: { _meta: meta() } }),
      ]
      for (const text of cases) {
        const { status, message } = await rawPost(target().fetch, target().url, text, HEADERS)
        expect(status).toBe(400)
        expect(message.error?.code).toBe(-32600)
      }
      const { message } = await rawPost(target().fetch, target().url, cases[2] as string, HEADERS)
      expect(message.id).toBe(4)
    })

    it('accepts a notification with 202 and no body', async () => {
      const response = await target().fetch(
        new Request(target().url, {
          method: 'POST',
          headers: { ...HEADERS, host: '127.0.0.1', 'mcp-method': 'notifications/cancelled' },
          body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
        }),
      )
      expect(response.status).toBe(202)
      expect(await response.text()).toBe('')
    })

    it('refuses a foreign Origin with 403 and serves a loopback one', async () => {
      await rejectedWithoutRunning(
        (key) =>
          call('tools/call', { name: 'count_runs', arguments: { key } }, { headers: { origin: 'http://evil.example.com' } }),
        -32600,
        403,
      )
      const { status } = await call('server/discover', {}, { headers: { origin: 'http://127.0.0.1:8788' } })
      expect(status).toBe(200)
    })
  })

  describe('request gates (digest §2.3, in order)', () => {
    it('rejects a request without params, _meta, protocolVersion or clientCapabilities with -32602 and HTTP 400', async () => {
      const full = meta()
      const { 'io.modelcontextprotocol/protocolVersion': _v, ...noVersion } = full
      const { 'io.modelcontextprotocol/clientCapabilities': _c, ...noCapabilities } = full
      const bodies = [
        JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list' }),
        body('tools/list', {}, 12),
        body('tools/list', { _meta: noVersion }, 13),
        body('tools/list', { _meta: noCapabilities }, 14),
        body('tools/list', { _meta: { ...full, 'io.modelcontextprotocol/clientCapabilities': 'none' } }, 15),
      ]
      for (const [index, text] of bodies.entries()) {
        const { status, message } = await rawPost(target().fetch, target().url, text, HEADERS)
        expect(status).toBe(400)
        expect(message.error?.code).toBe(-32602)
        expect(message.id).toBe(11 + index)
      }
    })

    it('checks required _meta before the header (missing body version with a header → -32602)', async () => {
      const { 'io.modelcontextprotocol/protocolVersion': _v, ...noVersion } = meta()
      const { status, message } = await rawPost(target().fetch, target().url, body('server/discover', { _meta: noVersion }), {
        ...HEADERS,
        'mcp-method': 'server/discover',
      })
      expect([status, message.error?.code]).toEqual([400, -32602])
    })

    it('rejects a missing or different MCP-Protocol-Version header with -32020 and HTTP 400', async () => {
      for (const value of [null, '2025-11-25']) {
        await rejectedWithoutRunning(
          (key) => call('tools/call', { name: 'count_runs', arguments: { key } }, { headers: { 'mcp-protocol-version': value } }),
          -32020,
          400,
        )
      }
    })

    it('rejects an unsupported version with -32022, HTTP 400, data.supported and data.requested', async () => {
      const request = buildRequest(
        target().url,
        'server/discover',
        {},
        { id: 'v999', headers: { 'mcp-protocol-version': 'v999.0.0' } },
      )
      const parsed = JSON.parse(await request.text())
      parsed.params._meta['io.modelcontextprotocol/protocolVersion'] = 'v999.0.0'
      const { status, message } = await rawPost(target().fetch, target().url, JSON.stringify(parsed), {
        ...HEADERS,
        'mcp-method': 'server/discover',
        'mcp-protocol-version': 'v999.0.0',
      })
      expect(status).toBe(400)
      expect(message).toMatchObject({
        id: 'v999',
        error: { code: -32022, data: { supported: ['2026-07-28'], requested: 'v999.0.0' } },
      })
    })

    it('rejects a missing or different Mcp-Method header with -32020 and HTTP 400 (values are case-sensitive)', async () => {
      for (const value of [null, 'TOOLS/CALL', 'tools/list']) {
        await rejectedWithoutRunning(
          (key) => call('tools/call', { name: 'count_runs', arguments: { key } }, { headers: { 'mcp-method': value } }),
          -32020,
          400,
        )
      }
    })

    it('rejects a missing or different Mcp-Name with -32020 and accepts its base64 form', async () => {
      for (const value of [null, 'read_runs', '=?base64?Y291bnRfcnVucw?=']) {
        await rejectedWithoutRunning(
          (key) => call('tools/call', { name: 'count_runs', arguments: { key } }, { headers: { 'mcp-name': value } }),
          -32020,
          400,
        )
      }
      const key = freshKey()
      const encoded = `=?base64?${btoa('count_runs')}?=`
      const { status } = await call(
        'tools/call',
        { name: 'count_runs', arguments: { key } },
        { headers: { 'mcp-name': encoded } },
      )
      expect(status).toBe(200)
      expect(await runsOf(key)).toBe(1)
    })

    it('checks Mcp-Param-* headers against x-mcp-header arguments', async () => {
      const echo = (region: string, headers: Record<string, string | null>, extra: Record<string, unknown> = {}) =>
        call('tools/call', { name: 'test_header_echo', arguments: { region, ...extra } }, { headers })
      expect((await echo('eu-west', { 'mcp-param-region': 'eu-west' })).message.result?.content?.[0]?.text).toBe('region=eu-west')
      expect(
        (
          await echo('Zürich', {
            'mcp-param-region': `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode('Zürich')))}?=`,
          })
        ).status,
      ).toBe(200)
      expect((await echo('eu', { 'mcp-param-region': 'eu', 'mcp-param-count': '7' }, { count: 7 })).status).toBe(200)
      const rejected = [
        echo('eu-west', {}),
        echo('eu-west', { 'mcp-param-region': 'us-east' }),
        echo('Hello', { 'mcp-param-region': '=?base64?SGVsbG8?=' }),
        echo('Hello', { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }),
        echo('eu', { 'mcp-param-region': 'eu', 'mcp-param-count': 'seven' }, { count: 7 }),
        echo('eu', { 'mcp-param-region': 'eu', 'mcp-param-count': '7' }),
      ]
      for (const { status, message } of await Promise.all(rejected)) {
        expect([status, message.error?.code]).toEqual([400, -32020])
      }
    })

    it('answers unknown and removed methods with -32601 and HTTP 404', async () => {
      for (const method of [
        'initialize',
        'ping',
        'logging/setLevel',
        'resources/subscribe',
        'resources/unsubscribe',
        'tasks/result',
        'tasks/list',
        'unknown/method',
      ]) {
        const { status, message } = await call(method, {}, { id: method })
        expect([method, status, message.error?.code, message.id]).toEqual([method, 404, -32601, method])
      }
    })

    it('rejects a call needing an undeclared capability with -32021, HTTP 400 and data.requiredCapabilities', async () => {
      const { status, message } = await call('tools/call', { name: 'test_missing_capability', arguments: {} })
      expect(status).toBe(400)
      expect(message.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } })
      const declared = await call(
        'tools/call',
        { name: 'test_missing_capability', arguments: {} },
        { capabilities: { sampling: {} } },
      )
      expect(declared.message.result?.content?.[0]?.text).toBe('sampling declared')
    })
  })

  describe('results', () => {
    it('puts resultType and serverInfo on every result, and answers plain calls with JSON', async () => {
      for (const [method, params] of [
        ['server/discover', {}],
        ['tools/list', {}],
        ['tools/call', { name: 'test_simple_text' }],
        ['resources/read', { uri: 'test://static-text' }],
      ] as const) {
        const { status, headers, message } = await call(method, params)
        expect(status).toBe(200)
        expect(headers.get('content-type')).toBe('application/json')
        expect(message.result?.resultType).toBe('complete')
        expect(message.result?._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({
          name: 'mcp-edge-conformance-fixture',
          version: '1.0.0',
        })
      }
    })

    it('lists tools in registration order with cache hints, streamingHint and x-mcp-header intact', async () => {
      const first = (await call('tools/list')).message.result
      const second = (await call('tools/list')).message.result
      const names = first?.tools.map((tool: { name: string }) => tool.name)
      expect(names[0]).toBe('test_simple_text')
      expect(second?.tools.map((tool: { name: string }) => tool.name)).toEqual(names)
      expect(first).toMatchObject({ ttlMs: 300000, cacheScope: 'public' })
      const byName = Object.fromEntries(first?.tools.map((tool: { name: string }) => [tool.name, tool]))
      expect(byName.stream_text.annotations).toEqual({ streamingHint: true })
      expect(byName.test_header_echo.inputSchema.properties.region['x-mcp-header']).toBe('Region')
      expect(byName.greet.inputSchema).toMatchObject({ type: 'object', required: ['name'] })
    })

    it('rejects an invalid cursor with -32602', async () => {
      const { status, message } = await call('tools/list', { cursor: 'not-a-cursor' })
      expect([status, message.error?.code]).toEqual([200, -32602])
    })

    it('answers an unknown tool with -32602 and bad arguments with an isError result naming the problem', async () => {
      const unknown = await call('tools/call', { name: 'no_such_tool', arguments: {} })
      expect(unknown.message.error).toMatchObject({ code: -32602, message: 'Unknown tool: no_such_tool' })
      const bad = await call('tools/call', { name: 'greet', arguments: { name: 42 } })
      expect(bad.message.result?.isError).toBe(true)
      expect(bad.message.result?.content?.[0]?.text).toMatch(/^Invalid arguments for tool greet: name: /)
      const notObject = await call('tools/call', { name: 'greet', arguments: 'Ada' })
      expect(notObject.message.error?.code).toBe(-32602)
    })

    it('answers a missing resource with -32602 and data.uri, and reads template resources', async () => {
      const missing = await call('resources/read', { uri: 'test://nope' })
      expect(missing.message.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri: 'test://nope' } })
      const templated = await call('resources/read', { uri: 'test://template/42/data' })
      expect(JSON.parse(templated.message.result?.contents?.[0]?.text)).toMatchObject({ id: '42' })
      expect(templated.message.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    })

    it('checks prompt arguments: unknown prompt and missing required ones are -32602', async () => {
      expect((await call('prompts/get', { name: 'nope' })).message.error?.code).toBe(-32602)
      const missing = await call('prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'a' } })
      expect(missing.message.error).toMatchObject({ code: -32602, message: 'Missing required argument: arg2' })
      const ok = await call('prompts/get', { name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } })
      expect(ok.message.result?.messages?.[0]?.content?.text).toBe("Prompt with arguments: arg1='a', arg2='b'")
    })

    it('completes prompt arguments and template variables', async () => {
      const prompt = await call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'te' },
      })
      expect(prompt.message.result?.completion).toEqual({ values: ['test', 'testValue1'] })
      const template = await call('completion/complete', {
        ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
        argument: { name: 'id', value: '1' },
      })
      expect(template.message.result?.completion?.values).toEqual(['1', '123'])
      const unknown = await call('completion/complete', {
        ref: { type: 'ref/prompt', name: 'nope' },
        argument: { name: 'a', value: '' },
      })
      expect(unknown.message.error?.code).toBe(-32602)
    })
  })

  describe('notifications on the request stream', () => {
    it('streams progress over SSE, then the result, with X-Accel-Buffering: no', async () => {
      const { headers, sse, notifications, message } = await call(
        'tools/call',
        { name: 'test_tool_with_progress', arguments: {} },
        { meta: { progressToken: 'p-1' } },
      )
      expect(sse).toBe(true)
      expect(headers.get('x-accel-buffering')).toBe('no')
      expect(notifications.map((n) => [n.method, n.params.progressToken, n.params.progress])).toEqual([
        ['notifications/progress', 'p-1', 0],
        ['notifications/progress', 'p-1', 50],
        ['notifications/progress', 'p-1', 100],
      ])
      expect(message.result?.content?.[0]?.text).toBe('Progress complete')
    })

    it('sends no progress without a progressToken (JSON response)', async () => {
      const { sse, notifications } = await call('tools/call', { name: 'test_tool_with_progress', arguments: {} })
      expect([sse, notifications.length]).toEqual([false, 0])
    })

    it('logs only with a logLevel, at or above it; an invalid level is -32602', async () => {
      expect((await call('tools/call', { name: 'log_levels', arguments: {} })).notifications).toEqual([])
      const { notifications } = await call(
        'tools/call',
        { name: 'log_levels', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'error' } },
      )
      expect(notifications.map((n) => [n.method, n.params.level])).toEqual([
        ['notifications/message', 'error'],
        ['notifications/message', 'critical'],
        ['notifications/message', 'alert'],
        ['notifications/message', 'emergency'],
      ])
      const invalid = await call(
        'tools/call',
        { name: 'log_levels', arguments: {} },
        { meta: { 'io.modelcontextprotocol/logLevel': 'loud' } },
      )
      expect(invalid.message.error?.code).toBe(-32602)
    })
  })

  describe('subscriptions/listen', () => {
    it('acknowledges first, tags every notification, and sends only requested types', async () => {
      const stream = await openStream(
        target().fetch,
        buildRequest(
          target().url,
          'subscriptions/listen',
          { notifications: { promptsListChanged: true, resourceSubscriptions: ['test://watched-resource'] } },
          { id: 'listen-a' },
        ),
      )
      try {
        const ack = await stream.next()
        expect(ack).toMatchObject({ method: 'notifications/subscriptions/acknowledged' })
        expect(ack.params?.notifications).toEqual({
          promptsListChanged: true,
          resourceSubscriptions: ['test://watched-resource'],
        })
        // Tagged with the listen request's id, and (through an event hub) its starting event id.
        const { 'dev.mcp-edge/eventId': eventId, ...tagged } = ack.params?._meta ?? {}
        expect(tagged).toEqual({ 'io.modelcontextprotocol/subscriptionId': 'listen-a' })
        expect([undefined, expect.stringMatching(/^ev:0-\d+$/)]).toContainEqual(eventId)
        await call('tools/call', { name: 'test_trigger_tool_change', arguments: {} })
        await call('tools/call', { name: 'test_trigger_resource_update', arguments: {} })
        await call('tools/call', { name: 'test_trigger_prompt_change', arguments: {} })
        const updated = await stream.next()
        expect(updated).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'test://watched-resource' } })
        const prompts = await stream.next()
        expect(prompts).toMatchObject({
          method: 'notifications/prompts/list_changed',
          params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen-a' } },
        })
      } finally {
        await stream.close()
      }
    })

    it('rejects a missing filter with -32602, and taskIds without the Tasks extension with -32021', async () => {
      const missing = await readResponse(await target().fetch(buildRequest(target().url, 'subscriptions/listen', {})))
      expect([missing.status, missing.message.error?.code]).toEqual([200, -32602])
      const undeclared = await call('subscriptions/listen', { notifications: { taskIds: ['t-1'] } })
      expect(undeclared.status).toBe(400)
      expect(undeclared.message.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      })
    })
  })

  describe('who is calling', () => {
    it('passes the principal from authenticate to the handler', async () => {
      const { message } = await call(
        'tools/call',
        { name: 'whoami', arguments: {} },
        { headers: { authorization: 'Bearer alice' } },
      )
      expect(message.result?.content?.[0]?.text).toBe('alice')
    })
  })
}
