/**
 * The single-use ledger for sealed `requestState` (mrtr.mdx: single use "MUST be enforced
 * server-side"). Nonces are sharded over objects by their first two characters, so redemption is
 * globally unique without one hot object.
 *
 * Storage layout (SQLite-backed object):
 *   redeemed(nonce TEXT PRIMARY KEY, expires_at INTEGER)   one row per redeemed state
 * Alarm: at the earliest `expires_at`; it deletes every expired row (an expired state is refused
 * before the ledger is asked, so forgetting it is safe) and re-arms for the next one.
 */
import { DurableObject } from 'cloudflare:workers'
import type { NonceLedger } from '../server/tasks/tasks.ts'

export class McpNonceLedger extends DurableObject<Record<string, unknown>> {
  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env)
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS redeemed (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS redeemed_expiry ON redeemed (expires_at);`)
  }

  /** `true` the first time, `false` for every later redemption of the same nonce. */
  async redeem(nonce: string, expiresAt: number): Promise<boolean> {
    const inserted =
      this.ctx.storage.sql
        .exec(
          'INSERT INTO redeemed (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING RETURNING nonce',
          nonce,
          expiresAt,
        )
        .toArray().length === 1
    if (inserted) {
      const alarm = await this.ctx.storage.getAlarm()
      if (alarm === null || alarm > expiresAt) await this.ctx.storage.setAlarm(expiresAt)
    }
    return inserted
  }

  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql
    sql.exec('DELETE FROM redeemed WHERE expires_at <= ?', Date.now())
    const next = sql.exec<{ next: number | null }>('SELECT MIN(expires_at) AS next FROM redeemed').one().next
    if (next !== null) await this.ctx.storage.setAlarm(next)
  }
}

/**
 * A `NonceLedger` over a namespace of `McpNonceLedger` objects.
 *
 * @example
 * const nonces = durableNonces(env.MCP_NONCES)
 */
export function durableNonces(namespace: DurableObjectNamespace<McpNonceLedger>): NonceLedger {
  return {
    redeem(nonce, expiresAt) {
      return namespace.get(namespace.idFromName(`nonce-shard:${nonce.slice(0, 2)}`)).redeem(nonce, expiresAt)
    },
  }
}
