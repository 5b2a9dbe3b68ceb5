/**
 * `githubProvider`: sign-in with GitHub (an OAuth app or a GitHub App's user tokens). GitHub is
 * plain OAuth 2.0, not OpenID Connect: no discovery, no ID token, no nonce; the person is whoever
 * `GET /user` says the access token belongs to. State and PKCE S256 are still used (GitHub
 * supports both). GitHub's token endpoint answers failures with 200 and an `error` field, and its
 * API refuses requests without a `User-Agent`. OAuth-app tokens do not expire; GitHub App tokens
 * come with `expires_in` and a refresh token.
 */
import { secureUrl } from './secure-url.ts'
import { requestTokens } from './token-request.ts'
import type { ClientCredentials } from './token-request.ts'
import type { UpstreamClaims, UpstreamProvider, UpstreamTokens } from './upstream.ts'
import { UpstreamError } from './upstream.ts'
import { upstreamFetch } from './upstream-fetch.ts'

export interface GithubProviderOptions {
  clientId: string
  clientSecret: string
  /** Where people sign in (default `https://github.com`; GitHub Enterprise Server: its origin). */
  webOrigin?: string
  /** The REST API's base URL (default `https://api.github.com`; GitHub Enterprise Server: `<origin>/api/v3`). */
  apiOrigin?: string
}

const GITHUB_SCOPES = 'read:user user:email'
// GitHub's documented errors for a used, expired or mismatched code or refresh token.
const GRANT_ERRORS = ['bad_verification_code', 'bad_refresh_token', 'invalid_grant']
const API_HEADERS = { accept: 'application/vnd.github+json', 'user-agent': 'mcp-edge', 'x-github-api-version': '2022-11-28' }

function withGithubScope(tokens: UpstreamTokens): UpstreamTokens {
  return tokens.scope === undefined ? tokens : { ...tokens, scope: tokens.scope.split(',').join(' ') }
}

async function apiGet(api: string, path: string, accessToken: string): Promise<Response> {
  return upstreamFetch(`${api}${path}`, { headers: { ...API_HEADERS, authorization: `Bearer ${accessToken}` } }, `API (${path})`)
}

/** A successful answer's JSON, else `undefined` (the body is released either way). */
async function jsonOf(response: Response): Promise<unknown> {
  if (!response.ok) {
    await response.body?.cancel()
    return undefined
  }
  return response.json().catch(() => undefined)
}

/**
 * The verified addresses and the primary one if it is verified (the first 100: GitHub pages the
 * list), when the token may read them. A token that may not (a GitHub App without the email
 * permission: 403), or an answer that is no list, leaves none known to be verified: the sign-in
 * goes on without a verified address. GitHub failing (5xx, 429) is `unavailable`, as for /user.
 */
async function verifiedEmails(api: string, accessToken: string): Promise<{ verified: string[]; primary?: string }> {
  const response = await apiGet(api, '/user/emails?per_page=100', accessToken)
  const emails = [401, 403, 404].includes(response.status) ? await response.body?.cancel() : await jsonOf(response)
  if (!Array.isArray(emails)) return { verified: [] }
  const verified = emails.filter((entry) => entry?.verified === true && typeof entry?.email === 'string')
  const primary = verified.find((entry) => entry.primary === true)?.email as string | undefined
  return { verified: verified.map((entry) => entry.email as string), ...(primary ? { primary } : {}) }
}

async function profile(api: string, accessToken: string): Promise<{ subject: string; claims: UpstreamClaims }> {
  const response = await apiGet(api, '/user', accessToken)
  if (response.status === 401) {
    await response.body?.cancel()
    throw new UpstreamError('invalid_grant', 'GitHub no longer accepts the token (revoked, or the app was removed)', {
      invalidGrant: true,
    })
  }
  // GitHub's rate limit answers 403 (with no requests left): retry later, as for a 429.
  if (response.status === 403 && response.headers.get('x-ratelimit-remaining') === '0') {
    await response.body?.cancel()
    throw new UpstreamError('unavailable', "GitHub's rate limit was reached")
  }
  const user = await jsonOf(response)
  if (typeof user !== 'object' || user === null) {
    throw new UpstreamError('profile_failed', `GitHub's /user answered ${response.status} without a user`)
  }
  const { id, login, name, email } = user as Record<string, unknown>
  if (typeof id !== 'number' || typeof login !== 'string') {
    throw new UpstreamError('profile_failed', "GitHub's /user has no id or login")
  }
  const claims: UpstreamClaims = { login, name: typeof name === 'string' && name !== '' ? name : login }
  // `email` is the public address, null when none is public: then the primary verified one. The
  // public one is said to be verified only when /user/emails lists it so (a principal's email is
  // taken only when verified: templates/oauth/src/provider.ts).
  const { verified, primary } = await verifiedEmails(api, accessToken)
  if (typeof email === 'string') {
    claims.email = email
    if (verified.includes(email)) claims.emailVerified = true
  } else if (primary !== undefined) Object.assign(claims, { email: primary, emailVerified: true })
  return { subject: String(id), claims }
}

/**
 * GitHub (or GitHub Enterprise Server) as the upstream provider.
 *
 * @example
 * const upstream = githubProvider({ clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET })
 * const { subject, claims } = await upstream.exchangeCode({ code, iss, verifier, nonce, redirectUri })
 * // subject: GitHub's numeric user id as a string; claims.login: the handle
 */
export function githubProvider(options: GithubProviderOptions): UpstreamProvider {
  const web = secureUrl(options.webOrigin ?? 'https://github.com', 'githubProvider webOrigin').origin
  const api = secureUrl(options.apiOrigin ?? 'https://api.github.com', 'githubProvider apiOrigin').href.replace(/\/$/, '')
  const tokenEndpoint = `${web}/login/oauth/access_token`
  const client: ClientCredentials = {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    method: 'client_secret_post',
  }

  return {
    issuer: web,
    async authorizationUrl({ redirectUri, state, codeChallenge }) {
      const url = new URL(`${web}/login/oauth/authorize`)
      const params = {
        client_id: options.clientId,
        redirect_uri: redirectUri,
        scope: GITHUB_SCOPES,
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
      return url.href
    },

    async exchangeCode({ code, iss, verifier, redirectUri }) {
      // GitHub sends no `iss`; one that is present must still be GitHub's (RFC 9207).
      if (iss !== null && iss !== web) {
        throw new UpstreamError('issuer_mismatch', 'the authorization response names another issuer')
      }
      const { tokens } = await requestTokens(
        tokenEndpoint,
        client,
        { code, redirect_uri: redirectUri, code_verifier: verifier },
        { grantErrors: GRANT_ERRORS },
      )
      return { ...(await profile(api, tokens.accessToken)), tokens: withGithubScope(tokens) }
    },

    profile(accessToken) {
      return profile(api, accessToken)
    },

    async refresh(refreshToken) {
      const { tokens } = await requestTokens(
        tokenEndpoint,
        client,
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        { grantErrors: GRANT_ERRORS },
      )
      return withGithubScope({ ...tokens, refreshToken: tokens.refreshToken ?? refreshToken })
    },
  }
}
