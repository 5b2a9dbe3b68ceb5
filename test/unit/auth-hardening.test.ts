/**
 * The smaller hardening of issue 37: a local request carries no proxy headers, a bearer secret is
 * long enough to be one, and the 2025 session cache is bounded by size and holds only sessions
 * that passed their principal check.
 */
import { describe, expect, it, vi } from 'vitest'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import * as z from 'zod'
import { AuthChallenge, isLocalRequest, isProxied, principalFromClaims } from '../../packages/mcp-edge/src/http/auth.ts'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { bearerToken } from '../../packages/mcp-edge/src/http/bearer.ts'
import { LegacySessions } from '../../packages/mcp-edge/src/server/legacy/session.ts'
import { jwtResourceServer } from '../../packages/mcp-edge/src/http/resource-server.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'

// The bounds as documented (session.ts, bearer.ts), written out so this file also runs against older code.
const MIN_BEARER_TOKEN_CHARS = 32
const CACHE_CHARS = 4 * 1024 * 1024
const CACHE_ENTRY_CHARS = 64 * 1024

describe('a local request', () => {
  it('is loopback by URL, Host and connecting address, and carries no proxy header', () => {
    const local = (headers: Record<string, string>) => isLocalRequest(new Request('http://127.0.0.1:8787/mcp', { headers }))
    expect(local({ host: 'localhost:8787', 'cf-connecting-ip': '127.0.0.1' })).toBe(true)
    for (const [name, value] of Object.entries({
      forwarded: 'for=203.0.113.9',
      via: '1.1 tunnel',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'https',
      'X-Forwarded-Host': 'localhost',
      'x-forwarded-port': '443',
      'x-forwarded-server': 'proxy.example.com',
      // Any X-Forwarded-* (issue 37's rule), not only the names the usual proxies send.
      'x-forwarded-prefix': '/mcp',
      'x-real-ip': '127.0.0.1',
    })) {
      expect(local({ host: 'localhost:8787', [name]: value }), name).toBe(false)
    }
    expect(local({ host: 'localhost:8787', 'x-forwarded': 'no dash after it', accept: '*/*' })).toBe(true)
  })

  it('is refused with what a tunnel sends: ngrok, cloudflared, a dev tunnel (Host rewritten to localhost)', () => {
    const request = (headers: Record<string, string>) => new Request('http://localhost:8787/mcp', { headers })
    const tunnels = {
      ngrok: { host: 'localhost:8787', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' },
      cloudflared: { 'cf-connecting-ip': '127.0.0.1', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'https' },
      'dev tunnel': { host: 'localhost:8787', 'x-forwarded-host': 'abcd-8787.euw.devtunnels.ms', 'x-forwarded-proto': 'https' },
    }
    for (const [name, headers] of Object.entries(tunnels)) {
      expect(isLocalRequest(request(headers)), name).toBe(false)
      expect(isProxied(request(headers).headers), name).toBe(true)
    }
    expect(isProxied(request({ host: 'localhost:8787', accept: '*/*', 'content-type': 'application/json' }).headers)).toBe(false)
  })
})

describe('bearerToken', () => {
  it('refuses a secret shorter than 32 characters at start-up, saying how to generate one', () => {
    expect(() => bearerToken('s3cret-token')).toThrow(
      /MCP_BEARER_TOKEN has 12 characters; at least 32 are required\. Generate one with: openssl rand -base64 32 \| npx wrangler secret put MCP_BEARER_TOKEN/,
    )
    expect(() => bearerToken('x'.repeat(MIN_BEARER_TOKEN_CHARS - 1), 'API_TOKEN')).toThrow(/^API_TOKEN has 31 characters/)
    expect(bearerToken('')).toBeUndefined()
    expect(bearerToken(undefined)).toBeUndefined()
  })

  it('accepts a token of 32 characters or more, and only that token', async () => {
    const token = 'x'.repeat(MIN_BEARER_TOKEN_CHARS)
    const check = bearerToken(token) as (request: Request) => Promise<unknown>
    const withAuth = (value: string) => new Request('http://127.0.0.1/mcp', { headers: { authorization: `Bearer ${value}` } })
    expect(await check(withAuth(token))).toEqual({ subject: 'bearer' })
    expect(await check(withAuth(`${token}x`))).toBeUndefined()
  })
})

describe('the 2025 session cache', () => {
  const codec = new RequestStateCodec(createKeyRing(`k1:${Buffer.alloc(32, 3).toString('base64')}`))
  const mint = (sessions: LegacySessions, padding: number, principal = 'alice') =>
    sessions.mint({
      server: 'unit /mcp',
      protocolVersion: '2025-11-25',
      clientCapabilities: { experimental: { pad: { text: 'p'.repeat(padding) } } },
      principal,
    })
  const cached = (sessions: LegacySessions, id: string, principal = 'alice') =>
    !(sessions.open(id, 'unit /mcp', principal) instanceof Promise)

  it('is bounded by characters: ids past the budget push the oldest out long before 1,024 entries', async () => {
    const sessions = new LegacySessions(codec)
    const size = Math.floor(CACHE_ENTRY_CHARS / 2)
    const ids: string[] = []
    for (let i = 0; i < Math.ceil(CACHE_CHARS / size) + 2; i++) ids.push(await mint(sessions, size))
    for (const id of ids) expect(await sessions.open(id, 'unit /mcp', 'alice')).toBeDefined()
    expect(ids.length).toBeLessThan(1024)
    expect(cached(sessions, ids[0] as string)).toBe(false)
    expect(cached(sessions, ids.at(-1) as string)).toBe(true)
  })

  it('is shared by the sessions of the same keys (a handler built per request), never with other keys', async () => {
    const first = new LegacySessions(codec)
    const id = await mint(first, 10)
    expect(await first.open(id, 'unit /mcp', 'alice')).toBeDefined()
    // Another handler's codec over the same keys: opens it without verifying it again.
    expect(cached(new LegacySessions(new RequestStateCodec(codec.keyRing)), id)).toBe(true)
    // Other keys: verified, and refused.
    const other = new LegacySessions(new RequestStateCodec(createKeyRing(`k1:${Buffer.alloc(32, 4).toString('base64')}`)))
    expect(cached(other, id)).toBe(false)
    expect(await other.open(id, 'unit /mcp', 'alice')).toBeUndefined()
    // Still checked per use: another principal, another server.
    expect(cached(new LegacySessions(codec), id, 'mallory')).toBe(true)
    expect(new LegacySessions(codec).open(id, 'unit /mcp', 'mallory')).toBeUndefined()
    expect(new LegacySessions(codec).open(id, 'other /mcp', 'alice')).toBeUndefined()
  })

  it('verifies an id larger than an entry may be on every use, and caches no session another principal presented', async () => {
    const sessions = new LegacySessions(codec)
    const large = await mint(sessions, CACHE_ENTRY_CHARS)
    expect(await sessions.open(large, 'unit /mcp', 'alice')).toBeDefined()
    expect(cached(sessions, large)).toBe(false)
    const small = await mint(sessions, 10)
    expect(await sessions.open(small, 'unit /mcp', 'mallory')).toBeUndefined()
    expect(cached(sessions, small, 'mallory')).toBe(false)
  })
})

describe('jwtResourceServer and the token type (RFC 9068 §4)', () => {
  it('requires the typ its issuer sets when configured with it, and refuses other JWT types by default', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] }
    const options = { resource: 'https://mcp.example.com/mcp', issuer: 'https://issuer.example', jwks }
    const sign = (typ?: string) =>
      new SignJWT({ sub: 'alice', scope: 'mcp' })
        .setProtectedHeader({ alg: 'ES256', kid: 'k', ...(typ ? { typ } : {}) })
        .setIssuer(options.issuer)
        .setAudience(options.resource)
        .setExpirationTime('5m')
        .sign(privateKey)
    const verify = async (server: ReturnType<typeof jwtResourceServer>, typ?: string) => {
      const request = new Request(options.resource, { headers: { authorization: `Bearer ${await sign(typ)}` } })
      return server.authenticate(request, {}).catch((error: unknown) => error)
    }
    const strict = jwtResourceServer({ ...options, typ: 'at+jwt' })
    expect(await verify(strict, 'at+jwt')).toEqual({ subject: 'alice', scopes: ['mcp'] })
    expect(await verify(strict, 'application/AT+JWT')).toEqual({ subject: 'alice', scopes: ['mcp'] })
    for (const typ of ['JWT', undefined]) expect(await verify(strict, typ), String(typ)).toBeInstanceOf(AuthChallenge)
    const lenient = jwtResourceServer(options)
    for (const typ of ['JWT', 'at+jwt', undefined])
      expect(await verify(lenient, typ), String(typ)).toMatchObject({ subject: 'alice' })
    for (const typ of ['logout+jwt', 'dpop+jwt', 'oauth-id-jag+jwt'])
      expect(await verify(lenient, typ), typ).toBeInstanceOf(AuthChallenge)
  })
})

describe('jwtResourceServer and where its keys come from', () => {
  const options = { resource: 'https://mcp.example.com/mcp', issuer: 'https://issuer.example' }
  const request = new Request(options.resource, { headers: { authorization: 'Bearer a.b.c' } })

  it('refuses a jwksUrl in plain http off this machine (500 naming the fix, logged once), fetching nothing', async () => {
    const fetched = vi.spyOn(globalThis, 'fetch')
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      for (const jwksUrl of ['http://issuer.example/jwks', 'not a url', 'https://user:secret@issuer.example/jwks']) {
        const server = jwtResourceServer({ ...options, jwksUrl })
        // One env object, as a Worker's isolate has: the reason is kept and logged once.
        const env = {}
        for (let i = 0; i < 2; i++) {
          const refused = await server.authenticate(request, env).catch((error: unknown) => error)
          expect(refused, jwksUrl).toMatchObject({ kind: 'misconfigured', code: -32603, status: 500 })
          expect((refused as Error).message).toContain(
            'jwksUrl must be an https URL (http only on 127.0.0.1, localhost or [::1])',
          )
          expect(() => server.challenge(env)).toThrow(/jwksUrl must be an https URL/)
        }
      }
      expect(fetched).not.toHaveBeenCalled()
      expect(logged.mock.calls.filter((call) => String(call[0]).includes('jwksUrl must be an https URL'))).toHaveLength(3)
    } finally {
      fetched.mockRestore()
      logged.mockRestore()
    }
  })

  it('takes https, and http on loopback (local development)', () => {
    for (const jwksUrl of [
      'https://issuer.example/jwks',
      'http://127.0.0.1:9000/jwks',
      'http://localhost/jwks',
      'http://[::1]/jwks',
    ]) {
      expect(jwtResourceServer({ ...options, jwksUrl, scopes: ['mcp'] }).challenge({}).scopes, jwksUrl).toEqual(['mcp'])
    }
  })
})

describe('scopes as issuers write them', () => {
  it('reads scope and scp each as a space-separated string or a list (Entra ID: scp string; Spring: scope list)', () => {
    const scopesOf = (claims: Record<string, unknown>) => principalFromClaims({ sub: 'u', ...claims })?.scopes
    expect(scopesOf({ scope: 'mcp records:write' })).toEqual(['mcp', 'records:write'])
    expect(scopesOf({ scp: 'mcp User.Read' })).toEqual(['mcp', 'User.Read'])
    expect(scopesOf({ scope: ['mcp', 'records:write'] })).toEqual(['mcp', 'records:write'])
    expect(scopesOf({ scp: ['mcp', 7, ''] })).toEqual(['mcp'])
    expect(scopesOf({})).toEqual([])
  })

  it('lets an Entra-shaped token (scp string) through a jwtResourceServer whose baseline is mcp', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256' }] }
    const options = {
      resource: 'https://mcp.example.com/mcp',
      issuer: 'https://login.example/tenant/v2.0',
      jwks,
      scopes: ['mcp'],
    }
    const token = await new SignJWT({ sub: 'entra-user', scp: 'mcp User.Read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'k', typ: 'JWT' })
      .setIssuer(options.issuer)
      .setAudience(options.resource)
      .setExpirationTime('5m')
      .sign(privateKey)
    const handle = createMcpHandler(
      createMcpServer({ name: 'entra', version: '1.0.0' }).tool('who', { input: z.object({}) }, (_args, ctx) => ({
        content: [{ type: 'text', text: ctx.principal?.subject ?? '' }],
      })),
      { resourceServer: jwtResourceServer(options) },
    )
    const request = new Request('https://mcp.example.com/mcp', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'who',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'who',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    })
    const response = await handle(request, {})
    expect(response.status).toBe(200)
    expect((await response.json()).result.content[0].text).toBe('entra-user')
  })
})
