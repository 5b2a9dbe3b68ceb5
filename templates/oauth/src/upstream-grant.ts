/**
 * The identity provider's tokens over a grant's life (src/callback.ts stored them in its props,
 * which the library keeps encrypted). Each token this server issues carries the provider's access
 * token but never its refresh token (that stays in the grant), and expires no later than the
 * provider's access token (30 s before it; the library allows no less than 60 s). When the MCP
 * client refreshes, the provider's tokens are refreshed first if they would not outlive the new
 * token (a token that never expires is checked with the provider's API instead); if the provider
 * refuses (access revoked there) the grant is revoked too, so the client signs in again; if it is
 * unreachable or rate limited the client is told to retry (503); any other failure is a 500 that
 * leaves the grant. A grant from another sign-in than the one
 * configured now (another issuer, or the passphrase page) is refused. Two refreshes of one grant
 * at once may both spend the provider's refresh token; where the provider allows it once (GitHub
 * Apps, rotation with reuse detection), the loser's refusal revokes the grant: the client signs in
 * again.
 */
import { GrantType, OAuthError } from '@cloudflare/workers-oauth-provider'
import type { TokenExchangeCallbackOptions, TokenExchangeCallbackResult } from '@cloudflare/workers-oauth-provider'
import { UpstreamError } from 'mcp-edge/oauth'
import type { UpstreamTokens } from 'mcp-edge/oauth'
import type { SignedInProps } from './callback'
import { SignInNotConfigured, upstreamFromEnv } from './upstream'
import type { UpstreamEnv } from './upstream'

/** The library's shortest access token lifetime (KV's shortest expiry), and the margin we keep. */
const MIN_TTL_S = 60
const MARGIN_S = 30

/** The props a token carries: the grant's, without the provider's refresh token. */
function forToken(props: SignedInProps): SignedInProps {
  const { refreshToken: _kept, ...upstream } = props.upstream
  return { ...props, upstream }
}

/** This token's lifetime: the configured one, cut to end before the provider's access token. */
function lifetime(tokens: UpstreamTokens, configured: number): number {
  if (tokens.expiresAt === undefined) return configured
  const left = Math.floor((tokens.expiresAt - Date.now()) / 1000) - MARGIN_S
  return Math.max(MIN_TTL_S, Math.min(configured, left))
}

/**
 * `tokenExchangeCallback` of the provider: `accessTokenTtl` is the configured lifetime (seconds).
 *
 * @example
 * new OAuthProvider({ ..., tokenExchangeCallback: upstreamGrant(3600) })
 */
export function upstreamGrant(accessTokenTtl: number) {
  return async (options: TokenExchangeCallbackOptions<UpstreamEnv>): Promise<TokenExchangeCallbackResult | undefined> => {
    // Our tokens carry the provider's access token: no client may exchange one for another's.
    // (Not invalid_grant: that would let any client holding a token end the user's grant.)
    if (options.grantType === GrantType.TOKEN_EXCHANGE)
      throw new OAuthError('unsupported_grant_type', { description: 'Token exchange is not offered' })
    const props = options.props as Partial<SignedInProps>
    const upstream = configuredUpstream(options.env)
    // A grant made by another sign-in than the one configured now (another provider, or the
    // passphrase page) ends: its subject belongs to another namespace.
    if (props.issuer !== upstream?.issuer) {
      throw new OAuthError('invalid_grant', { description: 'Sign in again: this server signs people in another way now' })
    }
    if (!props.upstream || !upstream) return undefined // signed in with the passphrase: nothing upstream
    const signedIn = props as SignedInProps
    if (options.grantType === GrantType.AUTHORIZATION_CODE) {
      return { accessTokenProps: forToken(signedIn), accessTokenTTL: lifetime(signedIn.upstream, accessTokenTtl) }
    }
    if (options.grantType !== GrantType.REFRESH_TOKEN) return undefined
    const { expiresAt, refreshToken, accessToken } = signedIn.upstream
    let tokens = signedIn.upstream
    try {
      if (expiresAt === undefined) {
        // A token that never expires (a GitHub OAuth app's): still ask whether the provider takes
        // it, so access revoked there ends here at the next refresh.
        await upstream.profile(accessToken)
      } else if (expiresAt - Date.now() <= (accessTokenTtl + MARGIN_S) * 1000) {
        if (!refreshToken)
          throw new OAuthError('invalid_grant', { description: 'Sign in again: the identity provider’s access has expired' })
        tokens = await upstream.refresh(refreshToken)
      }
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      console.warn(JSON.stringify({ msg: 'upstream refresh refused', reason: error.reason }))
      // The provider refused the grant (access revoked there): the library revokes ours with its
      // tokens, and the client signs in again. Down or rate limited: retry later. Anything else
      // (our client refused, a provider answering nonsense) is the server's fault: the grant stays.
      if (error.invalidGrant)
        throw new OAuthError('invalid_grant', { description: 'Access was revoked at the identity provider' })
      if (error.reason === 'unavailable') {
        throw new OAuthError('temporarily_unavailable', { description: 'The identity provider is unavailable', statusCode: 503 })
      }
      throw new OAuthError('server_error', { description: 'The identity provider could not be asked', statusCode: 500 })
    }
    const refreshed: SignedInProps = { ...signedIn, upstream: tokens }
    return { newProps: refreshed, accessTokenProps: forToken(refreshed), accessTokenTTL: lifetime(tokens, accessTokenTtl) }
  }
}

/** The provider configured now; half-configured sign-in is the server's error, not the client's. */
function configuredUpstream(env: UpstreamEnv) {
  try {
    return upstreamFromEnv(env)
  } catch (error) {
    if (!(error instanceof SignInNotConfigured)) throw error
    throw new OAuthError('server_error', { description: 'Sign-in is misconfigured', statusCode: 500 })
  }
}
