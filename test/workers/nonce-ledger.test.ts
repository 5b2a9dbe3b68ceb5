/**
 * The single-use ledger of sealed requestState, a real SQLite Durable Object: a nonce redeems
 * once, replays are refused, and the alarm purges entries once they have expired.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { durableNonces } from '../../packages/mcp-edge/src/cloudflare/nonce-ledger.ts'

describe('McpNonceLedger', () => {
  it('redeems a nonce once and refuses every replay', async () => {
    const ledger = durableNonces(env.MCP_NONCES)
    const expiresAt = Date.now() + 60_000
    expect(await ledger.redeem('ab-once', expiresAt)).toBe(true)
    expect(await ledger.redeem('ab-once', expiresAt)).toBe(false)
    expect(await ledger.redeem('ab-once', expiresAt + 1)).toBe(false)
    expect(await ledger.redeem('ab-other', expiresAt)).toBe(true)
  })

  it('arms its alarm at the earliest expiry and purges what has expired', async () => {
    const stub = env.MCP_NONCES.get(env.MCP_NONCES.idFromName('nonce-shard:zz'))
    // Far enough ahead that workerd cannot fire the alarm itself before the first check, on a
    // loaded machine too (at 100 ms it could, and re-arm it for the later entry).
    const soon = Date.now() + 2_000
    expect(await stub.redeem('zz-soon', soon)).toBe(true)
    expect(await stub.redeem('zz-later', soon + 3_600_000)).toBe(true)
    const rows = () =>
      runInDurableObject(stub, (_instance, state) =>
        state.storage.sql
          .exec<{ nonce: string }>('SELECT nonce FROM redeemed ORDER BY nonce')
          .toArray()
          .map((row) => row.nonce),
      )
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(soon)
    await new Promise((done) => setTimeout(done, soon + 50 - Date.now()))
    expect(await runDurableObjectAlarm(stub)).toBe(true)
    expect(await rows()).toEqual(['zz-later'])
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(soon + 3_600_000)
  })
})
