/**
 * The upstream sign-in contract: what a provider (an OIDC issuer, GitHub) offers the
 * authorization server that sends people to it, and the one error it throws. The template's
 * consent and callback routes call it; `oidcProvider` and `githubProvider` implement it;
 * `upstreamFromConfig` picks one from three settings. Nothing here stores state: the caller keeps
 * the state, PKCE verifier and nonce of a sign-in between the two redirects.
 */

/** Tokens the provider issued for the signed-in person (store them encrypted, never log them). */
export interface UpstreamTokens {
  accessToken: string
  /** When the access token expires, in ms since the epoch (absent: the provider did not say). */
  expiresAt?: number
  refreshToken?: string
  /** The scopes granted, space-separated. */
  scope?: string
}

/** What the provider says about the person; each field only when the provider gave it. */
export interface UpstreamClaims {
  name?: string
  email?: string
  emailVerified?: boolean
  /** A handle (`preferred_username` in OIDC, the login on GitHub). */
  login?: string
}

/** A finished sign-in: the provider's stable id of the person, their claims and the tokens. */
export interface UpstreamSignIn {
  subject: string
  claims: UpstreamClaims
  tokens: UpstreamTokens
}

/** The callback's parameters and what the caller kept since the authorization request. */
export interface UpstreamCallback {
  code: string
  /** The callback's RFC 9207 `iss` parameter, `null` when absent. */
  iss: string | null
  verifier: string
  nonce: string
  redirectUri: string
}

export interface UpstreamAuthorizationRequest {
  redirectUri: string
  state: string
  nonce: string
  /** The PKCE S256 challenge of the verifier the caller keeps (`await s256(verifier)`). */
  codeChallenge: string
}

/**
 * A provider people sign in with. Every method talks to the provider over `fetch` with a timeout
 * and throws `UpstreamError` when the provider fails or answers something it must not.
 */
export interface UpstreamProvider {
  /** Where people sign in, for the consent page ("you will sign in with <host> next"). */
  readonly issuer: string
  /** The provider's authorization URL: response_type=code, PKCE S256, state, nonce (OIDC), scope (openid … for OIDC). */
  authorizationUrl(request: UpstreamAuthorizationRequest): Promise<string>
  /**
   * The callback's code exchanged and verified (ID token: issuer, audience=clientId, exp,
   * signature, alg allow-list, nonce; RFC 9207 `iss` param equal to the issuer when given or when
   * the provider advertises authorization_response_iss_parameter_supported).
   */
  exchangeCode(response: UpstreamCallback): Promise<UpstreamSignIn>
  /** New tokens for a refresh token (the old refresh token kept when none comes back). */
  refresh(refreshToken: string): Promise<UpstreamTokens>
  /**
   * Who an access token speaks for, from the provider's API (OIDC userinfo, GitHub's `/user`):
   * the simplest call of a downstream API as the signed-in person. A token the provider no
   * longer accepts (401) is `invalid_grant`, with `invalidGrant` true.
   */
  profile(accessToken: string): Promise<{ subject: string; claims: UpstreamClaims }>
}

/**
 * A sign-in or refresh that failed. `reason` is a stable slug, safe to log: `unavailable`
 * (network, timeout, 5xx, 429), `discovery_failed`, `issuer_mismatch`, `invalid_grant`,
 * `token_endpoint_error`, `id_token_invalid`, `nonce_mismatch`, `userinfo_invalid`,
 * `profile_failed`. The message never holds a token or a response body. `invalidGrant` is true
 * when the provider refused the grant (a code or refresh token): a caller revokes its own grant.
 *
 * @example
 * try {
 *   signIn = await upstream.exchangeCode({ code, iss, verifier, nonce, redirectUri })
 * } catch (error) {
 *   if (!(error instanceof UpstreamError)) throw error
 *   console.warn('sign-in refused', { reason: error.reason })
 * }
 */
export class UpstreamError extends Error {
  readonly reason: string
  readonly invalidGrant: boolean

  constructor(reason: string, message: string, options: { invalidGrant?: boolean } = {}) {
    super(message)
    this.name = 'UpstreamError'
    this.reason = reason
    this.invalidGrant = options.invalidGrant ?? false
  }
}
