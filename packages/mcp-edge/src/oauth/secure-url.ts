/**
 * The transport rule for every upstream URL (issuer, endpoints, API origin): https, or plain http
 * on a loopback host for local development. Tokens and client secrets travel to these URLs, so
 * nothing else is accepted; `*.localhost` names are not loopback here (they need not resolve so).
 */

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** Whether `url` may carry credentials: https, or http on 127.0.0.1, localhost or [::1]. */
export function isSecureUrl(url: URL): boolean {
  if (url.username !== '' || url.password !== '') return false
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(url.hostname))
}

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
