/**
 * An OAuth 2.1 resource server for opaque access tokens, which only their issuer can read: each
 * bearer token is sent to the issuer's RFC 7662 introspection endpoint, authenticated as this
 * resource server's own client (client_secret_basic). A token is served only when the answer says
 * `active: true`, names this resource in `aud` (RFC 8707: an answer without `aud` is refused, the
 * token may be meant for any resource), names the configured issuer when it names one, has not
 * reached its `exp`, is neither a refresh token nor sender-constrained (no DPoP or mTLS proof is
 * checked here), and has a `sub`. The principal is `sub`, with `scope` as its scopes and
 * `client_id` as its `clientId`, as `jwtResourceServer` reads a JWT's claims.
 *
 * Accepted answers are cached per isolate for `cacheTtlSeconds`, never past the token's `exp`,
 * under the SHA-256 of the token (never the token), in a bounded map that drops the least recently
 * used entry; refusals are not cached. So a token revoked at the issuer is still served by an
 * isolate that accepted it for up to `cacheTtlSeconds` (0: ask every time). Only settled answers
 * are cached, never a pending request: a Worker cannot await I/O that another request started.
 *
 * Fails closed: when the issuer cannot answer (timeout, network error, non-2xx status, no JSON
 * object) the request is 503 `authUnavailable` and is not served; the log line names the endpoint
 * and what went wrong, never the token.
 */
import { McpError } from '../protocol/errors.ts'
import type { Principal } from '../server/types.ts'
import { libraryLog } from '../server/telemetry/log.ts'
import { isSecureUrl } from '../protocol/secure-url.ts'
import { AuthChallenge, principalFromClaims } from './auth.ts'
import type { ResourceServer } from './auth.ts'
import { bearerOf, challengeOf, perEnv, resourceMetadata } from './resource-server.ts'

export interface IntrospectionResourceServerOptions {
  /** This endpoint's canonical URI (`https://mcp.example.com/mcp`): the audience tokens must carry. */
  resource: string
  /** The authorization server's issuer identifier: published in the metadata, and `iss` must equal it when present. */
  issuer: string
  /** The issuer's RFC 7662 endpoint (its metadata's `introspection_endpoint`); https, or http on loopback. */
  introspectionUrl: string
  /** This resource server's client at the issuer (it authenticates the introspection requests). */
  clientId: string
  clientSecret: string
  /**
   * Scopes any access needs: a token without all of them is answered 403 `insufficient_scope`;
   * published as `scopes_supported` and named in the 401 challenge.
   */
  scopes?: string[]
  /** A human-readable name in the metadata (`resource_name`). */
  resourceName?: string
  /** How long an accepted token is served without asking again (default 60; 0: ask every time). Revocation shows after at most this long. */
  cacheTtlSeconds?: number
  /** The most tokens an isolate remembers (default 1000); the least recently used goes first. */
  maxCacheEntries?: number
  /** How long the issuer may take to answer before the request is 503 (default 5000). */
  timeoutMs?: number
}

export interface IntrospectionResourceServer<Env> extends ResourceServer<Env> {
  /** The RFC 9728 document of this resource. */
  metadata(env: Env): Record<string, unknown>
}

const DEFAULT_CACHE_TTL_SECONDS = 60
const DEFAULT_MAX_CACHE_ENTRIES = 1000
const DEFAULT_TIMEOUT_MS = 5000

/** Accepted tokens by the hex SHA-256 of their value, least recently used first. */
class AcceptedTokens {
  readonly #entries = new Map<string, { principal: Principal; until: number }>()
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  get(key: string, now: number): Principal | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    this.#entries.delete(key)
    if (entry.until <= now) return undefined
    this.#entries.set(key, entry)
    return entry.principal
  }

  set(key: string, principal: Principal, until: number): void {
    this.#entries.delete(key)
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size < this.#max) break
      this.#entries.delete(oldest)
    }
    this.#entries.set(key, { principal, until })
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined for Basic. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+')

/** Why the options cannot work, or `undefined`: said at the first request, with what to set. */
function misconfiguration(options: IntrospectionResourceServerOptions): string | undefined {
  let url: URL | undefined
  try {
    url = new URL(options.introspectionUrl)
  } catch {
    url = undefined
  }
  // The client's secret and the token travel to the endpoint: plain http only to this machine.
  if (!url || !isSecureUrl(url)) {
    return 'introspectionResourceServer: introspectionUrl must be an https URL (http only on loopback)'
  }
  if (!options.clientId || !options.clientSecret) {
    return "introspectionResourceServer: set clientId and clientSecret (the resource server's client at the issuer)"
  }
  if (!options.resource || !options.issuer) return 'introspectionResourceServer: set resource and issuer'
  return undefined
}

/** The 503 of an issuer that could not say, logged with the endpoint and what went wrong. */
function unavailable(url: string, what: string): McpError {
  const { origin, pathname } = new URL(url)
  libraryLog.error('token introspection failed: the request is refused (503)', { endpoint: origin + pathname, what })
  return new McpError('authUnavailable')
}

/** The issuer's answer about `token`, or `authUnavailable` when there is none to judge. */
async function introspect(options: IntrospectionResourceServerOptions, token: string): Promise<Record<string, unknown>> {
  const url = options.introspectionUrl
  let response: Response
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`)}`,
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      // A redirect would replay the client's credentials and the token elsewhere.
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
    })
  } catch (error) {
    throw unavailable(url, (error as Error)?.name === 'TimeoutError' ? 'timed out' : 'could not be reached')
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw unavailable(url, `answered ${response.status}`)
  }
  const body: unknown = await response.json().catch(() => undefined)
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unavailable(url, 'answered without a JSON object')
  return body as Record<string, unknown>
}

/** Why an answer does not let the token in here, or `undefined` when it does (RFC 7662 §2.2, §4). */
function refusal(answer: Record<string, unknown>, options: IntrospectionResourceServerOptions, now: number) {
  const { active, exp, aud, iss, token_type: type, cnf } = answer
  if (active !== true) return 'the token is not active'
  if (exp !== undefined && (typeof exp !== 'number' || exp * 1000 <= now)) return 'the token has expired'
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : []
  if (!audiences.includes(options.resource))
    return aud === undefined ? 'the answer names no audience' : 'the token is for another resource'
  if (iss !== undefined && iss !== options.issuer) return 'the answer names another issuer'
  if (typeof type === 'string' && type.toLowerCase() === 'refresh_token') return 'a refresh token'
  if (cnf !== undefined || (typeof type === 'string' && type.toLowerCase() === 'dpop')) return 'a sender-constrained token'
  return undefined
}

/**
 * @example
 * const resourceServer = introspectionResourceServer<Env>((env) => ({
 *   resource: 'https://mcp.example.com/mcp', issuer: env.OAUTH_ISSUER, introspectionUrl: env.OAUTH_INTROSPECTION_URL,
 *   clientId: env.OAUTH_CLIENT_ID, clientSecret: env.OAUTH_CLIENT_SECRET, scopes: ['mcp'],
 * }))
 * app.route('/', protectedResourceMetadata(resourceServer))
 * app.route('/mcp', mcp(server, { resourceServer }))
 */
export function introspectionResourceServer<Env>(
  config: IntrospectionResourceServerOptions | ((env: Env) => IntrospectionResourceServerOptions),
): IntrospectionResourceServer<Env> {
  // Per env object (per isolate in a Worker): its options and its cache.
  const configFor = perEnv(config, misconfiguration, (options) => ({
    options,
    accepted: new AcceptedTokens(options.maxCacheEntries ?? DEFAULT_MAX_CACHE_ENTRIES),
    ttlMs: (options.cacheTtlSeconds ?? DEFAULT_CACHE_TTL_SECONDS) * 1000,
    challenge: challengeOf(options),
  }))

  return {
    async authenticate(request, env): Promise<Principal> {
      const { options, accepted, ttlMs } = configFor(env)
      const token = bearerOf(request)
      const key = ttlMs > 0 ? await sha256Hex(token) : undefined
      const cached = key === undefined ? undefined : accepted.get(key, Date.now())
      if (cached) return cached
      const answer = await introspect(options, token)
      const now = Date.now()
      const subject = principalFromClaims(answer)
      const refused = refusal(answer, options, now) ?? (subject ? undefined : 'the answer names no subject')
      if (refused || !subject) {
        libraryLog.warn('bearer token refused', { reason: refused })
        throw new AuthChallenge('Unauthorized: invalid token', 'invalid_token')
      }
      const principal: Principal = typeof answer.client_id === 'string' ? { ...subject, clientId: answer.client_id } : subject
      if (key !== undefined) {
        const exp = typeof answer.exp === 'number' ? answer.exp * 1000 : Number.POSITIVE_INFINITY
        accepted.set(key, principal, Math.min(now + ttlMs, exp))
      }
      return principal
    },
    challenge: (env) => configFor(env).challenge,
    metadata(env) {
      return resourceMetadata(configFor(env).options)
    },
  }
}
