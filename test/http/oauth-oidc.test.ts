/**
 * Sign-in through an identity provider, end to end: the demo in OAuth mode (apps/demo/oauth under
 * `wrangler dev`, the OAuth template's consent page and callback) with OIDC_ISSUER,
 * OIDC_CLIENT_ID and OIDC_CLIENT_SECRET naming a real OpenID provider on loopback (oidc-provider,
 * test/support/oidc-provider.ts), a person in headless Chromium, and the official MCP client
 * (2.x) at its defaults: the client's authorization request → our consent page (no name, no
 * passphrase) → the provider's login and consent → back through /oauth/callback → the client's
 * code → its token → `tools/call whoami` answers with the provider's subject, name and email.
 *
 * Then the attacks that need a real browser and provider: a consent form posted from another
 * origin, a callback whose state is unknown or used, another sign-in's code with this one's state
 * (the provider refuses our PKCE verifier), and the provider's own token presented to /mcp. The
 * ID-token attacks (issuer, audience, expiry, signature, alg, nonce) are in test/unit/oauth-*.
 */
import { readFileSync } from 'node:fs'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { REDIRECT_URI, ScriptedOAuthProvider } from '../support/oauth-client.ts'
import {
  authorizationRequest as authorizationRequestAt,
  clientRedirects,
  newOAuthClient,
  requestsOf,
} from '../support/oauth-browser.ts'
import { signInAtProvider as signInWithPage } from '../support/oauth-browser.ts'
import { oidcProvider, randomToken, s256 } from '../../packages/mcp-edge/src/oauth/index.ts'
import { rpc } from '../support/mcp.ts'
import { revokeAt, signInAt, startOidcProvider } from '../support/oidc-provider.ts'
import type { TestOidcProvider } from '../support/oidc-provider.ts'
import { freePort, kvKeys, startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer
let idp: TestOidcProvider
let browser: Browser
let origin: string
/** Every token the provider issued (opaque: the value is its id). */
const upstreamTokens: string[] = []

beforeAll(async () => {
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  idp = await startOidcProvider({ redirectUris: [`${origin}/oauth/callback`] })
  for (const kind of ['access_token', 'refresh_token']) {
    idp.provider.on(`${kind}.saved`, (token) => upstreamTokens.push((token as { jti: string }).jti))
  }
  ;[worker, browser] = await Promise.all([
    startWrangler({
      config: 'apps/demo/oauth/wrangler.jsonc',
      port,
      // Every console line of the Worker, so the last test can show no provider token is among them.
      logLevel: 'log',
      vars: {
        MCP_PUBLIC_URL: origin,
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: idp.clientId,
        OIDC_CLIENT_SECRET: idp.clientSecret,
      },
    }),
    launchBrowser('oauth-oidc'),
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([worker?.stop(), browser?.close(), idp?.close()])
  if (browser?.shots.length) console.log(`Sign-in screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

const newClient = () => newOAuthClient('oidc-test')
const authorizationRequest = (provider: ScriptedOAuthProvider) => authorizationRequestAt(worker.url, provider)
const signInAtProvider = (page: Page, login: string) => signInWithPage(browser, page, login)
/** The provider's authorization requests the browser made (our redirect after consent). */
const providerRequests = (page: Page) =>
  requestsOf(page, (url) => url.origin === new URL(idp.issuer).origin && url.pathname.endsWith('/auth'))

/** The grants the Worker's KV holds for `login` (the provider's keys `grant:<userId>:<id>`), read as wrangler reads local state. */
function storedGrants(login: string): string[] {
  return kvKeys(worker, `grant:${encodeURIComponent(login)}:`)
}

/** Sign `login` in as oidc e2e's first test does, without its checks: the client's tokens and id. */
async function signInWithBrowser(login: string) {
  await browser.context.clearCookies() // signed out at the provider
  const provider = new ScriptedOAuthProvider(`client of ${login}`)
  const transport = await authorizationRequest(provider)
  const page = await browser.context.newPage()
  const back = clientRedirects(page)
  try {
    await page.goto(String(provider.authorizationUrl))
    await page.getByRole('button', { name: 'Allow' }).click()
    await signInAtProvider(page, login)
    await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
  } finally {
    await page.close()
  }
  await transport.finishAuth((back[0] as URL).searchParams)
  const registered = provider.clientInformation() as { client_id: string } | undefined
  return { tokens: () => provider.tokens(), clientId: registered?.client_id as string }
}

/** A form POST to our token endpoint (token, refresh, RFC 7009 revocation all live there). */
function tokenRequest(form: Record<string, string>): Promise<Response> {
  return fetch(`${origin}/oauth/token`, { method: 'POST', body: new URLSearchParams(form) })
}

/** `tools/call name` with a bearer token: the HTTP status and the result. */
async function toolAs(token: string, name: string) {
  const answer = await rpc(
    fetch,
    worker.url,
    'tools/call',
    { name, arguments: {} },
    { headers: { authorization: `Bearer ${token}` } },
  )
  return { status: answer.status, structuredContent: answer.message.result?.structuredContent }
}

describe('sign-in through an OpenID provider (oidc-provider on loopback, Chromium, the official MCP client)', () => {
  it('consents for the client, signs in at the provider, and calls tools as the provider’s subject', async () => {
    const provider = new ScriptedOAuthProvider('oidc e2e')
    const transport = await authorizationRequest(provider)
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    const asked = providerRequests(page)
    try {
      await page.goto(String(provider.authorizationUrl))
      // Our consent page first: which client, where the code goes, which scopes; nothing to type.
      expect(await page.locator('h1').textContent()).toBe('Allow oidc e2e to use this MCP server as you?')
      expect(await page.locator('body').textContent()).toContain(`Next you sign in at ${new URL(idp.issuer).host}.`)
      expect(await page.locator('body').textContent()).toContain('Access will be sent to 127.0.0.1.')
      expect(await page.locator('input[name=user], input[type=password]').count()).toBe(0)
      await browser.shot(page, 'consent')
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.locator('input[name=login]').waitFor()
      // The provider was asked with PKCE S256, a state, a nonce and openid, for our callback.
      const request = asked[0] as URL
      expect(request.searchParams.get('code_challenge_method')).toBe('S256')
      expect(request.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
      expect(request.searchParams.get('state')).toMatch(/.{16,}/)
      expect(request.searchParams.get('nonce')).toMatch(/.{16,}/)
      expect(request.searchParams.get('scope')?.split(' ')).toContain('openid')
      expect(request.searchParams.get('redirect_uri')).toBe(`${origin}/oauth/callback`)
      await signInAtProvider(page, 'ada')
      await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
    } finally {
      await page.close()
    }
    const callback = back[0] as URL
    expect(callback.searchParams.get('error')).toBeNull()
    await transport.finishAuth(callback.searchParams)
    const client = newClient()
    await client.connect(new StreamableHTTPClientTransport(new URL(worker.url), { authProvider: provider }))
    const me = await client.callTool({ name: 'whoami', arguments: {} })
    expect(me.structuredContent).toEqual({ subject: 'ada', name: 'User ada', email: 'ada@example.test', scopes: ['mcp'] })
    expect(storedGrants('ada')).toHaveLength(1) // what the attacks below must not leave
    // A tool calls the provider's API as ada, with the token her sign-in left (ctx.upstream).
    const profile = await client.callTool({ name: 'my_profile', arguments: {} })
    expect(profile.structuredContent).toEqual({
      issuer: idp.issuer,
      subject: 'ada',
      name: 'User ada',
      email: 'ada@example.test',
      emailVerified: true,
    })
    await client.close()
  })

  it('refreshes the provider’s tokens when the client refreshes ours; once the provider revokes them, our grant goes too', async () => {
    const refreshes: string[] = []
    const issued = new Map<string, string>() // the provider's refresh tokens, by account
    idp.provider.on('grant.success', (ctx) => {
      const params = (ctx as { oidc: { params: Record<string, string> } }).oidc.params
      if (params.grant_type === 'refresh_token') refreshes.push(params.grant_type)
    })
    idp.provider.on('refresh_token.saved', (token) => {
      const { accountId, jti } = token as { accountId: string; jti: string }
      issued.set(accountId, jti)
    })
    const signedIn = await signInWithBrowser('lin')
    const first = signedIn.tokens()
    // The provider's access token lasts 300 s, shorter than ours would (an hour): ours is cut to
    // end 30 s before it, and a refresh of ours refreshes it first.
    expect(first?.expires_in).toBeLessThanOrEqual(270)
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: first?.refresh_token as string,
      client_id: signedIn.clientId,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshes).toEqual(['refresh_token'])
    const second = (await refreshed.json()) as { access_token: string; refresh_token?: string }
    expect((await toolAs(second.access_token, 'my_profile')).structuredContent?.subject).toBe('lin')
    // Access revoked at the provider: our next refresh is invalid_grant, and the grant's tokens are gone.
    await revokeAt(idp, issued.get('lin') as string, 'refresh_token')
    const refused = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token ?? (first?.refresh_token as string),
      client_id: signedIn.clientId,
    })
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([400, 'invalid_grant'])
    expect((await toolAs(second.access_token, 'whoami')).status).toBe(401)
    expect(storedGrants('lin')).toEqual([]) // the grant itself is gone
  })

  it('revokes a grant through our RFC 7009 endpoint: its access token is refused at once, its refresh token too', async () => {
    const signedIn = await signInWithBrowser('kim')
    const tokens = signedIn.tokens()
    expect((await toolAs(tokens?.access_token as string, 'whoami')).structuredContent?.subject).toBe('kim')
    const revoked = await tokenRequest({
      token: tokens?.refresh_token as string,
      token_type_hint: 'refresh_token',
      client_id: signedIn.clientId,
    })
    expect(revoked.status).toBe(200)
    expect((await toolAs(tokens?.access_token as string, 'whoami')).status).toBe(401)
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens?.refresh_token as string,
      client_id: signedIn.clientId,
    })
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant')
    expect(storedGrants('kim')).toEqual([])
  })

  it('refuses a consent form posted from another origin on this host (403), and nothing goes to the provider', async () => {
    const provider = new ScriptedOAuthProvider('cross-site')
    await authorizationRequest(provider)
    const page = await browser.context.newPage()
    const asked = providerRequests(page)
    try {
      await page.goto(String(provider.authorizationUrl))
      const handle = await page.locator('input[name=handle]').inputValue()
      // A page of another origin, same site (this host, another port: the consent cookie goes
      // along), posts the real handle as a top-level form submission.
      const evil = 'http://127.0.0.1:1/evil'
      await page.route(evil, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<form method="post" action="${origin}/authorize"><input name="handle" value="${handle}"><input name="decision" value="approve"><input name="scope" value="mcp"></form><script>document.forms[0].submit()</script>`,
        }),
      )
      const posted = page.waitForResponse(
        (response) => response.url() === `${origin}/authorize` && response.request().method() === 'POST',
      )
      await page.goto(evil)
      const refused = await posted
      expect(refused.status()).toBe(403)
      expect(await refused.text()).toContain('<p role="alert">This form can only be sent from this site.</p>')
      expect(asked).toEqual([])
    } finally {
      await page.close()
    }
  })

  it('refuses a callback with an unknown state (400, rendered), another sign-in’s code (access_denied: the provider refuses our verifier), and a used state (400)', async () => {
    // Signed out at the provider (the first test signed in there in this browser).
    await browser.context.clearCookies()
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    const asked = providerRequests(page)
    try {
      // Two approvals in this browser (each leaves its binding cookie here); each sign-in at the
      // provider is played apart (signInAt), so its callback [code, state] is kept unvisited.
      const callbacks: URL[] = []
      for (const name of ['first', 'second']) {
        const provider = new ScriptedOAuthProvider(name)
        await authorizationRequest(provider)
        await page.goto(String(provider.authorizationUrl))
        await page.getByRole('button', { name: 'Allow' }).click()
        await page.locator('input[name=login]').waitFor()
        callbacks.push(await signInAt(idp, String(asked.at(-1)), 'grace'))
      }
      const [first, second] = callbacks as [URL, URL]
      expect(second.origin + second.pathname).toBe(`${origin}/oauth/callback`)
      const unknown = await page.goto(`${origin}/oauth/callback?code=x&state=${'A'.repeat(43)}`)
      expect(unknown?.status()).toBe(400)
      // The second sign-in's state (its cookie is here) with the first one's code: the provider
      // sees the second's PKCE verifier, refuses, and the client gets access_denied, no code.
      const injected = new URL(second)
      injected.searchParams.set('code', first.searchParams.get('code') as string)
      await page.goto(String(injected)).catch(() => {}) // the client's port answers nothing
      await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
      expect(back[0]?.searchParams.get('error')).toBe('access_denied')
      expect(back[0]?.searchParams.get('code')).toBeNull()
      // That state is used now, even with its own code (a fresh tab: the failed redirect to the
      // client's port is still settling in this one).
      const again = await browser.context.newPage()
      expect((await again.goto(String(second)))?.status()).toBe(400)
      await again.close()
      // grace never finished a sign-in: nothing was granted to her.
      expect(storedGrants('grace')).toEqual([])
    } finally {
      await page.close()
    }
  })

  it('refuses redirect URIs the client did not register, rendering the error (never redirecting), and registrations of unsafe ones', async () => {
    const APP = 'https://app.example/callback'
    const registered = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'tricks', redirect_uris: [APP, REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    })
    const { client_id } = (await registered.json()) as { client_id: string }
    const challenge = await s256(randomToken())
    const authorize = (redirectUri: string) => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'trick',
      })
      return fetch(`${origin}/authorize?${query}`, { redirect: 'manual' })
    }
    expect((await authorize(APP)).status).toBe(200)
    // RFC 8252 §7.3: a loopback redirect URI may name any port (a native app picks a free one).
    expect((await authorize('http://127.0.0.1:10/callback')).status).toBe(200)
    for (const trick of [
      'https://evil.example/callback',
      'https://app.example:8443/callback', // the same host, another port
      'http://app.example/callback', // downgraded
      'https://app.example/callback/../evil',
      'https://app.example/callbackx',
      'https://app.example/callback?next=https://evil.example',
      'https://app.example.evil.example/callback',
      `${REDIRECT_URI}x`,
      'javascript:alert(1)',
    ]) {
      const answer = await authorize(trick)
      expect([trick, answer.status, answer.headers.get('location')]).toEqual([trick, 400, null])
    }
    for (const unsafe of ['javascript:alert(1)', 'data:text/html,<script>1</script>']) {
      const refused = await fetch(`${origin}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'unsafe', redirect_uris: [unsafe], token_endpoint_auth_method: 'none' }),
      })
      expect([unsafe, refused.status]).toEqual([unsafe, 400])
    }
  })

  it('sends the code to the registered redirect URI only: a redirect_uri added to the callback changes nothing', async () => {
    await browser.context.clearCookies()
    const provider = new ScriptedOAuthProvider('open redirect')
    await authorizationRequest(provider)
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    const asked = providerRequests(page)
    try {
      await page.goto(String(provider.authorizationUrl))
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.locator('input[name=login]').waitFor()
      const callback = await signInAt(idp, String(asked.at(-1)), 'olga')
      callback.searchParams.set('redirect_uri', 'https://evil.example/steal')
      await page.goto(String(callback)).catch(() => {}) // the client's port answers nothing
      await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
      expect(`${back[0]?.origin}${back[0]?.pathname}`).toBe(REDIRECT_URI)
      expect(back[0]?.searchParams.get('code')).toMatch(/.+/)
    } finally {
      await page.close()
    }
  })

  it('refuses the provider’s own access token at /mcp (401 invalid_token): only tokens this server issued pass', async () => {
    // A token the provider issued to this server's own client, as a sign-in would get it.
    const upstream = oidcProvider({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret })
    const [verifier, nonce, redirectUri] = [randomToken(), randomToken(), `${origin}/oauth/callback`]
    const codeChallenge = await s256(verifier)
    const back = await signInAt(
      idp,
      await upstream.authorizationUrl({ redirectUri, state: randomToken(), nonce, codeChallenge }),
      'mallory',
    )
    const code = back.searchParams.get('code') as string
    const { tokens } = await upstream.exchangeCode({ code, iss: back.searchParams.get('iss'), verifier, nonce, redirectUri })
    const response = await fetch(worker.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('invalid_token')
  })

  it('never writes the provider’s tokens to the Worker’s log', () => {
    expect(upstreamTokens.length).toBeGreaterThan(4)
    const log = readFileSync(worker.logFile, 'utf8')
    expect(log).toContain('mcp request') // the log is there, with the Worker's own lines
    expect(upstreamTokens.filter((token) => log.includes(token))).toEqual([])
  })
})
