/**
 * mcp-edge/sdk's `createMcpHandler` as agents' and SDK 2.x's code uses it. It takes the `legacy` option as agents' `agents/mcp/server` and
 * SDK 2.x's `createMcpHandler` write it: `'stateless'` (their default) serves 2025-era clients
 * (on mcp-edge's own lane), `'reject'` refuses them. Before, `'stateless'` was a type error
 * (test/fixture/tsconfig.json typechecks this file), though it ran. SDK 2.x's `handler.notify`
 * (an in-process bus there, as the SDK 2.x resources example publishes on) publishes through the
 * Worker's `MCP_EVENTS` hub, here before the factory built any server; before, it was refused.
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { WorkerEntrypoint } from 'cloudflare:workers'
import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import * as z from 'zod'
import { cloudflareEventHub } from 'mcp-edge/cloudflare'
import { serverCard } from 'mcp-edge'
import type { EventHub, McpEvent } from 'mcp-edge'
import { conventionalServices, withIsolateRelay } from '../../packages/mcp-edge/src/sdk/services.ts'
import { legacyRequest } from '../support/legacy.ts'
import { buildRequest } from '../support/mcp.ts'
import {
  acceptedContent,
  CreateMessageResultSchema,
  createMcpHandler,
  ErrorCode,
  McpError,
  McpServer,
  originValidationResponse,
  UrlElicitationRequiredError,
} from 'mcp-edge/sdk'
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteResourceTemplateCallback,
  CreateMessageRequest,
  ElicitRequestURLParams,
  LoggingMessageNotificationParams,
  RequestHandlerExtra,
  ServerEvent,
  ServerEventBus,
  CreateMcpHandlerOptions,
  McpRequestContext,
  Icon,
  ServerContext,
  ServerOptions,
  StandardSchemaWithJSON,
  ToolCallback,
  ToolConfig,
  ToolInputSchema,
} from 'mcp-edge/sdk'

const initialize = () =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
    }),
  })

const factory = () => new McpServer({ name: 'legacy-option', version: '1.0.0' })

describe("createMcpHandler's legacy option, as agents and SDK 2.x write it", () => {
  it("'stateless' serves a 2025-era client's initialize", async () => {
    const response = await createMcpHandler(factory, { legacy: 'stateless' }).fetch(initialize(), env, createExecutionContext())
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'legacy-option' } },
    })
  })

  it("'reject' refuses it", async () => {
    const response = await createMcpHandler(factory, { legacy: 'reject' }).fetch(initialize(), env, createExecutionContext())
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { code: expect.any(Number) } })
  })
})

// SDK 2.x code makes the handler a Worker's default export (`export default createMcpHandler(f)`),
// which the runtime constructs as an entrypoint class: `new Handler(ctx, env).fetch(request)`, as
// workerd does without wrangler's dev middleware (test/http/sdk-v2-default.test.ts runs it with it).
describe('the handler as a default export', () => {
  it('is a WorkerEntrypoint class whose instances serve, and the same function when called or given as fetch', async () => {
    const Handler = createMcpHandler(factory, { legacy: 'stateless' })
    expect(Object.getPrototypeOf(Handler.prototype)).toBe(WorkerEntrypoint.prototype)
    const Entrypoint = Handler as unknown as new (
      ctx: ExecutionContext,
      env: unknown,
    ) => { fetch(request: Request): Promise<Response> }
    const constructed = await new Entrypoint(createExecutionContext(), env).fetch(initialize())
    const called = await Handler(initialize(), env, createExecutionContext())
    for (const response of [constructed, called]) {
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ result: { serverInfo: { name: 'legacy-option' } } })
    }
    // Made once per server and options: code that calls createMcpHandler per request makes no function per request.
    expect(createMcpHandler(factory, { legacy: 'stateless' })).toBe(Handler)
  })

  // Before, options were alike when their JSON was: two resource servers (objects of functions,
  // as jwtResourceServer makes them) both read as `{}`, so a handler made per request for one
  // host checked every host's tokens with the first's; and an inline array was never alike, so
  // the handler and its factory's server were made again per request.
  it('is made again for options holding other functions, and not for the same data written again inline', async () => {
    const hosts = { allowedHostnames: ['mcp.example.com'], corsOptions: { origin: 'https://app.example', maxAge: 60 } }
    const first = createMcpHandler(factory, { ...hosts, allowAnonymous: true })
    expect(createMcpHandler(factory, { ...structuredClone(hosts), allowAnonymous: true })).toBe(first)
    const subjectServer = (subject: string) => ({
      authenticate: async () => ({ subject }),
      challenge: () => ({ resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource', scopes: [] }),
    })
    const whoServer = new McpServer({ name: 'per-host', version: '1.0.0' })
    whoServer.registerTool('who', {}, async (extra) => ({
      content: [{ type: 'text', text: String(extra.authInfo?.extra?.subject) }],
    }))
    const who = async (subject: string) => {
      const request = buildRequest('http://127.0.0.1/mcp', 'tools/call', { name: 'who', arguments: {} })
      const response = await createMcpHandler(whoServer, { resourceServer: subjectServer(subject) }).fetch(
        request,
        env,
        createExecutionContext(),
      )
      return ((await response.json()) as { result?: { content: { text: string }[] } }).result?.content[0]?.text
    }
    expect(await who('tenant-alpha')).toBe('tenant-alpha')
    expect(await who('tenant-beta')).toBe('tenant-beta')
  })
})

describe("SDK 2.x's handler.notify", () => {
  it("publishes through the Worker's MCP_EVENTS hub, heard by a listener of that hub", async () => {
    const uri = `counter://value-${crypto.randomUUID()}`
    const heard: unknown[] = []
    let wake = () => {}
    const stop = new AbortController()
    const topics = new Set([`resource:${uri}`, 'list:tools'])
    await cloudflareEventHub({ binding: 'MCP_EVENTS' }).listen(
      { topics, principal: null },
      (event) => {
        heard.push(event)
        wake()
      },
      stop.signal,
    )
    const handler = createMcpHandler(() => new McpServer({ name: 'notify', version: '1.0.0' }))
    await handler.notify.resourceUpdated(uri)
    await handler.notify.toolsChanged()
    while (heard.length < 2) await new Promise<void>((resolve) => (wake = resolve))
    stop.abort()
    expect(heard).toMatchObject([
      { type: 'resourceUpdated', uri },
      { type: 'listChanged', list: 'tools' },
    ])
  })

  // The SDK's subscriptions example reads handler.bus; before, it was undefined (and a type error).
  it('handler.bus publishes the same way, and its subscribers hear what this isolate publishes on it or through notify', async () => {
    const uri = `counter://bus-${crypto.randomUUID()}`
    const heard: unknown[] = []
    let wake = () => {}
    const stop = new AbortController()
    await cloudflareEventHub({ binding: 'MCP_EVENTS' }).listen(
      { topics: new Set([`resource:${uri}`, 'list:prompts']), principal: null },
      (event) => {
        heard.push(event)
        wake()
      },
      stop.signal,
    )
    const handler = createMcpHandler(() => new McpServer({ name: 'bus', version: '1.0.0' }))
    const bus: ServerEventBus = handler.bus
    const local: ServerEvent[] = []
    const unsubscribe = bus.subscribe((event) => local.push(event))
    await bus.publish({ kind: 'resource_updated', uri })
    await handler.notify.promptsChanged()
    unsubscribe()
    bus.publish({ kind: 'tools_list_changed' })
    while (heard.length < 2) await new Promise<void>((resolve) => (wake = resolve))
    stop.abort()
    expect(heard).toMatchObject([
      { type: 'resourceUpdated', uri },
      { type: 'listChanged', list: 'prompts' },
    ])
    expect(local).toEqual([{ kind: 'resource_updated', uri }, { kind: 'prompts_list_changed' }])
    // Refused, it is thrown to the caller and heard by no listener.
    const again = bus.subscribe((event) => local.push(event))
    expect(() => bus.publish({ kind: 'nothing' } as never)).toThrow(/handler\.bus\.publish: no event kind "nothing"/)
    again()
    expect(local).toHaveLength(2)
  })
})

const post = (url: string, headers: Record<string, string> = {}) => {
  const request = initialize()
  return new Request(url, { method: 'POST', headers: { ...Object.fromEntries(request.headers), ...headers }, body: request.body })
}
const preflight = (url: string, origin: string, asked = 'content-type') =>
  new Request(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': asked },
  })
const serve = (options: CreateMcpHandlerOptions, request: Request) =>
  createMcpHandler(factory, { allowAnonymous: true, ...options }).fetch(request, env, createExecutionContext())

describe("agents' browser and Host options", () => {
  it('allowedOriginHostnames admits an origin by its host name; any other origin is refused with 403 before anything runs', async () => {
    const options = { allowedOriginHostnames: ['playground.ai.cloudflare.com'] }
    const allowed = await serve(options, post('https://mcp.example.com/mcp', { origin: 'https://playground.ai.cloudflare.com' }))
    expect(allowed.status).toBe(200)
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://playground.ai.cloudflare.com')
    // The isolate's first refusal (none before it in this file) is logged once, naming the option; the 403 does not.
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const refused = await serve(options, post('https://mcp.example.com/mcp', { origin: 'https://evil.example' }))
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Forbidden: origin https://evil.example is not allowed' },
    })
    expect((await serve(options, post('https://mcp.example.com/mcp', { origin: 'https://other.example' }))).status).toBe(403)
    const lines = warned.mock.calls.map(([line]) => JSON.parse(String(line)) as { msg: string; origin?: string })
    warned.mockRestore()
    const said = lines.filter((line) => line.msg.includes('allowedOriginHostnames'))
    expect(said).toEqual([expect.objectContaining({ origin: 'https://evil.example' })])
    expect(said[0]?.msg).toContain("refused a browser page's request")
    expect((await serve(options, preflight('https://mcp.example.com/mcp', 'https://evil.example'))).status).toBe(403)
    const asked = await serve(options, preflight('https://mcp.example.com/mcp', 'https://playground.ai.cloudflare.com'))
    expect(asked.status).toBe(204)
    expect(asked.headers.get('access-control-allow-origin')).toBe('https://playground.ai.cloudflare.com')
    // A loopback origin (a local page in development) passes as it does without the option.
    expect((await serve(options, post('https://mcp.example.com/mcp', { origin: 'http://localhost:5173' }))).status).toBe(200)
    // Its scheme's wildcard (a browser extension's).
    const extension = { allowedOriginHostnames: ['moz-extension://*'] }
    expect((await serve(extension, post('https://mcp.example.com/mcp', { origin: 'moz-extension://0c2f4e' }))).status).toBe(200)
    expect((await serve(extension, post('https://mcp.example.com/mcp', { origin: 'https://0c2f4e' }))).status).toBe(403)
  })

  // Porting round V (an SDK 2.x server with the SDK's guards in front of createMcpHandler): the
  // guard let a page's origin through and the handler then refused it, where the SDK's own handler
  // checks no origin, so the code's guard was its whole policy.
  it("an origin the code's own originValidationResponse admitted is not refused again; the same origin unguarded still is", async () => {
    const handler = createMcpHandler(factory, { allowAnonymous: true })
    const guarded = (request: Request) =>
      originValidationResponse(request, ['localhost', 'app.example.com']) ?? handler.fetch(request, env, createExecutionContext())
    const page = { origin: 'https://app.example.com' }
    const served = await guarded(post('https://mcp.example.com/mcp', page))
    expect(served.status).toBe(200)
    expect(await served.json()).toMatchObject({ result: { serverInfo: { name: 'legacy-option' } } })
    // The guard's own refusal stands; an origin it never saw (another request object) is the handler's to refuse.
    expect((await guarded(post('https://mcp.example.com/mcp', { origin: 'https://evil.example' }))).status).toBe(403)
    const unguarded = await handler.fetch(post('https://mcp.example.com/mcp', page), env, createExecutionContext())
    expect(unguarded.status).toBe(403)
    // A request whose Origin changed after the guard admitted it is checked afresh.
    const changed = post('https://mcp.example.com/mcp', page)
    expect(originValidationResponse(changed, ['app.example.com'])).toBeUndefined()
    changed.headers.set('origin', 'https://evil.example')
    expect((await handler.fetch(changed, env, createExecutionContext())).status).toBe(403)
  })

  it("by default admits corsOptions.origin's host name and the endpoint's own workers.dev origin, and '*' admits any", async () => {
    const cors = { corsOptions: { origin: 'https://app.example.com' } }
    expect((await serve(cors, post('https://mcp.example.com/mcp', { origin: 'https://app.example.com' }))).status).toBe(200)
    expect((await serve(cors, post('https://mcp.example.com/mcp', { origin: 'https://other.example.com' }))).status).toBe(403)
    const own = 'https://my-server.acct.workers.dev'
    expect((await serve({}, post(`${own}/mcp`, { origin: own }))).status).toBe(200)
    expect((await serve({}, post(`${own}/mcp`, { origin: 'https://evil.acct.workers.dev' }))).status).toBe(403)
    // Not on workers.dev, the endpoint's own origin is not assumed (a rebound name would pass).
    expect((await serve({}, post('https://mcp.example.com/mcp', { origin: 'https://mcp.example.com' }))).status).toBe(403)
    expect((await serve({ allowedOriginHostnames: '*' }, post(own, { origin: 'https://anyone.example' }))).status).toBe(404)
    const any = await serve({ allowedOriginHostnames: '*' }, post(`${own}/mcp`, { origin: 'https://anyone.example' }))
    expect(any.status).toBe(200)
  })

  it('a refused origin runs no factory, and a non-web corsOptions.origin allows nothing', async () => {
    let built = 0
    const counting = () => {
      built++
      return factory()
    }
    const options = { allowAnonymous: true, allowedOriginHostnames: ['app.example.com'] }
    const refused = await createMcpHandler(counting, options).fetch(
      post('https://mcp.example.com/mcp', { origin: 'https://evil.example' }),
      env,
      createExecutionContext(),
    )
    expect(refused.status).toBe(403)
    expect(built).toBe(0)
    const extension = { corsOptions: { origin: 'chrome-extension://abc' } }
    expect((await serve(extension, post('https://mcp.example.com/mcp', { origin: 'chrome-extension://abc' }))).status).toBe(403)
  })

  it('allowedHostnames refuses another Host with 403 (loopback names still pass)', async () => {
    const options = { allowedHostnames: ['mcp.example.com'] }
    expect((await serve(options, post('https://mcp.example.com/mcp', { host: 'mcp.example.com' }))).status).toBe(200)
    expect((await serve(options, post('http://127.0.0.1:8787/mcp', { host: '127.0.0.1:8787' }))).status).toBe(200)
    const refused = await serve(options, post('https://mcp.example.com/mcp', { host: 'evil.example' }))
    expect(refused.status).toBe(403)
    expect(await refused.json()).toMatchObject({
      error: { code: -32600, message: 'Forbidden: host evil.example is not allowed' },
    })
  })

  // mcp-server-cloudflare's apps build their server from the caller's grant and throw without one;
  // a preflight carries no credentials. Before, it ran the factory and answered 500, so no browser
  // client (the AI playground) could connect.
  it("answers a browser's preflight without running a factory, which may need the caller", async () => {
    let built = 0
    const needsCaller = createMcpHandler(
      (ctx: McpRequestContext) => {
        built++
        if (!ctx.authInfo) throw new Error('Authenticated request props are required')
        return new McpServer({ name: 'needs-caller', version: '1.0.0' })
      },
      { allowedOriginHostnames: ['playground.ai.cloudflare.com'], corsOptions: { maxAge: 86400 } },
    )
    const send = (request: Request) => needsCaller.fetch(request, env, createExecutionContext())
    const asked = await send(preflight('https://mcp.example.com/mcp', 'https://playground.ai.cloudflare.com', 'authorization'))
    expect(asked.status).toBe(204)
    expect(asked.headers.get('access-control-allow-origin')).toBe('https://playground.ai.cloudflare.com')
    expect((asked.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('authorization')
    expect(asked.headers.get('access-control-max-age')).toBe('86400')
    expect((await send(preflight('https://mcp.example.com/mcp', 'https://evil.example'))).status).toBe(403)
    expect(built).toBe(0)
    // The request itself still builds for its caller (here none: the factory's own error, 500).
    expect((await send(post('https://mcp.example.com/mcp', { origin: 'https://playground.ai.cloudflare.com' }))).status).toBe(500)
    expect(built).toBe(1)
  })

  // Before, `false` changed nothing: preflights and responses still carried CORS headers.
  it('corsOptions: false answers no browser page: no CORS header on a preflight or a response, as agents', async () => {
    const options = { corsOptions: false as const }
    const origin = 'http://localhost:5173'
    const answered = await serve(options, preflight('http://127.0.0.1/mcp', origin))
    const served = await serve(options, post('http://127.0.0.1/mcp', { origin }))
    expect(served.status).toBe(200)
    for (const response of [answered, served]) {
      expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
    }
    // A page of another origin is still refused, before anything runs.
    expect((await serve(options, post('http://127.0.0.1/mcp', { origin: 'https://evil.example' }))).status).toBe(403)
  })

  it("corsOptions' headers, methods, max age and exposed headers are added to what MCP clients need", async () => {
    const options = {
      corsOptions: { headers: 'cf-account-id', methods: 'PUT', maxAge: 86400, exposeHeaders: 'x-request-id' },
    }
    const asked = await serve(
      options,
      preflight('https://mcp.example.com/mcp', 'http://localhost:5173', 'content-type,cf-account-id'),
    )
    expect(asked.status).toBe(204)
    const allowHeaders = (asked.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    expect(allowHeaders).toContain('cf-account-id')
    expect(allowHeaders).toContain('mcp-protocol-version')
    expect(asked.headers.get('access-control-allow-methods')).toContain('PUT')
    expect(asked.headers.get('access-control-allow-methods')).toContain('POST')
    expect(asked.headers.get('access-control-max-age')).toBe('86400')
    const answered = await serve(options, post('https://mcp.example.com/mcp', { origin: 'http://localhost:5173' }))
    expect(answered.status).toBe(200)
    expect(answered.headers.get('access-control-expose-headers')).toMatch(/Mcp-Session-Id.*x-request-id/)
  })
})

// Before, the route check answered 404 for <route>/server-card, so the option did nothing.
describe("createMcpHandler's serverCard option", () => {
  it('serves the Server Card at <route>/server-card, public, from the server identity', async () => {
    const carded = new McpServer({ name: 'carded', version: '2.1.0' })
    const handler = createMcpHandler(carded, {
      route: '/mcp',
      serverCard: serverCard({ name: 'com.example/carded', description: 'A carded server' }),
    })
    const response = await handler.fetch(new Request('https://mcp.example.com/mcp/server-card'), env, createExecutionContext())
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect(await response.json()).toMatchObject({ name: 'com.example/carded', version: '2.1.0' })
    // The endpoint itself still asks for a caller (no authentication configured: only local requests).
    expect(
      (await handler.fetch(buildRequest('https://mcp.example.com/mcp', 'tools/list'), env, createExecutionContext())).status,
    ).toBe(401)
  })
})

describe('options with nothing to act on', () => {
  it('are named once per isolate in a warning saying why, at the first request, and change nothing', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      // Made, not yet serving (a Worker's top level, where its log has no clock): nothing said.
      createMcpHandler(factory, { maxSubscriptions: 3 })
      expect(warn).not.toHaveBeenCalled()
      for (let i = 0; i < 2; i++) {
        const response = await serve({ keepAliveMs: 5000, enableJsonResponse: true }, post('http://127.0.0.1/mcp'))
        expect(response.status).toBe(200)
      }
      const said = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('does nothing on mcp-edge'))
      expect(said).toHaveLength(2)
      expect(said.join('\n')).toContain('createMcpHandler option keepAliveMs does nothing on mcp-edge')
      expect(said.join('\n')).toContain('createMcpHandler option enableJsonResponse does nothing on mcp-edge')
    } finally {
      warn.mockRestore()
    }
  })
})

describe('server.server.onerror', () => {
  const ENDPOINT = 'http://127.0.0.1/mcp'

  it("hears what a handler threw unexpectedly, before it is answered; an McpError is the client's, not reported", async () => {
    const heard: Error[] = []
    const server = new McpServer({ name: 'onerror', version: '1.0.0' })
    server.server.onerror = (error) => heard.push(error)
    server.registerTool('boom', {}, () => {
      throw new Error('boom')
    })
    server.registerTool('refuse', {}, () => {
      throw new McpError(ErrorCode.InvalidParams, 'not that')
    })
    const handler = createMcpHandler(server, { allowAnonymous: true })
    const boom = await handler.fetch(
      buildRequest(ENDPOINT, 'tools/call', { name: 'boom', arguments: {} }),
      env,
      createExecutionContext(),
    )
    expect(await boom.json()).toMatchObject({ result: { isError: true, content: [{ type: 'text', text: 'boom' }] } })
    expect(heard.map((error) => error.message)).toEqual(['boom'])
    const refused = await handler.fetch(
      buildRequest(ENDPOINT, 'tools/call', { name: 'refuse', arguments: {} }),
      env,
      createExecutionContext(),
    )
    expect(await refused.json()).toMatchObject({ result: { isError: true } })
    expect(heard).toHaveLength(1)
  })

  it("hears a prompt's and a resource's too; a hook that throws changes no answer", async () => {
    const heard: string[] = []
    const server = new McpServer({ name: 'onerror-more', version: '1.0.0' })
    server.server.onerror = (error) => {
      heard.push(error.message)
      throw new Error('the tracker is down')
    }
    server.registerPrompt('p', {}, () => {
      throw new Error('prompt broke')
    })
    server.registerResource('r', 'notes://r', {}, () => {
      throw new Error('resource broke')
    })
    server.registerTool('t', {}, () => {
      throw new Error('tool broke')
    })
    const handler = createMcpHandler(server, { allowAnonymous: true })
    const send = (method: string, params: Record<string, unknown>) =>
      handler.fetch(buildRequest(ENDPOINT, method, params), env, createExecutionContext())
    for (const answered of [await send('prompts/get', { name: 'p' }), await send('resources/read', { uri: 'notes://r' })]) {
      expect(await answered.json()).toMatchObject({ error: { code: -32603 } })
    }
    const tool = await send('tools/call', { name: 't', arguments: {} })
    expect(await tool.json()).toMatchObject({ result: { isError: true, content: [{ text: 'tool broke' }] } })
    expect(heard).toEqual(['prompt broke', 'resource broke', 'tool broke'])
  })

  it("createMcpHandler's onerror hears a factory's throw and, for a server without its own, its handlers'", async () => {
    const heard: string[] = []
    let fail = true
    const handler = createMcpHandler(
      () => {
        if (fail) throw new Error('factory broke')
        const server = new McpServer({ name: 'onerror-option', version: '1.0.0' })
        server.registerTool('t', {}, () => {
          throw new Error('tool broke')
        })
        return server
      },
      { allowAnonymous: true, onerror: (error) => heard.push(error.message) },
    )
    const send = () =>
      handler.fetch(buildRequest(ENDPOINT, 'tools/call', { name: 't', arguments: {} }), env, createExecutionContext())
    expect((await send()).status).toBe(500)
    fail = false
    expect(await (await send()).json()).toMatchObject({ result: { isError: true } })
    expect(heard).toEqual(['factory broke', 'tool broke'])
  })

  it("hears a shared build's failure once, however many requests waited on it; a server's own onerror comes first", async () => {
    const heard: string[] = []
    const broken = createMcpHandler(
      () => {
        throw new Error('factory broke')
      },
      { allowAnonymous: true, onerror: (error) => heard.push(error.message) },
    )
    const send = (handler: typeof broken) =>
      handler.fetch(buildRequest(ENDPOINT, 'tools/call', { name: 't', arguments: {} }), env, createExecutionContext())
    const answers = await Promise.all([send(broken), send(broken)])
    expect(answers.map((answer) => answer.status)).toEqual([500, 500])
    expect(heard).toEqual(['factory broke'])
    const own: string[] = []
    const server = new McpServer({ name: 'own-onerror', version: '1.0.0' })
    server.server.onerror = (error) => own.push(error.message)
    server.registerTool('t', {}, () => {
      throw new Error('tool broke')
    })
    await send(createMcpHandler(server, { allowAnonymous: true, onerror: (error) => heard.push(error.message) }))
    expect(own).toEqual(['tool broke'])
    expect(heard).toEqual(['factory broke'])
  })
})

const call = (name: string) => buildRequest('http://127.0.0.1/mcp', 'tools/call', { name, arguments: {} })

describe('list changes of handles', () => {
  /** The `events` option as a Worker may write its own hub: this one keeps what is published. */
  const recording = (published: McpEvent[]): EventHub => ({
    publish: async (event) => {
      published.push(event)
      return 0
    },
    listen: () => Promise.reject(new Error('no listener in this test')),
  })

  // Before, every request of the factory below announced tools/list_changed to every listener of
  // the Worker (a Durable Object call each), as the SDK 2.x subscriptions example would have.
  it('announces none while a server is set up (a factory building it per request), as an SDK server sends none before it is connected; then each', async () => {
    const published: McpEvent[] = []
    const factory = async () => {
      const server = new McpServer({ name: 'set-up', version: '1.0.0' }, { events: recording(published) })
      const beta = server.registerTool('beta', {}, async () => ({ content: [{ type: 'text', text: 'beta' }] }))
      // Past the turn that built the server: only the set-up's own frame keeps this quiet.
      await Promise.resolve()
      beta.disable()
      server.sendToolListChanged()
      server.registerTool('enable_beta', {}, async () => {
        beta.enable()
        return { content: [{ type: 'text', text: 'on' }] }
      })
      return server
    }
    const handler = createMcpHandler(factory)
    const listed = await handler.fetch(buildRequest('http://127.0.0.1/mcp', 'tools/list'), env, createExecutionContext())
    expect(((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name)).toEqual([
      'enable_beta',
    ])
    expect(published).toEqual([])
    const enabled = await handler.fetch(call('enable_beta'), env, createExecutionContext())
    expect(enabled.status).toBe(200)
    expect(published).toEqual([{ type: 'listChanged', list: 'tools' }])
  })

  // The server's list is announced from the turn after the one that built it: toggles at the
  // module's top are not, later ones are, served here or not (a scheduled handler, a task's run in
  // its Durable Object, an isolate that served no request yet).
  // Work a set-up starts that runs after it (a timer, an unawaited load) resumes in its frame.
  it('announces what work started by a set-up changes once the set-up is over', async () => {
    const published: McpEvent[] = []
    let load: () => void = () => {}
    const factory = () => {
      const server = new McpServer({ name: 'loads-later', version: '1.0.0' }, { events: recording(published) })
      const beta = server.registerTool('beta', {}, async () => ({ content: [{ type: 'text', text: 'beta' }] }))
      beta.disable()
      void new Promise<void>((resolve) => {
        load = resolve
      }).then(() => beta.enable())
      return server
    }
    await createMcpHandler(factory).fetch(buildRequest('http://127.0.0.1/mcp', 'tools/list'), env, createExecutionContext())
    expect(published).toEqual([])
    load()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(published).toEqual([{ type: 'listChanged', list: 'tools' }])
  })

  it('announces none in the turn that builds a server at the top of the module, and every change after it, served or not', async () => {
    const published: McpEvent[] = []
    const server = new McpServer({ name: 'module-top', version: '1.0.0' }, { events: recording(published) })
    const beta = server.registerTool('beta', {}, async () => ({ content: [{ type: 'text', text: 'beta' }] }))
    beta.disable()
    expect(published).toEqual([])
    await Promise.resolve()
    beta.enable()
    expect(published).toEqual([{ type: 'listChanged', list: 'tools' }])
    await createMcpHandler(server).fetch(buildRequest('http://127.0.0.1/mcp', 'tools/list'), env, createExecutionContext())
    beta.disable()
    expect(published).toHaveLength(2)
  })
})

describe('McpServer as SDK code extends it', () => {
  // Cloudflare's own servers subclass McpServer and wrap both methods (mcp-server-cloudflare's
  // CloudflareMCPServer); in both SDKs tool() does not go through registerTool, so each tool is
  // wrapped once. Before, tool() called this.registerTool and its callback was wrapped twice.
  it('registers a tool() once through a subclass that wraps tool and registerTool alike', async () => {
    const wrapped: string[] = []
    class Counted extends McpServer {
      override tool(name: string, ...rest: unknown[]) {
        wrapped.push(`tool ${name}`)
        return (super.tool as (name: string, ...rest: unknown[]) => ReturnType<McpServer['tool']>)(name, ...rest)
      }
      override registerTool<Out = undefined, In extends ToolInputSchema = undefined>(
        name: string,
        config: ToolConfig<In, Out>,
        callback: ToolCallback<In>,
      ) {
        wrapped.push(`registerTool ${name}`)
        return super.registerTool(name, config, callback)
      }
    }
    const server = new Counted({ name: 'counted', version: '1.0.0' })
    // The same for prompts and resources, wrapped on the instance.
    const wrap = (method: 'prompt' | 'registerPrompt' | 'resource' | 'registerResource') => {
      const own = (server[method] as (...args: unknown[]) => unknown).bind(server)
      Object.assign(server, { [method]: (...args: unknown[]) => (wrapped.push(`${method} ${args[0]}`), own(...args)) })
    }
    for (const method of ['prompt', 'registerPrompt', 'resource', 'registerResource'] as const) wrap(method)
    server.tool('a', async () => ({ content: [{ type: 'text', text: 'a' }] }))
    server.registerTool('b', {}, async () => ({ content: [{ type: 'text', text: 'b' }] }))
    server.prompt('p', () => ({ messages: [] }))
    server.resource('r', 'docs://r', (uri) => ({ contents: [{ uri: uri.href, text: 'r' }] }))
    expect(wrapped).toEqual(['tool a', 'registerTool b', 'prompt p', 'resource r'])
    expect([...server.edge.prompts.keys()]).toEqual(['p'])
    expect([...server.edge.tools.keys()]).toEqual(['a', 'b'])
  })

  // Published servers name tools 'list sites'; SDK 1.x warns of the convention (a SHOULD) and
  // serves them. Before, the registration threw, and a Worker with one at its top failed to load.
  it("serves a tool named outside the spec's convention, as SDK 1.x does, where a native tool's name is refused", async () => {
    const server = new McpServer({ name: 'wix-like', version: '1.0.0' })
    server.tool('list sites', 'List all sites', async () => ({ content: [{ type: 'text', text: 'sites' }] }))
    expect(() => server.tool('', async () => ({ content: [] }))).toThrow(/Tool name "" must be 1–128 characters/)
    expect(() => server.edge.tool('list sites 2', { input: z.object({}) }, () => ({ content: [] }))).toThrow(
      /must be 1–128 characters/,
    )
    const handler = createMcpHandler(server)
    const listed = await handler.fetch(buildRequest('http://127.0.0.1/mcp', 'tools/list'), env, createExecutionContext())
    expect(((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name)).toEqual([
      'list sites',
    ])
    const called = await handler.fetch(call('list sites'), env, createExecutionContext())
    expect(((await called.json()) as { result: unknown }).result).toMatchObject({ content: [{ type: 'text', text: 'sites' }] })
  })

  // SDK 2.x's extension-capabilities example declares its extension with registerCapabilities;
  // before, that was a TypeError at start-up, and `capabilities.extensions` was dropped.
  it("offers the extensions SDK 2.x code declares, in its options' capabilities or with registerCapabilities", async () => {
    const server = new McpServer(
      { name: 'extended', version: '1.0.0' },
      { capabilities: { extensions: { 'com.example/first': { level: 1 } } } },
    )
    server.server.registerCapabilities({ extensions: { 'com.example/second': {} }, logging: {} })
    const response = await createMcpHandler(server).fetch(initialize(), env, createExecutionContext())
    const { capabilities } = ((await response.json()) as { result: { capabilities: Record<string, unknown> } }).result
    expect(capabilities.extensions).toEqual({ 'com.example/first': { level: 1 }, 'com.example/second': {} })
  })

  // JavaScript servers return only structuredContent; before, the call failed with -32603 ("not a
  // CallToolResult"). SDK 2.x adds the JSON as text (SDK 1.x reads it as no content).
  it('completes a result that has only structuredContent with its JSON as text, checked against the output schema', async () => {
    const server = new McpServer({ name: 'structured', version: '1.0.0' })
    const only = (value: unknown) => async () => ({ structuredContent: value }) as unknown as CallToolResult
    server.registerTool('weather', { outputSchema: { temp: z.number() } }, only({ temp: 20 }))
    server.registerTool('wrong', { outputSchema: { temp: z.number() } }, only({ temp: 'warm' }))
    server.registerTool('untyped', {}, only({ rows: 3 }))
    const result = async (name: string) => {
      const response = await createMcpHandler(server).fetch(call(name), env, createExecutionContext())
      return ((await response.json()) as { result: Record<string, unknown> }).result
    }
    expect(await result('weather')).toMatchObject({
      content: [{ type: 'text', text: '{"temp":20}' }],
      structuredContent: { temp: 20 },
    })
    expect(await result('untyped')).toMatchObject({
      content: [{ type: 'text', text: '{"rows":3}' }],
      structuredContent: { rows: 3 },
    })
    expect(await result('wrong')).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Output validation error/) }],
    })
  })

  // Porting round Y: a tool returned its rows as an array of structured content. 2026-07-28 takes
  // any JSON value there; the 2025 revisions an object only, and SDK 1.x's client refused the
  // whole result (a zod issue list, no MCP error), so a 2025 answer leaves it out.
  it('keeps structured content that is not an object for 2026-07-28 and leaves it out of a 2025-era answer', async () => {
    const server = new McpServer({ name: 'rows', version: '1.0.0' })
    const rows = [{ id: 1 }, { id: 2 }]
    server.registerTool(
      'list',
      {},
      async () =>
        ({ content: [{ type: 'text', text: JSON.stringify(rows) }], structuredContent: rows }) as unknown as CallToolResult,
    )
    const handler = createMcpHandler(server)
    const modern = await handler.fetch(call('list'), env, createExecutionContext())
    expect(((await modern.json()) as { result: unknown }).result).toMatchObject({ structuredContent: rows })
    const opened = await handler.fetch(initialize(), env, createExecutionContext())
    const session = opened.headers.get('mcp-session-id') as string
    expect(session).toBeTruthy()
    const legacy = await handler.fetch(
      legacyRequest(
        'http://127.0.0.1/mcp',
        { version: '2025-11-25', sessionId: session },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list', arguments: {} } },
      ),
      env,
      createExecutionContext(),
    )
    expect(((await legacy.json()) as { result: unknown }).result).toEqual({
      content: [{ type: 'text', text: JSON.stringify(rows) }],
    })
  })

  // agents' createMcpHandler serves every path when its route is empty; before, nothing matched ''.
  it("serves every path with route '' (agents' any path), only its own with the default route", async () => {
    const server = new McpServer({ name: 'anywhere', version: '1.0.0' })
    server.registerTool('here', {}, async () => ({ content: [{ type: 'text', text: 'here' }] }))
    const status = async (route: string | undefined, path: string) => {
      const request = buildRequest(`http://127.0.0.1${path}`, 'tools/call', { name: 'here', arguments: {} })
      const handler = createMcpHandler(server, route === undefined ? {} : { route })
      return (await handler.fetch(request, env, createExecutionContext())).status
    }
    for (const path of ['/mcp', '/', '/a/b']) expect(await status('', path)).toBe(200)
    expect(await status(undefined, '/mcp')).toBe(200)
    expect(await status(undefined, '/a/b')).toBe(404)
  })

  it('takes instructions from the options over any in the server info, and from the server info when the options have none', async () => {
    const instructionsOf = async (server: McpServer) => {
      const response = await createMcpHandler(server).fetch(initialize(), env, createExecutionContext())
      return ((await response.json()) as { result: { instructions?: string } }).result.instructions
    }
    const info = { name: 'info', version: '1.0.0', instructions: 'from the info' }
    expect(await instructionsOf(new McpServer(info, { instructions: 'from the options' }))).toBe('from the options')
    expect(await instructionsOf(new McpServer(info))).toBe('from the info')
  })
})

describe('types ported code names', () => {
  it("acceptedContent with a schema is typed by it; agents' options spread through Omit", () => {
    const amount = acceptedContent({ a: { action: 'accept', content: { amount: 3 } } }, 'a', z.object({ amount: z.number() }))
    expectTypeOf(amount).toEqualTypeOf<{ amount: number } | undefined>()
    expect(amount).toEqual({ amount: 3 })
    expect(acceptedContent({ a: { action: 'accept', content: { amount: 'x' } } }, 'a', z.object({ amount: z.number() }))).toBe(
      undefined,
    )
    const base: Omit<CreateMcpHandlerOptions, 'authContext' | 'legacy'> = { route: '/mcp', corsOptions: { origin: '*' } }
    const options: CreateMcpHandlerOptions = { ...base, legacy: 'stateless' }
    expectTypeOf(options.route).toEqualTypeOf<string | undefined>()
    const context = (ctx: ServerContext): string | undefined => ctx.sessionId
    const schema: StandardSchemaWithJSON = z.object({})
    const icon: Icon = { src: 'https://example.com/icon.png' }
    const capabilities: ClientCapabilities = {}
    const serverOptions: ServerOptions = { instructions: 'hi' }
    expect([typeof context, schema, icon, capabilities, serverOptions]).toHaveLength(5)
  })

  // Found porting the reference "everything" server: each of these compiled against the SDK and not here.
  it("the SDK's request types go to sendRequest as they are; URL elicitations carry their id; a template's completer and the transport have their names", () => {
    const sampling: CreateMessageRequest = {
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 },
    }
    const asks = async (extra: RequestHandlerExtra) => {
      await extra.sendRequest(sampling, CreateMessageResultSchema)
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data: 'x' } as LoggingMessageNotificationParams,
      })
    }
    const url: ElicitRequestURLParams = { mode: 'url', message: 'Sign in', url: 'https://example.com', elicitationId: 'e1' }
    const error = new UrlElicitationRequiredError([url])
    // @ts-expect-error: as in the SDKs, a URL elicitation's parameters name their id
    const unnamed: ElicitRequestURLParams = { mode: 'url', message: 'Sign in', url: 'https://example.com' }
    const complete: CompleteResourceTemplateCallback = (value) => [value]
    const transport: undefined = new McpServer({ name: 't', version: '1' }).server.transport
    expect([typeof asks, error.elicitations[0]?.elicitationId, unnamed.url, complete('a'), transport]).toEqual([
      'function',
      'e1',
      'https://example.com',
      ['a'],
      undefined,
    ])
  })
})

// Found porting Azure DevOps' MCP server (among others): `server.server.oninitialized` reads the
// client (`getClientVersion()`) for its user agent and telemetry; it was taken and never called.
describe('server.server.oninitialized', () => {
  const notifyInitialized = (session: string) =>
    legacyRequest(
      'http://127.0.0.1/mcp',
      { version: '2025-11-25', sessionId: session },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    )

  it("is called once a 2025-era client's notifications/initialized arrives, reading that client; what it throws reaches onerror", async () => {
    const server = new McpServer({ name: 'greets', version: '1.0.0' })
    const heard: unknown[] = []
    const reported: string[] = []
    server.server.oninitialized = () => {
      heard.push([server.server.getClientVersion(), server.server.getClientCapabilities()])
      if (heard.length === 2) throw new Error('the tracker is down')
    }
    server.server.onerror = (error) => void reported.push(error.message)
    const handler = createMcpHandler(server)
    const opened = await handler.fetch(initialize(), env, createExecutionContext())
    const session = opened.headers.get('mcp-session-id') as string
    expect(session).toBeTruthy()
    expect(heard).toEqual([])
    for (let i = 0; i < 2; i++) {
      const answered = await handler.fetch(notifyInitialized(session), env, createExecutionContext())
      expect(answered.status).toBe(202)
    }
    expect(heard).toEqual([
      [{ name: 'legacy', version: '1' }, {}],
      [{ name: 'legacy', version: '1' }, {}],
    ])
    expect(reported).toEqual(['the tracker is down'])
    // Outside it, as before, the client is the running handler's only.
    expect(server.server.getClientVersion()).toBeUndefined()
  })
})

// The done-when check with real clients: a 2025 client's answer to a confirmation, POSTed to
// another isolate than the call's (two `wrangler dev`s), was refused there and the call timed out;
// without MCP_INPUT_RELAY nothing said that answers are matched within one isolate.
describe('a 2025-era question asked with no MCP_INPUT_RELAY bound', () => {
  it('is said once in the log, naming the binding, for createMcpHandler; not for an McpAgent, whose answers reach its object', async () => {
    const { MCP_INPUT_RELAY: _bound, ...unbound } = env as unknown as Record<string, unknown>
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const said = () => warned.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('MCP_INPUT_RELAY'))
    try {
      const agents = conventionalServices(unbound, true).inputRelay
      await agents?.open(null, 1, 1_000)
      expect(said()).toEqual([])
      const handlers = conventionalServices(unbound, false).inputRelay
      const exchange = (await handlers?.open(null, 1, 1_000)) ?? ''
      await handlers?.open(null, 1, 1_000)
      expect(said()).toHaveLength(1)
      expect(said()[0]).toContain("export { McpInputRelay } from 'mcp-edge/cloudflare'")
      // It still matches answers within the isolate, as before.
      expect(await handlers?.answer(exchange, 0, null, { result: { action: 'decline' } })).toBeTruthy()
      expect(await handlers?.wait(exchange, new AbortController().signal)).toEqual([{ result: { action: 'decline' } }])
      // Bound, the Durable Object relay takes the question, not the isolate's.
      const bound = conventionalServices(env, false).inputRelay
      expect(bound).toBeDefined()
      expect(bound).not.toBe(handlers)
      expect(bound).not.toBe(agents)
      // A Worker's own services without a relay get the isolate's that says so (second review: the
      // core's own fallback took the answers silently); with one, theirs is kept.
      const own = withIsolateRelay(() => ({}))(env)
      expect(own.inputRelay).toBe(handlers)
      const theirs = withIsolateRelay(() => ({ inputRelay: bound }))(env)
      expect(theirs.inputRelay).toBe(bound)
    } finally {
      warned.mockRestore()
    }
  })
})
