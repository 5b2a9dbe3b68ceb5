/**
 * The ledger of 2025-era sessions (server/legacy/session-ledger.ts) on Durable Objects: one object
 * per principal, so revoking all of a principal's sessions is one write beside theirs; sessions
 * without a principal are spread over 4,096 objects by their nonce. A session that never changes
 * costs no write; reads come from each isolate's cache, at most one per session per isolate per
 * 400 ms.
 *
 * Storage layout (SQLite-backed object):
 *   sessions(nonce TEXT PRIMARY KEY, revoked INTEGER, log_level TEXT, expires_at INTEGER)
 *     one row per session that was ended or set a log level; gone when the session expires
 *   principals(principal TEXT PRIMARY KEY, revoked_before INTEGER, expires_at INTEGER)
 *     sessions of the principal minted at or before `revoked_before` are ended; the row is kept
 *     while such a session could still open
 * Alarm: at the earliest `expires_at`; it deletes every expired row and re-arms for the next one.
 */
import { DurableObject } from 'cloudflare:workers'
import type { LogLevel } from '../protocol/constants.ts'
import { DEFAULT_SESSION_TTL_MS } from '../server/legacy/session.ts'
import type { SessionFacts, SessionKey, SessionLedger } from '../server/legacy/session-ledger.ts'

export class McpSessionLedger extends DurableObject<Record<string, unknown>> {
  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env)
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS sessions (nonce TEXT PRIMARY KEY, revoked INTEGER NOT NULL DEFAULT 0,
        log_level TEXT, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
      CREATE TABLE IF NOT EXISTS principals (principal TEXT PRIMARY KEY, revoked_before INTEGER NOT NULL,
        expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS principals_expiry ON principals (expires_at);`)
  }

  read(nonce: string, principal: string | null, issuedAt: number): SessionFacts {
    const sql = this.ctx.storage.sql
    const row = sql
      .exec<{ revoked: number; log_level: LogLevel | null }>('SELECT revoked, log_level FROM sessions WHERE nonce = ?', nonce)
      .toArray()[0]
    const cut =
      principal === null
        ? undefined
        : sql
            .exec<{ revoked_before: number }>('SELECT revoked_before FROM principals WHERE principal = ?', principal)
            .toArray()[0]
    const facts: SessionFacts = { revoked: row?.revoked === 1 || (cut !== undefined && issuedAt <= cut.revoked_before) }
    if (row?.log_level) facts.logLevel = row.log_level
    return facts
  }

  async setLogLevel(nonce: string, level: LogLevel, expiresAt: number): Promise<void> {
    this.ctx.storage.sql.exec(
      `INSERT INTO sessions (nonce, log_level, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (nonce) DO UPDATE SET log_level = excluded.log_level`,
      nonce,
      level,
      expiresAt,
    )
    await this.#expireAt(expiresAt)
  }

  async revoke(nonce: string, expiresAt: number): Promise<void> {
    this.ctx.storage.sql.exec(
      `INSERT INTO sessions (nonce, revoked, expires_at) VALUES (?, 1, ?)
        ON CONFLICT (nonce) DO UPDATE SET revoked = 1`,
      nonce,
      expiresAt,
    )
    await this.#expireAt(expiresAt)
  }

  async revokePrincipal(principal: string, before: number, expiresAt: number): Promise<void> {
    this.ctx.storage.sql.exec(
      `INSERT INTO principals (principal, revoked_before, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (principal) DO UPDATE SET revoked_before = MAX(revoked_before, excluded.revoked_before),
          expires_at = MAX(expires_at, excluded.expires_at)`,
      principal,
      before,
      expiresAt,
    )
    await this.#expireAt(expiresAt)
  }

  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql
    const now = Date.now()
    sql.exec('DELETE FROM sessions WHERE expires_at <= ?', now)
    sql.exec('DELETE FROM principals WHERE expires_at <= ?', now)
    const next = sql
      .exec<{ next: number | null }>(
        'SELECT MIN(at) AS next FROM (SELECT MIN(expires_at) AS at FROM sessions UNION ALL SELECT MIN(expires_at) FROM principals)',
      )
      .one().next
    if (next !== null) await this.ctx.storage.setAlarm(next)
  }

  async #expireAt(at: number): Promise<void> {
    const alarm = await this.ctx.storage.getAlarm()
    if (alarm === null || alarm > at) await this.ctx.storage.setAlarm(at)
  }
}

/** The object holding a session's facts: its principal's, or one of 4,096 by nonce. */
const objectName = (key: Pick<SessionKey, 'nonce' | 'principal'>) =>
  key.principal === null ? `sessions:a:${key.nonce.slice(0, 2)}` : `sessions:p:${key.principal}`

/**
 * A `SessionLedger` over a namespace of `McpSessionLedger` objects.
 *
 * @example
 * // End every 2025-era session of a user whose grant was revoked:
 * await durableSessions(env.MCP_SESSIONS).revokePrincipal('alice')
 */
export function durableSessions(namespace: DurableObjectNamespace<McpSessionLedger>): SessionLedger {
  const of = (key: Pick<SessionKey, 'nonce' | 'principal'>) => namespace.get(namespace.idFromName(objectName(key)))
  return {
    read: (key) => of(key).read(key.nonce, key.principal, key.issuedAt),
    setLogLevel: (key, level) => of(key).setLogLevel(key.nonce, level, key.expiresAt),
    revoke: (key) => of(key).revoke(key.nonce, key.expiresAt),
    revokePrincipal(principal, options = {}) {
      const now = Date.now()
      return of({ nonce: '', principal }).revokePrincipal(principal, now, now + (options.ttlMs ?? DEFAULT_SESSION_TTL_MS))
    },
  }
}
