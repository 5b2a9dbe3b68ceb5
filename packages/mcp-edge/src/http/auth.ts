/**
 * Who is calling, settled before the body is read (DESIGN "Auth at the edge of the request"), and
 * the `WWW-Authenticate` challenges of the answers that refuse (RFC 6750 §3, RFC 9728 §5.1).
 *
 * Order: a principal that Hono middleware put on the context; else the `resourceServer` (bearer
 * JWTs) or the `authenticate` option; else, with no authentication configured at all, the server
 * fails closed: it serves local requests only (loopback URL host, `Host` and `CF-Connecting-IP`, no
 * proxy headers) and answers anyone else 401 with how to configure authentication. `allowAnonymous` opts out.
 * Of scopes it checks only the baseline every access needs (403 `insufficient_scope`); per-tool
 * scopes belong to the server's method table.
 */
import { HEADER } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import type { JsonRpcResponse } from '../protocol/jsonrpc.ts'
import type { Awaitable, Principal } from '../server/types.ts'
import { isLoopbackAddress, isLoopbackHost, urlHost } from './guards.ts'
import { warnOnce } from '../server/telemetry/log.ts'
import { requireScopes } from '../server/methods/access.ts'

const CONFIGURE_AUTH = 'configure authenticate, resourceServer or auth middleware (docs/deploy.md#deploy-to-production).'

/** The 401 of a server without configured authentication, to a request that is not local. */
export const NOT_CONFIGURED_MESSAGE = `Unauthorized: no authentication is configured, so this MCP server serves local requests only. To serve others, ${CONFIGURE_AUTH}`

/** The same server's 401 to a request that came through a proxy, a tunnel or a reverse proxy. */
export const PROXIED_MESSAGE =
  'Unauthorized: no authentication is configured, so this MCP server serves local requests only, and this request ' +
  `came through a proxy (it carries Forwarded, X-Forwarded-*, X-Real-IP or Via). To serve it, ${CONFIGURE_AUTH}`

/**
 * The same server's 401 to a request from a loopback address whose URL names another host: a
 * tunnel in front that keeps the public `Host`, or `wrangler dev` serving a Worker with `routes`,
 * which hands it the route's host (`--local-upstream` keeps the URL local).
 */
export function routedMessage(host: string): string {
  return (
    `Unauthorized: no authentication is configured, so this MCP server serves local requests only, and this request's URL names ${host}, not a loopback host. ` +
    "Under wrangler dev, a Worker with routes sees its route's host: start it with --local-upstream 127.0.0.1:<port> to keep local requests local. " +
    `To serve others, ${CONFIGURE_AUTH}`
  )
}

/** Its start-up warning: the server runs and serves, locally. */
export const LOCAL_ONLY_WARNING =
  'Local requests only: no authentication is configured, so this MCP server serves local requests only ' +
  '(loopback URL, Host and connecting address, no proxy headers) and answers any other 401. To serve others, ' +
  CONFIGURE_AUTH

/** A bearer-token verifier that publishes RFC 9728 metadata (`jwtResourceServer`, or your own). */
export interface ResourceServer<Env = unknown> {
  /** Verify the request's bearer token; throw an `AuthChallenge` (401) when it is missing or bad. */
  authenticate(request: Request, env: Env): Promise<Principal>
  /** The metadata URL and the baseline scopes every challenge names. */
  challenge(env: Env): { resourceMetadataUrl: string; scopes: readonly string[] }
}

export interface AuthOptions<Env> {
  /** Return a principal to accept the request; nothing (or throw an `AuthChallenge`) refuses it with 401. */
  authenticate?: (request: Request, env: Env) => Awaitable<Principal | null | undefined>
  /** OAuth 2.1 resource server: bearer JWTs checked against the issuer's JWKS (`jwtResourceServer`). */
  resourceServer?: ResourceServer<Env>
  /** Added to `WWW-Authenticate` (RFC 9728 protected resource metadata) when no resource server names it. */
  resourceMetadataUrl?: string
  /**
   * The baseline scopes any access needs, named in challenges when no resource server names them:
   * a principal that carries scopes without all of these is answered 403 `insufficient_scope`
   * naming them (the client steps up); one without `scopes` (a shared secret's) is not limited.
   */
  requiredScopes?: readonly string[]
  /** Serve requests from anywhere without authentication (only with no other authentication configured). */
  allowAnonymous?: boolean
  /**
   * Authentication happens before `mcp()` (Hono middleware, an OAuth provider wrapping the
   * Worker): a request that arrives without a principal on the context is 401, local or not.
   */
  requirePrincipal?: boolean
  /**
   * Per-principal rate limiting through Cloudflare's Rate Limiting binding (`[[ratelimits]]` in
   * wrangler.jsonc): return the binding. Keyed by the principal's subject (anonymous callers by
   * their address); a refused request is 429 with `Retry-After`, before the body is read.
   */
  rateLimit?: (env: Env) => RateLimiter | undefined
}

/** Cloudflare's Rate Limiting binding, as far as mcp-edge uses it. */
export interface RateLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>
}

/** The binding's periods are 10 or 60 seconds; clients wait one period at most. */
const RETRY_AFTER_SECONDS = '60'
/** A token that could not be checked (introspection failed): worth trying again soon. */
const AUTH_RETRY_AFTER_SECONDS = '5'

/** A 401 with the parameters of its Bearer challenge (RFC 6750 §3: `error` only when a token was sent). */
export class AuthChallenge extends McpError {
  readonly error: string | undefined
  constructor(message: string, error?: 'invalid_token' | 'invalid_request') {
    super('unauthorized', message)
    this.error = error
  }
}

/**
 * A request is local when its URL host, its `Host` header and its connecting address (where the
 * platform gives one) are all loopback, and it carries no proxy headers. On Cloudflare's network
 * `CF-Connecting-IP` is always a real client address, so no deployed request is ever local. Under
 * `wrangler dev` every header comes from the client, so a tunnel or reverse proxy in front of the
 * dev server (which rewrites `Host` and adds `X-Forwarded-For`, `Forwarded` or `Via`) would pass as
 * local without the last rule; a client that reaches the socket directly is not caught by any
 * header, which is why the dev server binds to loopback (docs/deploy.md).
 *
 * @example
 * isLocalRequest(new Request('http://127.0.0.1:8787/mcp')) // true
 */
export function isLocalRequest(request: Request): boolean {
  return isLocal(request.headers, request.url)
}

/** `isLocalRequest` of a request whose headers and URL were read already (each read is a call into the runtime). */
function isLocal(headers: Headers, url: string): boolean {
  const host = headers.get(HEADER.host)
  const address = headers.get('cf-connecting-ip')
  const urlName = urlHost(url)
  return (
    isLoopbackHost(urlName) &&
    // A client's Host is most often its URL's host, spelled the same: the same answer.
    (host === null || host === urlName || isLoopbackHost(host)) &&
    (address === null || isLoopbackAddress(address)) &&
    !isProxied(headers)
  )
}

/** Why a request is not local, for its 401 (`isLocal` was false). */
function notLocalMessage(headers: Headers, url: string): string {
  if (isProxied(headers)) return PROXIED_MESSAGE
  const address = headers.get('cf-connecting-ip')
  const urlName = urlHost(url)
  if (address !== null && isLoopbackAddress(address) && !isLoopbackHost(urlName)) return routedMessage(urlName)
  return NOT_CONFIGURED_MESSAGE
}

const PROXY_HEADERS = new Set(['forwarded', 'via', 'x-real-ip'])

/**
 * Whether a proxy put its mark on the request: `Forwarded` (RFC 7239), `Via`, `X-Forwarded-*`, `X-Real-IP`.
 * `forEach`, not an iterator: in workerd it walks the headers in one native call, where `keys()`
 * makes a result object per header (about a quarter cheaper for a client's eight or so headers).
 */
export function isProxied(headers: Headers): boolean {
  let proxied = false
  headers.forEach((_value, name) => {
    if (PROXY_HEADERS.has(name) || name.startsWith('x-forwarded-')) proxied = true
  })
  return proxied
}

/**
 * A principal from verified JWT claims (what `hono/jwk` leaves in `c.var.jwtPayload`): `sub`, and
 * the `scope` string (or an `scp` list) as `scopes`. A principal without `scopes` is not limited by
 * scopes at all, so claims always give a list, empty when the token grants none.
 *
 * @example
 * principalFromClaims({ sub: 'user-1', scope: 'mcp records:write' }) // { subject: 'user-1', scopes: ['mcp', 'records:write'] }
 */
export function principalFromClaims(claims: unknown): Principal | undefined {
  if (typeof claims !== 'object' || claims === null) return undefined
  const { sub, scope, scp } = claims as { sub?: unknown; scope?: unknown; scp?: unknown }
  if (typeof sub !== 'string' || sub === '') return undefined
  // `scope` (RFC 9068, RFC 8693) or `scp` (Entra ID, Okta), each a space-separated string or a
  // list, as issuers write them (Entra's `scp` is a string, Spring Authorization Server's `scope` a list).
  return { subject: sub, scopes: scopeList(scope ?? scp) }
}

function scopeList(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean)
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === 'string' && item !== '')
  return []
}

const quoted = (value: string) => `"${value.replace(/["\\]/g, '')}"`

export interface Authenticator<Env> {
  /**
   * The principal of this request (`undefined` for a local or allowed anonymous caller), at once
   * when it is known at once, else a promise. Throws (or rejects with) 401. `headers` and `url`:
   * the request's, when the caller has read them already.
   */
  resolve(request: Request, env: Env, given?: Principal, headers?: Headers, url?: string): Awaitable<Principal | undefined>
  /** `WWW-Authenticate` for a 401 or 403 answer, `Retry-After` for a 429, else `undefined`. */
  headersFor(error: McpError, env: Env): Record<string, string> | undefined
  /** The same, for a response the server produced (403 insufficient_scope, 429 at a cap). */
  headersForResponse(message: JsonRpcResponse, status: number, env: Env): Record<string, string> | undefined
}

/**
 * @example
 * const auth = createAuthenticator({ authenticate: (request) => lookUp(request) })
 * const principal = await auth.resolve(request, env)
 */
export function createAuthenticator<Env>(
  options: AuthOptions<Env>,
  warn: (message: string) => void = warnOnce,
): Authenticator<Env> {
  const { authenticate, resourceServer, allowAnonymous, requirePrincipal } = options
  if (authenticate && resourceServer) throw new Error('mcp(): set either authenticate or resourceServer, not both')
  // Warned at the isolate's first request (a Worker has no other start-up moment that a handler
  // which never serves, such as an unused app in the same bundle, would not also reach), and once
  // per isolate however many handlers say it (`warnOnce`: a factory's, built per request).
  let unwarned = authenticate === undefined && resourceServer === undefined && !allowAnonymous && !requirePrincipal

  const authenticated = async (request: Request, env: Env, verify: NonNullable<typeof authenticate>) => {
    const principal = await verify(request, env)
    if (!principal) throw new AuthChallenge('Unauthorized')
    return withBaseline(principal, env)
  }
  // The baseline scopes any access needs (a resource server's, else `requiredScopes`), held by
  // every principal that carries scopes: a token without them is 403 insufficient_scope, and
  // the client steps up. A principal without `scopes` (a shared secret's) is not limited by them.
  const withBaseline = <P extends Principal | undefined>(principal: P, env: Env): P => {
    if (principal?.scopes !== undefined) requireScopes(principal, baseline(env), 'this server')
    return principal
  }
  // Not async itself: a local or given principal is known at once, without a promise of its own
  // (`resolve` awaits either). Its throws reject `resolve`.
  const identify = (
    request: Request,
    env: Env,
    given: Principal | undefined,
    headers: Headers,
    url: string,
  ): Awaitable<Principal | undefined> => {
    if (given) return withBaseline(given, env)
    if (requirePrincipal) throw new AuthChallenge('Unauthorized')
    // Adopted into a native promise: a resource server of one's own may answer with another
    // thenable (a Workers RPC call's), which the handler must await as it would a Promise.
    if (resourceServer) {
      return Promise.resolve(resourceServer.authenticate(request, env)).then((principal) => withBaseline(principal, env))
    }
    if (authenticate) return authenticated(request, env, authenticate)
    if (unwarned) {
      unwarned = false
      warn(LOCAL_ONLY_WARNING)
    }
    if (allowAnonymous || isLocal(headers, url)) return undefined
    throw new AuthChallenge(notLocalMessage(headers, url))
  }

  const baseline = (env: Env) => resourceServer?.challenge(env).scopes ?? options.requiredScopes ?? []

  const header = (env: Env, params: { error?: string | undefined; scopes?: readonly string[] }) => {
    const named = resourceServer?.challenge(env)
    const metadata = named?.resourceMetadataUrl ?? options.resourceMetadataUrl
    const scopes = params.scopes ?? named?.scopes ?? options.requiredScopes ?? []
    const parts = ['realm="mcp"']
    if (params.error) parts.push(`error=${quoted(params.error)}`)
    if (scopes.length > 0) parts.push(`scope=${quoted(scopes.join(' '))}`)
    if (metadata) parts.push(`resource_metadata=${quoted(metadata)}`)
    return { 'www-authenticate': `Bearer ${parts.join(', ')}` }
  }

  const limited = async (headers: Headers, env: Env, identified: Awaitable<Principal | undefined>) => {
    const principal = await identified
    const limiter = options.rateLimit?.(env)
    if (limiter) {
      const key = principal?.subject ?? `anonymous:${headers.get('cf-connecting-ip') ?? 'local'}`
      if (!(await limiter.limit({ key })).success) {
        throw new McpError('tooManyRequests', 'Too many requests: rate limit reached, retry later')
      }
    }
    return principal
  }

  return {
    resolve(request, env, given, headers = request.headers, url = request.url) {
      const identified = identify(request, env, given, headers, url)
      // Without a rate limit, a principal known at once (a local caller, one the host gave) is
      // returned as it is: the caller goes on without waiting a turn for a promise.
      return options.rateLimit === undefined ? identified : limited(headers, env, identified)
    },
    headersFor(error, env) {
      if (error instanceof AuthChallenge) return header(env, { error: error.error })
      if (error.kind === 'insufficientScope') return header(env, scopeParams(error.data, baseline(env)))
      if (error.kind === 'tooManyRequests') return { 'retry-after': RETRY_AFTER_SECONDS }
      if (error.kind === 'authUnavailable') return { 'retry-after': AUTH_RETRY_AFTER_SECONDS }
      return undefined
    },
    headersForResponse(message, status, env) {
      if (status === 429) return { 'retry-after': RETRY_AFTER_SECONDS }
      if (status !== 403 || !('error' in message)) return undefined
      return header(env, scopeParams(message.error.data, baseline(env)))
    },
  }
}

/** Step-up (authorization "Scope Challenge"): the baseline scopes plus every scope the operation needs. */
function scopeParams(data: unknown, baseline: readonly string[]) {
  const needed = (data as { requiredScopes?: unknown } | undefined)?.requiredScopes
  const scopes = new Set([...baseline, ...(Array.isArray(needed) ? needed : [])])
  return { error: 'insufficient_scope', scopes: [...scopes].map(String) }
}
