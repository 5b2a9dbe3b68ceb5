/**
 * The client half of an OAuth flow in tests: an `OAuthClientProvider` for the official MCP client
 * that records where it was sent instead of opening a browser, and a scripted user who opens
 * that consent page, fills in the form and follows the redirect back with the code, as a browser
 * would (cookies included). No browser, no mocks: every request reaches the real Worker.
 */
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client'

type Stored<K extends keyof OAuthClientProvider> = OAuthClientProvider[K] extends (...args: infer A) => unknown ? A[0] : never

export const REDIRECT_URI = 'http://127.0.0.1:9/callback'

export class ScriptedOAuthProvider implements OAuthClientProvider {
  #client: Stored<'saveClientInformation'> | undefined
  #tokens: Stored<'saveTokens'> | undefined
  #verifier = ''
  #discovery: OAuthDiscoveryState | undefined
  /** The last authorization URL the client wanted a browser to open. */
  authorizationUrl: URL | undefined
  /** When the current tokens were saved (ms since the epoch). */
  savedAt = 0

  constructor(readonly name = 'mcp-edge oauth test') {}

  get redirectUrl() {
    return REDIRECT_URI
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  clientInformation() {
    return this.#client
  }

  saveClientInformation(information: Stored<'saveClientInformation'>) {
    this.#client = information
  }

  tokens() {
    return this.#tokens
  }

  saveTokens(tokens: Stored<'saveTokens'>) {
    this.#tokens = tokens
    this.savedAt = Date.now()
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier
  }

  codeVerifier() {
    return this.#verifier
  }

  /** SEP-2352: the client checks the callback against the authorization server it discovered. */
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state
  }

  discoveryState() {
    return this.#discovery
  }

  get accessToken(): string {
    const token = this.#tokens?.access_token
    if (!token) throw new Error('no access token yet')
    return token
  }
}

function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ')
}

/**
 * Open the consent page as a user would, sign in as `user` and allow every scope the page
 * offers. Returns the authorization response's query (code, state, iss).
 */
export async function consent(authorizationUrl: URL, user: string): Promise<{ page: string; callback: URLSearchParams }> {
  const shown = await fetch(authorizationUrl, { redirect: 'manual' })
  const page = await shown.text()
  if (shown.status !== 200) throw new Error(`consent page: HTTP ${shown.status}: ${page}`)
  const handle = /name="handle" value="([^"]+)"/.exec(page)?.[1]
  if (!handle) throw new Error(`no consent handle in the page: ${page}`)
  const form = new URLSearchParams({ handle, user, decision: 'approve' })
  for (const match of page.matchAll(/name="scope" value="([^"]+)"/g)) form.append('scope', match[1] as string)
  const decided = await fetch(authorizationUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(shown) },
    body: form,
  })
  const location = decided.headers.get('location')
  if (decided.status !== 302 || !location) throw new Error(`consent POST: HTTP ${decided.status}: ${await decided.text()}`)
  const callback = new URL(location)
  if (`${callback.origin}${callback.pathname}` !== REDIRECT_URI) throw new Error(`redirected to ${location}`)
  return { page, callback: callback.searchParams }
}
