/**
 * An OAuth 2.1 resource server for the common case of an external authorization server that
 * issues JWT access tokens (authorization spec; RFC 9068 profile). Each bearer token is verified
 * with `jose` on Web Crypto: signature against the issuer's JWKS (fetched once per isolate,
 * cached, and fetched again when a token names an unknown key id, so key rotation needs no
 * deploy), issuer, audience = this resource (RFC 8707), expiry, not-before and the token type
 * (`typ`, RFC 9068 §4, where the issuer sets it). The token's `sub`
 * becomes the principal and its `scope` the principal's scopes. RFC 9728 metadata is served by
 * `protectedResourceMetadata()`, mounted at the app root because the well-known path sits outside
 * the endpoint's mount. JWTs are checked here alone, so a revoked one is good until it expires;
 * opaque tokens, checked by asking their issuer, are `introspectionResourceServer`'s
 * (introspection.ts), which shares the bearer reading and the metadata of this module.
 */
import { Hono } from 'hono'
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify } from 'jose'
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose'
import { McpError } from '../protocol/errors.ts'
import type { Principal } from '../server/types.ts'
import { isSecureUrl } from '../protocol/secure-url.ts'
import { AuthChallenge, principalFromClaims } from './auth.ts'
import type { ResourceServer } from './auth.ts'
import { errorFields, libraryLog } from '../server/telemetry/log.ts'

export interface JwtResourceServerOptions {
  /** This endpoint's canonical URI (`https://mcp.example.com/mcp`): the audience tokens must carry. */
  resource: string
  /** The authorization server's issuer identifier, exactly as in the tokens' `iss`. */
  issuer: string
  /** Where the issuer publishes its keys (its metadata's `jwks_uri`). */
  jwksUrl?: string
  /** A fixed key set instead of `jwksUrl` (keys you manage yourself). */
  jwks?: JSONWebKeySet
  /**
   * Scopes any access needs: a token without all of them is answered 403 `insufficient_scope`;
   * published as `scopes_supported` and named in the 401 challenge.
   */
  scopes?: string[]
  /** Accepted signature algorithms (default RS256, ES256, PS256, EdDSA). */
  algorithms?: string[]
  /**
   * The JWT `typ` header your issuer sets on access tokens, required when given: `at+jwt` for an
   * RFC 9068 issuer (§4: the resource server checks it). By default a token without `typ`, with
   * `JWT` or with `at+jwt` passes, and any other type (an ID-JAG, a logout or DPoP token the same
   * issuer signed) is refused, so a JWT of another kind is never taken as an access token.
   */
  typ?: string
  /** Leeway for `exp` and `nbf`, in seconds (default 5). */
  clockToleranceSeconds?: number
  /** A human-readable name in the metadata (`resource_name`). */
  resourceName?: string
  /** How long fetched keys are trusted before the JWKS is fetched again (default 10 minutes). */
  jwksCacheMaxAgeMs?: number
  /**
   * After a fetch, the least time before a token naming an unknown key may cause another one
   * (default 30 s): a flood of made-up key ids cannot turn into a flood of JWKS fetches.
   */
  jwksCooldownMs?: number
}

const DEFAULT_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA']
/** The `typ` values taken as access tokens when the issuer's is not configured (RFC 9068 §4 or a plain JWT). */
const ACCESS_TOKEN_TYPES = new Set([undefined, 'jwt', 'at+jwt'])

/** A `typ` as RFC 7515 §4.1.9 compares it: case-insensitive, `application/` optional. */
const mediaType = (typ: string | undefined) => typ?.toLowerCase().replace(/^application\//, '')

function checkType(typ: string | undefined, required: string | undefined, payload: JWTPayload): void {
  const given = mediaType(typ)
  if (required === undefined ? ACCESS_TOKEN_TYPES.has(given) : given === mediaType(required)) return
  throw new errors.JWTClaimValidationFailed(`unexpected "typ" JWT header value ${JSON.stringify(typ)}`, payload, 'typ')
}
/**
 * A JOSE failure that means "this token is not good here" (401), not "the issuer's keys could
 * not be fetched" (a timeout, a broken JWKS, a network error: 500). Checked in a function, not a
 * module-level list, so a Worker that never verifies JWTs bundles none of jose.
 */
function isTokenError(error: unknown): boolean {
  return error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
}

/**
 * The RFC 9728 §3.1 metadata URL of a resource: the well-known segment goes before its path.
 *
 * @example
 * metadataUrlOf('https://mcp.example.com/mcp') // 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'
 */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource)
  const path = url.pathname === '/' ? '' : url.pathname
  return `${url.origin}/.well-known/oauth-protected-resource${path}`
}

export interface JwtResourceServer<Env> extends ResourceServer<Env> {
  /** The RFC 9728 document of this resource. */
  metadata(env: Env): Record<string, unknown>
}

/** The bearer token of a request (RFC 6750 §2.1), or the 401 that a missing or malformed one gets. */
export function bearerOf(request: Request): string {
  const header = request.headers.get('authorization')
  if (header === null) throw new AuthChallenge('Unauthorized: a bearer token is required')
  const token = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header)?.[1]
  if (!token) throw new AuthChallenge('Unauthorized: malformed Authorization header', 'invalid_request')
  return token
}

/** The RFC 9728 document of a resource whose tokens `issuer` issues. */
export function resourceMetadata(options: {
  resource: string
  issuer: string
  scopes?: string[] | undefined
  resourceName?: string | undefined
}): Record<string, unknown> {
  return {
    resource: options.resource,
    authorization_servers: [options.issuer],
    bearer_methods_supported: ['header'],
    ...(options.scopes?.length ? { scopes_supported: options.scopes } : {}),
    ...(options.resourceName ? { resource_name: options.resourceName } : {}),
  }
}

/** What a resource server's 401 and 403 answers name: its metadata document and the scopes every call needs. */
export function challengeOf(options: { resource: string; scopes?: string[] | undefined }) {
  return { resourceMetadataUrl: metadataUrlOf(options.resource), scopes: options.scopes ?? [] }
}

/**
 * A resource server's state per env object (per isolate in a Worker), made once by `make` from
 * the options `config` gives for that env. Options that cannot work (`check` says why) are logged
 * once, and every request then gets a 500 naming them.
 */
export function perEnv<Env, Options, Built extends object>(
  config: Options | ((env: Env) => Options),
  check: (options: Options) => string | undefined,
  make: (options: Options) => Built,
): (env: Env) => Built {
  const built = new WeakMap<object, Built | Error>()
  return (env) => {
    const key = (env ?? built) as object
    let found = built.get(key)
    if (!found) {
      const options = typeof config === 'function' ? (config as (env: Env) => Options)(env) : config
      const wrong = check(options)
      if (wrong) libraryLog.error('server misconfigured', { error: wrong })
      found = wrong ? new Error(wrong) : make(options)
      built.set(key, found)
    }
    if (found instanceof Error) throw new McpError('misconfigured', `Server misconfigured: ${found.message}`)
    return found
  }
}

/** Why the key options cannot work, or `undefined`: keys given inline, or fetched over https (http only on loopback). */
function jwksMisconfiguration(options: JwtResourceServerOptions): string | undefined {
  if (options.jwks) return undefined
  if (!options.jwksUrl) return "jwtResourceServer: set jwksUrl (the issuer's jwks_uri) or jwks"
  if (!URL.canParse(options.jwksUrl) || !isSecureUrl(new URL(options.jwksUrl))) {
    // Keys fetched in the clear could be swapped on the way, and every token signed with them accepted.
    return 'jwtResourceServer: jwksUrl must be an https URL (http only on 127.0.0.1, localhost or [::1])'
  }
  return undefined
}

function verificationKeys(options: JwtResourceServerOptions): JWTVerifyGetKey {
  if (options.jwks) return createLocalJWKSet(options.jwks)
  return createRemoteJWKSet(new URL(options.jwksUrl as string), {
    cacheMaxAge: options.jwksCacheMaxAgeMs ?? 10 * 60 * 1000,
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
  })
}

/**
 * @example
 * const resourceServer = jwtResourceServer<Env>((env) => ({
 *   resource: 'https://mcp.example.com/mcp', issuer: env.OAUTH_ISSUER, jwksUrl: env.OAUTH_JWKS_URL, scopes: ['mcp'],
 * }))
 * app.route('/', protectedResourceMetadata(resourceServer))
 * app.route('/mcp', mcp(server, { resourceServer }))
 */
export function jwtResourceServer<Env>(
  config: JwtResourceServerOptions | ((env: Env) => JwtResourceServerOptions),
): JwtResourceServer<Env> {
  // One verifier per env object (per isolate in a Worker): its JWKS cache lives as long as it.
  const configFor = perEnv(config, jwksMisconfiguration, (options) => ({
    options,
    keys: verificationKeys(options),
    challenge: challengeOf(options),
  }))

  return {
    async authenticate(request, env): Promise<Principal> {
      const { options, keys } = configFor(env)
      const token = bearerOf(request)
      try {
        const { payload, protectedHeader } = await jwtVerify(token, keys, {
          issuer: options.issuer,
          audience: options.resource,
          algorithms: options.algorithms ?? DEFAULT_ALGORITHMS,
          clockTolerance: options.clockToleranceSeconds ?? 5,
          requiredClaims: ['exp', 'sub'],
        })
        checkType(protectedHeader.typ, options.typ, payload)
        const principal = principalFromClaims(payload)
        if (!principal) throw new errors.JWTClaimValidationFailed('"sub" claim must be a non-empty string', payload, 'sub')
        return principal
      } catch (error) {
        if (isTokenError(error)) {
          libraryLog.warn('bearer token refused', { reason: (error as Error).message })
          throw new AuthChallenge('Unauthorized: invalid token', 'invalid_token')
        }
        libraryLog.error('token verification failed (is the JWKS reachable?)', errorFields(error))
        throw new McpError('misconfigured')
      }
    },
    challenge: (env) => configFor(env).challenge,
    metadata(env) {
      return resourceMetadata(configFor(env).options)
    },
  }
}

/**
 * The RFC 9728 well-known route of a resource server (`jwtResourceServer`,
 * `introspectionResourceServer`, or anything with `metadata(env)`), to mount at the app root.
 * Public and readable from any origin (clients fetch it before they have a token). A path that is
 * not this resource's goes on to the next route, so several resources' routes can be mounted.
 *
 * @example
 * app.route('/', protectedResourceMetadata(resourceServer))
 */
export function protectedResourceMetadata<Bindings extends object>(resourceServer: {
  metadata(env: Bindings): Record<string, unknown>
}) {
  const app = new Hono<{ Bindings: Bindings }>()
  app.get('/.well-known/oauth-protected-resource/*', (c, next) => {
    const document = resourceServer.metadata(c.env)
    if (new URL(metadataUrlOf(document.resource as string)).pathname !== c.req.path) return next()
    return c.json(document, 200, { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' })
  })
  return app
}
