/**
 * `/oauth/callback`: where the identity provider sends the person back (src/consent.ts sent them
 * there). The library recovers the approved request from `state` (bound to this browser, single
 * use); the provider's code is exchanged with our PKCE verifier and its ID token verified (issuer,
 * audience, expiry, signature, algorithm, our nonce) by mcp-edge/oauth. Only then is the grant
 * made: the provider's subject is the MCP principal, with the name and email it gave, and its
 * tokens are kept with the grant (props, which the library stores encrypted). Whatever fails goes
 * back to the MCP client as `access_denied`, and nothing is stored.
 */
import { authorizationErrorRedirect } from '@cloudflare/workers-oauth-provider'
import type { OAuthHelpers } from '@cloudflare/workers-oauth-provider'
import { UpstreamError } from 'mcp-edge/oauth'
import type { UpstreamClaims, UpstreamProvider, UpstreamTokens } from 'mcp-edge/oauth'

/** What the consent POST keeps for the callback (never sent to the provider but as a challenge). */
export interface SignInState {
  verifier: string
  nonce: string
}

/** The grant's props when the person signed in at a provider. */
export interface SignedInProps {
  subject: string
  claims: UpstreamClaims
  issuer: string
  upstream: UpstreamTokens
}

/**
 * @example
 * routes.get('/oauth/callback', (c) => finishSignIn(c.req.raw, c.env.OAUTH_PROVIDER, upstream, redirectUri))
 */
export async function finishSignIn(
  request: Request,
  oauth: OAuthHelpers,
  upstream: UpstreamProvider,
  redirectUri: string,
): Promise<Response> {
  // A missing, unbound, expired or used state throws AuthorizationError: rendered, never redirected.
  const { request: original, data, headers } = await oauth.finishUpstream<SignInState>(request)
  const params = new URL(request.url).searchParams
  const refuse = (description: string) => {
    headers.set('location', authorizationErrorRedirect(original, 'access_denied', description))
    return new Response(null, { status: 302, headers })
  }
  const code = params.get('code')
  if (params.has('error') || !code) return refuse('Sign-in was declined at the identity provider')
  let signedIn: Awaited<ReturnType<UpstreamProvider['exchangeCode']>>
  try {
    signedIn = await upstream.exchangeCode({
      code,
      iss: params.get('iss'),
      verifier: data.verifier,
      nonce: data.nonce,
      redirectUri,
    })
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error
    console.warn(JSON.stringify({ msg: 'sign-in refused', reason: error.reason }))
    return refuse('Sign-in could not be verified')
  }
  const props: SignedInProps = {
    subject: signedIn.subject,
    claims: signedIn.claims,
    issuer: upstream.issuer,
    upstream: signedIn.tokens,
  }
  const { redirectTo } = await oauth.completeAuthorization({
    request: original, // from storage, not from the provider's redirect
    userId: encodeURIComponent(signedIn.subject),
    metadata: { issuer: upstream.issuer },
    scope: original.scope,
    props,
  })
  headers.set('location', redirectTo)
  return new Response(null, { status: 302, headers })
}
