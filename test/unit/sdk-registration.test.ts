/**
 * mcp-edge/sdk's refusals that happen in the code itself, before any client is involved: at
 * registration (a schema that is not zod 4, a name taken), on a handle (`update` to a taken name,
 * a handle used after `remove`), and the SDK calls that have no request to act on (`connect`,
 * `server.server.elicitInput` outside a handler, `inputRequired()` with nothing, a binding codec
 * minting without its context). Each throws saying what to do instead and leaves the registry as
 * it was. Also SDK 2.x's web gates (`requireBearerAuth`, the host and origin guards), which answer
 * a `Response` as the SDK does. In Node: none of it touches the Workers runtime. The refusals that
 * reach a client are test/workers/sdk-rejections.test.ts's.
 */
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createRequestStateCodec } from '../../packages/mcp-edge/src/sdk/codec.ts'
import { inputRequired } from '../../packages/mcp-edge/src/sdk/input.ts'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'
import { OAuthError, requireBearerAuth } from '../../packages/mcp-edge/src/sdk/web/bearer-auth.ts'
import type { AuthInfo } from '../../packages/mcp-edge/src/sdk/context.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  originValidationResponse,
} from '../../packages/mcp-edge/src/sdk/web/guards.ts'

const ok = async () => ({ content: [{ type: 'text' as const, text: 'ok' }] })
const noMessages = async () => ({ messages: [] })
/** A Standard Schema that is not zod, as valibot and ArkType make them. */
const valibotLike = { '~standard': { version: 1, vendor: 'valibot', validate: (value: unknown) => ({ value }) } }

describe('schemas mcp-edge/sdk cannot read, refused at registration', () => {
  it('a zod schema that is not an object, naming what it takes; nothing is registered', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    expect(() => server.registerTool('n', { inputSchema: z.string() as never }, ok as never)).toThrow(
      'Tool "n": the schema must be a zod object or a raw shape of zod schemas',
    )
    expect(() => server.registerPrompt('p', { argsSchema: z.array(z.string()) as never }, noMessages as never)).toThrow(
      'Prompt "p": the schema must be a zod object or a raw shape of zod schemas',
    )
    expect([server.edge.tools.size, server.edge.prompts.size]).toEqual([0, 0])
  })

  it('another Standard Schema (valibot, ArkType), as an object or in a raw shape, naming zod', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const message =
      /^Tool "v": mcp-edge\/sdk takes zod schemas \(a raw shape or z\.object\); convert other Standard Schemas to zod$/
    expect(() => server.registerTool('v', { inputSchema: valibotLike as never }, ok as never)).toThrow(message)
    expect(() => server.registerTool('v', { inputSchema: { city: valibotLike } as never }, ok as never)).toThrow(message)
    expect(() => server.registerTool('w', { outputSchema: valibotLike as never }, ok)).toThrow(/^Tool "w": .*Standard Schemas/)
    expect(server.edge.tools.size).toBe(0)
  })
})

describe('a name already registered', () => {
  it('registerTool, registerPrompt and registerResource refuse it, and the first stays as it was', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('add', { description: 'first' }, ok)
    server.registerPrompt('greet', { description: 'first' }, noMessages)
    server.registerResource('readme', 'docs://readme', { description: 'first' }, async (uri) => ({
      contents: [{ uri: uri.href, text: '1' }],
    }))
    expect(() => server.registerTool('add', { description: 'second' }, ok)).toThrow('Tool "add" is already registered')
    expect(() => server.tool('add', ok)).toThrow('Tool "add" is already registered')
    expect(() => server.registerPrompt('greet', { description: 'second' }, noMessages)).toThrow(
      'Prompt "greet" is already registered',
    )
    expect(() =>
      server.registerResource('again', 'docs://readme', {}, async (uri) => ({ contents: [{ uri: uri.href, text: '2' }] })),
    ).toThrow('Resource "docs://readme" is already registered')
    expect(server.edge.tools.get('add')?.definition.description).toBe('first')
    expect(server.edge.prompts.get('greet')?.definition.description).toBe('first')
    expect(server.edge.resources.get('docs://readme')?.definition).toMatchObject({ name: 'readme', description: 'first' })
  })

  it("a handle's update to a taken name throws and keeps both definitions as they were", () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const first = server.registerTool('first', { description: 'one' }, ok)
    server.registerTool('second', { description: 'two' }, ok)
    expect(() => first.update({ name: 'second', description: 'changed' })).toThrow('Tool "second" is already registered')
    // In their order too: tools/list is not reordered by an update that did not happen.
    expect([...server.edge.tools.keys()]).toEqual(['first', 'second'])
    expect(server.edge.tools.get('first')?.definition.description).toBe('one')
    expect(server.edge.tools.get('second')?.definition.description).toBe('two')
    expect(first.enabled).toBe(true)
    const read = async (uri: URL) => ({ contents: [{ uri: uri.href, text: uri.href }] })
    const a = server.registerResource('a', 'docs://a', {}, read)
    server.registerResource('b', 'docs://b', {}, read)
    expect(() => a.update({ uri: 'docs://b' })).toThrow('Resource "docs://b" is already registered')
    expect([...server.edge.resources.entries()].map(([uri, entry]) => [uri, entry.definition.name])).toEqual([
      ['docs://a', 'a'],
      ['docs://b', 'b'],
    ])
  })

  it('a handle used after remove() puts nothing back', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const tool = server.registerTool('gone', {}, ok)
    tool.remove()
    tool.enable()
    tool.update({ description: 'back?' })
    tool.update({ name: 'renamed' })
    expect(server.edge.tools.size).toBe(0)
    expect(tool.enabled).toBe(false)
  })
})

describe('SDK calls with no request to act on', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })

  it('connect(transport) rejects, naming createMcpHandler', async () => {
    await expect(server.connect({})).rejects.toThrow(
      'mcp-edge/sdk serves over HTTP only: export createMcpHandler(server) (or McpAgent.serve) instead of connect(transport)',
    )
  })

  // Also logged: work a handler left running after it returned (`void server.server.createMessage(...)`,
  // as EpicMe does) rejects where nothing awaits it, and was lost without a word.
  it("server.server's questions and notification outside a handler reject, saying where they work, and log it", async () => {
    const low = server.server
    const outside = (what: string) =>
      `server.${what} works inside a tool, prompt or resource handler only, while it runs (mcp-edge keeps no connection to ask on)`
    const logged = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      // A promise that rejects, as the SDKs' methods do, so that `.catch()` hears it.
      await expect(low.elicitInput({ message: 'x', requestedSchema: { type: 'object', properties: {} } })).rejects.toThrow(
        outside('elicitInput'),
      )
      await expect(low.createMessage({ messages: [], maxTokens: 1 })).rejects.toThrow(outside('createMessage'))
      await expect(low.listRoots()).rejects.toThrow(outside('listRoots'))
      await expect(low.notification({ method: 'notifications/message' })).rejects.toThrow(outside('notification'))
      expect(logged.mock.calls.map(([line]) => JSON.parse(String(line)).msg)).toEqual(
        ['elicitInput', 'createMessage', 'listRoots', 'notification'].map(outside),
      )
    } finally {
      logged.mockRestore()
    }
  })

  // The everything server's timer (an McpAgent's setInterval) sends its resource updates this way;
  // the SDKs' sendResourceUpdated and send*ListChanged are these very notifications.
  it('server.server.notification outside a handler sends a resource update, a list change and a log message as their send* methods do', async () => {
    const published: McpEvent[] = []
    const hub = { publish: async (event: McpEvent) => void published.push(event) }
    const served = new McpServer({ name: 'sdk', version: '1' }, { events: hub as never })
    await Promise.resolve() // the turn that built the server is over, as for a timer
    const low = served.server
    await low.notification({ method: 'notifications/resources/updated', params: { uri: 'counter://value' } })
    await low.notification({ method: 'notifications/tools/list_changed' })
    await low.notification({ method: 'notifications/prompts/list_changed', params: {} })
    await Promise.resolve()
    expect(published).toMatchObject([
      { type: 'resourceUpdated', uri: 'counter://value' },
      { type: 'listChanged', list: 'tools' },
      { type: 'listChanged', list: 'prompts' },
    ])
    const logged = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      // No caller to name outside a request: refused as sendLoggingMessage refuses it.
      await expect(
        low.notification({ method: 'notifications/message', params: { level: 'info', data: 'tick' } }),
      ).rejects.toThrow(/^sendLoggingMessage outside a handler/)
      // A notification that belongs to a request has none to go on.
      await expect(low.notification({ method: 'notifications/progress', params: { progress: 1 } })).rejects.toThrow(
        /^server\.notification works inside a tool/,
      )
    } finally {
      logged.mockRestore()
    }
    expect(published).toHaveLength(3)
  })

  it('createElicitationCompletionNotifier throws naming inputRequired.elicitUrl', () => {
    expect(() => server.server.createElicitationCompletionNotifier('e1')).toThrow(
      /^server\.server\.createElicitationCompletionNotifier\("e1"\) is not supported by mcp-edge\/sdk: .*inputRequired\(\{ inputRequests: .*elicitUrl/,
    )
  })

  it('inputRequired() with neither questions nor state throws a TypeError', () => {
    expect(() => inputRequired({})).toThrow(new TypeError('inputRequired() needs inputRequests, requestState or both (mrtr.mdx)'))
  })

  it('a codec that binds refuses to mint without the handler context; a short key is refused', async () => {
    const codec = createRequestStateCodec({ key: 'k'.repeat(32), bind: () => 'caller' })
    await expect(codec.mint({ step: 1 })).rejects.toThrow(
      new TypeError('createRequestStateCodec: mint needs the handler context when the codec binds'),
    )
    expect(() => createRequestStateCodec({ key: 'k'.repeat(31) })).toThrow(
      new RangeError('createRequestStateCodec: the key must be at least 32 bytes'),
    )
  })
})

describe('requireBearerAuth refusals, as the SDK answers them', () => {
  const info: AuthInfo = { token: 't', clientId: 'app', scopes: ['read'], expiresAt: 4_000_000_000 }
  const gate = (verified: () => Promise<AuthInfo>, requiredScopes?: string[]) =>
    requireBearerAuth({ verifier: { verifyAccessToken: verified }, requiredScopes })
  const request = (authorization?: string) =>
    new Request('https://mcp.example.com/mcp', authorization === undefined ? {} : { headers: { authorization } })
  const refused = async (answer: Promise<AuthInfo | Response>) => {
    const response = (await answer) as Response
    expect(response).toBeInstanceOf(Response)
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() }
  }

  it('401 for a header that is not Bearer, a token without expiry and an expired one, each with its challenge', async () => {
    expect(await refused(gate(async () => info)(request('Basic dXNlcjpwdw==')))).toEqual({
      status: 401,
      challenge: `Bearer error="invalid_token", error_description="Invalid Authorization header format, expected 'Bearer TOKEN'"`,
      body: { error: 'invalid_token', error_description: "Invalid Authorization header format, expected 'Bearer TOKEN'" },
    })
    const { expiresAt: _none, ...unbounded } = info
    expect((await refused(gate(async () => unbounded)(request('Bearer t')))).body).toEqual({
      error: 'invalid_token',
      error_description: 'Token has no expiration time',
    })
    const expired = await refused(gate(async () => ({ ...info, expiresAt: 1 }))(request('Bearer t')))
    expect([expired.status, expired.body.error_description]).toEqual([401, 'Token has expired'])
  })

  it('403 insufficient_scope naming the scopes needed', async () => {
    expect(await refused(gate(async () => info, ['read', 'write'])(request('Bearer t')))).toEqual({
      status: 403,
      challenge: 'Bearer error="insufficient_scope", error_description="Insufficient scope", scope="read write"',
      body: { error: 'insufficient_scope', error_description: 'Insufficient scope' },
    })
  })

  it("500 server_error for a verifier's own failure, its message kept back; 400 for another OAuth error", async () => {
    const crashed = await refused(
      gate(async () => {
        throw new Error('database password hunter2')
      })(request('Bearer t')),
    )
    expect(crashed).toEqual({
      status: 500,
      challenge: null,
      body: { error: 'server_error', error_description: 'Internal Server Error' },
    })
    const other = await refused(
      gate(async () => {
        throw new OAuthError('invalid_request', 'malformed token')
      })(request('Bearer t')),
    )
    expect(other).toEqual({
      status: 400,
      challenge: null,
      body: { error: 'invalid_request', error_description: 'malformed token' },
    })
  })
})

describe("SDK 2.x's host and origin guards", () => {
  const allowed = localhostAllowedHostnames()
  const at = (headers: Record<string, string>) => new Request('http://127.0.0.1/mcp', { headers })
  const refusal = async (response: Response | undefined) => {
    expect(response).toBeInstanceOf(Response)
    return { status: response?.status, body: await response?.json() }
  }
  const forbidden = (message: string) => ({ status: 403, body: { jsonrpc: '2.0', error: { code: -32000, message }, id: null } })

  it('refuse a missing Host, one that does not parse and one not allowed; let an allowed one through', async () => {
    expect(await refusal(hostHeaderValidationResponse(at({}), allowed))).toEqual(forbidden('Missing Host header'))
    expect(await refusal(hostHeaderValidationResponse(at({ host: 'a b' }), allowed))).toEqual(
      forbidden('Invalid Host header: a b'),
    )
    expect(await refusal(hostHeaderValidationResponse(at({ host: 'evil.example:8787' }), allowed))).toEqual(
      forbidden('Invalid Host: evil.example'),
    )
    expect(hostHeaderValidationResponse(at({ host: 'localhost:8787' }), allowed)).toBeUndefined()
  })

  it('refuse an Origin that does not parse and one not allowed; let none, an allowed one and an allowed scheme through', async () => {
    expect(await refusal(originValidationResponse(at({ origin: 'not a url' }), allowed))).toEqual(
      forbidden('Invalid Origin header: not a url'),
    )
    expect(await refusal(originValidationResponse(at({ origin: 'https://evil.example' }), allowed))).toEqual(
      forbidden('Invalid Origin: evil.example'),
    )
    expect(originValidationResponse(at({}), allowed)).toBeUndefined()
    expect(originValidationResponse(at({ origin: 'http://localhost:5173' }), allowed)).toBeUndefined()
    expect(originValidationResponse(at({ origin: 'app://desktop' }), [...allowed, 'app://*'])).toBeUndefined()
    expect(await refusal(originValidationResponse(at({ origin: 'app://desktop' }), allowed))).toEqual(
      forbidden('Invalid Origin: desktop'),
    )
  })
})
