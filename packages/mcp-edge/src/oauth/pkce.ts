/**
 * PKCE (RFC 7636) and the random values of a sign-in: the verifier, the state and the nonce are
 * each 32 random bytes from Web Crypto, base64url (43 characters, the unreserved set RFC 7636 §4.1
 * asks for); the challenge is S256 only (`plain` would hand the verifier to the front channel).
 */
import { encodeBase64Url } from '../protocol/base64.ts'

/**
 * 32 random bytes, base64url: a PKCE verifier, a state or a nonce.
 *
 * @example
 * const verifier = randomToken() // 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
 */
export function randomToken(): string {
  return encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)))
}

/**
 * The S256 code challenge of a verifier: base64url(SHA-256(ASCII(verifier))).
 *
 * @example
 * await s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk') // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 */
export async function s256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return encodeBase64Url(new Uint8Array(digest))
}
