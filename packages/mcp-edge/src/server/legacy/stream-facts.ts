/**
 * A session's facts as its open GET stream keeps them (session-stream.ts), so that delivering an
 * event costs no ledger read. Every change made through the lane (`resources/subscribe` and
 * unsubscribe, `logging/setLevel`, a newer GET stream, DELETE) is written to the ledger and then
 * announced on the event hub under the session's own topic (`session:<nonce>`, events.ts) before
 * its answer goes out; the stream listens to that topic too and reads the ledger again when it
 * hears the announcement, and when it opens. So a change made on any isolate applies to the open
 * stream as soon as the announcement reaches it: with one hub shard, before anything published
 * after the change's answer (one object sends to one socket in order).
 *
 * The first read starts only once the hub has the stream (the first event it is offered, or the
 * read `openSessionStream` starts then): a change committed before that read began is in it, and
 * one committed after is announced to a registered stream. Reads follow each other (an
 * announcement heard during a read makes the next `get` read again, after it), and every event
 * waits for the read pending when it arrived, so events are decided in the order they came; while
 * a read begun after the last announcement is under way, events wait for it and start none of
 * their own (a replay's burst of up to 128 events makes one read, not 128 in series).
 *
 * The safety nets: facts older than `STREAM_FACTS_TTL_MS` are read again (a change whose
 * announcement never went out: its writer's isolate was lost between the write and the publish,
 * or code wrote the ledger directly); if the hub connection drops the stream ends anyway (the
 * client reconnects and the new stream reads afresh). A principal's revocation
 * (`revokePrincipal`, called outside any session, with no hub) is not announced: each event asks
 * the ledger's `revokedByPrincipal`, which a ledger answers from its per-isolate cache of the
 * principal's cut-off (400 ms, shared by every session of the principal), so it still reaches an
 * open stream at its first event after 0.9 s. A ledger without `revokedByPrincipal` is read as requests read it,
 * every `SESSION_FACTS_TTL_MS`.
 */
import { SESSION_FACTS_TTL_MS } from './session-ledger.ts'
import type { SessionFactsCache, SessionFacts, SessionKey, SessionLedger } from './session-ledger.ts'

/** How long an open stream trusts its read of the session's facts with no announcement (module header). */
export const STREAM_FACTS_TTL_MS = 30_000

export class StreamFacts {
  readonly #ledger: SessionLedger
  readonly #key: SessionKey
  readonly #cache: SessionFactsCache | undefined
  readonly #now: () => number
  readonly #ttl: number
  #facts: SessionFacts | undefined
  #readAt = 0
  /** Told of a change since the last read began (or never read). */
  #stale = true
  #pending: Promise<SessionFacts> | undefined
  /** The ledger read under way, if any (the last one begun: nothing starts after a read while it is pending). */
  #reading: Promise<SessionFacts> | undefined

  /** `cache`: the isolate's, told what each read found (its requests then see it too). */
  constructor(ledger: SessionLedger, key: SessionKey, cache?: SessionFactsCache, now: () => number = Date.now) {
    this.#ledger = ledger
    this.#key = key
    this.#cache = cache
    this.#now = now
    this.#ttl = ledger.revokedByPrincipal ? STREAM_FACTS_TTL_MS : SESSION_FACTS_TTL_MS
  }

  /** A read or principal check under way, if any: events arriving now wait for it. */
  get pending(): Promise<SessionFacts> | undefined {
    return this.#pending
  }

  /** The hub announced a change of the session's facts: the next `get` reads the ledger. */
  changed(): void {
    this.#stale = true
  }

  /** The facts now: kept ones while fresh (with the principal's cut-off applied), else a ledger read, after any pending one. */
  get(): SessionFacts | Promise<SessionFacts> {
    // A read begun after the last announcement is under way: every event until it ends waits for
    // it (a replay's burst, or the events of the turn the TTL ran out), not for reads of their own.
    if (this.#reading && !this.#stale) return this.#reading
    const facts = this.#facts
    if (this.#stale || !facts || this.#now() - this.#readAt >= this.#ttl) return this.#read()
    if (this.#pending) return this.#pending
    const check = this.#key.principal === null ? false : this.#ledger.revokedByPrincipal?.(this.#key)
    if (!check) return facts
    if (check === true) return { ...facts, revoked: true }
    return this.#track(check.then((revoked) => (revoked ? { ...facts, revoked: true } : facts)))
  }

  #read(): Promise<SessionFacts> {
    this.#stale = false
    const startedAt = this.#now()
    const before = this.#pending
    const read = (before ? before.then(this.#readLedger, this.#readLedger) : this.#readLedger()).then((facts) => {
      this.#facts = facts
      this.#readAt = startedAt
      this.#cache?.put(this.#key.nonce, facts, startedAt)
      return facts
    })
    this.#reading = read
    const settled = () => {
      if (this.#reading === read) this.#reading = undefined
    }
    read.then(settled, settled)
    return this.#track(read)
  }

  readonly #readLedger = () => this.#ledger.read(this.#key)

  #track(promise: Promise<SessionFacts>): Promise<SessionFacts> {
    this.#pending = promise
    const settled = () => {
      if (this.#pending === promise) this.#pending = undefined
    }
    promise.then(settled, settled)
    return promise
  }
}
