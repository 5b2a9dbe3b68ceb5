/**
 * The identity provider's tokens over a grant's life (src/callback.ts stored them in its props,
 * which the library keeps encrypted). Each token this server issues carries the provider's access
 * token but never its refresh token (that stays in the grant), and expires no later than the
 * provider's access token (30 s before it; the library allows no less than 60 s). When the MCP
 * client refreshes, the provider's tokens are refreshed first if they would not outlive the new
 * token; if the provider refuses the refresh (access revoked there) the grant is revoked too, so
 * the client signs in again; if it is unreachable the client is told to retry (503).
 */
import { GrantType, OAuthError } from '@cloudflare/workers-oauth-provider'
import type { TokenExchangeCallbackOptions, TokenExchangeCallbackResult } from '@cloudflare/workers-oauth-provider'
import { UpstreamError } from 'mcp-edge/oauth'
import type { UpstreamTokens } from 'mcp-edge/oauth'
import type { SignedInProps } from './callback'
import { upstreamFromEnv } from './upstream'
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
    const props = options.props as SignedInProps | undefined
    if (!props?.upstream) return undefined // signed in with the passphrase: nothing upstream
    if (options.grantType === GrantType.AUTHORIZATION_CODE) {
      return { accessTokenProps: forToken(props), accessTokenTTL: lifetime(props.upstream, accessTokenTtl) }
    }
    if (options.grantType !== GrantType.REFRESH_TOKEN) return undefined
    const { expiresAt, refreshToken } = props.upstream
    const lasts = expiresAt === undefined || expiresAt - Date.now() > (accessTokenTtl + MARGIN_S) * 1000
    if (lasts) return { accessTokenProps: forToken(props), accessTokenTTL: lifetime(props.upstream, accessTokenTtl) }
    if (!refreshToken)
      throw new OAuthError('invalid_grant', { description: 'Sign in again: the identity provider’s access has expired' })
    const upstream = upstreamFromEnv(options.env)
    if (!upstream)
      throw new OAuthError('invalid_grant', { description: 'Sign-in through an identity provider is no longer configured' })
    let tokens: UpstreamTokens
    try {
      tokens = await upstream.refresh(refreshToken)
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error
      console.warn(JSON.stringify({ msg: 'upstream refresh refused', reason: error.reason }))
      // The provider refused the grant: the library revokes ours with its tokens.
      if (error.invalidGrant)
        throw new OAuthError('invalid_grant', { description: 'Access was revoked at the identity provider' })
      throw new OAuthError('temporarily_unavailable', { description: 'The identity provider is unavailable', statusCode: 503 })
    }
    const refreshed: SignedInProps = { ...props, upstream: tokens }
    return { newProps: refreshed, accessTokenProps: forToken(refreshed), accessTokenTTL: lifetime(tokens, accessTokenTtl) }
  }
}
