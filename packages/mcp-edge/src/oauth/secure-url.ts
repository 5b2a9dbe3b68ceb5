/**
 * The transport rule for every upstream URL (issuer, endpoints, API origin): https, or plain http
 * on a loopback host for local development (protocol/secure-url.ts). Tokens and client secrets
 * travel to these URLs, so nothing else is accepted.
 */
import { isSecureUrl } from '../protocol/secure-url.ts'

/**
 * `value` parsed, or a TypeError naming the setting and how to fix it.
 *
 * @example
 * secureUrl(env.OIDC_ISSUER, 'OIDC_ISSUER') // URL, or TypeError: OIDC_ISSUER must be an https URL …
 */
export function secureUrl(value: string, name: string): URL {
  let url: URL | undefined
  try {
    url = new URL(value)
  } catch {
    url = undefined
  }
  if (url === undefined || !isSecureUrl(url)) {
    throw new TypeError(
      `${name} must be an https URL (or http on 127.0.0.1, localhost or [::1] for local development), got ${JSON.stringify(value)}`,
    )
  }
  return url
}
