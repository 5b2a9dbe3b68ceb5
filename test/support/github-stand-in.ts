/**
 * A STAND-IN for GitHub, not GitHub: a node:http server on 127.0.0.1 that answers as GitHub's
 * documented OAuth web flow and REST endpoints do ("Authorizing OAuth apps", "Refreshing user
 * access tokens", "Get the authenticated user", "List email addresses for the authenticated
 * user"), so the GitHub preset can be tested end to end without the network:
 * - GET `/login/oauth/authorize` redirects at once (the person "authorizes") with `code` and
 *   `state`, remembering the `code_challenge` (S256 only) and the `redirect_uri`, as GitHub does
 *   for an app the person has authorized before; with `authorizePage: true` it first shows a page
 *   with "Authorize" and "Cancel" buttons (a person's first sign-in), whose form POSTs back there:
 *   Authorize redirects with the code, Cancel with GitHub's `error=access_denied`;
 * - POST `/login/oauth/access_token` checks the client's id and secret, the redirect URI and the
 *   PKCE verifier, and, as GitHub does, answers a failure with 200 and `{ error }`;
 * - GET `/api/v3/user` and `/api/v3/user/emails` (GitHub Enterprise Server's layout) need
 *   `Authorization: Bearer <token>` and a `User-Agent`, as GitHub's API does.
 * With `expiring: true` it issues GitHub App user tokens (8 h, with a refresh token).
 *
 * `authorizeAt` plays the person who presses "Authorize" over plain HTTP and returns the redirect
 * back unvisited (for tests that deliver a code where it does not belong).
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface GithubUser {
  id: number
  login: string
  name: string | null
  email: string | null
}

export interface GithubStandInOptions {
  user: GithubUser
  emails?: { email: string; primary: boolean; verified: boolean }[]
  /** The status of `/user/emails` (403: a GitHub App without the email permission). */
  emailsStatus?: number
  /** GitHub App user tokens: `expires_in` and a refresh token. */
  expiring?: boolean
  /** Show the "Authorize" page before redirecting (default: redirect at once, already authorized). */
  authorizePage?: boolean
}

export interface GithubStandIn {
  webOrigin: string
  apiOrigin: string
  clientId: string
  clientSecret: string
  /** Every request: method, path and headers. */
  requests: { method: string; path: string; headers: IncomingMessage['headers'] }[]
  /** The person removes the app at GitHub: every token issued so far stops working. */
  revokeAll(): void
  /** GitHub's rate limit: while on, the API answers 403 with no requests left, as GitHub does. */
  rateLimit(on: boolean): void
  close(): Promise<void>
}

const token = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url')}`

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
  response.end(JSON.stringify(body))
}

export async function startGithubStandIn(options: GithubStandInOptions): Promise<GithubStandIn> {
  const clientId = 'Iv1.standin0123456789'
  const clientSecret = randomBytes(20).toString('hex')
  const codes = new Map<string, { challenge: string; redirectUri: string }>()
  const accessTokens = new Set<string>()
  const refreshTokens = new Set<string>()
  const requests: GithubStandIn['requests'] = []
  let rateLimited = false

  const issue = (response: ServerResponse) => {
    const access = token('ghu')
    accessTokens.add(access)
    const body: Record<string, unknown> = { access_token: access, token_type: 'bearer', scope: 'read:user,user:email' }
    if (options.expiring) {
      const refresh = token('ghr')
      refreshTokens.add(refresh)
      Object.assign(body, { expires_in: 28_800, refresh_token: refresh, refresh_token_expires_in: 15_897_600 })
    }
    json(response, 200, body)
  }

  const exchange = (form: URLSearchParams, response: ServerResponse) => {
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      return json(response, 200, { error: 'incorrect_client_credentials' })
    }
    if (form.get('grant_type') === 'refresh_token') {
      const refresh = form.get('refresh_token') ?? ''
      if (!refreshTokens.delete(refresh)) return json(response, 200, { error: 'bad_refresh_token' })
      return issue(response)
    }
    const code = codes.get(form.get('code') ?? '')
    codes.delete(form.get('code') ?? '')
    if (code === undefined) return json(response, 200, { error: 'bad_verification_code' })
    if (form.get('redirect_uri') !== code.redirectUri) return json(response, 200, { error: 'redirect_uri_mismatch' })
    const challenge = createHash('sha256')
      .update(form.get('code_verifier') ?? '')
      .digest('base64url')
    if (challenge !== code.challenge) return json(response, 200, { error: 'bad_verification_code' })
    return issue(response)
  }

  const api = (path: string, request: IncomingMessage, response: ServerResponse) => {
    const bearer = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? ''
    if (!request.headers['user-agent']) return json(response, 403, { message: 'Request forbidden by administrative rules.' })
    if (!accessTokens.has(bearer)) return json(response, 401, { message: 'Bad credentials' })
    if (rateLimited) {
      response.setHeader('x-ratelimit-remaining', '0')
      return json(response, 403, { message: 'API rate limit exceeded' })
    }
    if (path === '/api/v3/user') return json(response, 200, { ...options.user, avatar_url: '', type: 'User' })
    return json(response, options.emailsStatus ?? 200, options.emails ?? [])
  }

  /** The person authorized (or, with `decision=cancel`, did not): back to the app's redirect URI. */
  const authorize = (params: URLSearchParams, response: ServerResponse) => {
    const redirectUri = params.get('redirect_uri') ?? ''
    if (params.get('client_id') !== clientId || params.get('code_challenge_method') !== 'S256') {
      return json(response, 400, { error: 'bad authorization request' })
    }
    const back = new URL(redirectUri)
    if (params.get('decision') === 'cancel') {
      back.searchParams.set('error', 'access_denied')
      back.searchParams.set('error_description', 'The user has denied your application access.')
    } else {
      const code = randomBytes(10).toString('hex')
      codes.set(code, { challenge: params.get('code_challenge') ?? '', redirectUri })
      back.searchParams.set('code', code)
    }
    back.searchParams.set('state', params.get('state') ?? '')
    response.writeHead(302, { location: back.href })
    return response.end()
  }

  /** The page a person sees the first time: the request's parameters ride along in the form. */
  const authorizePage = (params: URLSearchParams, response: ServerResponse) => {
    if (params.get('client_id') !== clientId) return json(response, 400, { error: 'bad authorization request' })
    const html = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
    const hidden = [...params]
      .map(([name, value]) => `<input type="hidden" name="${html(name)}" value="${html(value)}">`)
      .join('')
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(
      `<!doctype html><title>Authorize application</title><h1>Authorize the app</h1><p>(A stand-in for GitHub, for tests.)</p>` +
        `<p>It will be able to read your profile (${html(params.get('scope') ?? '')}).</p>` +
        `<form method="post" action="/login/oauth/authorize">${hidden}` +
        `<button name="decision" value="authorize">Authorize</button> <button name="decision" value="cancel">Cancel</button></form>`,
    )
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in')
    requests.push({ method: request.method ?? 'GET', path: url.pathname, headers: request.headers })
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      if (url.pathname === '/login/oauth/authorize' && request.method === 'GET') {
        if (options.authorizePage) return authorizePage(url.searchParams, response)
        return authorize(url.searchParams, response)
      }
      if (url.pathname === '/login/oauth/authorize' && request.method === 'POST') {
        return authorize(new URLSearchParams(body), response)
      }
      if (url.pathname === '/login/oauth/access_token' && request.method === 'POST') {
        return exchange(new URLSearchParams(body), response)
      }
      if (url.pathname === '/api/v3/user' || url.pathname === '/api/v3/user/emails') return api(url.pathname, request, response)
      return json(response, 404, { message: 'Not Found' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const webOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    webOrigin,
    apiOrigin: `${webOrigin}/api/v3`,
    clientId,
    clientSecret,
    requests,
    revokeAll() {
      accessTokens.clear()
      refreshTokens.clear()
    },
    rateLimit(on) {
      rateLimited = on
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Press "Authorize" at the stand-in for the authorization request `authorizeUrl` (GitHub's
 * authorize URL, as the app built it) and return the redirect back (`?code&state`), unvisited.
 */
export async function authorizeAt(authorizeUrl: string): Promise<URL> {
  const url = new URL(authorizeUrl)
  const form = new URLSearchParams(url.searchParams)
  form.set('decision', 'authorize')
  const response = await fetch(`${url.origin}${url.pathname}`, { method: 'POST', body: form, redirect: 'manual' })
  const location = response.headers.get('location')
  if (response.status !== 302 || !location) throw new Error(`authorize: HTTP ${response.status}: ${await response.text()}`)
  return new URL(location)
}
