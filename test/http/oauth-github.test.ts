/**
 * Sign-in with GitHub, end to end, against a STAND-IN for GitHub (test/support/github-stand-in.ts:
 * a loopback server answering as GitHub's documented authorize, token, /user and /user/emails
 * endpoints do; github.com cannot be reached from here). The demo in OAuth mode (apps/demo/oauth
 * under `wrangler dev`, the OAuth template) with OIDC_PRESET=github and OIDC_ISSUER naming the
 * stand-in as a GitHub Enterprise Server (API at `<issuer>/api/v3`), a person in headless Chromium
 * who presses the stand-in's "Authorize", and the official MCP client (2.x) at its defaults: our
 * consent page → GitHub's authorize page (state and PKCE S256, no nonce: GitHub is not OpenID
 * Connect) → /oauth/callback exchanges the code and reads /user and /user/emails → the client's
 * code → its token → `whoami` answers with GitHub's numeric id, name and primary verified email.
 *
 * Then refusals: the person cancels at GitHub (access_denied), and another sign-in's code
 * delivered with this one's state, which GitHub refuses for our PKCE verifier
 * (`bad_verification_code`, answered with 200 as GitHub does): access_denied, no code.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from '../support/browser.ts'
import type { Browser } from '../support/browser.ts'
import { authorizeAt, startGithubStandIn } from '../support/github-stand-in.ts'
import type { GithubStandIn } from '../support/github-stand-in.ts'
import { ScriptedOAuthProvider } from '../support/oauth-client.ts'
import {
  authorizationRequest as authorizationRequestAt,
  clientRedirects,
  newOAuthClient,
  requestsOf,
} from '../support/oauth-browser.ts'
import { freePort, startWrangler, type WranglerServer } from '../support/wrangler.ts'

const USER = { id: 583231, login: 'octocat', name: 'The Octocat', email: null }
const EMAILS = [
  { email: 'octocat@users.noreply.github.example', primary: false, verified: true },
  { email: 'octocat@github.example', primary: true, verified: true },
]

let worker: WranglerServer
let github: GithubStandIn
let browser: Browser
let origin: string

beforeAll(async () => {
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  github = await startGithubStandIn({ user: USER, emails: EMAILS, authorizePage: true })
  ;[worker, browser] = await Promise.all([
    startWrangler({
      config: 'apps/demo/oauth/wrangler.jsonc',
      port,
      vars: {
        MCP_PUBLIC_URL: origin,
        OIDC_ISSUER: github.webOrigin,
        OIDC_PRESET: 'github',
        OIDC_CLIENT_ID: github.clientId,
        OIDC_CLIENT_SECRET: github.clientSecret,
      },
    }),
    launchBrowser('oauth-github'),
  ])
}, 120_000)

afterAll(async () => {
  await Promise.all([worker?.stop(), browser?.close(), github?.close()])
  if (browser?.shots.length) console.log(`GitHub sign-in screenshots:\n${browser.shots.map((path) => `  ${path}`).join('\n')}`)
})

const newClient = () => newOAuthClient('github-test')
const authorizationRequest = (provider: ScriptedOAuthProvider) => authorizationRequestAt(worker.url, provider)
/** The authorization requests the browser made at the stand-in (our redirect after consent). */
const githubRequests = (page: Page) =>
  requestsOf(
    page,
    (url, method) => method === 'GET' && url.origin === github.webOrigin && url.pathname === '/login/oauth/authorize',
  )

/** Our consent page, allowed: the browser then waits on the stand-in's authorize page. */
async function allowAtConsent(page: Page, provider: ScriptedOAuthProvider): Promise<void> {
  await page.goto(String(provider.authorizationUrl))
  await page.getByRole('button', { name: 'Allow' }).click()
  await page.getByRole('button', { name: 'Authorize' }).waitFor()
}

/** How many requests of `method` to `path` the stand-in has had. */
const count = (method: string, path: string) =>
  github.requests.filter((request) => request.method === method && request.path === path).length

describe('sign-in with GitHub (a stand-in for a GitHub Enterprise Server on loopback, Chromium, the official MCP client)', () => {
  it('consents for the client, authorizes at GitHub, and calls tools as the GitHub user (numeric id, name, primary email)', async () => {
    const provider = new ScriptedOAuthProvider('github e2e')
    const transport = await authorizationRequest(provider)
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    const asked = githubRequests(page)
    try {
      await page.goto(String(provider.authorizationUrl))
      expect(await page.locator('h1').textContent()).toBe('Allow github e2e to use this MCP server as you?')
      expect(await page.locator('body').textContent()).toContain(`Next you sign in at ${new URL(github.webOrigin).host}.`)
      expect(await page.locator('input[name=user], input[type=password]').count()).toBe(0)
      await browser.shot(page, 'consent')
      await page.getByRole('button', { name: 'Allow' }).click()
      await page.getByRole('button', { name: 'Authorize' }).waitFor()
      await browser.shot(page, 'github-authorize')
      // GitHub was asked with state and PKCE S256 for our callback, its scopes, and no nonce.
      const request = asked[0] as URL
      expect(request.searchParams.get('client_id')).toBe(github.clientId)
      expect(request.searchParams.get('redirect_uri')).toBe(`${origin}/oauth/callback`)
      expect(request.searchParams.get('scope')).toBe('read:user user:email')
      expect(request.searchParams.get('code_challenge_method')).toBe('S256')
      expect(request.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
      expect(request.searchParams.get('state')).toMatch(/.{16,}/)
      expect(request.searchParams.has('nonce')).toBe(false)
      await page.getByRole('button', { name: 'Authorize' }).click()
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
    // The public email is null, so the address is /user/emails' primary verified one.
    expect(me.structuredContent).toEqual({
      subject: '583231',
      name: 'The Octocat',
      email: 'octocat@github.example',
      scopes: ['mcp'],
    })
    // A tool calls GitHub's API as the Octocat (ctx.upstream): /user again, with the same token.
    const profile = await client.callTool({ name: 'my_profile', arguments: {} })
    expect(profile.structuredContent).toMatchObject({ issuer: github.webOrigin, subject: '583231', login: 'octocat' })
    await client.close()
    // GitHub's API was used as GitHub requires: a User-Agent and the token as Bearer.
    const api = github.requests.filter((request) => request.path.startsWith('/api/v3/'))
    expect(api.map((request) => request.path)).toEqual([
      '/api/v3/user',
      '/api/v3/user/emails',
      '/api/v3/user',
      '/api/v3/user/emails',
    ])
    for (const call of api) {
      expect(call.headers['user-agent']).toBeTruthy()
      expect(call.headers.authorization).toMatch(/^Bearer ghu_/)
    }
    // GitHub's token stays with the grant: the MCP client holds only this server's token.
    expect(provider.accessToken).not.toMatch(/^ghu_/)
    expect(JSON.stringify(me)).not.toContain('ghu_')
  })

  it('gives the client access_denied (no code) when the person cancels at GitHub', async () => {
    const provider = new ScriptedOAuthProvider('cancelled')
    await authorizationRequest(provider)
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    const exchanges = count('POST', '/login/oauth/access_token')
    try {
      await allowAtConsent(page, provider)
      await page.getByRole('button', { name: 'Cancel' }).click()
      await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
    } finally {
      await page.close()
    }
    expect(back[0]?.searchParams.get('error')).toBe('access_denied')
    expect(back[0]?.searchParams.get('code')).toBeNull()
    expect(count('POST', '/login/oauth/access_token')).toBe(exchanges)
  })

  it('refuses another sign-in’s code delivered with this state: GitHub refuses our verifier, the client gets access_denied', async () => {
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    try {
      // Two approvals in this browser (each leaves its binding cookie here); "Authorize" for each
      // is pressed apart (authorizeAt), so its callback [code, state] is kept unvisited.
      const callbacks: URL[] = []
      for (const name of ['first', 'second']) {
        const provider = new ScriptedOAuthProvider(name)
        await authorizationRequest(provider)
        await allowAtConsent(page, provider)
        callbacks.push(await authorizeAt(page.url()))
      }
      const [first, second] = callbacks as [URL, URL]
      expect(second.origin + second.pathname).toBe(`${origin}/oauth/callback`)
      const [exchanges, profiles] = [count('POST', '/login/oauth/access_token'), count('GET', '/api/v3/user')]
      // The second sign-in's state (its cookie is here) with the first one's code, unused and for
      // the same redirect URI: GitHub sees the second's PKCE verifier, refuses, and the client gets
      // access_denied, no code.
      const injected = new URL(second)
      injected.searchParams.set('code', first.searchParams.get('code') as string)
      await page.goto(String(injected)).catch(() => {}) // the client's port answers nothing
      await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
      expect(back[0]?.searchParams.get('error')).toBe('access_denied')
      expect(back[0]?.searchParams.get('code')).toBeNull()
      // Refused at the token exchange: it was tried once, and no profile was read.
      expect(count('POST', '/login/oauth/access_token')).toBe(exchanges + 1)
      expect(count('GET', '/api/v3/user')).toBe(profiles)
    } finally {
      await page.close()
    }
  })

  // Last: it revokes every token the stand-in issued.
  it('keeps the grant through GitHub’s rate limit (503), and ends it at the next refresh once the person removes the app at GitHub (an OAuth app’s tokens never expire)', async () => {
    const provider = new ScriptedOAuthProvider('revoked at github')
    const transport = await authorizationRequest(provider)
    const page = await browser.context.newPage()
    const back = clientRedirects(page)
    try {
      await allowAtConsent(page, provider)
      await page.getByRole('button', { name: 'Authorize' }).click()
      await expect.poll(() => back.length, { timeout: 10_000 }).toBe(1)
    } finally {
      await page.close()
    }
    await transport.finishAuth((back[0] as URL).searchParams)
    const tokens = provider.tokens()
    const clientId = (provider.clientInformation() as { client_id: string } | undefined)?.client_id as string
    const refresh = () =>
      fetch(`${origin}/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens?.refresh_token as string,
          client_id: clientId,
        }),
      })
    // While GitHub still takes the token, a refresh asks it (/user) and succeeds.
    const profiles = count('GET', '/api/v3/user')
    expect((await refresh()).status).toBe(200)
    expect(count('GET', '/api/v3/user')).toBe(profiles + 1)
    // Rate limited at GitHub: the client is told to retry (503), and the grant stays.
    github.rateLimit(true)
    const limited = await refresh()
    expect([limited.status, ((await limited.json()) as { error: string }).error]).toEqual([503, 'temporarily_unavailable'])
    github.rateLimit(false)
    expect((await refresh()).status).toBe(200)
    github.revokeAll()
    const refused = await refresh()
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([400, 'invalid_grant'])
  })
})
