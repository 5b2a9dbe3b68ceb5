/**
 * RFC 8693 token exchange, as a client: a token this server holds for the signed-in person (the
 * upstream access token of their sign-in) is traded at the issuer's token endpoint for one meant
 * for a downstream API (`audience`, `resource`), so a tool calls that API as the person. The MCP
 * client's own token is never what gets sent on: it was issued for this server, and an API that
 * accepted it would accept anything this server was ever handed.
 *
 * One POST through `requestTokens` (client authentication, timeout, no redirects, errors as
 * stable reasons that never carry a token or a body). The issued token must be usable as a bearer
 * token: an answer with `token_type: N_A` (an ID token, a SAML assertion) is `token_endpoint_error`.
 * It is not an authorization server's side of RFC 8693, and it keeps nothing.
 */
import { secureUrl } from './secure-url.ts'
import { requestTokens } from './token-request.ts'
import type { ClientAuthMethod } from './token-request.ts'
import { UpstreamError } from './upstream.ts'

/** RFC 8693 §3: an OAuth 2.0 access token (the default subject and issued token type). */
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'

export interface TokenExchangeOptions {
  /** The issuer's token endpoint; https, or http on loopback. */
  tokenEndpoint: string
  /** This server's client at the issuer. */
  clientId: string
  clientSecret: string
  /** How the client authenticates (default `client_secret_basic`). */
  authMethod?: ClientAuthMethod
  /** The token to exchange: one issued to this server for the person, never the MCP client's token. */
  subjectToken: string
  /** Its type (default `urn:ietf:params:oauth:token-type:access_token`). */
  subjectTokenType?: string
  /** The logical name of the API the new token is for (RFC 8693 §2.1 `audience`). */
  audience?: string
  /** The API's URI (RFC 8707 `resource`). */
  resource?: string
  /** The scopes wanted, space-separated. */
  scope?: string
  /** The token type wanted; the answer must then be of exactly this type. */
  requestedTokenType?: string
}

export interface TokenExchangeResult {
  /** The issued token (RFC 8693 names it `access_token` whatever its type). Never log it. */
  accessToken: string
  /** Its type, as the issuer says (`issued_token_type`). */
  issuedTokenType: string
  /** Its lifetime in seconds, when the issuer says. */
  expiresIn?: number
  /** The scopes granted, space-separated, when the issuer says. */
  scope?: string
}

/**
 * Exchanges `subjectToken` for a token meant for another API (RFC 8693 §2). Throws
 * `UpstreamError`: `invalid_grant` (the issuer refused the subject token), `token_endpoint_error`
 * (another error code, such as `invalid_target`, in the message; or no usable token), or
 * `unavailable` (network, timeout, 5xx, 429). A bad `tokenEndpoint` is a TypeError.
 *
 * @example
 * const { accessToken } = await exchangeToken({
 *   tokenEndpoint: 'https://id.example.com/oauth/token', clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET,
 *   subjectToken: await ctx.upstream.token(), audience: 'https://api.example.com',
 * })
 * await fetch('https://api.example.com/v1/me', { headers: { authorization: `Bearer ${accessToken}` } })
 */
export async function exchangeToken(options: TokenExchangeOptions): Promise<TokenExchangeResult> {
  const endpoint = secureUrl(options.tokenEndpoint, 'exchangeToken tokenEndpoint').href
  if (!options.subjectToken) throw new TypeError('exchangeToken: subjectToken is empty')
  const params: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: options.subjectToken,
    subject_token_type: options.subjectTokenType ?? ACCESS_TOKEN_TYPE,
  }
  const optional = {
    audience: options.audience,
    resource: options.resource,
    scope: options.scope,
    requested_token_type: options.requestedTokenType,
  }
  for (const [name, value] of Object.entries(optional)) if (value !== undefined) params[name] = value
  const client = {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    method: options.authMethod ?? 'client_secret_basic',
  }
  const { tokens, body } = await requestTokens(endpoint, client, params)
  // RFC 8693 §2.2.1: issued_token_type is required.
  const issued = body.issued_token_type
  if (typeof issued !== 'string' || (options.requestedTokenType !== undefined && issued !== options.requestedTokenType)) {
    throw new UpstreamError(
      'token_endpoint_error',
      "the provider's token endpoint issued no token type, or another than the one requested",
    )
  }
  const result: TokenExchangeResult = { accessToken: tokens.accessToken, issuedTokenType: issued }
  const seconds = typeof body.expires_in === 'string' ? Number(body.expires_in) : body.expires_in
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) result.expiresIn = seconds
  if (tokens.scope !== undefined) result.scope = tokens.scope
  return result
}
