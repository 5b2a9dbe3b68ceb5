/**
 * ID token validation (OIDC Core §3.1.3.7) with `jose` on Web Crypto: signature against the
 * issuer's JWKS with an asymmetric algorithm only (never `none`, never HS* keyed with the client
 * secret), `iss` exactly the issuer, `aud` containing the client id (and `azp` equal to it when
 * present, required when there are several audiences), `exp`/`iat` with 5 s of clock tolerance,
 * and the nonce of this sign-in. The JWKS is fetched by this module and cached per isolate, and
 * fetched again when a token names a key it does not hold (key rotation), at most every 30 s.
 */
import { createLocalJWKSet, errors, jwtVerify } from 'jose'
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose'
import { UpstreamError } from './upstream.ts'
import { readJsonObject, upstreamFetch } from './upstream-fetch.ts'

/** Asymmetric algorithms accepted unless the caller narrows them. */
export const DEFAULT_ID_TOKEN_ALGORITHMS = ['RS256', 'ES256', 'PS256', 'EdDSA']
export const CLOCK_TOLERANCE_SECONDS = 5
const JWKS_TTL_MS = 60 * 60 * 1000
const JWKS_REFETCH_COOLDOWN_MS = 30_000

const keySets = new Map<string, { keys: JWTVerifyGetKey; fetchedAt: number }>()

async function keySet(jwksUri: string, fresh: boolean): Promise<{ keys: JWTVerifyGetKey; fetchedAt: number }> {
  const cached = keySets.get(jwksUri)
  if (cached !== undefined && !fresh && cached.fetchedAt + JWKS_TTL_MS > Date.now()) return cached
  const response = await upstreamFetch(jwksUri, { headers: { accept: 'application/json' } }, 'JWKS')
  if (!response.ok) {
    await response.body?.cancel()
    throw new UpstreamError('discovery_failed', `the provider's JWKS answered ${response.status}`)
  }
  const document = await readJsonObject(response, 'discovery_failed', 'JWKS')
  let keys: JWTVerifyGetKey
  try {
    keys = createLocalJWKSet(document as unknown as JSONWebKeySet)
  } catch {
    throw new UpstreamError('discovery_failed', "the provider's JWKS is not a JSON Web Key Set")
  }
  const set = { keys, fetchedAt: Date.now() }
  keySets.set(jwksUri, set)
  return set
}

/**
 * The algorithms to accept: the allow-list without `none` and HS*, narrowed to what the provider
 * says it signs ID tokens with. An empty result is a configuration problem, reported as such.
 */
export function idTokenAlgorithms(allowed: readonly string[], supported: readonly string[] | undefined): string[] {
  const safe = allowed.filter((alg) => alg !== 'none' && !alg.startsWith('HS'))
  const usable = supported === undefined ? safe : safe.filter((alg) => supported.includes(alg))
  if (usable.length === 0) {
    throw new UpstreamError(
      'discovery_failed',
      `the provider signs ID tokens with none of ${safe.join(', ') || '(no algorithm)'}`,
    )
  }
  return usable
}

export interface IdTokenCheck {
  issuer: string
  clientId: string
  jwksUri: string
  algorithms: string[]
  nonce: string
}

function refused(message: string): UpstreamError {
  return new UpstreamError('id_token_invalid', `the ID token was refused: ${message}`)
}

/**
 * The ID token's claims once every check passed; `id_token_invalid` or `nonce_mismatch` otherwise.
 *
 * @example
 * const claims = await verifyIdToken(body.id_token, { issuer, clientId, jwksUri, algorithms, nonce })
 */
export async function verifyIdToken(idToken: string, check: IdTokenCheck): Promise<JWTPayload> {
  const options = {
    issuer: check.issuer,
    audience: check.clientId,
    algorithms: check.algorithms,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
  }
  let payload: JWTPayload
  try {
    let set = await keySet(check.jwksUri, false)
    try {
      payload = (await jwtVerify(idToken, set.keys, options)).payload
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || set.fetchedAt + JWKS_REFETCH_COOLDOWN_MS > Date.now()) throw error
      set = await keySet(check.jwksUri, true)
      payload = (await jwtVerify(idToken, set.keys, options)).payload
    }
  } catch (error) {
    // jose's messages are fixed strings (no claim values), so they are safe to pass on.
    if (error instanceof errors.JOSEError) throw refused(error.message)
    throw error
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') throw refused('"sub" is not a non-empty string')
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if ((audiences.length > 1 || payload.azp !== undefined) && payload.azp !== check.clientId) {
    throw refused('"azp" is not this client')
  }
  if (payload.nonce !== check.nonce) {
    throw new UpstreamError('nonce_mismatch', 'the ID token carries another nonce than this sign-in')
  }
  return payload
}
