/**
 * Authentication at the edge of the request, through `mcp()` as a Hono sub-app: fail-closed
 * locality without configured authentication, principals from Hono middleware, scopes per tool,
 * resource and prompt (403 step-up challenges, filtered `private` lists), CORS preflights,
 * `ctx.waitUntil`, and the server identity bound into sealed states.
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { Hono } from 'hono'
import type { Context } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import { jwk } from 'hono/jwk'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import * as z from 'zod'
import {
  AuthChallenge,
  isLocalRequest,
  LOCAL_ONLY_WARNING,
  NOT_CONFIGURED_MESSAGE,
  PROXIED_MESSAGE,
  routedMessage,
} from '../../packages/mcp-edge/src/http/auth.ts'
import { urlHost } from '../../packages/mcp-edge/src/http/guards.ts'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import type { McpHttpOptions } from '../../packages/mcp-edge/src/http/handler.ts'
import { mcp } from '../../packages/mcp-edge/src/http/hono.ts'
import type { McpVariables } from '../../packages/mcp-edge/src/http/hono.ts'
import { input } from '../../packages/mcp-edge/src/server/input/input.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { McpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { Principal } from '../../packages/mcp-edge/src/server/types.ts'
import { records } from '../support/logs.ts'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
let nextId = 1

function post(url: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const name = method === 'resources/read' ? params.uri : params.name
  return new Request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          ...(params._meta as object),
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
  })
}

function scopedServer(): McpServer<object> {
  return createMcpServer<object>({ name: 'scoped', version: '1.0.0' })
    .tool('read_notes', { input: z.object({}) }, (_args, ctx) => text(`notes for ${ctx.principal?.subject ?? 'nobody'}`))
    .tool('delete_notes', { input: z.object({}), scopes: ['notes:write'] }, () => text('deleted'))
    .resource('notes://all', { name: 'all' }, (uri) => ({ contents: [{ uri, text: 'all' }] }))
    .resource('notes://secret', { name: 'secret', scopes: ['notes:admin'] }, (uri) => ({ contents: [{ uri, text: 's' }] }))
    .prompt('summarize', { scopes: ['notes:write'] }, () => ({ messages: [] }))
}

/** A Hono app whose middleware sets `principal` from the `x-test-principal` header (JSON). */
function appWith(server: McpServer<object>, options: McpHttpOptions<object> = {}) {
  const app = new Hono<{ Variables: McpVariables }>()
  app.use('/mcp/*', async (c, next) => {
    const given = c.req.header('x-test-principal')
    if (given) c.set('principal', JSON.parse(given) as Principal)
    await next()
  })
  app.route('/mcp', mcp(server, options))
  return app
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('fail closed without configured authentication', () => {
  const handle = createMcpHandler(scopedServer(), {})

  it('serves a request whose URL host, Host and CF-Connecting-IP are loopback', async () => {
    expect((await handle(post('http://127.0.0.1:8787/mcp', 'tools/list'), {})).status).toBe(200)
    expect((await handle(post('http://localhost:8787/mcp', 'tools/list', {}, { 'cf-connecting-ip': '::1' }), {})).status).toBe(
      200,
    )
  })

  it('answers anyone else 401 with how to configure authentication, reading no body', async () => {
    for (const request of [
      post('https://mcp.example.com/mcp', 'tools/list'),
      post('http://127.0.0.1:8787/mcp', 'tools/list', { arguments: {} }, { host: 'mcp.example.com' }),
      post('http://127.0.0.1:8787/mcp', 'tools/list', {}, { 'cf-connecting-ip': '203.0.113.9' }),
    ]) {
      const response = await handle(request, {})
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"')
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: NOT_CONFIGURED_MESSAGE } })
      expect(request.bodyUsed).toBe(false)
    }
  })

  it("says why a loopback caller whose URL names another host is refused: wrangler dev's routes, or a tunnel", async () => {
    // wrangler dev serving a Worker with `routes` hands it the route's host in the URL and Host;
    // only the connecting address (Miniflare's, from the socket) is loopback.
    const headers = { host: 'mcp.example.com', 'cf-connecting-ip': '127.0.0.1' }
    const request = post('http://mcp.example.com/mcp', 'tools/list', {}, headers)
    const response = await handle(request, {})
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="mcp"')
    const message = (await response.json()).error.message
    expect(message).toBe(routedMessage('mcp.example.com'))
    expect(message).toContain('--local-upstream 127.0.0.1:<port>')
    expect(request.bodyUsed).toBe(false)
    // The same request carrying a proxy's mark is said to be proxied; from a remote address, not configured.
    const proxied = post('http://mcp.example.com/mcp', 'tools/list', {}, { ...headers, 'x-forwarded-for': '203.0.113.9' })
    expect((await (await handle(proxied, {})).json()).error.message).toBe(PROXIED_MESSAGE)
    const remote = post('http://mcp.example.com/mcp', 'tools/list', {}, { ...headers, 'cf-connecting-ip': '203.0.113.9' })
    expect((await (await handle(remote, {})).json()).error.message).toBe(NOT_CONFIGURED_MESSAGE)
  })

  it('warns once per isolate, at the first request, unless authentication is configured or a choice was made', async () => {
    // A new isolate's modules: other tests here have said it already in this one.
    vi.resetModules()
    const fresh = (await import('../../packages/mcp-edge/src/http/handler.ts')).createMcpHandler
    const serverOf = (await import('../../packages/mcp-edge/src/server/server.ts')).createMcpServer
    const server = () => serverOf({ name: 'fresh', version: '1.0.0' }).tool('t', { input: z.object({}) }, () => text('t'))
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    for (const options of [{ authenticate: () => ({ subject: 'a' }) }, { allowAnonymous: true }, { requirePrincipal: true }]) {
      await fresh(server(), options)(post('http://127.0.0.1/mcp', 'tools/list'), {})
    }
    expect(warn).not.toHaveBeenCalled()
    const first = fresh(server(), {})
    expect(warn).not.toHaveBeenCalled()
    await first(post('http://127.0.0.1/mcp', 'tools/list'), {})
    await first(post('http://127.0.0.1/mcp', 'tools/list'), {})
    // Another handler (a factory builds one per request): not said again.
    await fresh(server(), {})(post('http://127.0.0.1/mcp', 'tools/list'), {})
    expect(records(warn)).toEqual([{ level: 'warn', time: expect.any(String), msg: LOCAL_ONLY_WARNING }])
  })

  it('with requirePrincipal, refuses even a local request that middleware did not authenticate', async () => {
    const guarded = createMcpHandler(scopedServer(), { requirePrincipal: true })
    expect((await guarded(post('http://127.0.0.1/mcp', 'tools/list'), {})).status).toBe(401)
    expect((await guarded(post('http://127.0.0.1/mcp', 'tools/list'), {}, undefined, { subject: 'a' })).status).toBe(200)
  })

  it('rate-limits a local caller and a given principal by their keys: 429 with Retry-After, and the tool never runs', async () => {
    const keys: string[] = []
    let allow = true
    const server = scopedServer()
    let ran = 0
    server.tool('ping', { input: z.object({}), annotations: { readOnlyHint: true } }, () => {
      ran++
      return text('pong')
    })
    const limited = createMcpHandler(server, {
      rateLimit: () => ({
        limit: async ({ key }) => {
          keys.push(key)
          return { success: allow }
        },
      }),
    })
    const call = () => post('http://127.0.0.1/mcp', 'tools/call', { name: 'ping', arguments: {} })
    expect((await limited(call(), {})).status).toBe(200)
    expect((await limited(call(), {}, undefined, { subject: 'alice' })).status).toBe(200)
    allow = false
    const refused = await limited(call(), {}, undefined, { subject: 'alice' })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('60')
    expect((await refused.json()).error.code).toBe(-32600)
    expect(keys).toEqual(['anonymous:local', 'alice', 'alice'])
    expect(ran).toBe(2)
    // A caller refused before the limit is asked: a remote request of a server without authentication.
    expect((await limited(post('https://example.com/mcp', 'tools/list'), {})).status).toBe(401)
    expect(keys).toHaveLength(3)
  })

  it('reads the URL host as the URL parser does: ports, IPv6, look-alike names, userinfo', async () => {
    const local = ['http://127.0.0.1:8787/mcp', 'http://[::1]:8787/mcp?x=/y', 'http://app.localhost/mcp#z']
    const remote = ['http://127.0.0.1.evil.example/mcp', 'http://localhost.evil.example/mcp?h=127.0.0.1']
    for (const url of [...local, ...remote]) {
      expect(urlHost(url)).toBe(new URL(url).host)
      expect(isLocalRequest(new Request(url)), url).toBe(local.includes(url))
    }
    // A Request cannot carry credentials, but a URL can: the host is what follows them.
    for (const url of ['http://evil.example@127.0.0.1:8787/mcp', 'http://127.0.0.1@evil.example/mcp']) {
      expect(urlHost(url)).toBe(new URL(url).host)
    }
  })

  it('serves anyone with allowAnonymous', async () => {
    const open = createMcpHandler(scopedServer(), { allowAnonymous: true })
    expect((await open(post('https://mcp.example.com/mcp', 'tools/list'), {})).status).toBe(200)
  })

  it("awaits a resource server's verdict given as a thenable that is not a Promise (a Workers RPC call's)", async () => {
    const challenge = () => ({ resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource', scopes: [] })
    const thenable = (settle: (resolve: (p: Principal) => void, reject: (e: unknown) => void) => void) =>
      ({
        // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is what this test is about
        then: (resolve: (p: Principal) => void, reject: (e: unknown) => void) => settle(resolve, reject),
      }) as unknown as Promise<Principal>
    const refusing = createMcpHandler(scopedServer(), {
      resourceServer: { authenticate: () => thenable((_, reject) => reject(new AuthChallenge('Unauthorized'))), challenge },
    })
    const refused = await refusing(post('https://mcp.example.com/mcp', 'tools/list'), {})
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain('Bearer')
    const accepting = createMcpHandler(scopedServer(), {
      resourceServer: {
        authenticate: () => thenable((resolve) => resolve({ subject: 'ada', scopes: ['notes:read'] })),
        challenge,
      },
    })
    const response = await accepting(post('https://mcp.example.com/mcp', 'tools/call', { name: 'read_notes', arguments: {} }), {})
    expect((await response.json()).result.content).toEqual([{ type: 'text', text: 'notes for ada' }])
  })

  it('refuses authenticate and resourceServer together', () => {
    const resourceServer = {
      authenticate: async () => ({ subject: 'x' }),
      challenge: () => ({ resourceMetadataUrl: '', scopes: [] }),
    }
    expect(() => createMcpHandler(scopedServer(), { authenticate: () => undefined, resourceServer })).toThrow(/either/)
  })
})

describe('principal from Hono middleware', () => {
  it('takes c.var.principal, and serves a remote caller it established', async () => {
    const app = appWith(scopedServer())
    const response = await app.request(
      post(
        'https://mcp.example.com/mcp',
        'tools/call',
        { name: 'read_notes', arguments: {} },
        {
          'x-test-principal': JSON.stringify({ subject: 'ada' }),
        },
      ),
    )
    expect((await response.json()).result.content).toEqual([{ type: 'text', text: 'notes for ada' }])
  })

  it('takes verified JWT claims from c.var.jwtPayload (hono/jwk), scope included', async () => {
    const app = new Hono<{ Variables: McpVariables }>()
    app.use('/mcp/*', async (c, next) => {
      c.set('jwtPayload', { sub: 'grace', scope: 'notes:read' })
      await next()
    })
    app.route('/mcp', mcp(scopedServer()))
    const list = await (await app.request(post('https://mcp.example.com/mcp', 'tools/list'))).json()
    expect(list.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_notes'])
    const call = await app.request(post('https://mcp.example.com/mcp', 'tools/call', { name: 'read_notes', arguments: {} }))
    expect((await call.json()).result.content[0].text).toBe('notes for grace')
  })

  it('works with hono/bearer-auth: verifyToken sets the principal', async () => {
    const app = new Hono<{ Variables: McpVariables }>()
    app.use(
      '/mcp/*',
      bearerAuth({
        verifyToken: (token, c) => {
          if (token !== 'secret-of-ada') return false
          ;(c as Context<{ Variables: McpVariables }>).set('principal', { subject: 'ada' })
          return true
        },
      }),
    )
    app.route('/mcp', mcp(scopedServer()))
    const call = (authorization: string) =>
      app.request(post('https://mcp.example.com/mcp', 'tools/call', { name: 'read_notes', arguments: {} }, { authorization }))
    expect((await (await call('Bearer secret-of-ada')).json()).result.content[0].text).toBe('notes for ada')
    expect((await call('Bearer wrong')).status).toBe(401)
  })

  it('works with hono/jwk: verified claims become the principal and its scopes', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
    const key = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }
    const app = new Hono<{ Variables: McpVariables }>()
    app.use('/mcp/*', jwk({ keys: [key as never], alg: ['ES256'] }))
    app.route('/mcp', mcp(scopedServer()))
    const token = await new SignJWT({ sub: 'linus', scope: 'notes:write' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k' })
      .setExpirationTime('5m')
      .sign(privateKey)
    const response = await app.request(
      post(
        'https://mcp.example.com/mcp',
        'tools/call',
        { name: 'delete_notes', arguments: {} },
        { authorization: `Bearer ${token}` },
      ),
    )
    expect((await response.json()).result.content[0].text).toBe('deleted')
  })

  it('gives handlers ctx.waitUntil from the execution context', async () => {
    const server = createMcpServer<object>({ name: 'w', version: '1' }).tool('later', { input: z.object({}) }, (_args, ctx) => {
      ctx.waitUntil(Promise.resolve('flushed'))
      return text('ok')
    })
    const app = new Hono()
    app.route('/mcp', mcp(server))
    const waited: Promise<unknown>[] = []
    const executionCtx = {
      waitUntil: (promise: Promise<unknown>) => waited.push(promise),
      passThroughOnException() {},
      props: {},
    }
    const response = await app.request(
      post('http://127.0.0.1/mcp', 'tools/call', { name: 'later', arguments: {} }),
      {},
      {},
      executionCtx,
    )
    expect(response.status).toBe(200)
    expect(waited).toHaveLength(1)
  })
})

describe('scopes in the method table', () => {
  const app = appWith(scopedServer(), { resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp' })
  const as = (scopes: string[] | undefined) => ({ 'x-test-principal': JSON.stringify({ subject: 'u', scopes }) })

  it('lists only what the principal may use, cached private', async () => {
    const tools = await (await app.request(post('https://mcp.example.com/mcp', 'tools/list', {}, as(['notes:read'])))).json()
    expect(tools.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_notes'])
    expect(tools.result.cacheScope).toBe('private')
    const writer = await (await app.request(post('https://mcp.example.com/mcp', 'tools/list', {}, as(['notes:write'])))).json()
    expect(writer.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_notes', 'delete_notes'])
    const resources = await (await app.request(post('https://mcp.example.com/mcp', 'resources/list', {}, as([])))).json()
    expect(resources.result.resources.map((resource: { uri: string }) => resource.uri)).toEqual(['notes://all'])
    const prompts = await (await app.request(post('https://mcp.example.com/mcp', 'prompts/list', {}, as([])))).json()
    expect(prompts.result).toMatchObject({ prompts: [], cacheScope: 'private' })
  })

  it('answers a call without the scopes 403 insufficient_scope, naming them (step-up)', async () => {
    const response = await app.request(
      post('https://mcp.example.com/mcp', 'tools/call', { name: 'delete_notes', arguments: {} }, as(['notes:read'])),
    )
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="mcp", error="insufficient_scope", scope="notes:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
    )
    const body = await response.json()
    expect(body.error).toEqual({
      code: -32600,
      message: 'Forbidden: Tool "delete_notes" needs scope notes:write',
      data: { requiredScopes: ['notes:write'] },
    })
    const granted = await app.request(
      post('https://mcp.example.com/mcp', 'tools/call', { name: 'delete_notes', arguments: {} }, as(['notes:write'])),
    )
    expect((await granted.json()).result.content[0].text).toBe('deleted')
  })

  it('guards resources/read and prompts/get the same way', async () => {
    const read = await app.request(post('https://mcp.example.com/mcp', 'resources/read', { uri: 'notes://secret' }, as([])))
    expect(read.status).toBe(403)
    expect(read.headers.get('www-authenticate')).toContain('scope="notes:admin"')
    const prompt = await app.request(post('https://mcp.example.com/mcp', 'prompts/get', { name: 'summarize' }, as([])))
    expect(prompt.status).toBe(403)
  })

  it('does not limit a principal without scopes (a bearer secret), but keeps the list private', async () => {
    const tools = await (await app.request(post('https://mcp.example.com/mcp', 'tools/list', {}, as(undefined)))).json()
    expect(tools.result.tools).toHaveLength(2)
    expect(tools.result.cacheScope).toBe('private')
  })

  it('keeps lists public when nothing is scoped', async () => {
    const plain = createMcpServer<object>({ name: 'p', version: '1' }).tool('a', { input: z.object({}) }, () => text('a'))
    const list = await (await createMcpHandler(plain, {})(post('http://127.0.0.1/mcp', 'tools/list'), {})).json()
    expect(list.result.cacheScope).toBe('public')
  })
})

describe('the baseline scopes any access needs', () => {
  const metadata = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
  const as = (scopes: string[] | undefined) => ({ 'x-test-principal': JSON.stringify({ subject: 'u', scopes }) })
  const call = (headers: Record<string, string>) =>
    post('https://mcp.example.com/mcp', 'tools/call', { name: 'read_notes', arguments: {} }, headers)

  it('answers a principal whose scopes lack requiredScopes 403 insufficient_scope, before any tool runs', async () => {
    const ran = vi.fn(() => text('read'))
    const server = createMcpServer<object>({ name: 'baseline', version: '1.0.0' }).tool(
      'read_notes',
      { input: z.object({}) },
      ran,
    )
    const app = appWith(server, { requirePrincipal: true, requiredScopes: ['mcp'], resourceMetadataUrl: metadata })
    for (const scopes of [[], ['notes:read']]) {
      const response = await app.request(call(as(scopes)))
      expect(response.status).toBe(403)
      expect(response.headers.get('www-authenticate')).toBe(
        `Bearer realm="mcp", error="insufficient_scope", scope="mcp", resource_metadata="${metadata}"`,
      )
      expect((await response.json()).error).toEqual({
        code: -32600,
        message: 'Forbidden: this server needs scope mcp',
        data: { requiredScopes: ['mcp'] },
      })
    }
    expect(ran).not.toHaveBeenCalled()
    const granted = await app.request(call(as(['mcp'])))
    expect((await granted.json()).result.content[0].text).toBe('read')
    // A principal without scopes (a shared secret's) is not limited by them.
    expect((await app.request(call(as(undefined)))).status).toBe(200)
  })

  it("holds an authenticate function's and a resource server's principals to it too", async () => {
    const principal = (request: Request): Principal => ({
      subject: 'u',
      scopes: (request.headers.get('x-scopes') ?? '').split(' ').filter(Boolean),
    })
    const viaAuthenticate = createMcpHandler(scopedServer(), { authenticate: principal, requiredScopes: ['mcp'] })
    const viaResourceServer = createMcpHandler(scopedServer(), {
      resourceServer: {
        authenticate: async (request: Request) => principal(request),
        challenge: () => ({ resourceMetadataUrl: metadata, scopes: ['mcp'] }),
      },
    })
    for (const handle of [viaAuthenticate, viaResourceServer]) {
      const refused = await handle(call({ 'x-scopes': 'notes:write' }), {})
      expect(refused.status).toBe(403)
      expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="mcp"')
      expect((await handle(call({ 'x-scopes': 'mcp' }), {})).status).toBe(200)
    }
  })
})

describe('scopes on listen streams', () => {
  it('neither subscribes a principal to a resource it may not read, nor tells it of updates below a prefix', async () => {
    const server = createMcpServer<object>({ name: 'scoped', version: '1.0.0', events: 'isolate' })
      .resource('notes://all', { name: 'all' }, (uri) => ({ contents: [{ uri, text: 'all' }] }))
      .resource('notes://secret', { name: 'secret', scopes: ['notes:admin'] }, (uri) => ({ contents: [{ uri, text: 's' }] }))
    const app = appWith(server)
    const listen = (scopes: string[]) =>
      app.request(
        post(
          'http://127.0.0.1/mcp',
          'subscriptions/listen',
          { notifications: { resourceSubscriptions: ['notes://secret', 'notes:'] } },
          {
            'x-test-principal': JSON.stringify({ subject: 'eve', scopes }),
          },
        ),
      )
    const eve = (await listen([])).body?.getReader() as ReadableStreamDefaultReader<Uint8Array>
    const admin = (await listen(['notes:admin'])).body?.getReader() as ReadableStreamDefaultReader<Uint8Array>
    const events = (reader: ReadableStreamDefaultReader<Uint8Array>) =>
      readSse(
        new ReadableStream({
          pull: async (c) => {
            const { done, value } = await reader.read()
            if (done) c.close()
            else c.enqueue(value)
          },
        }),
      )
    const [eveEvents, adminEvents] = [events(eve), events(admin)]
    const next = async (stream: AsyncGenerator<{ data: string }>) => JSON.parse((await stream.next()).value.data)
    expect((await next(eveEvents)).params.notifications.resourceSubscriptions).toEqual(['notes:'])
    expect((await next(adminEvents)).params.notifications.resourceSubscriptions).toEqual(['notes://secret', 'notes:'])
    await server.notifyResourceUpdated('notes://secret')
    await server.notifyResourceUpdated('notes://all')
    // eve hears only the resource she may read; the admin hears both, in order.
    expect((await next(eveEvents)).params.uri).toBe('notes://all')
    expect((await next(adminEvents)).params.uri).toBe('notes://secret')
    expect((await next(adminEvents)).params.uri).toBe('notes://all')
    await Promise.all([eveEvents.return(undefined), adminEvents.return(undefined)])
  })
})

describe('CORS through hono/cors', () => {
  const app = appWith(scopedServer(), { allowedOrigins: ['https://app.example.com'] })
  const preflight = (origin: string, headers: string) =>
    app.request('https://mcp.example.com/mcp', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
    })

  it('answers a preflight from an allowed origin with the MCP headers, Mcp-Param-* and Authorization', async () => {
    const response = await preflight(
      'https://app.example.com',
      'content-type, authorization, mcp-method, mcp-param-region, x-evil',
    )
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',')
    expect(allowed).toEqual(
      expect.arrayContaining(['authorization', 'mcp-method', 'mcp-name', 'mcp-protocol-version', 'mcp-param-region']),
    )
    expect(allowed).not.toContain('x-evil')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
  })

  it('allows loopback origins and gives a foreign origin no allowance', async () => {
    expect((await preflight('http://localhost:6274', 'content-type')).headers.get('access-control-allow-origin')).toBe(
      'http://localhost:6274',
    )
    expect((await preflight('https://evil.example', 'content-type')).headers.get('access-control-allow-origin')).toBeNull()
  })

  it('adds no CORS headers to a request that names no Origin (not a browser)', async () => {
    const response = await app.request(post('https://mcp.example.com/mcp', 'tools/list'))
    expect(response.status).toBe(401)
    expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([])
  })

  it('streams an SSE answer to a request with an allowed Origin, with the CORS headers and Vary: Origin', async () => {
    const server = scopedServer().tool('progress', { input: z.object({}) }, async (_args, ctx) => {
      ctx.progress(1, 2)
      return text('done')
    })
    const streaming = appWith(server, { allowedOrigins: ['https://app.example.com'] })
    const response = await streaming.request(
      post(
        'https://mcp.example.com/mcp',
        'tools/call',
        { name: 'progress', _meta: { progressToken: 'p' } },
        { origin: 'https://app.example.com', 'x-test-principal': JSON.stringify({ subject: 'a' }) },
      ),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(response.headers.get('vary')).toContain('Origin')
    const events = []
    for await (const event of readSse(response.body as ReadableStream<Uint8Array>)) events.push(JSON.parse(event.data))
    expect(events.map((event) => event.method ?? event.result?.content?.[0]?.text)).toEqual(['notifications/progress', 'done'])
  })

  it('exposes WWW-Authenticate on answers, 401 included', async () => {
    const response = await app.request(
      post('https://mcp.example.com/mcp', 'tools/list', {}, { origin: 'https://app.example.com' }),
    )
    expect(response.status).toBe(401)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
  })
})

describe('sealed states bind the server identity', () => {
  const ring = createKeyRing('k1:bWNwLWVkZ2UgdW5pdCB0ZXN0IGtleSwgbm90IGEgc2VjcmV0IQ==')
  const confirmServer = (name: string, version: string) =>
    createMcpServer({ name, version }).tool(
      'confirm',
      { input: z.object({}), annotations: { readOnlyHint: true } },
      async (_args, ctx) => {
        const { ok } = await ctx.ask({ ok: input.form('Sure?', z.object({ yes: z.boolean() })) })
        return text(ok.action)
      },
    )
  const handler = (server: McpServer) =>
    createMcpHandler(server, { services: () => ({ requestState: new RequestStateCodec(ring, { onReject: () => {} }) }) })
  const retry = (url: string, requestState: string) =>
    post(url, 'tools/call', {
      name: 'confirm',
      arguments: {},
      requestState,
      inputResponses: { ok: { action: 'accept', content: { yes: true } } },
    })

  it('refuses a state from another server or endpoint sharing the keys, and keeps it across versions', async () => {
    const first = await (
      await handler(confirmServer('a', '1'))(post('http://127.0.0.1/mcp', 'tools/call', { name: 'confirm', arguments: {} }), {})
    ).json()
    const state = first.result.requestState as string
    const otherName = await (await handler(confirmServer('b', '1'))(retry('http://127.0.0.1/mcp', state), {})).json()
    expect(otherName.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
    const otherEndpoint = await (await handler(confirmServer('a', '1'))(retry('http://127.0.0.1/other', state), {})).json()
    expect(otherEndpoint.error?.code).toBe(-32602)
    const newVersion = await (await handler(confirmServer('a', '2'))(retry('http://127.0.0.1/mcp', state), {})).json()
    expect(newVersion.result.content).toEqual([{ type: 'text', text: 'accept' }])
  })
})
