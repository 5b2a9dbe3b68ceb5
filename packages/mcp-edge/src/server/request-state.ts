/**
 * Sealed `requestState` (mrtr.mdx "Server Requirements" 3–4): the client echoes it, so it is
 * attacker-controlled input. Every blob is authenticated with HMAC-SHA-256 (or AES-GCM, which also
 * hides it) under a key from a ring, carries an issue time and a short expiry, and is bound to the
 * method, the target (tool, prompt or resource), a digest of the arguments, the principal and the
 * server's identity (name and endpoint).
 * Web Crypto only.
 *
 * Format: `1.<kid>.<payload b64url>.<mac b64url>` (HMAC) or `2.<kid>.<iv b64url>.<ct b64url>`
 * (AES-GCM). Seal with the newest key, verify with any key in the ring, so keys rotate without
 * breaking requests in flight. A rejection is always the same generic -32602; the reason is handed
 * to `onReject` for the logs and never returned.
 */
import { decodeBase64, decodeBase64Url, encodeBase64Url } from '../protocol/base64.ts'
import { McpError } from '../protocol/errors.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import { ConfigurationError } from './errors.ts'
import { libraryLog } from './telemetry/log.ts'

export const DEFAULT_STATE_TTL_MS = 5 * 60 * 1000
export const MIN_KEY_BYTES = 32
/** Larger blobs are refused before any crypto runs. */
export const MAX_STATE_CHARS = 256 * 1024
const KID = /^[A-Za-z0-9_-]{1,32}$/
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** What a sealed state is bound to; a retry must present the same values. */
export interface StateBinding {
  method: string
  target: string
  argsDigest: string
  principal: string | null
  /** The server's identity: its name and endpoint, never its version (a deploy keeps states valid). */
  server: string
}

/** What travels inside the seal besides the binding. */
export interface StateBody {
  /** The round the retry will be. */
  round: number
  /** Answers collected in earlier rounds, by input key. */
  answers: Record<string, unknown>
  /**
   * The keys this round asked for: the only `inputResponses` the retry may answer (mrtr.mdx: keys
   * the server did not ask for SHOULD be ignored, so a request cannot pre-answer a confirmation).
   * None when left out.
   */
  pending?: readonly string[] | undefined
  /** The handler's own state (`ctx.state`). */
  state: Record<string, unknown>
  /** The span of the round that sealed this state, as a W3C traceparent: the next round's span links to it. */
  trace?: string | undefined
}

export interface OpenedState extends StateBody {
  pending: readonly string[]
  /** Single-use nonce and expiry, for the redemption ledger. */
  nonce: string
  expiresAt: number
}

interface Payload {
  iat: number
  exp: number
  m: string
  t: string
  a: string
  p: string | null
  srv: string
  n: string
  r: number
  ans: Record<string, unknown>
  /** Pending input keys (absent in states sealed before they were recorded: then none). */
  q?: string[]
  s: Record<string, unknown>
  tp?: string
}

interface RingKey {
  readonly kid: string
  readonly hmac: Promise<CryptoKey>
  readonly aes: Promise<CryptoKey>
}

/** Keys, newest first. */
export interface KeyRing {
  readonly keys: readonly RingKey[]
}

/** Key rings already made in this isolate, by secret. */
const rings = new Map<string, KeyRing>()

const SETUP_HINT =
  'Generate one with: echo "k1:$(openssl rand -base64 32)" | npx wrangler secret put MCP_STATE_KEYS ' +
  '(for local development put the line MCP_STATE_KEYS="k1:..." in .dev.vars). ' +
  'To rotate, prepend a new key: "k2:<new>,k1:<old>".'

/**
 * Parse a key ring from a secret such as `"k2:<base64>,k1:<base64>"` (newest first). Throws a
 * configuration error that says how to fix it when the secret is missing, malformed or short.
 *
 * @example
 * const ring = createKeyRing(env.MCP_STATE_KEYS)
 */
export function createKeyRing(secret: string | undefined, name = 'MCP_STATE_KEYS'): KeyRing {
  if (secret === undefined || secret.trim() === '') throw new ConfigurationError(`${name} is not set. ${SETUP_HINT}`)
  // The same secret gives the same keys: imported once per isolate (the template reads it at
  // start-up to fail fast, and again for its services).
  const known = rings.get(secret)
  if (known) return known
  const keys: RingKey[] = []
  for (const entry of secret.split(/[,\s]+/).filter(Boolean)) {
    const colon = entry.indexOf(':')
    const kid = entry.slice(0, colon)
    const material = entry.slice(colon + 1)
    if (colon < 1 || !KID.test(kid))
      throw new ConfigurationError(`${name}: each key must look like "<kid>:<base64>". ${SETUP_HINT}`)
    if (keys.some((key) => key.kid === kid)) throw new ConfigurationError(`${name}: key id "${kid}" appears twice. ${SETUP_HINT}`)
    const bytes = decodeBase64(material) ?? decodeBase64Url(material)
    if (!bytes) throw new ConfigurationError(`${name}: key "${kid}" is not valid base64. ${SETUP_HINT}`)
    if (bytes.length < MIN_KEY_BYTES) {
      throw new ConfigurationError(
        `${name}: key "${kid}" has ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are required. ${SETUP_HINT}`,
      )
    }
    keys.push(importKey(kid, bytes))
  }
  if (keys.length === 0) throw new ConfigurationError(`${name} holds no keys. ${SETUP_HINT}`)
  const ring = { keys }
  rings.set(secret, ring)
  return ring
}

function importKey(kid: string, bytes: Uint8Array<ArrayBuffer>): RingKey {
  const hmac = crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
  let aes: Promise<CryptoKey> | undefined
  return {
    kid,
    hmac,
    // A separate AES key derived from the secret, so one secret never serves two algorithms;
    // derived when first used (states are sealed with AES-GCM only when `encrypt` is set).
    get aes() {
      aes ??= hmac
        .then((key) => crypto.subtle.sign('HMAC', key, encoder.encode('mcp-edge/requestState/aes-gcm/v1')))
        .then((raw) => crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']))
      return aes
    },
  }
}

export interface RequestStateOptions {
  /** Lifetime of a sealed state (default 5 minutes). */
  ttlMs?: number
  /** Encrypt with AES-GCM instead of only authenticating. */
  encrypt?: boolean
  /** Receives the reason a state was refused (default: a warning in the log). */
  onReject?: (reason: string) => void
  now?: () => number
}

export class RequestStateCodec {
  readonly #ring: KeyRing
  readonly #ttlMs: number
  readonly #encrypt: boolean
  readonly #onReject: (reason: string) => void
  readonly #now: () => number

  constructor(ring: KeyRing, options: RequestStateOptions = {}) {
    this.#ring = ring
    this.#ttlMs = options.ttlMs ?? DEFAULT_STATE_TTL_MS
    this.#encrypt = options.encrypt ?? false
    this.#onReject = options.onReject ?? ((reason) => libraryLog.warn('requestState rejected', { reason }))
    this.#now = options.now ?? Date.now
  }

  /** The keys it seals and opens with: what it opens depends on them alone (legacy/session.ts caches by them). */
  get keyRing(): KeyRing {
    return this.#ring
  }

  /** Seal a state for the next round with the newest key. */
  async seal(binding: StateBinding, body: StateBody): Promise<string> {
    const iat = this.#now()
    const payload: Payload = {
      iat,
      exp: iat + this.#ttlMs,
      m: binding.method,
      t: binding.target,
      a: binding.argsDigest,
      p: binding.principal,
      srv: binding.server,
      n: encodeBase64Url(crypto.getRandomValues(new Uint8Array(16))),
      r: body.round,
      ans: body.answers,
      q: [...(body.pending ?? [])],
      s: body.state,
    }
    if (body.trace !== undefined) payload.tp = body.trace
    const token = await this.#seal('', payload)
    // Said here, on the server, where it can be fixed: the client's retry would be refused as an
    // invalid requestState (`open`), a client error for what the handler kept.
    if (token.length > MAX_STATE_CHARS) {
      throw new McpError(
        'internalError',
        `Internal error: the requestState of the next round would be ${token.length} characters, more than the ${MAX_STATE_CHARS} a retry may carry: keep less in the round's state, or ask for less (answers are kept in it; docs/multi-round-trip.md)`,
      )
    }
    return token
  }

  /**
   * Seal any JSON claims for `purpose` (for example the 2025-era session id). The purpose is part
   * of what is authenticated, so a token minted for one purpose never opens as another, and a
   * requestState never opens as a session.
   *
   * @example
   * const token = await codec.sealClaims('s', { v: '2025-11-25', c: capabilities })
   */
  sealClaims(purpose: 's', claims: object): Promise<string> {
    return this.#seal(purpose, claims)
  }

  /** Open a token of `purpose`; a string is the reason it was refused (for the logs only). */
  async openClaims(purpose: 's', token: string): Promise<Record<string, unknown> | string> {
    const claims = await this.#verify(token, purpose)
    return isObject(claims) ? claims : typeof claims === 'string' ? claims : 'payload is not an object'
  }

  async #seal(purpose: string, payload: object): Promise<string> {
    const key = this.#ring.keys[0] as RingKey
    const json = encoder.encode(JSON.stringify(payload))
    if (this.#encrypt) {
      const iv = crypto.getRandomValues(new Uint8Array(12))
      const header = `${purpose}2.${key.kid}`
      const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(header) }, await key.aes, json)
      return `${header}.${encodeBase64Url(iv)}.${encodeBase64Url(new Uint8Array(ct))}`
    }
    const signed = `${purpose}1.${key.kid}.${encodeBase64Url(json)}`
    const mac = await crypto.subtle.sign('HMAC', await key.hmac, encoder.encode(signed))
    return `${signed}.${encodeBase64Url(new Uint8Array(mac))}`
  }

  /**
   * Verify a state against the binding of this retry. Any failure → -32602 "Invalid
   * requestState", with the reason reported to `onReject` only.
   */
  async open(token: unknown, binding: StateBinding): Promise<OpenedState> {
    const payload = await this.#verify(token, '')
    if (typeof payload === 'string') throw this.reject(payload)
    if (!isPayload(payload)) throw this.reject('payload has the wrong shape')
    const now = this.#now()
    if (payload.exp <= now) return this.#fail(`expired ${now - payload.exp} ms ago`)
    if (payload.iat > now + 60_000) return this.#fail('issued in the future')
    if (payload.m !== binding.method) return this.#fail(`minted for method ${payload.m}, used on ${binding.method}`)
    if (payload.t !== binding.target) return this.#fail(`minted for target ${payload.t}, used on ${binding.target}`)
    if (payload.a !== binding.argsDigest) return this.#fail('minted for different arguments')
    if (payload.p !== binding.principal) return this.#fail('minted for a different principal')
    if (payload.srv !== binding.server) return this.#fail(`minted by server ${payload.srv}, used on ${binding.server}`)
    const opened: OpenedState = {
      round: payload.r,
      answers: payload.ans,
      pending: Array.isArray(payload.q) ? payload.q.filter((key) => typeof key === 'string') : [],
      state: payload.s,
      nonce: payload.n,
      expiresAt: payload.exp,
    }
    if (typeof payload.tp === 'string') opened.trace = payload.tp
    return opened
  }

  /** The authenticated JSON inside a token of `purpose`, or the reason it was refused. */
  async #verify(token: unknown, purpose: string): Promise<unknown> {
    if (typeof token !== 'string') return 'not a string'
    if (token.length > MAX_STATE_CHARS) return 'too large'
    const parts = token.split('.')
    if (parts.length !== 4) return 'malformed'
    const [version, kid, first = '', second = ''] = parts
    const key = this.#ring.keys.find((candidate) => candidate.kid === kid)
    if (!key) return `unknown key id ${JSON.stringify(kid)}`
    let json: Uint8Array
    if (version === `${purpose}1`) {
      const mac = decodeBase64Url(second)
      const body = decodeBase64Url(first)
      if (!mac || !body) return 'malformed encoding'
      const ok = await crypto.subtle.verify('HMAC', await key.hmac, mac, encoder.encode(`${version}.${kid}.${first}`))
      if (!ok) return 'bad MAC'
      json = body
    } else if (version === `${purpose}2`) {
      const iv = decodeBase64Url(first)
      const ct = decodeBase64Url(second)
      if (!iv || !ct || iv.length !== 12) return 'malformed encoding'
      try {
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv, additionalData: encoder.encode(`${version}.${kid}`) },
          await key.aes,
          ct,
        )
        json = new Uint8Array(plain)
      } catch {
        return 'failed AES-GCM authentication'
      }
    } else return `unknown version ${JSON.stringify(version)}`
    let payload: unknown
    try {
      payload = JSON.parse(decoder.decode(json))
    } catch {
      return 'payload is not JSON'
    }
    return payload
  }

  /** The generic -32602 for a refused state; the reason goes to `onReject` only. */
  reject(reason: string): McpError {
    this.#onReject(reason)
    return new McpError('invalidParams', 'Invalid params: invalid requestState')
  }

  #fail(reason: string): never {
    throw this.reject(reason)
  }
}

/** The fields `open` uses as they are; the bound ones (`m`, `t`, `a`, `p`, `srv`) must equal the binding's. */
function isPayload(value: unknown): value is Payload {
  return (
    isObject(value) &&
    typeof value.iat === 'number' &&
    typeof value.exp === 'number' &&
    typeof value.n === 'string' &&
    typeof value.r === 'number' &&
    isObject(value.ans) &&
    isObject(value.s)
  )
}

/** JSON with object keys sorted, so equal arguments always digest the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** SHA-256 of the canonical JSON of `value`, base64url. */
export async function digestArguments(value: unknown): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(value ?? {})))
  return encodeBase64Url(new Uint8Array(hash))
}
