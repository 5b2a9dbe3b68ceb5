/**
 * What a 2025-era session's sealed id cannot carry, because it changes after `initialize`: that
 * the session ended (DELETE, or every session of a principal revoked), the level
 * `logging/setLevel` chose, and the resources it subscribed to (`resources/subscribe`). A `SessionLedger` keeps those facts where every isolate reads them
 * (on Cloudflare, the `McpSessionLedger` Durable Object); `SessionFactsCache` keeps each isolate's
 * reads for `SESSION_FACTS_TTL_MS`, so a busy session costs one ledger read per isolate per
 * 400 ms and every other request a map lookup.
 *
 * The guarantee, by construction: a change made through this isolate is seen here at once (written
 * through, with the facts the ledger answered after the write, so a level set while the session
 * was ended never revives it); elsewhere, a cached read is used only while it is younger than
 * 400 ms counted from when the read (or write) *started*. A read started after the change saw it,
 * so any isolate sees a revocation within 400 ms of its commit, and of the DELETE's answer, which
 * follows the commit.
 */
import type { LogLevel } from '../../protocol/constants.ts'

/** How long a read of a session's facts is trusted in one isolate. */
export const SESSION_FACTS_TTL_MS = 400
/** Sessions whose facts one isolate keeps (the oldest read is dropped first). */
const MAX_CACHED_SESSIONS = 4096
/** Resources one session may subscribe to at once. */
export const MAX_SESSION_SUBSCRIPTIONS = 64

/** What the ledger knows of a session beyond its sealed id. */
export interface SessionFacts {
  /** Ended by DELETE, or minted before its principal's sessions were revoked. */
  revoked: boolean
  /** Its `logging/setLevel`, if it sent one. */
  logLevel?: LogLevel | undefined
  /** The URIs it subscribed to (`resources/subscribe`), when any. */
  subscriptions?: readonly string[] | undefined
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
  /** End one session: from now on its id gets 404. */
  revoke(key: SessionKey): Promise<void>
  /**
   * End every session `principal` holds now (those minted later are not affected), for example
   * when its grant is revoked. `ttlMs`: the lane's `sessionTtlMs`, if you changed it (default 24 h).
   */
  revokePrincipal(principal: string, options?: { ttlMs?: number }): Promise<void>
}

interface Cached {
  facts: SessionFacts | Promise<SessionFacts>
  /** When the read began: the facts hold until then + the TTL. */
  readAt: number
}

/** One isolate's recent reads of sessions' facts (module header). */
export class SessionFactsCache {
  readonly #entries = new Map<string, Cached>()
  readonly #now: () => number

  constructor(now: () => number = Date.now) {
    this.#now = now
  }

  /** The session's facts: at once from a fresh read, else one ledger read shared by concurrent requests. */
  get(ledger: SessionLedger, key: SessionKey): SessionFacts | Promise<SessionFacts> {
    const now = this.#now()
    const cached = this.#entries.get(key.nonce)
    if (cached && now - cached.readAt < SESSION_FACTS_TTL_MS) return cached.facts
    const reading = ledger.read(key).then(
      (facts) => {
        // Kept as plain facts once read, unless a newer read or a local change replaced it.
        if (this.#entries.get(key.nonce) === entry) entry.facts = facts
        return facts
      },
      (error: unknown) => {
        if (this.#entries.get(key.nonce) === entry) this.#entries.delete(key.nonce)
        throw error
      },
    )
    const entry: Cached = { facts: reading, readAt: now }
    this.#set(key.nonce, entry)
    return reading
  }

  /**
   * What this isolate just learned by writing, as the ledger answered it, trusted from `readAt`
   * (when the write began): seen by its next request at once. An end this isolate knows of is
   * never replaced by facts that say otherwise (a level written while the session was ended).
   */
  put(nonce: string, facts: SessionFacts, readAt = this.#now()): void {
    const known = this.#entries.get(nonce)?.facts
    if (known && !(known instanceof Promise) && known.revoked && !facts.revoked) return
    this.#set(nonce, { facts, readAt })
  }

  #set(nonce: string, entry: Cached): void {
    this.#entries.delete(nonce)
    if (this.#entries.size >= MAX_CACHED_SESSIONS) this.#entries.delete(this.#entries.keys().next().value as string)
    this.#entries.set(nonce, entry)
  }
}
