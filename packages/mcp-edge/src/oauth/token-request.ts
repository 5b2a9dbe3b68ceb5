/**
 * One request to a provider's token endpoint (RFC 6749 §3.2): client authentication, the form
 * body, and the answer read into `UpstreamTokens`. An `error` in the answer fails the request
 * whatever the status (GitHub answers errors with 200); a refused grant is `invalid_grant` with
 * `invalidGrant` set, so a caller can revoke what it built on it.
 */
import type { UpstreamTokens } from './upstream.ts'
import { UpstreamError } from './upstream.ts'
import { readJsonObject, safeErrorCode, upstreamFetch } from './upstream-fetch.ts'

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post'

export interface ClientCredentials {
  clientId: string
  clientSecret: string
  method: ClientAuthMethod
}

export interface TokenRequestOptions {
  /** Error codes that mean "this code or refresh token is no good" (default `invalid_grant`). */
  grantErrors?: readonly string[]
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined for Basic. */
function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+')
}

function authenticate(client: ClientCredentials, form: URLSearchParams, headers: Headers): void {
  if (client.method === 'client_secret_basic') {
    headers.set('authorization', `Basic ${btoa(`${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`)}`)
  } else {
    form.set('client_id', client.clientId)
    form.set('client_secret', client.clientSecret)
  }
}

/** The body's tokens, when it has a usable bearer access token. */
function tokensOf(body: Record<string, unknown>): UpstreamTokens {
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, refresh_token, scope } = body
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new UpstreamError('token_endpoint_error', "the provider's token endpoint answered without an access token")
  }
  // DPoP or MAC tokens would need proofs this client does not make.
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    throw new UpstreamError('token_endpoint_error', "the provider's token endpoint issued a token that is not a bearer token")
  }
  const seconds = typeof expiresIn === 'string' ? Number(expiresIn) : expiresIn
  const tokens: UpstreamTokens = { accessToken }
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) tokens.expiresAt = Date.now() + seconds * 1000
  if (typeof refresh_token === 'string' && refresh_token !== '') tokens.refreshToken = refresh_token
  if (typeof scope === 'string') tokens.scope = scope
  return tokens
}

/**
 * POSTs `params` to the token endpoint and returns the tokens and the whole answer (for its
 * `id_token`).
 *
 * @example
 * const { tokens } = await requestTokens(tokenEndpoint, client, { grant_type: 'refresh_token', refresh_token })
 */
export async function requestTokens(
  endpoint: string,
  client: ClientCredentials,
  params: Record<string, string>,
  options: TokenRequestOptions = {},
): Promise<{ tokens: UpstreamTokens; body: Record<string, unknown> }> {
  const form = new URLSearchParams(params)
  const headers = new Headers({ accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' })
  authenticate(client, form, headers)
  const response = await upstreamFetch(endpoint, { method: 'POST', headers, body: form }, 'token endpoint')
  const body = await readJsonObject(response, 'token_endpoint_error', 'token endpoint')
  const code = body.error === undefined ? undefined : (safeErrorCode(body.error) ?? 'an unreadable error')
  if (code !== undefined || !response.ok) {
    const refused = code !== undefined && (options.grantErrors ?? ['invalid_grant']).includes(code)
    throw new UpstreamError(
      refused ? 'invalid_grant' : 'token_endpoint_error',
      `the provider's token endpoint answered ${response.status}${code === undefined ? '' : ` ${code}`}`,
      { invalidGrant: refused },
    )
  }
  return { tokens: tokensOf(body), body }
}
