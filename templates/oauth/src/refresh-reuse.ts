/**
 * A spent refresh token presented again ends its grant (refresh token rotation, RFC 9700 §4.14.2).
 * `@cloudflare/workers-oauth-provider` rotates a grant's refresh token at each refresh but keeps
 * accepting the one before (so a client whose answer was lost may retry), and a refresh with that
 * previous token keeps it the previous one: alone, a stolen refresh token the client already spent
 * would keep working for the grant's whole life. The library does not tell `tokenExchangeCallback`
 * which token was presented, so src/provider.ts reads it from the token request
 * (`withPresentedRefreshToken`) and hands its SHA-256 to the callback on that request's env. The
 * grant's props keep the hash of the last token spent (never the token; an access token's props
 * never carry it). The library's previous token is always the last one spent, so a refresh
 * presenting that hash again is a reuse: the callback answers invalid_grant and the library
 * revokes the grant with all its tokens; the client, and whoever stole the token, sign in again.
 * A client retrying a refresh whose answer it lost is treated the same way (the price OAuth 2.1
 * accepts). Grants made before this ran have no hash yet: their first refresh records one.
 */
import { GrantType, OAuthError } from '@cloudflare/workers-oauth-provider'
import type { TokenExchangeCallbackOptions, TokenExchangeCallbackResult } from '@cloudflare/workers-oauth-provider'

type Callback<E> = (options: TokenExchangeCallbackOptions<E>) => Promise<TokenExchangeCallbackResult | undefined>

/** Where the grant's props keep the SHA-256 (hex) of the last refresh token spent. */
const SPENT = 'spentRefreshToken'

/** The hash of the refresh token each token request presented, by the env it was given. */
const presented = new WeakMap<object, string>()

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/**
 * The env to hand the provider for `request`: for a refresh at `tokenPath`, a copy that carries
 * the presented token's hash to the callback; for anything else, `env` itself.
 *
 * @example
 * provider.fetch(request, await withPresentedRefreshToken(request, env, '/oauth/token'), ctx)
 */
export async function withPresentedRefreshToken<E extends object>(request: Request, env: E, tokenPath: string): Promise<E> {
  if (request.method !== 'POST' || new URL(request.url).pathname !== tokenPath) return env
  // The library takes form bodies only; anything else it refuses before any callback runs.
  const form = await request
    .clone()
    .formData()
    .catch(() => undefined)
  const token = form?.get('grant_type') === GrantType.REFRESH_TOKEN ? form.get('refresh_token') : null
  if (typeof token !== 'string') return env
  const scoped = { ...env }
  presented.set(scoped, await sha256Hex(token))
  return scoped
}

/**
 * Wraps the provider's `tokenExchangeCallback`: a refresh presenting the last spent token is
 * refused (invalid_grant: the library revokes the grant); any other refresh runs `inner` with the
 * grant's props as they were, then records the presented token as spent.
 *
 * @example
 * new OAuthProvider({ ..., tokenExchangeCallback: refusingReuse(upstreamGrant(3600)) })
 */
export function refusingReuse<E>(inner: Callback<E>): Callback<E> {
  return async (options) => {
    if (options.grantType !== GrantType.REFRESH_TOKEN) return inner(options)
    const hash = presented.get(options.env as object)
    // Only a provider built without withPresentedRefreshToken gets here: refuse, never guess.
    if (!hash) throw new OAuthError('server_error', { description: 'Refresh is misconfigured', statusCode: 500 })
    const { [SPENT]: spent, ...props } = (options.props ?? {}) as Record<string, unknown>
    if (spent === hash) {
      console.warn(JSON.stringify({ msg: 'refresh token reused; grant revoked', client_id: options.clientId }))
      throw new OAuthError('invalid_grant', { description: 'This refresh token was already used: sign in again' })
    }
    const result = await inner({ ...options, props })
    const kept = result?.newProps ?? props
    return { ...result, newProps: { ...kept, [SPENT]: hash }, accessTokenProps: result?.accessTokenProps ?? kept }
  }
}
