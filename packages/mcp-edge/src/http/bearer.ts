/**
 * Authentication by one shared secret: the bearer token in a Worker secret. The simplest thing
 * that is safe to deploy (the templates use it); an identity per user needs OAuth instead
 * (`jwtResourceServer`, or an authorization server in front of the Worker).
 */
import { ConfigurationError } from '../server/errors.ts'
import type { Principal } from '../server/types.ts'

const encoder = new TextEncoder()
/** The shortest token accepted: `openssl rand -hex 16` gives 32 characters, `-base64 32` gives 44. */
export const MIN_BEARER_TOKEN_CHARS = 32

/**
 * `mcp()`'s `authenticate` for one shared bearer token: a request with
 * `Authorization: Bearer <token>` is the principal `bearer` (no scopes); any other is 401. Given no
 * token (the secret is unset or empty) it returns `undefined`, so `mcp()` has no authentication
 * configured and fails closed: local requests only. A token shorter than
 * `MIN_BEARER_TOKEN_CHARS` is a configuration error at start-up (a guessable secret is no lock).
 * The comparison takes the same time whatever the presented token (both sides are hashed first).
 *
 * @example
 * import { env } from 'cloudflare:workers'
 * app.route('/mcp', mcp(server, { authenticate: bearerToken(env.MCP_BEARER_TOKEN) }))
 */
export function bearerToken(
  token: string | undefined,
  name = 'MCP_BEARER_TOKEN',
): ((request: Request) => Promise<Principal | undefined>) | undefined {
  if (!token) return undefined
  if (token.length < MIN_BEARER_TOKEN_CHARS) {
    throw new ConfigurationError(
      `${name} has ${token.length} characters; at least ${MIN_BEARER_TOKEN_CHARS} are required. ` +
        `Generate one with: openssl rand -base64 32 | npx wrangler secret put ${name} ` +
        `(for local development put ${name}="..." in .dev.vars)`,
    )
  }
  const expected = crypto.subtle.digest('SHA-256', encoder.encode(token))
  return async (request) => {
    const presented = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1] ?? ''
    const [a, b] = await Promise.all([crypto.subtle.digest('SHA-256', encoder.encode(presented)), expected])
    return timingSafeEqual(a, b) ? { subject: 'bearer' } : undefined
  }
}

/** Equal bytes, compared without an early exit (Workers have `crypto.subtle.timingSafeEqual`; Node does not). */
function timingSafeEqual(a: ArrayBuffer, b: ArrayBuffer): boolean {
  const x = new Uint8Array(a)
  const y = new Uint8Array(b)
  let diff = x.length ^ y.length
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}
