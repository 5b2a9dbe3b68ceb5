/**
 * The transport rule for a URL that tokens, client secrets or signing keys travel over: https, or
 * plain http on a loopback host for local development. `*.localhost` names are not loopback here
 * (they need not resolve so). Used by the upstream sign-in (oauth/secure-url.ts) and by the
 * resource servers (a JWKS, an introspection endpoint).
 */

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** Whether `url` may carry credentials: https, or http on 127.0.0.1, localhost or [::1]. */
export function isSecureUrl(url: URL): boolean {
  if (url.username !== '' || url.password !== '') return false
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTNAMES.has(url.hostname))
}
