/**
 * The RFC 7662 resource server over real HTTP: a small server behind `introspectionResourceServer`
 * at /opaque/mcp of the JWT fixture Worker (test/fixture/jwt) under `wrangler dev`, asking a real
 * authorization server, oidc-provider 9 on loopback (test/support/oidc-provider.ts), about opaque
 * access tokens it bound to that endpoint (RFC 8707) in the whole code flow. workerd reaches the
 * provider at http://localhost:<port>. The provider is stopped in the last test (fail closed).
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpc } from '../support/mcp.ts'
import { issueTokens, metadataOf, startOidcProvider } from '../support/oidc-provider.ts'
import type { TestOidcProvider } from '../support/oidc-provider.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback'
const INTROSPECTION_PATH = '/token/introspection'

let idp: TestOidcProvider
let worker: WranglerServer
let endpoint: string
let metadataUrl: string

beforeAll(async () => {
  idp = await startOidcProvider({ redirectUris: [REDIRECT_URI] })
  const introspectionUrl = (await metadataOf(idp)).introspection_endpoint as string
  worker = await startWrangler({
    config: 'test/fixture/jwt/wrangler.jsonc',
    logLevel: 'log',
    vars: (port) => ({
      // The JWT endpoint's, unused here (its metadata route is mounted first, so they must be set).
      MCP_RESOURCE: `http://127.0.0.1:${port}/mcp`,
      JWT_ISSUER: 'http://127.0.0.1:9',
      JWT_JWKS_URL: 'http://127.0.0.1:9/jwks',
      OPAQUE_RESOURCE: `http://127.0.0.1:${port}/opaque/mcp`,
      OPAQUE_ISSUER: idp.issuer,
      INTROSPECTION_URL: introspectionUrl,
      INTROSPECTION_CLIENT_ID: idp.resourceClient.clientId,
      INTROSPECTION_CLIENT_SECRET: idp.resourceClient.clientSecret,
    }),
  })
  endpoint = `http://127.0.0.1:${worker.port}/opaque/mcp`
  metadataUrl = `http://127.0.0.1:${worker.port}/.well-known/oauth-protected-resource/opaque/mcp`
}, 120_000)

afterAll(async () => {
  await worker?.stop()
  await idp?.close()
})

const tokenFor = async (login: string, resource = endpoint) =>
  (await issueTokens(idp, { login, resource, redirectUri: REDIRECT_URI })).accessToken
const whoami = (token: string | undefined) =>
  rpc(
    fetch,
    endpoint,
    'tools/call',
    { name: 'whoami', arguments: {} },
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  )

describe('introspection resource server (RFC 7662) under wrangler dev', () => {
  it("publishes the opaque endpoint's metadata beside the JWT endpoint's", async () => {
    const response = await fetch(metadataUrl)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      resource: endpoint,
      authorization_servers: [idp.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp'],
      resource_name: 'mcp-edge fixture (opaque tokens)',
    })
    const jwt = await fetch(`http://127.0.0.1:${worker.port}/.well-known/oauth-protected-resource/mcp`)
    expect(((await jwt.json()) as { resource: string }).resource).toBe(`http://127.0.0.1:${worker.port}/mcp`)
    expect((await fetch(`http://127.0.0.1:${worker.port}/.well-known/oauth-protected-resource/nothing`)).status).toBe(404)
  })

  it('answers a call without a token 401 naming the metadata URL', async () => {
    const { status, headers } = await whoami(undefined)
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toBe(`Bearer realm="mcp", scope="mcp", resource_metadata="${metadataUrl}"`)
  })

  it("serves tools/call with the provider's opaque token: the tool sees its subject; the next call is not introspected again", async () => {
    const token = await tokenFor('ada')
    const before = idp.requests(INTROSPECTION_PATH)
    const first = await whoami(token)
    expect(first.status).toBe(200)
    expect(JSON.parse(first.message.result.content[0].text)).toEqual({ subject: 'ada', scopes: ['mcp'], clientId: idp.clientId })
    expect((await whoami(token)).status).toBe(200)
    expect(idp.requests(INTROSPECTION_PATH)).toBe(before + 1)
  })

  it('refuses a token the provider bound to another resource (the JWT endpoint of the same Worker) 401 invalid_token', async () => {
    const { status, headers, message } = await whoami(await tokenFor('ada', `http://127.0.0.1:${worker.port}/mcp`))
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", error="invalid_token", scope="mcp", resource_metadata="${metadataUrl}"`,
    )
    expect(message.error).toEqual({ code: -32600, message: 'Unauthorized: invalid token' })
  })

  it('fails closed with the provider stopped: 503 with Retry-After, never 200, the token not logged; a token accepted within the TTL still served', async () => {
    const seen = await tokenFor('ben')
    expect((await whoami(seen)).status).toBe(200)
    const unseen = await tokenFor('cy')
    await idp.close()
    const { status, headers, message } = await whoami(unseen)
    expect(status).toBe(503)
    expect(headers.get('retry-after')).toBe('5')
    expect(message.error).toEqual({ code: -32603, message: 'Service unavailable: the token could not be checked; retry' })
    expect(JSON.parse((await whoami(seen)).message.result.content[0].text).subject).toBe('ben')
    // The Worker's log line reaches the file through wrangler's process, not with the answer.
    await expect.poll(() => readFileSync(worker.logFile, 'utf8'), { timeout: 20_000 }).toContain('token introspection failed')
    expect(readFileSync(worker.logFile, 'utf8')).not.toContain(unseen)
  })
})
