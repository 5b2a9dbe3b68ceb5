/**
 * The server's own tests, inside workerd (@cloudflare/vitest-plugin): a client registers,
 * a local browser consents at /authorize, the code becomes a token (PKCE S256, bound to /mcp),
 * and every tool is called with it; without a token /mcp is 401 with the RFC 9728 challenge.
 * Everything goes to the Worker in-process through `exports.default.fetch`.
 */
import { createExecutionContext } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { McpClient, McpClientError } from 'mcp-edge/client'
import { describe, expect, it } from 'vitest'
import { enterpriseGrant } from '../src/enterprise'
import worker, { server } from '../src/index'

const ORIGIN = 'http://127.0.0.1:8787'
const REDIRECT = 'http://127.0.0.1:9999/callback'
const call = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`${ORIGIN}${path}`, init))
const base64url = (bytes: ArrayBuffer | Uint8Array) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

type Fetch = (path: string, init?: RequestInit) => Promise<Response>

/** Register a client, consent as `user` (with the form's `extra` fields), and trade the code for an access token. */
async function signIn(user: string, via: Fetch = call, extra: Record<string, string> = {}): Promise<string> {
  const call = via
  const registered = await call('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)))
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const query = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'mcp',
    state: 'xyz',
    resource: `${ORIGIN}/mcp`,
  })
  const page = await call(`/authorize?${query}`)
  expect(page.status).toBe(200)
  const handle = /name="handle" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
  const form = new URLSearchParams({ handle, user, decision: 'approve', scope: 'mcp', ...extra })
  const approved = await call('/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: ORIGIN },
    body: form,
    redirect: 'manual',
  })
  expect(approved.status).toBe(302)
  const back = new URL(approved.headers.get('location') ?? '')
  expect(back.searchParams.get('state')).toBe('xyz')
  const token = await call('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      client_id,
      code_verifier: verifier,
      resource: `${ORIGIN}/mcp`,
    }),
  })
  expect(token.status).toBe(200)
  return ((await token.json()) as { access_token: string }).access_token
}

/** The consent page (without `scope`) for a client registered with `metadata`, as `via` serves it. */
async function consentPage(metadata: Record<string, string>, via: Fetch = call): Promise<Response> {
  const registered = await via('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const query = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: REDIRECT,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 'xyz',
  })
  return via(`/authorize?${query}`)
}

describe('the MCP server behind OAuth', () => {
  it('converts every tool’s and prompt’s schemas to JSON Schema (a bad schema fails here, not in a client’s list)', () => {
    expect(() => server.checkSchemas()).not.toThrow()
  })

  it('takes clients by registration (RFC 7591) and by Client ID Metadata Document; one whose document cannot be fetched is not shown consent', async () => {
    const metadata = (await (await call('/.well-known/oauth-authorization-server')).json()) as Record<string, unknown>
    expect(metadata.registration_endpoint).toBe(`${ORIGIN}/oauth/register`)
    expect(metadata.client_id_metadata_document_supported).toBe(true)
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'https://client.invalid/oauth/metadata.json',
      redirect_uri: 'https://client.invalid/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'xyz',
    })
    const page = await call(`/authorize?${query}`, { redirect: 'manual' })
    expect([page.status, page.headers.get('location')]).toEqual([400, null])
    expect(await page.text()).toContain('<p role="alert">This app could not be verified.</p>')
  })
  it('offers the baseline scope to an authorization request without one', async () => {
    const page = await consentPage({ client_name: 'no scope' })
    expect(page.status).toBe(200)
    expect([...(await page.text()).matchAll(/name="scope" value="([^"]+)"/g)].map((match) => match[1])).toEqual(['mcp'])
  })
  it('signs a person in, and every tool answers with that person as the principal', async () => {
    const token = await signIn('ada')
    const client = new McpClient({ url: `${ORIGIN}/mcp`, token: () => token, fetch: (request) => exports.default.fetch(request) })
    const { tools } = (await client.request('tools/list', {})) as { tools: { name: string }[] }
    expect(tools.map((tool) => tool.name)).toEqual(['whoami', 'my_profile', 'add'])
    expect(await client.callTool('whoami', {})).toMatchObject({ structuredContent: { subject: 'ada', scopes: ['mcp'] } })
    expect((await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '5' }])
  })

  it('with MCP_OAUTH_PASSPHRASE signs in one principal, "passphrase": the person cannot choose a subject', async () => {
    const PASSPHRASE = 'correct horse battery staple'
    const settings = { ...env, MCP_OAUTH_PASSPHRASE: PASSPHRASE }
    const handler = worker as { fetch(request: Request, settings: typeof env, ctx: ExecutionContext): Promise<Response> }
    const at: Fetch = (path, init) => handler.fetch(new Request(`${ORIGIN}${path}`, init), settings, createExecutionContext())
    const token = await signIn('admin', at, { passphrase: PASSPHRASE })
    const client = new McpClient({
      url: `${ORIGIN}/mcp`,
      token: () => token,
      fetch: (request) => handler.fetch(request, settings, createExecutionContext()),
    })
    expect(await client.callTool('whoami', {})).toMatchObject({ structuredContent: { subject: 'passphrase' } })
    await expect(signIn('admin', at, { passphrase: 'wrong' })).rejects.toThrow()
  })

  it('renders the consent page under a strict policy: the server, the client marked unverified, its https logo only, the fields for the sign-in mode', async () => {
    const page = await consentPage({ logo_uri: 'https://client.example/logo.png?a=1&b="2"' })
    const html = await page.text()
    const css = /<style>([^<]*)<\/style>/.exec(html)?.[1] ?? ''
    const hash = btoa(
      String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(css)))),
    )
    expect(page.headers.get('content-security-policy')).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src https: data:; base-uri 'none'; frame-ancestors 'none'`,
    )
    expect(html).toContain('<html lang="en">')
    expect(html).toContain('<span>mcp-edge OAuth</span>')
    expect(html).toContain(
      '<img src="https://client.example/logo.png?a=1&#38;b=&#34;2&#34;" alt="" referrerpolicy="no-referrer">',
    )
    expect(html).toContain('<span class="tag">Unverified</span>')
    expect(html).toContain('Use this server’s tools, prompts and resources as you<code>mcp</code>')
    expect(html).toContain('Address: <code>http://127.0.0.1:9999</code>')
    expect(html).toContain('name="user"')
    expect(html).not.toContain('<script')
    expect(await (await consentPage({ logo_uri: 'http://client.example/logo.png' })).text()).not.toContain('client.example')
    // With the passphrase: its field, and no name to choose (the principal is `passphrase`).
    const settings = { ...env, MCP_OAUTH_PASSPHRASE: 'correct horse battery staple' }
    const handler = worker as { fetch(request: Request, settings: typeof env, ctx: ExecutionContext): Promise<Response> }
    const at: Fetch = (path, init) => handler.fetch(new Request(`${ORIGIN}${path}`, init), settings, createExecutionContext())
    const withPassphrase = await (await consentPage({}, at)).text()
    expect(withPassphrase).toContain('<input type="password" name="passphrase" required autocomplete="current-password">')
    expect(withPassphrase).not.toContain('name="user"')
  })

  it('treats a sign-in through a proxy as remote: without a passphrase or provider it shows no consent page', async () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'via']) {
      const page = await call('/authorize?response_type=code', { headers: { [header]: '127.0.0.1' } })
      expect([header, page.status]).toEqual([header, 403])
      expect(await page.text()).toContain(
        '<p role="alert">Sign-in is not configured: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or MCP_OAUTH_PASSPHRASE.</p>',
      )
    }
  })

  it('refuses a token from another sign-in than the one configured now: a passphrase name once a provider signs people in', async () => {
    // The same Worker with an identity provider configured (nothing is fetched until someone signs in there).
    const provider = { ...env, OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'client', OIDC_CLIENT_SECRET: 'secret' }
    const token = await signIn('12345678')
    const handler = worker as { fetch(request: Request, settings: typeof env, ctx: ExecutionContext): Promise<Response> }
    const fetchWith = (request: Request, settings: typeof env, ctx: ExecutionContext) => handler.fetch(request, settings, ctx)
    const client = (settings: typeof env) =>
      new McpClient({
        url: `${ORIGIN}/mcp`,
        token: () => token,
        fetch: (request) => fetchWith(request, settings, createExecutionContext()),
      })
    expect(await client(env).callTool('whoami', {})).toMatchObject({ structuredContent: { subject: '12345678' } })
    const error = await client(provider)
      .request('tools/list', {})
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(McpClientError)
    expect([(error as McpClientError).status, (error as McpClientError).challenge]).toEqual([
      401,
      expect.stringContaining('invalid_token'),
    ])
    // Half configured (no client id or secret): every request says so (500), none is served.
    const half = await fetchWith(
      new Request(`${ORIGIN}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }),
      { ...env, OIDC_ISSUER: 'https://idp.example' },
      createExecutionContext(),
    )
    expect([half.status, await half.json()]).toEqual([
      500,
      { error: 'server_error', error_description: 'Sign-in is misconfigured' },
    ])
  })

  it('takes ID-JAGs (the jwt-bearer grant) only with EMA_ISSUER and EMA_JWKS_URI set, and serves nothing with half of it', async () => {
    const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
    const handler = worker as { fetch(request: Request, settings: typeof env, ctx: ExecutionContext): Promise<Response> }
    const at = (settings: typeof env, path: string, init?: RequestInit) =>
      handler.fetch(new Request(`${ORIGIN}${path}`, init), settings, createExecutionContext())
    const metadata = async (settings: typeof env) =>
      (await (await at(settings, '/.well-known/oauth-authorization-server')).json()) as Record<string, unknown>
    // The same Worker trusting an enterprise IdP (its keys are fetched only when an ID-JAG comes).
    const ema = { ...env, EMA_ISSUER: 'https://idp.example', EMA_JWKS_URI: 'https://idp.example/jwks' }
    expect(await metadata(ema)).toMatchObject({
      grant_types_supported: expect.arrayContaining([JWT_BEARER]),
      authorization_grant_profiles_supported: ['urn:ietf:params:oauth:grant-profile:id-jag'],
    })
    const plain = await metadata(env)
    expect([plain.grant_types_supported, plain.authorization_grant_profiles_supported]).toEqual([
      expect.not.arrayContaining([JWT_BEARER]),
      undefined,
    ])
    const registered = await call('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'agent',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    })
    const { client_id, client_secret } = (await registered.json()) as { client_id: string; client_secret: string }
    const refused = await at(env, '/oauth/token', {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${client_id}:${client_secret}`)}` },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: 'a.b.c' }),
    })
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([400, 'unsupported_grant_type'])
    // Half configured, or configured with what the library refuses: every request says what is wrong (500).
    for (const [settings, description] of [
      [{ ...env, EMA_ISSUER: 'https://idp.example' }, 'Enterprise-Managed Authorization also needs EMA_JWKS_URI.'],
      [{ ...ema, EMA_JWKS_URI: 'http://idp.example/jwks' }, 'EMA_JWKS_URI must be an https URL (got "http://idp.example/jwks").'],
      [{ ...ema, EMA_ALGORITHMS: 'HS256' }, 'EMA_ALGORITHMS may list RS256 and ES256 (got "HS256").'],
    ] as const) {
      for (const path of ['/.well-known/oauth-authorization-server', '/authorize', '/mcp']) {
        const answer = await at(settings, path)
        expect([path, answer.status, await answer.json()]).toEqual([
          path,
          500,
          { error: 'server_error', error_description: description },
        ])
      }
    }
  })

  it('grants an ID-JAG only scopes the server offers, and refuses a set without the baseline, which /mcp requires', async () => {
    const idp = { issuer: 'https://idp.example', jwksUri: 'https://idp.example/jwks', algorithms: ['RS256'] }
    const { mapClaims } = enterpriseGrant(idp, ['mcp', 'admin'], 'https://mcp.example.com/')
    const claims = {
      iss: idp.issuer,
      sub: 'ada',
      aud: 'https://mcp.example.com',
      resource: '',
      client_id: 'c',
      jti: 'j',
      exp: 0,
      iat: 0,
    }
    const mapped = (requestedScope: string[], scope?: string) =>
      mapClaims({ claims: { ...claims, scope }, requestedScope } as Parameters<typeof mapClaims>[0])
    expect(await mapped(['admin'], 'admin')).toBeNull()
    expect((await mapped(['mcp', 'admin', 'other'], 'mcp admin other'))?.scope).toEqual(['mcp', 'admin'])
    expect((await mapped([]))?.scope).toEqual(['mcp'])
    expect(await mapped([], 'admin')).toBeNull()
  })

  it('refuses /mcp without a token (401 with a Bearer challenge), from elsewhere and locally alike', async () => {
    for (const url of ['https://mcp.example.com/mcp', `${ORIGIN}/mcp`]) {
      const client = new McpClient({ url, fetch: (request) => exports.default.fetch(request) })
      const error = await client.request('tools/list', {}).catch((caught: unknown) => caught)
      expect(error, url).toBeInstanceOf(McpClientError)
      expect((error as McpClientError).status, url).toBe(401)
      expect((error as McpClientError).challenge, url).toMatch(/^Bearer /)
    }
    // Clients find the authorization server from the protected resource's metadata (RFC 9728).
    const metadata = await call('/.well-known/oauth-protected-resource/mcp')
    expect(await metadata.json()).toMatchObject({ resource: `${ORIGIN}/mcp`, authorization_servers: [ORIGIN] })
  })
})
