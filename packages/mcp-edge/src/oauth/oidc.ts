/**
 * `oidcProvider`: sign-in with any OpenID Connect provider through its discovery document
 * (authorization code flow with PKCE S256, a confidential client). The ID token is verified by
 * `id-token.ts`; name and email come from the ID token, or from userinfo when it lacks them (many
 * providers put only `sub` in it), and userinfo must then speak of the same `sub` (Core §5.3.2).
 * No `resource` parameter is ever sent: a token bound to another audience could not call
 * userinfo, and the provider's tokens are for this server, not for the MCP client.
 */
import type { JWTPayload } from 'jose'
import { discover } from './discovery.ts'
import type { OidcMetadata } from './discovery.ts'
import { DEFAULT_ID_TOKEN_ALGORITHMS, idTokenAlgorithms, verifyIdToken } from './id-token.ts'
import { secureUrl } from './secure-url.ts'
import { requestTokens } from './token-request.ts'
import type { ClientCredentials } from './token-request.ts'
import type { UpstreamClaims, UpstreamProvider, UpstreamTokens } from './upstream.ts'
import { UpstreamError } from './upstream.ts'
import { readJsonObject, upstreamFetch } from './upstream-fetch.ts'

export interface OidcProviderOptions {
  /** The issuer identifier, exactly as the provider's discovery document and ID tokens spell it. */
  issuer: string
  clientId: string
  clientSecret: string
  /** Scopes to ask for (default `openid email profile offline_access`); `openid` is always added. */
  scopes?: string[]
  /** Accepted ID token algorithms (default RS256, ES256, PS256, EdDSA); `none` and HS* are always refused. */
  algorithms?: string[]
}

const DEFAULT_SCOPES = ['openid', 'email', 'profile', 'offline_access']
// Google refuses `offline_access` and asks for `access_type=offline` instead.
const GOOGLE_ISSUER = 'https://accounts.google.com'

function scopesFor(wanted: readonly string[], metadata: OidcMetadata): string[] {
  const scopes = wanted.includes('openid') ? [...wanted] : ['openid', ...wanted]
  const offlineListed = metadata.scopesSupported === undefined || metadata.scopesSupported.includes('offline_access')
  return offlineListed ? scopes : scopes.filter((scope) => scope !== 'offline_access')
}

/** client_secret_basic unless the provider lists only client_secret_post (Discovery §3: basic is the default). */
function credentials(options: OidcProviderOptions, metadata: OidcMetadata): ClientCredentials {
  const methods = metadata.tokenAuthMethods ?? ['client_secret_basic']
  const method = methods.includes('client_secret_basic') ? 'client_secret_basic' : 'client_secret_post'
  if (!methods.includes(method)) {
    throw new UpstreamError(
      'discovery_failed',
      'OIDC discovery failed: the token endpoint takes neither client_secret_basic nor client_secret_post',
    )
  }
  return { clientId: options.clientId, clientSecret: options.clientSecret, method }
}

function claimsOf(source: Record<string, unknown>): UpstreamClaims {
  const claims: UpstreamClaims = {}
  if (typeof source.name === 'string') claims.name = source.name
  if (typeof source.email === 'string') claims.email = source.email
  const verified = source.email_verified
  if (typeof verified === 'boolean') claims.emailVerified = verified
  else if (verified === 'true' || verified === 'false') claims.emailVerified = verified === 'true'
  if (typeof source.preferred_username === 'string') claims.login = source.preferred_username
  return claims
}

/**
 * The provider's userinfo for an access token (Core §5.3). `later`: the token is one kept since a
 * sign-in, so a 401 means the provider no longer takes it (`invalid_grant`).
 */
async function userinfoOf(endpoint: string, accessToken: string, later = false): Promise<Record<string, unknown>> {
  const response = await upstreamFetch(
    endpoint,
    { headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` } },
    'userinfo endpoint',
  )
  if (later && response.status === 401) {
    await response.body?.cancel()
    throw new UpstreamError('invalid_grant', 'the provider no longer accepts the access token', { invalidGrant: true })
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new UpstreamError('userinfo_invalid', `the provider's userinfo endpoint answered ${response.status}`)
  }
  return readJsonObject(response, 'userinfo_invalid', 'userinfo endpoint')
}

/** The ID token's claims, completed from userinfo when the scopes asked for what it lacks. */
async function completeClaims(payload: JWTPayload, tokens: UpstreamTokens, scopes: string[], metadata: OidcMetadata) {
  const claims = claimsOf(payload)
  const lacking =
    (scopes.includes('profile') && claims.name === undefined) || (scopes.includes('email') && claims.email === undefined)
  if (!lacking || metadata.userinfoEndpoint === undefined) return claims
  const userinfo = await userinfoOf(metadata.userinfoEndpoint, tokens.accessToken)
  if (userinfo.sub !== payload.sub) {
    throw new UpstreamError('userinfo_invalid', 'userinfo speaks of another subject than the ID token')
  }
  return { ...claimsOf(userinfo), ...claims }
}

/**
 * An OpenID Connect provider found by discovery.
 *
 * @example
 * const upstream = oidcProvider({ issuer: 'https://accounts.example.com', clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET })
 * const location = await upstream.authorizationUrl({ redirectUri, state, nonce, codeChallenge: await s256(verifier) })
 */
export function oidcProvider(options: OidcProviderOptions): UpstreamProvider {
  const url = secureUrl(options.issuer, 'the OIDC issuer')
  if (url.search !== '' || url.hash !== '') throw new TypeError('the OIDC issuer must have no query and no fragment')
  const { issuer, clientId } = options
  const wanted = options.scopes ?? DEFAULT_SCOPES
  const allowed = options.algorithms ?? DEFAULT_ID_TOKEN_ALGORITHMS

  return {
    issuer,
    async authorizationUrl({ redirectUri, state, nonce, codeChallenge }) {
      const metadata = await discover(issuer)
      const scopes = scopesFor(wanted, metadata)
      const url = new URL(metadata.authorizationEndpoint)
      const params = {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: scopes.join(' '),
        state,
        nonce,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
      // Core §11: offline access needs prompt=consent (oidc-provider drops the scope without it).
      if (scopes.includes('offline_access')) url.searchParams.set('prompt', 'consent')
      else if (issuer === GOOGLE_ISSUER && wanted.includes('offline_access')) {
        url.searchParams.set('access_type', 'offline')
        url.searchParams.set('prompt', 'consent')
      }
      return url.href
    },

    async exchangeCode({ code, iss, verifier, nonce, redirectUri }) {
      const metadata = await discover(issuer)
      // RFC 9207 §2.4: a mix-up defence; an `iss` that is present must match, and must be present
      // when the provider says it always sends it.
      if (iss !== null ? iss !== issuer : metadata.issParameterSupported) {
        throw new UpstreamError('issuer_mismatch', 'the authorization response names another issuer, or none')
      }
      const { tokens, body } = await requestTokens(metadata.tokenEndpoint, credentials(options, metadata), {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      })
      if (typeof body.id_token !== 'string') {
        throw new UpstreamError('id_token_invalid', 'the token endpoint answered without an ID token')
      }
      const algorithms = idTokenAlgorithms(allowed, metadata.signingAlgorithms)
      const payload = await verifyIdToken(body.id_token, { issuer, clientId, jwksUri: metadata.jwksUri, algorithms, nonce })
      const claims = await completeClaims(payload, tokens, scopesFor(wanted, metadata), metadata)
      return { subject: payload.sub as string, claims, tokens }
    },

    async profile(accessToken) {
      const { userinfoEndpoint } = await discover(issuer)
      if (userinfoEndpoint === undefined) throw new UpstreamError('userinfo_invalid', 'the provider has no userinfo endpoint')
      const userinfo = await userinfoOf(userinfoEndpoint, accessToken, true)
      if (typeof userinfo.sub !== 'string') throw new UpstreamError('userinfo_invalid', 'userinfo names no subject')
      return { subject: userinfo.sub, claims: claimsOf(userinfo) }
    },

    async refresh(refreshToken) {
      const metadata = await discover(issuer)
      const { tokens } = await requestTokens(metadata.tokenEndpoint, credentials(options, metadata), {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
      })
      return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }
    },
  }
}
