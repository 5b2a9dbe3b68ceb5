/**
 * `introspectionResourceServer` (RFC 7662) called as `mcp()` calls it, `authenticate(request,
 * env)`, against a real authorization server: oidc-provider 9 on loopback
 * (test/support/oidc-provider.ts), whose opaque access tokens are bound to one resource (RFC 8707)
 * and come from the whole code flow. The resource server introspects as its own client. Answers a
 * real provider will not give (an `aud`-less access token, a refresh token that names an
 * audience, a DPoP binding, a body that is not JSON, a hang) come from a scripted endpoint,
 * labelled as such below.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { AuthChallenge } from '../../packages/mcp-edge/src/http/auth.ts'
import { introspectionResourceServer } from '../../packages/mcp-edge/src/http/introspection.ts'
import type { IntrospectionResourceServerOptions } from '../../packages/mcp-edge/src/http/introspection.ts'
import { McpError } from '../../packages/mcp-edge/src/protocol/errors.ts'
import { issueTokens, metadataOf, revokeAt, startOidcProvider } from '../support/oidc-provider.ts'
import type { TestOidcProvider } from '../support/oidc-provider.ts'

const RESOURCE = 'http://127.0.0.1:9/mcp'
const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback'
const INTROSPECTION_PATH = '/token/introspection'

let idp: TestOidcProvider
let introspectionUrl: string

beforeAll(async () => {
  idp = await startOidcProvider({ redirectUris: [REDIRECT_URI] })
  introspectionUrl = (await metadataOf(idp)).introspection_endpoint as string
})
afterAll(() => idp.close())
afterEach(() => vi.restoreAllMocks())

const serverFor = (options: Partial<IntrospectionResourceServerOptions> = {}) =>
  introspectionResourceServer({
    resource: RESOURCE,
    issuer: idp.issuer,
    introspectionUrl,
    clientId: idp.resourceClient.clientId,
    clientSecret: idp.resourceClient.clientSecret,
    scopes: ['mcp'],
    ...options,
  })
const bearer = (token: string) => new Request(RESOURCE, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
const tokenFor = (login: string, resource = RESOURCE) => issueTokens(idp, { login, resource, redirectUri: REDIRECT_URI })
const asked = () => idp.requests(INTROSPECTION_PATH)

/** The error `authenticate` ends in (a principal fails the test). */
async function refusalOf(call: Promise<unknown>): Promise<McpError> {
  const outcome = await call.then(
    (principal) => new Error(`expected a refusal, got ${JSON.stringify(principal)}`),
    (error: unknown) => error,
  )
  if (outcome instanceof McpError) return outcome
  throw outcome
}

function expectInvalidToken(error: McpError): void {
  expect(error).toBeInstanceOf(AuthChallenge)
  expect(error.status).toBe(401)
  expect((error as AuthChallenge).error).toBe('invalid_token')
  expect(error.message).toBe('Unauthorized: invalid token')
}

function expectUnavailable(error: McpError): void {
  expect(error.kind).toBe('authUnavailable')
  expect(error.status).toBe(503)
  expect(error.toJSON()).toEqual({ code: -32603, message: 'Service unavailable: the token could not be checked; retry' })
}

describe('introspectionResourceServer against oidc-provider', () => {
  it('accepts an opaque token issued for this resource: the principal is its subject, scopes and client', async () => {
    const { accessToken } = await tokenFor('ada')
    const before = asked()
    expect(await serverFor().authenticate(bearer(accessToken), undefined)).toEqual({
      subject: 'ada',
      scopes: ['mcp'],
      clientId: idp.clientId,
    })
    expect(asked()).toBe(before + 1)
  })

  it('serves a token again within the cache TTL without asking the provider; with cacheTtlSeconds 0 it asks every time', async () => {
    const { accessToken } = await tokenFor('ben')
    const cached = serverFor()
    const before = asked()
    for (let i = 0; i < 3; i++) expect((await cached.authenticate(bearer(accessToken), undefined)).subject).toBe('ben')
    expect(asked()).toBe(before + 1)
    const uncached = serverFor({ cacheTtlSeconds: 0 })
    for (let i = 0; i < 3; i++) expect((await uncached.authenticate(bearer(accessToken), undefined)).subject).toBe('ben')
    expect(asked()).toBe(before + 4)
  })

  it('refuses a token the provider bound to another resource: 401 invalid_token', async () => {
    const { accessToken } = await tokenFor('ada', 'http://127.0.0.1:9/other/mcp')
    expectInvalidToken(await refusalOf(serverFor().authenticate(bearer(accessToken), undefined)))
  })

  it('refuses a refresh token, which names no audience: 401 invalid_token', async () => {
    const { refreshToken } = await issueTokens(idp, {
      login: 'ada',
      resource: RESOURCE,
      redirectUri: REDIRECT_URI,
      offline: true,
    })
    expect(refreshToken).toEqual(expect.any(String))
    expectInvalidToken(await refusalOf(serverFor().authenticate(bearer(refreshToken as string), undefined)))
  })

  it('refuses a token revoked at the provider at once with cacheTtlSeconds 0', async () => {
    const { accessToken } = await tokenFor('cy')
    const server = serverFor({ cacheTtlSeconds: 0 })
    expect((await server.authenticate(bearer(accessToken), undefined)).subject).toBe('cy')
    await revokeAt(idp, accessToken, 'access_token')
    expectInvalidToken(await refusalOf(server.authenticate(bearer(accessToken), undefined)))
  })

  it('serves a revoked token from the cache until cacheTtlSeconds have passed, then asks again and refuses it', async () => {
    const { accessToken } = await tokenFor('di')
    const server = serverFor({ cacheTtlSeconds: 30 })
    expect((await server.authenticate(bearer(accessToken), undefined)).subject).toBe('di')
    await revokeAt(idp, accessToken, 'access_token')
    const before = asked()
    expect((await server.authenticate(bearer(accessToken), undefined)).subject).toBe('di')
    expect(asked()).toBe(before)
    const now = Date.now()
    vi.spyOn(Date, 'now').mockReturnValue(now + 30_000)
    expectInvalidToken(await refusalOf(server.authenticate(bearer(accessToken), undefined)))
    expect(asked()).toBe(before + 1)
  })

  it('never keeps a token past its exp, whatever cacheTtlSeconds says', async () => {
    const { accessToken, expiresIn } = await tokenFor('eve')
    const server = serverFor({ cacheTtlSeconds: 24 * 3600 })
    expect((await server.authenticate(bearer(accessToken), undefined)).subject).toBe('eve')
    const before = asked()
    vi.spyOn(Date, 'now').mockReturnValue(Date.now() + expiresIn * 1000)
    expectInvalidToken(await refusalOf(server.authenticate(bearer(accessToken), undefined)))
    expect(asked()).toBe(before + 1)
  })

  it('answers 503 when the provider refuses the resource server (a wrong client secret): not a 401, not served', async () => {
    const { accessToken } = await tokenFor('ada')
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    expectUnavailable(await refusalOf(serverFor({ clientSecret: 'wrong' }).authenticate(bearer(accessToken), undefined)))
    const line = JSON.parse(String(errors.mock.calls[0]?.[0]))
    expect(line).toMatchObject({ level: 'error', endpoint: introspectionUrl, what: 'answered 401' })
  })

  it('fails closed when the provider is down: 503, a cached token still served until its entry expires', async () => {
    const down = await startOidcProvider({ redirectUris: [REDIRECT_URI] })
    const url = (await metadataOf(down)).introspection_endpoint as string
    const server = introspectionResourceServer({
      resource: RESOURCE,
      issuer: down.issuer,
      introspectionUrl: url,
      clientId: down.resourceClient.clientId,
      clientSecret: down.resourceClient.clientSecret,
    })
    const seen = await issueTokens(down, { login: 'ada', resource: RESOURCE, redirectUri: REDIRECT_URI })
    const unseen = await issueTokens(down, { login: 'bob', resource: RESOURCE, redirectUri: REDIRECT_URI })
    expect((await server.authenticate(bearer(seen.accessToken), undefined)).subject).toBe('ada')
    await down.close()
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    expectUnavailable(await refusalOf(server.authenticate(bearer(unseen.accessToken), undefined)))
    expect((await server.authenticate(bearer(seen.accessToken), undefined)).subject).toBe('ada')
    const logged = errors.mock.calls.map((call) => String(call[0])).join('\n')
    expect(logged).toContain('could not be reached')
    expect(logged).not.toContain(unseen.accessToken)
  })
})

/**
 * A scripted introspection endpoint on loopback (not a real authorization server): it answers
 * what the test says, records each request, or never answers.
 */
type Reply = { status?: number; body: unknown } | 'hang'

async function scripted(answer: (form: URLSearchParams) => Reply) {
  const requests: { authorization: string | undefined; form: URLSearchParams }[] = []
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let text = ''
    for await (const chunk of request) text += chunk
    const form = new URLSearchParams(text)
    requests.push({ authorization: request.headers.authorization, form })
    const reply = answer(form)
    if (reply === 'hang') return
    response.writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
    response.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { url, requests, close }
}

const ISSUER = 'https://as.example'
const good = { active: true, sub: 'ada', scope: 'mcp', client_id: 'app', aud: RESOURCE, iss: ISSUER, token_type: 'Bearer' }
const scriptedServer = (url: string, options: Partial<IntrospectionResourceServerOptions> = {}) =>
  introspectionResourceServer({
    resource: RESOURCE,
    issuer: ISSUER,
    introspectionUrl: url,
    clientId: 'rs',
    clientSecret: 's:e cret',
    ...options,
  })

describe('introspectionResourceServer against a scripted endpoint', () => {
  it("asks with client_secret_basic (form-encoded credentials) and the token in the form, and serves the answer's principal", async () => {
    const endpoint = await scripted(() => ({ body: { ...good, aud: ['https://other.example', RESOURCE] } }))
    try {
      expect(await scriptedServer(endpoint.url).authenticate(bearer('tok-1'), undefined)).toEqual({
        subject: 'ada',
        scopes: ['mcp'],
        clientId: 'app',
      })
      expect(endpoint.requests[0]?.authorization).toBe(`Basic ${btoa('rs:s%3Ae+cret')}`)
      expect(Object.fromEntries(endpoint.requests[0]?.form ?? [])).toEqual({ token: 'tok-1', token_type_hint: 'access_token' })
    } finally {
      await endpoint.close()
    }
  })

  it('refuses 401 every answer that must not let the token in, and caches no refusal', async () => {
    const cases: Record<string, Record<string, unknown>> = {
      inactive: { active: false },
      'active as a string': { ...good, active: 'true' },
      'no audience': { ...good, aud: undefined },
      'another audience': { ...good, aud: 'https://other.example/mcp' },
      'another issuer': { ...good, iss: 'https://evil.example' },
      expired: { ...good, exp: Math.floor(Date.now() / 1000) - 1 },
      'exp not a number': { ...good, exp: 'never' },
      'a refresh token naming the audience': { ...good, token_type: 'refresh_token' },
      'DPoP-bound': { ...good, token_type: 'DPoP', cnf: { jkt: 'thumbprint' } },
      'mTLS-bound': { ...good, cnf: { 'x5t#S256': 'thumbprint' } },
      'no subject': { ...good, sub: undefined },
      'an empty subject': { ...good, sub: '' },
    }
    let body: Record<string, unknown> = {}
    const endpoint = await scripted(() => ({ body }))
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const server = scriptedServer(endpoint.url)
      for (const [name, answer] of Object.entries(cases)) {
        body = answer
        const before = endpoint.requests.length
        for (let i = 0; i < 2; i++)
          expectInvalidToken(await refusalOf(server.authenticate(bearer(`tok-${name.length}`), undefined)))
        expect(endpoint.requests.length, name).toBe(before + 2)
      }
    } finally {
      await endpoint.close()
    }
  })

  it('answers 503 to a timeout, a 5xx, a redirect and a body that is not a JSON object, never serving the token', async () => {
    let reply: Reply = 'hang'
    const endpoint = await scripted(() => reply)
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const server = scriptedServer(endpoint.url, { timeoutMs: 200 })
      const replies: [Reply, string][] = [
        ['hang', 'timed out'],
        [{ status: 500, body: { error: 'server_error' } }, 'answered 500'],
        [{ status: 302, body: '' }, 'answered 302'],
        [{ body: 'not json' }, 'answered without a JSON object'],
        [{ body: [good] }, 'answered without a JSON object'],
      ]
      for (const [given, what] of replies) {
        reply = given
        expectUnavailable(await refusalOf(server.authenticate(bearer('canary-token-7f3a'), undefined)))
        expect(JSON.parse(String(errors.mock.calls.at(-1)?.[0])).what).toBe(what)
      }
      expect(errors.mock.calls.join('\n')).not.toContain('canary-token-7f3a')
    } finally {
      await endpoint.close()
    }
  })

  it('keeps at most maxCacheEntries tokens, dropping the least recently used', async () => {
    const endpoint = await scripted(() => ({ body: good }))
    try {
      const server = scriptedServer(endpoint.url, { maxCacheEntries: 2 })
      const use = (token: string) => server.authenticate(bearer(token), undefined)
      for (const token of ['a', 'b', 'a', 'c']) await use(token) // b is the least recently used when c comes
      expect(endpoint.requests.length).toBe(3)
      await use('a')
      await use('c')
      expect(endpoint.requests.length).toBe(3)
      await use('b')
      expect(endpoint.requests.length).toBe(4)
    } finally {
      await endpoint.close()
    }
  })

  it('refuses a missing or malformed Authorization header before asking anyone', async () => {
    const endpoint = await scripted(() => ({ body: good }))
    try {
      const server = scriptedServer(endpoint.url)
      const missing = await refusalOf(server.authenticate(new Request(RESOURCE), undefined))
      expect([missing.status, (missing as AuthChallenge).error, missing.message]).toEqual([
        401,
        undefined,
        'Unauthorized: a bearer token is required',
      ])
      const malformed = await refusalOf(
        server.authenticate(new Request(RESOURCE, { headers: { authorization: 'Bearer a b' } }), undefined),
      )
      expect([malformed.status, (malformed as AuthChallenge).error]).toEqual([401, 'invalid_request'])
      expect(endpoint.requests).toEqual([])
    } finally {
      await endpoint.close()
    }
  })

  it('publishes RFC 9728 metadata and names it, with the baseline scopes, in challenges', () => {
    const server = scriptedServer('https://as.example/introspect', { scopes: ['mcp'], resourceName: 'Notes' })
    expect(server.metadata(undefined)).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp'],
      resource_name: 'Notes',
    })
    expect(server.challenge(undefined)).toEqual({
      resourceMetadataUrl: 'http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp',
      scopes: ['mcp'],
    })
  })

  it('is misconfigured (500, saying what to set) with an introspection URL that is not https or loopback, or no client', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    for (const [options, named] of [
      [{ introspectionUrl: 'http://as.example/introspect' }, 'introspectionUrl must be an https URL'],
      [{ introspectionUrl: 'not a url' }, 'introspectionUrl must be an https URL'],
      [{ clientSecret: '' }, 'set clientId and clientSecret'],
    ] as const) {
      const error = await refusalOf(scriptedServer('https://as.example/introspect', options).authenticate(bearer('t'), undefined))
      expect(error.kind).toBe('misconfigured')
      expect(error.status).toBe(500)
      expect(error.message).toContain(named)
    }
    expect(errors).toHaveBeenCalledTimes(3)
  })
})
