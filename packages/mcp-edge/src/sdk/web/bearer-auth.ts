/**
 * SDK 2.x's web-standard Bearer gate, for Workers code that verifies its own tokens in front of
 * the handler: `requireBearerAuth({ verifier })` answers the verified `AuthInfo`, or the `Response`
 * that refuses the request (RFC 6750: 401 `invalid_token`, 403 `insufficient_scope`, each with its
 * `WWW-Authenticate` challenge; 500 `server_error` when the verifier fails otherwise), as the SDK
 * answers. The code then calls `handler.fetch(request, { authInfo })` (handler.ts). mcp-edge's own
 * way is `createMcpHandler`'s `authenticate` or `resourceServer` option; this is the SDK's,
 * unchanged, so ported code keeps it.
 */
import type { AuthInfo } from '../context.ts'

/** OAuth 2.0 error codes (RFC 6749 §5.2, RFC 6750 §3.1), by the SDK's names. */
export const OAuthErrorCode = {
  InvalidRequest: 'invalid_request',
  InvalidClient: 'invalid_client',
  InvalidGrant: 'invalid_grant',
  UnauthorizedClient: 'unauthorized_client',
  UnsupportedGrantType: 'unsupported_grant_type',
  InvalidScope: 'invalid_scope',
  AccessDenied: 'access_denied',
  ServerError: 'server_error',
  TemporarilyUnavailable: 'temporarily_unavailable',
  InvalidToken: 'invalid_token',
  InsufficientScope: 'insufficient_scope',
} as const

/**
 * @example
 * throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token')
 */
export class OAuthError extends Error {
  readonly code: string
  readonly errorUri: string | undefined

  constructor(code: string, message: string, errorUri?: string) {
    super(message)
    this.name = 'OAuthError'
    this.code = code
    this.errorUri = errorUri
  }

  /** The OAuth error body: `{ error, error_description, error_uri? }`. */
  toResponseObject(): { error: string; error_description: string; error_uri?: string } {
    const body = { error: this.code, error_description: this.message }
    return this.errorUri === undefined ? body : { ...body, error_uri: this.errorUri }
  }
}

/** Turns an access token into what it grants, or throws an `OAuthError`. */
export interface OAuthTokenVerifier {
  verifyAccessToken(token: string): Promise<AuthInfo>
}

export interface BearerAuthOptions {
  verifier: OAuthTokenVerifier
  /** Scopes the token must hold, all of them (else 403 `insufficient_scope`). */
  requiredScopes?: string[]
  /** The protected resource metadata URL, named in every challenge. */
  resourceMetadataUrl?: string
  /** The resource the token must have been issued for (its `AuthInfo.resource`). */
  expectedResource?: URL
}

/** An RFC 7230 quoted-string's content: `\` and `"` escaped, non-printable characters replaced. */
const quoted = (value: string) => value.replaceAll(/[\\"]/g, '\\$&').replaceAll(/[^\u0020-\u007E]/g, ' ')

async function verify(header: string | undefined, options: BearerAuthOptions): Promise<AuthInfo> {
  if (!header) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Missing Authorization header')
  const [type, token] = header.split(' ')
  if (type?.toLowerCase() !== 'bearer' || !token) {
    throw new OAuthError(OAuthErrorCode.InvalidToken, "Invalid Authorization header format, expected 'Bearer TOKEN'")
  }
  const info = await options.verifier.verifyAccessToken(token)
  const expected = options.expectedResource
  if (expected !== undefined && (info.resource === undefined || resourceKey(info.resource) !== resourceKey(expected))) {
    throw new OAuthError(OAuthErrorCode.InvalidToken, 'Token was not issued for this resource')
  }
  if (!(options.requiredScopes ?? []).every((scope) => info.scopes.includes(scope))) {
    throw new OAuthError(OAuthErrorCode.InsufficientScope, 'Insufficient scope')
  }
  if (typeof info.expiresAt !== 'number' || Number.isNaN(info.expiresAt)) {
    throw new OAuthError(OAuthErrorCode.InvalidToken, 'Token has no expiration time')
  }
  if (info.expiresAt < Date.now() / 1000) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Token has expired')
  // As the SDK returns it: the metadata URL configured here, unless the verifier named one.
  const metadata = options.resourceMetadataUrl
  return metadata === undefined || 'resourceMetadataUrl' in info ? info : { ...info, resourceMetadataUrl: metadata }
}

/** A resource as the SDK compares two: its text without a fragment or a trailing slash. */
function resourceKey(resource: URL | string): string {
  const text = String(resource)
  const hash = text.indexOf('#')
  return (hash < 0 ? text : text.slice(0, hash)).replace(/\/$/, '')
}

function refusal(error: unknown, options: BearerAuthOptions): Response {
  if (!(error instanceof OAuthError)) {
    return Response.json(new OAuthError(OAuthErrorCode.ServerError, 'Internal Server Error').toResponseObject(), { status: 500 })
  }
  const status = { invalid_token: 401, insufficient_scope: 403, server_error: 500 }[error.code] ?? 400
  if (status !== 401 && status !== 403) return Response.json(error.toResponseObject(), { status })
  const scopes = options.requiredScopes ?? []
  let challenge = `Bearer error="${quoted(error.code)}", error_description="${quoted(error.message)}"`
  if (scopes.length > 0) challenge += `, scope="${quoted(scopes.join(' '))}"`
  if (options.resourceMetadataUrl) challenge += `, resource_metadata="${quoted(options.resourceMetadataUrl)}"`
  return Response.json(error.toResponseObject(), { status, headers: { 'WWW-Authenticate': challenge } })
}

/**
 * @example
 * const gate = requireBearerAuth({ verifier, requiredScopes: ['mcp'] })
 * const auth = await gate(request)
 * if (auth instanceof Response) return auth
 * return handler.fetch(request, { authInfo: auth })
 */
export function requireBearerAuth(options: BearerAuthOptions): (request: Request) => Promise<AuthInfo | Response> {
  return async (request) => {
    const [header] = (request.headers.get('authorization') ?? '').split(',')
    try {
      return await verify(header || undefined, options)
    } catch (error) {
      return refusal(error, options)
    }
  }
}
