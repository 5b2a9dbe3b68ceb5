/**
 * mcp-edge/oauth: the upstream sign-in client an OAuth authorization server (the oauth template)
 * uses to send people to their own identity provider: OpenID Connect by discovery, or GitHub.
 * Runtime-neutral (Web Crypto, `fetch`, `jose`); it keeps no state between the two redirects and
 * is not an authorization server itself.
 */
export { upstreamFromConfig } from './config.ts'
export type { UpstreamConfig } from './config.ts'
export { githubProvider } from './github.ts'
export type { GithubProviderOptions } from './github.ts'
export { oidcProvider } from './oidc.ts'
export type { OidcProviderOptions } from './oidc.ts'
export { randomToken, s256 } from './pkce.ts'
export { exchangeToken } from './token-exchange.ts'
export type { TokenExchangeOptions, TokenExchangeResult } from './token-exchange.ts'
export { UpstreamError } from './upstream.ts'
export type {
  UpstreamAuthorizationRequest,
  UpstreamCallback,
  UpstreamClaims,
  UpstreamProvider,
  UpstreamSignIn,
  UpstreamTokens,
} from './upstream.ts'
