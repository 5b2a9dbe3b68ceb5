/**
 * The 2025-era session, carried by the client instead of stored: `initialize` mints a sealed
 * `Mcp-Session-Id` (same key ring and codec as `requestState`, its own purpose prefix) holding what
 * the handshake negotiated: the revision, the client's capabilities and info, and the principal,
 * bound to the server's identity (name and endpoint) like sealed states.
 * Any isolate can open it, so a later `tools/call` knows that this client declared elicitation
 * without a lookup. Opened ids are cached per isolate and key ring (a hit costs no crypto), bounded by count and
 * by characters, and only once they passed the server and principal check, so a caller fills the
 * cache with its own sessions at most; expiry and the principal are checked on every use.
 *
 * What it cannot do is change after `initialize`: that a session ended (DELETE), the level
 * `logging/setLevel` chose and its subscriptions live in a `SessionLedger` (session-ledger.ts),
 * when one is configured.
 */
import type { LegacyVersion } from '../../protocol/constants.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import { isLegacyVersion } from '../../protocol/legacy.ts'
import type { ClientCapabilities, Implementation } from '../../protocol/types.ts'
import { encodeBase64Url } from '../../protocol/base64.ts'
import type { RequestStateCodec } from '../request-state.ts'
import { libraryLog } from '../telemetry/log.ts'
import { Attached } from '../attached.ts'

/** How long a minted session id opens (default 24 hours); after that the client initializes again. */
export const DEFAULT_SESSION_TTL_MS = 24 * 60 * 60 * 1000
const CACHE_SIZE = 1024
/**
 * The cache is bounded by size too: a session id may be up to 256 KiB (MAX_STATE_CHARS: the
 * client's capabilities travel in it), so 1,024 of them could hold 256 MiB, twice an isolate's
 * memory. Its ids' characters (about what the opened session takes again) stay under this sum, and
 * an id over CACHE_ENTRY_CHARS is verified on every use instead of cached.
 */
export const CACHE_CHARS = 4 * 1024 * 1024
export const CACHE_ENTRY_CHARS = 64 * 1024

export interface LegacySession {
  /** The server that minted it (name and endpoint, as sealed states bind it). */
  server: string
  protocolVersion: LegacyVersion
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation
  principal: string | null
  /** Unique per `initialize`: scopes request ids (for `notifications/cancelled`) to this client. */
  nonce: string
  /** When it was minted (ids minted before `iat` was sealed: their expiry less the default life). */
  issuedAt: number
  expiresAt: number
}

export interface SessionOptions {
  ttlMs?: number
  now?: () => number
}

function readSession(claims: Record<string, unknown>): LegacySession | undefined {
  const { srv, v, c, i, p, n, iat, exp } = claims
  if (typeof srv !== 'string' || !isLegacyVersion(v) || !isObject(c) || typeof n !== 'string' || typeof exp !== 'number') {
    return undefined
  }
  if (p !== null && typeof p !== 'string') return undefined
  const session: LegacySession = {
    server: srv,
    protocolVersion: v,
    clientCapabilities: c as ClientCapabilities,
    principal: p,
    nonce: n,
    issuedAt: typeof iat === 'number' ? iat : exp - DEFAULT_SESSION_TTL_MS,
    expiresAt: exp,
  }
  if (isObject(i)) session.clientInfo = i as unknown as Implementation
  return session
}

/** Opened ids and their characters' sum (the cache's two bounds). */
interface OpenedIds {
  readonly sessions: Map<string, LegacySession>
  chars: number
}

/**
 * Opened ids by the key ring that opened them, shared by every `LegacySessions` of those keys in
 * the isolate: what a token opens to depends on the keys alone, and a handler built per request
 * (an SDK server made in `fetch`) would otherwise verify each id again on every request.
 */
const openedByKeys = new Attached<OpenedIds>('mcp-edge.openedSessions')

function openedWith(codec: RequestStateCodec): OpenedIds {
  let opened = openedByKeys.get(codec.keyRing)
  if (!opened) {
    opened = { sessions: new Map(), chars: 0 }
    openedByKeys.set(codec.keyRing, opened)
  }
  return opened
}

export class LegacySessions {
  readonly #codec: RequestStateCodec
  readonly #ttlMs: number
  readonly #now: () => number
  readonly #opened: OpenedIds

  constructor(codec: RequestStateCodec, options: SessionOptions = {}) {
    this.#codec = codec
    this.#ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS
    this.#now = options.now ?? Date.now
    this.#opened = openedWith(codec)
  }

  /**
   * Seal what `initialize` negotiated into a session id.
   *
   * @example
   * const id = await sessions.mint({ server: 'weather /mcp', protocolVersion: '2025-11-25', clientCapabilities: {}, principal: null })
   */
  mint(
    init: Pick<LegacySession, 'server' | 'protocolVersion' | 'clientCapabilities' | 'clientInfo' | 'principal'>,
  ): Promise<string> {
    const info = init.clientInfo ? { name: init.clientInfo.name, version: init.clientInfo.version } : undefined
    const now = this.#now()
    return this.#codec.sealClaims('s', {
      srv: init.server,
      v: init.protocolVersion,
      c: init.clientCapabilities,
      ...(info ? { i: info } : {}),
      p: init.principal,
      n: encodeBase64Url(crypto.getRandomValues(new Uint8Array(12))),
      iat: now,
      exp: now + this.#ttlMs,
    })
  }

  /**
   * The session behind `token` if it is authentic, current, minted by `server` (any server when
   * undefined: McpAgent's Worker, which routes by it) and `principal`'s; else `undefined`. A cached
   * id answers at once (no promise); one seen first is verified.
   */
  open(
    token: string,
    server: string | undefined,
    principal: string | null,
  ): LegacySession | undefined | Promise<LegacySession | undefined> {
    const session = this.#opened.sessions.get(token)
    return session ? this.#current(session, server, principal) : this.#verify(token, server, principal)
  }

  async #verify(token: string, server: string | undefined, principal: string | null): Promise<LegacySession | undefined> {
    const claims = await this.#codec.openClaims('s', token)
    const session = typeof claims === 'string' ? undefined : readSession(claims)
    if (!session) {
      libraryLog.warn('session id rejected', { reason: typeof claims === 'string' ? claims : 'wrong shape' })
      return undefined
    }
    const current = this.#current(session, server, principal)
    if (current) this.#remember(token, session)
    return current
  }

  /** Cache an opened id, dropping the oldest ones past the count or the size bound. */
  #remember(token: string, session: LegacySession): void {
    const opened = this.#opened
    if (token.length > CACHE_ENTRY_CHARS || opened.sessions.has(token)) return
    while (opened.sessions.size > 0 && (opened.sessions.size >= CACHE_SIZE || opened.chars + token.length > CACHE_CHARS)) {
      const oldest = opened.sessions.keys().next().value as string
      opened.sessions.delete(oldest)
      opened.chars -= oldest.length
    }
    opened.sessions.set(token, session)
    opened.chars += token.length
  }

  #current(session: LegacySession, server: string | undefined, principal: string | null): LegacySession | undefined {
    const other = server !== undefined && session.server !== server
    return session.expiresAt <= this.#now() || other || session.principal !== principal ? undefined : session
  }
}
