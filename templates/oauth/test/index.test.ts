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

/** A consent page opened for a newly registered public client: what its form posts back. */
interface OpenConsent {
  clientId: string
  verifier: string
  handle: string
  cookie: string
}

/** Register a client and open the consent page for it (scope `mcp`, PKCE S256), as `via` serves it. */
async function openConsent(via: Fetch, headers: Record<string, string> = {}): Promise<OpenConsent> {
  const registered = await via('/oauth/register', {
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
  const page = await via(`/authorize?${query}`, { headers })
  expect(page.status).toBe(200)
  const handle = /name="handle" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  const cookie = page.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ')
  return { clientId: client_id, verifier, handle, cookie }
}

/** Post the consent form (approve, scope `mcp`, and `fields`) as the browser that opened it. */
function postConsent(via: Fetch, consent: OpenConsent, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return via('/authorize', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: consent.cookie, origin: ORIGIN, ...headers },
    body: new URLSearchParams({ handle: consent.handle, decision: 'approve', scope: 'mcp', ...fields }),
    redirect: 'manual',
  })
}

interface Tokens {
  access_token: string
  refresh_token: string
  clientId: string
}

/** Register a client, consent as `user` (with the form's `extra` fields), and trade the code for tokens. */
async function signInTokens(user: string, via: Fetch = call, extra: Record<string, string> = {}): Promise<Tokens> {
  const consent = await openConsent(via)
  const approved = await postConsent(via, consent, { user, ...extra })
  expect(approved.status).toBe(302)
  const back = new URL(approved.headers.get('location') ?? '')
  expect(back.searchParams.get('state')).toBe('xyz')
  const token = await via('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT,
      client_id: consent.clientId,
      code_verifier: consent.verifier,
      resource: `${ORIGIN}/mcp`,
    }),
  })
  expect(token.status).toBe(200)
  return { ...((await token.json()) as Omit<Tokens, 'clientId'>), clientId: consent.clientId }
}

/** Register a client, consent as `user` (with the form's `extra` fields), and trade the code for an access token. */
async function signIn(user: string, via: Fetch = call, extra: Record<string, string> = {}): Promise<string> {
  return (await signInTokens(user, via, extra)).access_token
}

/** The Worker with other settings than wrangler.jsonc's: each request gets `settings` as its env. */
function withSettings(settings: typeof env): Fetch {
  const handler = worker as { fetch(request: Request, settings: typeof env, ctx: ExecutionContext): Promise<Response> }
  return (path, init) => handler.fetch(new Request(`${ORIGIN}${path}`, init), settings, createExecutionContext())
}

/** A passphrase as `openssl rand -base64 32` makes one (44 characters). */
const PASSPHRASE = 'kq3tV9yXb2Lr8WmZ0cJf4sHn6pAe1uGd5oQi7xTz+Yw='

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
    const settings = { ...env, MCP_OAUTH_PASSPHRASE: PASSPHRASE }
    const token = await signIn('admin', withSettings(settings), { passphrase: PASSPHRASE })
    const handler = worker as { fetch(request: Request, settings: typeof env, ctx: ExecutionContext): Promise<Response> }
    const client = new McpClient({
      url: `${ORIGIN}/mcp`,
      token: () => token,
      fetch: (request) => handler.fetch(request, settings, createExecutionContext()),
    })
    expect(await client.callTool('whoami', {})).toMatchObject({ structuredContent: { subject: 'passphrase' } })
  })

  it('declines the consent at a wrong passphrase: the client gets access_denied, and that consent takes no second guess', async () => {
    // From the internet (the passphrase lets remote browsers consent), as a guesser would come.
    const remote = { 'cf-connecting-ip': '203.0.113.7' }
    const at = withSettings({ ...env, MCP_OAUTH_PASSPHRASE: PASSPHRASE })
    const consent = await openConsent(at, remote)
    const wrong = await postConsent(at, consent, { passphrase: PASSPHRASE.slice(1) }, remote)
    const back = new URL(wrong.headers.get('location') ?? 'about:blank')
    expect([
      wrong.status,
      `${back.origin}${back.pathname}`,
      back.searchParams.get('error'),
      back.searchParams.get('code'),
    ]).toEqual([302, REDIRECT, 'access_denied', null])
    expect(back.searchParams.get('state')).toBe('xyz')
    // The same consent with the right passphrase now: refused on the page, no code for anyone.
    const again = await postConsent(at, consent, { passphrase: PASSPHRASE }, remote)
    expect([again.status, again.headers.get('location')]).toEqual([400, null])
  })

  it('refuses a passphrase shorter than 32 characters: nothing is served, and every answer says how to make one', async () => {
    const description =
      'MCP_OAUTH_PASSPHRASE is shorter than 32 characters. Generate one with: openssl rand -base64 32 | ' +
      'npx wrangler secret put MCP_OAUTH_PASSPHRASE (for local development put MCP_OAUTH_PASSPHRASE="..." in .dev.vars)'
    for (const passphrase of ['abc', 'x'.repeat(31)]) {
      const at = withSettings({ ...env, MCP_OAUTH_PASSPHRASE: passphrase })
      for (const path of ['/authorize?response_type=code', '/mcp', '/.well-known/oauth-authorization-server']) {
        const answer = await at(path, { headers: { 'cf-connecting-ip': '203.0.113.7' } })
        expect([passphrase.length, path, answer.status, await answer.json()]).toEqual([
          passphrase.length,
          path,
          500,
          { error: 'server_error', error_description: description },
        ])
      }
    }
    const long = await withSettings({ ...env, MCP_OAUTH_PASSPHRASE: 'x'.repeat(32) })('/.well-known/oauth-authorization-server')
    expect(long.status).toBe(200)
  })

  it('ends refresh tokens a week after sign-in; a refresh retried with the token before keeps the grant', async () => {
    const first = await signInTokens('lin')
    const refresh = (token: string) =>
      call('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: first.clientId }),
      })
    // The library's grant record (`grant:<user>:<grant>`, its Grant type): a fixed lifetime of 7 days,
    // counted from the code's exchange, in whole seconds. `createdAt` is the authorization's own
    // clock read, a moment before: a sign-in that crosses a second's boundary between the two
    // (CI saw 604801) is a second longer from `createdAt`.
    const [user, grantId] = first.refresh_token.split(':')
    const key = `grant:${user}:${grantId}`
    const grant = await env.OAUTH_KV.get<{ createdAt: number; expiresAt?: number }>(key, 'json')
    const lifetime = (grant?.expiresAt ?? 0) - (grant?.createdAt ?? 0)
    expect(lifetime).toBeGreaterThanOrEqual(7 * 24 * 3600)
    expect(lifetime).toBeLessThanOrEqual(7 * 24 * 3600 + 2)
    const rotated = await refresh(first.refresh_token)
    expect(rotated.status).toBe(200)
    const second = (await rotated.json()) as Tokens
    const mcpAs = (token: string) =>
      new McpClient({ url: `${ORIGIN}/mcp`, token: () => token, fetch: (request) => exports.default.fetch(request) })
    expect(await mcpAs(second.access_token).callTool('whoami', {})).toMatchObject({ structuredContent: { subject: 'lin' } })
    // A client that lost the answer (or a second process of it) sends the token before again: the
    // library answers it, and the grant stays (docs/oauth.md says why the template keeps this).
    expect((await refresh(first.refresh_token)).status).toBe(200)
    expect(await env.OAUTH_KV.get(key)).not.toBeNull()
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
    const withPassphrase = await (await consentPage({}, withSettings({ ...env, MCP_OAUTH_PASSPHRASE: PASSPHRASE }))).text()
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
