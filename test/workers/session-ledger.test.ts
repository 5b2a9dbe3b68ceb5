/**
 * The ledger of 2025-era sessions, a real SQLite Durable Object (cloudflare/session-ledger.ts): a
 * session it never heard of is unchanged; a level and an end are kept; revoking a principal ends
 * the sessions it minted until then and no later one, nor anybody else's; the alarm forgets rows
 * once their sessions have expired. Sessions are spread over objects by nonce, cut-offs kept per
 * principal; a read asks both, and an open stream asks the cut-off alone (cached per isolate for
 * 400 ms, answered at once while cached). An object keeps the facts it read in memory, and every write and
 * its alarm drop them.
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { durableSessions } from '../../packages/mcp-edge/src/cloudflare/session-ledger.ts'
import type { McpSessionLedger } from '../../packages/mcp-edge/src/cloudflare/session-ledger.ts'
import { MAX_SESSION_SUBSCRIPTIONS } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import type { SessionKey } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'

const hour = 3_600_000
const key = (nonce: string, principal: string | null, issuedAt = Date.now()): SessionKey => ({
  nonce,
  principal,
  issuedAt,
  expiresAt: issuedAt + hour,
})

describe('McpSessionLedger', () => {
  it('keeps a session’s level and its end, and nothing for a session that never changed', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const session = key('kept-1', 'carol')
    expect(await ledger.read(session)).toEqual({ revoked: false })
    await ledger.setLogLevel(session, 'warning')
    expect(await ledger.read(session)).toEqual({ revoked: false, logLevel: 'warning' })
    await ledger.revoke(session)
    expect(await ledger.read(session)).toEqual({ revoked: true, logLevel: 'warning' })
    expect(await ledger.read(key('kept-2', 'carol'))).toEqual({ revoked: false })
    const anonymous = key('anon-1', null)
    await ledger.revoke(anonymous)
    expect(await ledger.read(anonymous)).toEqual({ revoked: true })
  })

  it('revokes every session a principal holds, not those minted later or anybody else’s', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const before = key('alice-old', 'alice', Date.now() - 1000)
    const bobs = key('bob-1', 'bob', Date.now() - 1000)
    await ledger.revokePrincipal('alice')
    expect(await ledger.read(before)).toEqual({ revoked: true })
    expect(await ledger.read(key('alice-new', 'alice', Date.now() + 1000))).toEqual({ revoked: false })
    expect(await ledger.read(bobs)).toEqual({ revoked: false })
    // A level written for a session its principal's revocation ended answers it ended.
    expect(await ledger.setLogLevel(before, 'error')).toEqual({ revoked: true, logLevel: 'error' })
  })

  it('tells an open stream whether a principal’s revocation ended its session, from the cut-off it keeps', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const old = key('erin-old', 'erin', Date.now() - 1000)
    const later = key('erin-new', 'erin', Date.now() + 1000)
    // Asked first: the cut-off is read from its object; asked again, this isolate answers at once.
    const first = ledger.revokedByPrincipal?.(old)
    expect(first).toBeInstanceOf(Promise)
    expect(await first).toBe(false)
    expect(ledger.revokedByPrincipal?.(old)).toBe(false)
    expect(ledger.revokedByPrincipal?.(key('anon-2', null))).toBe(false)
    await ledger.revokePrincipal('erin')
    // Another isolate's ledger (a fresh cache) sees the revocation at once; the session's own facts are untouched.
    const elsewhere = durableSessions(env.MCP_SESSIONS)
    expect(await elsewhere.revokedByPrincipal?.(old)).toBe(true)
    expect(elsewhere.revokedByPrincipal?.(old)).toBe(true)
    expect(elsewhere.revokedByPrincipal?.(later)).toBe(false)
  })

  it('forgets expired sessions and cut-offs on its alarm, and re-arms for the next expiry', async () => {
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName('sessions:test-alarm'))
    const now = Date.now()
    await stub.revoke('gone', now - 1)
    await stub.setLogLevel('kept', 'error', now + hour)
    await stub.revokePrincipal('dave', hour)
    const rows = () =>
      runInDurableObject(stub, (_instance, state) => [
        ...state.storage.sql
          .exec<{ nonce: string }>('SELECT nonce FROM sessions ORDER BY nonce')
          .toArray()
          .map((row) => row.nonce),
        ...state.storage.sql
          .exec<{ principal: string }>('SELECT principal FROM principals')
          .toArray()
          .map((row) => row.principal),
      ])
    // Run the alarm now, whether or not the runtime already ran it for the expired row.
    await runInDurableObject(stub, (instance: McpSessionLedger) => instance.alarm())
    expect(await rows()).toEqual(['kept', 'dave'])
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBe(now + hour)
  })

  it('keeps every fact when its objects lose their memory (evicted: state.abort), and the session goes on', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const session = key('evicted-1', 'erin')
    await ledger.setLogLevel(session, 'error')
    await ledger.subscribe(session, 'notes://kept', true)
    await ledger.openStream(session, 'stream-1')
    const facts = await ledger.read(session)
    expect(facts).toMatchObject({ revoked: false, logLevel: 'error', subscriptions: ['notes://kept'], stream: 'stream-1' })
    const evict = (name: string) =>
      runInDurableObject(env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName(name)), (_instance, state) =>
        state.abort('evicted in a test'),
      ).catch(() => {})
    await evict(`sessions:n:${session.nonce.slice(0, 2)}`)
    await evict('sessions:p:erin')
    expect(await ledger.read(session)).toEqual(facts)
    // It still takes changes after the restart, and a principal's revocation still reaches the session.
    await ledger.subscribe(session, 'notes://new', true)
    expect((await ledger.read(session)).subscriptions).toEqual(['notes://kept', 'notes://new'])
    await ledger.revokePrincipal('erin')
    await evict('sessions:p:erin')
    expect((await durableSessions(env.MCP_SESSIONS).read(session)).revoked).toBe(true)
  })

  it('reads a session’s subscriptions in URI order, without the ones it dropped, and its newest stream, in one read', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const session = key('ordered-1', null)
    for (const uri of ['notes://c', 'notes://a', 'notes://b']) await ledger.subscribe(session, uri, true)
    await ledger.subscribe(session, 'notes://b', false)
    await ledger.openStream(session, 'stream-1')
    await ledger.openStream(session, 'stream-2')
    expect(await ledger.read(session)).toEqual({ revoked: false, subscriptions: ['notes://a', 'notes://c'], stream: 'stream-2' })
  })

  it('keeps at most MAX_SESSION_SUBSCRIPTIONS per session, a read kept in memory or not; one more is kept after an unsubscribe', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const session = key('bound-1', null)
    const uris = Array.from({ length: MAX_SESSION_SUBSCRIPTIONS }, (_, i) => `notes://${String(i).padStart(2, '0')}`)
    for (const uri of uris) await ledger.subscribe(session, uri, true)
    expect((await ledger.read(session)).subscriptions).toEqual(uris)
    const refused = await ledger.subscribe(session, 'notes://zz', true)
    expect(refused.subscriptions).toEqual(uris)
    expect((await ledger.read(session)).subscriptions).toEqual(uris)
    await ledger.subscribe(session, uris[0] as string, false)
    const kept = await ledger.subscribe(session, 'notes://zz', true)
    expect(kept.subscriptions).toEqual([...uris.slice(1), 'notes://zz'])
    expect((await ledger.read(session)).subscriptions).toEqual([...uris.slice(1), 'notes://zz'])
  })

  it('answers every write at once though a read just kept the facts in the object’s memory, and forgets them with the rows', async () => {
    const ledger = durableSessions(env.MCP_SESSIONS)
    const session = key('memory-1', null)
    const read = async () => {
      const facts = await ledger.read(session)
      expect(await ledger.read(session)).toEqual(facts) // the second from the object's memory
      return facts
    }
    expect(await read()).toEqual({ revoked: false })
    await ledger.subscribe(session, 'notes://a', true)
    expect(await read()).toEqual({ revoked: false, subscriptions: ['notes://a'] })
    await ledger.openStream(session, 'stream-1')
    expect(await read()).toEqual({ revoked: false, subscriptions: ['notes://a'], stream: 'stream-1' })
    await ledger.subscribe(session, 'notes://a', false)
    expect(await read()).toEqual({ revoked: false, stream: 'stream-1' })
    await ledger.setLogLevel(session, 'error')
    expect(await read()).toEqual({ revoked: false, logLevel: 'error', stream: 'stream-1' })
    await ledger.revoke(session)
    expect(await read()).toEqual({ revoked: true, logLevel: 'error', stream: 'stream-1' })
    // Expired rows go on the alarm, and with them what the object kept of them (time passing is
    // the event here: the row expires 1 s on, far from the read before it, and the alarm is run once it has).
    const stub = env.MCP_SESSIONS.get(env.MCP_SESSIONS.idFromName('sessions:test-memory'))
    await stub.setLogLevel('short', 'error', Date.now() + 1_000)
    expect(await stub.read('short')).toEqual({ revoked: false, logLevel: 'error' })
    await new Promise((resolve) => setTimeout(resolve, 1_050))
    await runInDurableObject(stub, (instance: McpSessionLedger) => instance.alarm())
    expect(await stub.read('short')).toEqual({ revoked: false })
  })
})
