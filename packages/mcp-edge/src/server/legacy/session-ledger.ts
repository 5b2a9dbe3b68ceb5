/**
 * What a 2025-era session's sealed id cannot carry, because it changes after `initialize`: that
 * the session ended (DELETE, or every session of a principal revoked), the level
 * `logging/setLevel` chose, and the resources it subscribed to (`resources/subscribe`). A `SessionLedger` keeps those facts where every isolate reads them
 * (on Cloudflare, the `McpSessionLedger` Durable Object); `SessionFactsCache` keeps each isolate's
 * reads for `SESSION_FACTS_TTL_MS`, so a busy session costs about one ledger read per isolate per
 * 400 ms (requests that miss at the same moment each read) and every other request a map lookup.
 *
 * An open GET stream keeps its own read instead (stream-facts.ts): changes made through the lane
 * are announced on the event hub, and the stream reads again when it hears one.
 *
 * The guarantee, by construction: a change made through this isolate is seen here at once (written
 * through, with the facts the ledger answered after the write, so a level set while the session
 * was ended never revives it); elsewhere, a cached read is used only while it is younger than
 * 400 ms counted from when the read (or write) *started*. A read started after the change saw it,
 * so any isolate sees a revocation within 400 ms of its commit, and of the DELETE's answer, which
 * follows the commit.
 */
import type { LogLevel } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { libraryLog } from '../telemetry/log.ts'
import type { LegacySession } from './session.ts'

/** How long a read of a session's facts is trusted in one isolate. */
export const SESSION_FACTS_TTL_MS = 400
/** Sessions whose facts one isolate keeps (the oldest read is dropped first). */
const MAX_CACHED_SESSIONS = 4096
/** Resources one session may subscribe to at once. */
export const MAX_SESSION_SUBSCRIPTIONS = 64
/** The longest URI a session may subscribe to (characters). */
export const MAX_SUBSCRIBED_URI = 2048

/** What the ledger knows of a session beyond its sealed id. */
export interface SessionFacts {
  /** Ended by DELETE, or minted before its principal's sessions were revoked. */
  revoked: boolean
  /** Its `logging/setLevel`, if it sent one. */
  logLevel?: LogLevel | undefined
  /** The URIs it subscribed to (`resources/subscribe`), when any. */
  subscriptions?: readonly string[] | undefined
  /** Its GET stream, the newest opened on any isolate (an older one sends nothing more). */
  stream?: string | undefined
}

/** A session as the ledger finds it: by its nonce, under its principal, within its life. */
export interface SessionKey {
  nonce: string
  principal: string | null
  /** When its id was minted (a principal's revocation ends the sessions minted before it). */
  issuedAt: number
  /** When its id stops opening; the ledger forgets the session then. */
  expiresAt: number
}

/** Where sessions' changing facts live, shared by every isolate. */
export interface SessionLedger {
  read(key: SessionKey): Promise<SessionFacts>
  /** Keep the session's level; answers its facts as they are after the write (an ended session stays ended). */
  setLogLevel(key: SessionKey, level: LogLevel): Promise<SessionFacts>
  /**
   * Subscribe the session to `uri`, or unsubscribe it; answers its facts after the write. A
   * subscription past `MAX_SESSION_SUBSCRIPTIONS` is not kept (its URI is then missing).
   */
  subscribe(key: SessionKey, uri: string, subscribed: boolean): Promise<SessionFacts>
  /** Record `stream` as the session's GET stream (replacing any other); answers its facts after. */
  openStream(key: SessionKey, stream: string): Promise<SessionFacts>
  /**
   * Optional: whether the session was ended by its principal's revocation (`revokePrincipal`), as
   * cheaply as a ledger can tell (`durableSessions`: from its per-isolate cache of the principal's
   * cut-off, 400 ms, shared by every session of the principal). An open GET stream asks it for each
   * event instead of reading the session's facts (stream-facts.ts); a ledger without it has its
   * facts read every `SESSION_FACTS_TTL_MS` by each open stream.
   */
  revokedByPrincipal?(key: SessionKey): boolean | Promise<boolean>
  /** End one session: from now on its id gets 404. */
  revoke(key: SessionKey): Promise<void>
  /**
   * End every session `principal` holds now (those minted later are not affected), for example
   * when its grant is revoked. `ttlMs`: the lane's `sessionTtlMs`, if you changed it (default 24 h).
   */
  revokePrincipal(principal: string, options?: { ttlMs?: number }): Promise<void>
}

interface Cached {
  facts: SessionFacts
  /** When the read (or write) began: the facts hold until then + the TTL. */
  readAt: number
}

/** One isolate's recent reads of sessions' facts (module header). */
export class SessionFactsCache {
  readonly #entries = new Map<string, Cached>()
  readonly #now: () => number

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  /**
   * The session's facts: at once from a fresh read, else a ledger read of this request's own (a
   * read is never shared between requests: Workers tie a pending call to the request that made
   * it, and another request must not wait on it), which then serves the others.
   */
  get(ledger: SessionLedger, key: SessionKey): SessionFacts | Promise<SessionFacts> {
    const now = this.#now()
    const cached = this.#entries.get(key.nonce)
    if (cached && now - cached.readAt < SESSION_FACTS_TTL_MS) return cached.facts
    return ledger.read(key).then((facts) => {
      this.put(key.nonce, facts, now)
      return facts
    })
  }

  /**
   * What this isolate learned, by a read or a write, trusted from `readAt` (when it began): kept
   * unless what is cached began later, and never replacing an end this isolate knows of (a
   * session does not come back).
   */
  put(nonce: string, facts: SessionFacts, readAt = this.#now()): void {
    const known = this.#entries.get(nonce)
    if (known?.facts.revoked && !facts.revoked) return
    if (known && known.readAt > readAt && !facts.revoked) return
    this.#set(nonce, { facts, readAt })
  }

  #set(nonce: string, entry: Cached): void {
    this.#entries.delete(nonce)
    if (this.#entries.size >= MAX_CACHED_SESSIONS) this.#entries.delete(this.#entries.keys().next().value as string)
    this.#entries.set(nonce, entry)
  }
}

/** A session's key in the ledger. */
export const sessionKey = (session: LegacySession): SessionKey => ({
  nonce: session.nonce,
  principal: session.principal,
  issuedAt: session.issuedAt,
  expiresAt: session.expiresAt,
})

/** A ledger call, or 503 when the ledger cannot be reached: nothing is served on a session that may have ended. */
export async function reachable<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (error) {
    libraryLog.error('session ledger unreachable', { error: error instanceof Error ? error.message : String(error) })
    throw new McpError('sessionsUnavailable')
  }
}
