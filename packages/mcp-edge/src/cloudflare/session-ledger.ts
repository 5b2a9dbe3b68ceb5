/**
 * The ledger of 2025-era sessions (server/legacy/session-ledger.ts) on Durable Objects. A
 * session's own facts (ended, its level, its subscriptions, its newest stream) live in one of
 * 4,096 objects chosen by its nonce, so no object is hot however many sessions share a principal
 * (every bearer-token client is one principal); a principal's cut-off (every session it minted
 * until then is ended) lives in an object of its own, which each isolate reads at most once per
 * 400 ms (so a principal's revocation reaches every isolate within 0.9 s: two such reads). A read
 * asks both at once. A session that never changes costs no write; reads come from each isolate's
 * cache, about one per session per isolate per 400 ms.
 *
 * Storage layout (SQLite-backed object; each object uses the table its name is for):
 *   sessions(nonce TEXT PRIMARY KEY, revoked INTEGER, log_level TEXT, expires_at INTEGER)
 *     one row per session that was ended or set a level; gone when the session expires
 *   streams(nonce TEXT PRIMARY KEY, stream TEXT, expires_at INTEGER)
 *     the session's newest GET stream, written when one opens
 *   subscriptions(nonce TEXT, uri TEXT, expires_at INTEGER, PRIMARY KEY (nonce, uri))
 *     the resources a session subscribed to, at most 64 per session; gone with the session
 *   principals(principal TEXT PRIMARY KEY, revoked_before INTEGER, expires_at INTEGER)
 *     sessions of the principal minted at or before `revoked_before` (the object's clock when
 *     asked; a session minted in that same millisecond is ended too) are ended; the row is kept
 *     while such a session could still open
 * Alarm: at the earliest `expires_at`; it deletes every expired row and re-arms for the next one.
 *
 * In memory: the facts of the sessions read lately (`#facts`, at most `MAX_KEPT_FACTS`, none whose
 * subscribed URIs pass `MAX_KEPT_URI_CHARS`), which a read answers without SQL. The object is the
 * only writer of its storage, so each write of a session drops its entry and the alarm drops them
 * all: what is kept is what SQL would answer. (A subclass that writes these tables itself must
 * drop the entries too; none is expected: the class is exported to be bound, not extended.)
 * An open session stream reads its facts when it opens and when a change is announced on the
 * event hub (server/legacy/stream-facts.ts), or after 30 s without one; for each event it asks
 * only `revokedByPrincipal`, which this isolate's cache of the principal's cut-off answers.
 */
import { DurableObject } from 'cloudflare:workers'
import type { LogLevel } from '../protocol/constants.ts'
import { DEFAULT_SESSION_TTL_MS } from '../server/legacy/session.ts'
import { MAX_SESSION_SUBSCRIPTIONS, SESSION_FACTS_TTL_MS } from '../server/legacy/session-ledger.ts'
import type { SessionFacts, SessionKey, SessionLedger } from '../server/legacy/session-ledger.ts'

/** Sessions whose facts one ledger object keeps in memory (the oldest read is dropped first). */
const MAX_KEPT_FACTS = 1024
/** Subscribed URIs' characters past which a session's facts are not kept (so the memory is at most about 4 MiB). */
const MAX_KEPT_URI_CHARS = 4096

export class McpSessionLedger extends DurableObject<Record<string, unknown>> {
  /** The facts of sessions read lately, as SQL has them (module header). */
  readonly #facts = new Map<string, SessionFacts>()

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env)
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (nonce TEXT PRIMARY KEY, revoked INTEGER NOT NULL DEFAULT 0,
        log_level TEXT, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
      CREATE TABLE IF NOT EXISTS streams (nonce TEXT PRIMARY KEY, stream TEXT NOT NULL, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS streams_expiry ON streams (expires_at);
      CREATE TABLE IF NOT EXISTS subscriptions (nonce TEXT NOT NULL, uri TEXT NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (nonce, uri));
      CREATE INDEX IF NOT EXISTS subscriptions_expiry ON subscriptions (expires_at);
      CREATE TABLE IF NOT EXISTS principals (principal TEXT PRIMARY KEY, revoked_before INTEGER NOT NULL,
        expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS principals_expiry ON principals (expires_at);`)
  }

  /** The session's own facts (its principal's cut-off is another object's). */
  read(nonce: string): SessionFacts {
    const kept = this.#facts.get(nonce)
    if (kept) return kept
    const facts = this.#select(nonce)
    // A session with many long subscriptions is read from SQL each time (up to 64 URIs of 2 KiB each).
    if ((facts.subscriptions?.join('').length ?? 0) > MAX_KEPT_URI_CHARS) return facts
    if (this.#facts.size >= MAX_KEPT_FACTS) this.#facts.delete(this.#facts.keys().next().value as string)
    this.#facts.set(nonce, facts)
    return facts
  }

  #select(nonce: string): SessionFacts {
    // One statement, not one per table: every request of a session reads this (through the
    // isolate's cache, every 400 ms), and each of its open streams when told of a change.
    const row = this.ctx.storage.sql
      .exec<{ revoked: number | null; log_level: LogLevel | null; uris: string; stream: string | null }>(
        `SELECT (SELECT revoked FROM sessions WHERE nonce = ?1) AS revoked,
           (SELECT log_level FROM sessions WHERE nonce = ?1) AS log_level,
           (SELECT json_group_array(uri ORDER BY uri) FROM subscriptions WHERE nonce = ?1) AS uris,
           (SELECT stream FROM streams WHERE nonce = ?1) AS stream`,
        nonce,
      )
      .one()
    const facts: SessionFacts = { revoked: row.revoked === 1 }
    if (row.log_level) facts.logLevel = row.log_level
    const uris = JSON.parse(row.uris) as string[]
    if (uris.length > 0) facts.subscriptions = uris
    if (row.stream) facts.stream = row.stream
    return facts
  }

  /** Record `stream` as the session's GET stream; its facts after. */
  openStream(nonce: string, stream: string, expiresAt: number): Promise<SessionFacts> {
    return this.#write(
      nonce,
      expiresAt,
      `INSERT INTO streams (nonce, stream, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (nonce) DO UPDATE SET stream = excluded.stream`,
      stream,
    )
  }

  /** Subscribe `nonce` to `uri` (not past the bound), or unsubscribe it; its facts after. */
  async subscribe(nonce: string, uri: string, subscribed: boolean, expiresAt: number): Promise<SessionFacts> {
    const sql = this.ctx.storage.sql
    this.#facts.delete(nonce)
    if (!subscribed) sql.exec('DELETE FROM subscriptions WHERE nonce = ? AND uri = ?', nonce, uri)
    else {
      const count = sql.exec<{ count: number }>('SELECT COUNT(*) AS count FROM subscriptions WHERE nonce = ?', nonce).one().count
      if (count < MAX_SESSION_SUBSCRIPTIONS) {
        sql.exec(
          'INSERT INTO subscriptions (nonce, uri, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
          nonce,
          uri,
          expiresAt,
        )
        await this.#expireAt(expiresAt)
      }
    }
    return this.read(nonce)
  }

  /** When `principal`'s sessions were last all ended, if ever (and still remembered). */
  cut(principal: string): number | null {
    const row = this.ctx.storage.sql
      .exec<{ revoked_before: number }>('SELECT revoked_before FROM principals WHERE principal = ?', principal)
      .toArray()[0]
    return row?.revoked_before ?? null
  }

  setLogLevel(nonce: string, level: LogLevel, expiresAt: number): Promise<SessionFacts> {
    return this.#write(
      nonce,
      expiresAt,
      `INSERT INTO sessions (nonce, log_level, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (nonce) DO UPDATE SET log_level = excluded.log_level`,
      level,
    )
  }

  async revoke(nonce: string, expiresAt: number): Promise<void> {
    this.#facts.delete(nonce)
    this.ctx.storage.sql.exec(
      `INSERT INTO sessions (nonce, revoked, expires_at) VALUES (?, 1, ?)
        ON CONFLICT (nonce) DO UPDATE SET revoked = 1`,
      nonce,
      expiresAt,
    )
    await this.#expireAt(expiresAt)
  }

  /** End every session `principal` minted until now; remembered for `ttlMs`, the longest a session lives. */
  async revokePrincipal(principal: string, ttlMs: number): Promise<void> {
    const now = Date.now()
    this.ctx.storage.sql.exec(
      `INSERT INTO principals (principal, revoked_before, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (principal) DO UPDATE SET revoked_before = MAX(revoked_before, excluded.revoked_before),
          expires_at = MAX(expires_at, excluded.expires_at)`,
      principal,
      now,
      now + ttlMs,
    )
    await this.#expireAt(now + ttlMs)
  }

  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql
    const now = Date.now()
    this.#facts.clear()
    const tables = ['sessions', 'streams', 'subscriptions', 'principals']
    for (const table of tables) sql.exec(`DELETE FROM ${table} WHERE expires_at <= ?`, now)
    const earliest = tables.map((table) => `SELECT MIN(expires_at) AS at FROM ${table}`).join(' UNION ALL ')
    const next = sql.exec<{ next: number | null }>(`SELECT MIN(at) AS next FROM (${earliest})`).one().next
    if (next !== null) await this.ctx.storage.setAlarm(next)
  }

  /** One upsert of a session's row (`nonce`, `value`, `expiresAt`), the alarm kept for its expiry; its facts after. */
  async #write(nonce: string, expiresAt: number, upsert: string, value: string): Promise<SessionFacts> {
    this.#facts.delete(nonce)
    this.ctx.storage.sql.exec(upsert, nonce, value, expiresAt)
    await this.#expireAt(expiresAt)
    return this.read(nonce)
  }

  async #expireAt(at: number): Promise<void> {
    const alarm = await this.ctx.storage.getAlarm()
    if (alarm === null || alarm > at) await this.ctx.storage.setAlarm(at)
  }
}

/** Principals whose cut-off one isolate keeps. */
const MAX_CACHED_CUTS = 1024

export interface DurableSessionsOptions {
  /** The lane's `sessionTtlMs`, if you changed it (default 24 hours): how long a principal's cut-off is kept. */
  sessionTtlMs?: number
}

/**
 * A `SessionLedger` over a namespace of `McpSessionLedger` objects. `cloudflareServices({ sessions })`
 * builds one; services written by hand that use it set `sessionStreams: openSessionStream` too,
 * for the sessions' GET streams.
 *
 * @example
 * // End every 2025-era session of a user whose grant was revoked:
 * await durableSessions(env.MCP_SESSIONS).revokePrincipal('alice')
 */
export function durableSessions(
  namespace: DurableObjectNamespace<McpSessionLedger>,
  options: DurableSessionsOptions = {},
): SessionLedger {
  const ttlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS
  const object = (name: string) => namespace.get(namespace.idFromName(name))
  const sessionOf = (key: SessionKey) => object(`sessions:n:${key.nonce.slice(0, 2)}`)
  const principalOf = (principal: string) => object(`sessions:p:${principal}`)
  // Each principal's cut-off as this isolate last read it, trusted as long as a session's facts
  // (400 ms from when the read began): every bearer-token client is one principal, whose object
  // would otherwise be read on every miss of every session.
  const cuts = new Map<string, { cut: number | null; readAt: number }>()
  // At once when cached (an open stream asks for each event, stream-facts.ts).
  const cutOf = (principal: string): number | null | Promise<number | null> => {
    const now = Date.now()
    const known = cuts.get(principal)
    if (known && now - known.readAt < SESSION_FACTS_TTL_MS) return known.cut
    return principalOf(principal)
      .cut(principal)
      .then((cut) => {
        if ((cuts.get(principal)?.readAt ?? -1) < now) {
          cuts.delete(principal)
          if (cuts.size >= MAX_CACHED_CUTS) cuts.delete(cuts.keys().next().value as string)
          cuts.set(principal, { cut, readAt: now })
        }
        return cut
      })
  }
  const cutsOff = (key: SessionKey, cut: number | null) => cut !== null && key.issuedAt <= cut
  /** The session's facts with its principal's cut-off applied. */
  const withCut = async (key: SessionKey, own: Promise<SessionFacts>): Promise<SessionFacts> => {
    const [facts, cut] = await Promise.all([own, key.principal === null ? null : cutOf(key.principal)])
    return cutsOff(key, cut) ? { ...facts, revoked: true } : facts
  }
  return {
    read: (key) => withCut(key, sessionOf(key).read(key.nonce)),
    setLogLevel: (key, level) => withCut(key, sessionOf(key).setLogLevel(key.nonce, level, key.expiresAt)),
    subscribe: (key, uri, subscribed) => withCut(key, sessionOf(key).subscribe(key.nonce, uri, subscribed, key.expiresAt)),
    openStream: (key, stream) => withCut(key, sessionOf(key).openStream(key.nonce, stream, key.expiresAt)),
    revokedByPrincipal(key) {
      if (key.principal === null) return false
      const cut = cutOf(key.principal)
      return cut instanceof Promise ? cut.then((found) => cutsOff(key, found)) : cutsOff(key, cut)
    },
    revoke: (key) => sessionOf(key).revoke(key.nonce, key.expiresAt),
    revokePrincipal: (principal, given = {}) => principalOf(principal).revokePrincipal(principal, given.ttlMs ?? ttlMs),
  }
}
