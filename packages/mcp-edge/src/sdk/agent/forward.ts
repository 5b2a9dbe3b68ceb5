/**
 * The caller McpAgent's Worker hands its Durable Object (`serve` → the object's `fetch`), in a
 * header only the Worker can make: MACed with a key derived from `MCP_STATE_KEYS` (which McpAgent
 * needs anyway) and short-lived. A request that reaches the object another way (agents'
 * `routeAgentRequest` maps every Durable Object binding to a URL) cannot choose its principal,
 * props or grant: the object refuses a header it cannot verify. And the session ids the Worker
 * routes by, which it opens before it routes (`sessionOpens`).
 */
import { decodeBase64Url, encodeBase64Url } from '../../protocol/base64.ts'
import { LegacySessions } from '../../server/legacy/session.ts'
import { createKeyRing, RequestStateCodec } from '../../server/request-state.ts'

const encoder = new TextEncoder()
const LABEL = encoder.encode('mcp-edge/agent-forward/v1')
/** How long a header is good for: the hop from the Worker to its object takes milliseconds. */
const LIFETIME_MS = 60_000

/** One key per ring key, derived from it as request-state's AES key is, so one secret never MACs two kinds of text. */
const derived = new WeakMap<Promise<CryptoKey>, Promise<CryptoKey>>()

function forwardKey(hmac: Promise<CryptoKey>): Promise<CryptoKey> {
  let key = derived.get(hmac)
  if (!key) {
    key = hmac
      .then((root) => crypto.subtle.sign('HMAC', root, LABEL))
      .then((raw) => crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']))
    derived.set(hmac, key)
  }
  return key
}

/**
 * `value` as a header the object can verify: `<kid>.<mac>.<body>`. Throws the configuration error
 * of a missing or malformed `MCP_STATE_KEYS`.
 *
 * @example
 * headers.set(FORWARDED, await sealForwarded(env.MCP_STATE_KEYS, { principal, props }))
 */
export async function sealForwarded(secret: string | undefined, value: object): Promise<string> {
  const [newest] = createKeyRing(secret).keys
  if (!newest) throw new Error('MCP_STATE_KEYS holds no keys')
  const body = encoder.encode(JSON.stringify({ ...value, exp: Date.now() + LIFETIME_MS }))
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', await forwardKey(newest.hmac), body))
  return `${newest.kid}.${encodeBase64Url(mac)}.${encodeBase64Url(body)}`
}

/** The value of a header `sealForwarded` made and that has not expired, else undefined. */
export async function openForwarded<T>(secret: string | undefined, header: string): Promise<T | undefined> {
  const [kid, mac, body] = header.split('.')
  const key = createKeyRing(secret).keys.find((candidate) => candidate.kid === kid)
  const macBytes = decodeBase64Url(mac ?? '')
  const bodyBytes = decodeBase64Url(body ?? '')
  if (!key || !macBytes || !bodyBytes) return undefined
  if (!(await crypto.subtle.verify('HMAC', await forwardKey(key.hmac), macBytes, bodyBytes))) return undefined
  const value = JSON.parse(new TextDecoder().decode(bodyBytes)) as T & { exp?: number }
  return typeof value.exp === 'number' && value.exp > Date.now() ? value : undefined
}

/** The Worker's opener of 2025 session ids, for the `MCP_STATE_KEYS` it was made with. */
let opener: { secret: string; sessions: LegacySessions } | undefined

/**
 * Whether a 2025 session id opens with `secret` for `principal` (authentic, current, theirs),
 * checked by McpAgent's Worker before it routes a request by the id: a made-up id, or another
 * caller's, reaches no object (which would be made, and its `init()` run, only to answer 404). The
 * object checks the rest (which server minted it). Opened ids are cached, as the object caches them.
 *
 * @example
 * if (!(await sessionOpens(env.MCP_STATE_KEYS, sessionId, subjectOf(principal)))) return notFound()
 */
export function sessionOpens(secret: string, token: string, principal: string | null): boolean | Promise<boolean> {
  if (opener?.secret !== secret) opener = { secret, sessions: new LegacySessions(new RequestStateCodec(createKeyRing(secret))) }
  const opened = opener.sessions.open(token, undefined, principal)
  return opened instanceof Promise ? opened.then((session) => session !== undefined) : opened !== undefined
}
