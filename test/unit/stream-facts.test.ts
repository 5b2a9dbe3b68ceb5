/**
 * A 2025 session's facts as its open GET stream keeps them (server/legacy/stream-facts.ts): read
 * once, then answered without the ledger until the hub announces a change (`changed`) or
 * `STREAM_FACTS_TTL_MS` passes; a read after an announcement waits for the one under way, so
 * events are decided in order and none with the older read; the principal's cut-off is asked for
 * each event; a ledger without `revokedByPrincipal` is read every 400 ms, as requests read it.
 * Time is a counter the tests move; the ledger's reads wait until released.
 */
import { describe, expect, it } from 'vitest'
import { SESSION_FACTS_TTL_MS, SessionFactsCache } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import type { SessionFacts, SessionKey, SessionLedger } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import { STREAM_FACTS_TTL_MS, StreamFacts } from '../../packages/mcp-edge/src/server/legacy/stream-facts.ts'

/** A ledger holding one session's facts, whose reads wait until released; `cut`: the principal's revocation. */
function ledger(withCut = true) {
  const pending: Array<() => void> = []
  const store = {
    facts: { revoked: false } as SessionFacts,
    reads: 0,
    cutChecks: 0,
    cut: false as boolean | Promise<boolean>,
    release: () => {
      for (const done of pending.splice(0)) done()
    },
    read(): Promise<SessionFacts> {
      store.reads++
      // What the ledger holds when the read is served (released), as a Durable Object answers.
      return new Promise((resolve) => pending.push(() => resolve({ ...store.facts })))
    },
    setLogLevel: async () => ({ revoked: false }),
    subscribe: async () => ({ revoked: false }),
    openStream: async () => ({ revoked: false }),
    revoke: async () => {},
    revokePrincipal: async () => {},
  } satisfies SessionLedger & Record<string, unknown>
  const revokedByPrincipal = () => {
    store.cutChecks++
    return store.cut
  }
  return Object.assign(store, withCut ? { revokedByPrincipal } : {})
}

const key = (principal: string | null = 'alice'): SessionKey => ({ nonce: 'n1', principal, issuedAt: 0, expiresAt: 1e9 })

describe('StreamFacts', () => {
  it('reads once, then answers every event without the ledger until a change is announced', async () => {
    let now = 1_000
    const store = ledger()
    const cache = new SessionFactsCache(() => now)
    const facts = new StreamFacts(store, key(), cache, () => now)
    const first = facts.get()
    expect(first).toBeInstanceOf(Promise)
    store.release()
    expect(await first).toEqual({ revoked: false })
    // The isolate's cache learned the read too (its requests see it).
    expect(cache.get(store, key())).toEqual({ revoked: false })
    now += STREAM_FACTS_TTL_MS - 1
    for (let event = 0; event < 5; event++) expect(facts.get()).toEqual({ revoked: false })
    expect(store.reads).toBe(1)
    store.facts = { revoked: false, subscriptions: ['notes://all'] }
    facts.changed()
    const again = facts.get()
    expect(again).toBeInstanceOf(Promise)
    store.release()
    expect(await again).toEqual({ revoked: false, subscriptions: ['notes://all'] })
    expect(store.reads).toBe(2)
  })

  it('reads again after STREAM_FACTS_TTL_MS with no announcement (the safety net)', async () => {
    let now = 1_000
    const store = ledger()
    const facts = new StreamFacts(store, key(), undefined, () => now)
    const first = facts.get()
    store.release()
    await first
    now += STREAM_FACTS_TTL_MS
    store.facts = { revoked: true }
    const again = facts.get()
    store.release()
    expect(await again).toEqual({ revoked: true })
    expect(store.reads).toBe(2)
  })

  it('makes one read for every event arriving while a read begun after the last announcement is under way', async () => {
    let now = 1_000
    const store = ledger()
    const facts = new StreamFacts(store, key(), undefined, () => now)
    /** Serve every read asked so far, until none is left (a chain of reads is served one by one). */
    const drain = async () => {
      for (let turn = 0; turn < 200; turn++) {
        store.release()
        await new Promise((resolve) => setTimeout(resolve, 0))
      }
    }
    // The stream's first read, and a replay's burst of events behind it.
    const burst = Array.from({ length: 50 }, () => facts.get())
    expect(new Set(burst).size).toBe(1)
    await drain()
    expect(store.reads).toBe(1)
    // The TTL runs out: the events of that moment share one read too.
    now += STREAM_FACTS_TTL_MS
    const later = Array.from({ length: 50 }, () => facts.get())
    expect(new Set(later).size).toBe(1)
    await drain()
    expect(store.reads).toBe(2)
    // An announcement during a read makes exactly one more read, which the events after it share.
    facts.changed()
    const before = facts.get()
    expect(before).toBeInstanceOf(Promise)
    facts.changed()
    const after = Array.from({ length: 20 }, () => facts.get())
    expect(after[0]).not.toBe(before)
    expect(new Set(after).size).toBe(1)
    await drain()
    expect(store.reads).toBe(4)
  })

  it('does not let a read begun before an announcement answer the events after it: they wait for a new read', async () => {
    const store = ledger()
    const facts = new StreamFacts(store, key())
    const decided: string[] = []
    const early = facts.get() as Promise<SessionFacts>
    early.then((read) => decided.push(`early ${read.logLevel ?? 'none'}`))
    // The change commits and is announced while the first read is under way (it answered before the change).
    store.release()
    store.facts = { revoked: false, logLevel: 'debug' }
    facts.changed()
    const late = facts.get() as Promise<SessionFacts>
    expect(late).not.toBe(early)
    late.then((read) => decided.push(`late ${read.logLevel ?? 'none'}`))
    await early
    store.release()
    await late
    expect(decided).toEqual(['early none', 'late debug'])
    expect(store.reads).toBe(2)
  })

  it('asks the principal’s cut-off for each event, and a revocation found there ends the session', async () => {
    const store = ledger()
    const facts = new StreamFacts(store, key())
    const first = facts.get()
    store.release()
    await first
    expect(facts.get()).toEqual({ revoked: false })
    store.cut = true
    expect(facts.get()).toEqual({ revoked: true })
    // A check that has to ask the ledger is waited for, by later events too (they keep their order).
    store.cut = Promise.resolve(false)
    const asked = facts.get()
    expect(asked).toBeInstanceOf(Promise)
    expect(facts.get()).toBe(asked)
    expect(await asked).toEqual({ revoked: false })
    expect(store.cutChecks).toBe(3)
    expect(store.reads).toBe(1)
  })

  it('asks no cut-off for a session without a principal', async () => {
    const store = ledger()
    const facts = new StreamFacts(store, key(null))
    const first = facts.get()
    store.release()
    await first
    store.cut = true
    expect(facts.get()).toEqual({ revoked: false })
    expect(store.cutChecks).toBe(0)
  })

  it('reads every 400 ms from a ledger without revokedByPrincipal (a principal’s revocation is in its reads)', async () => {
    let now = 1_000
    const store = ledger(false)
    const facts = new StreamFacts(store, key(), undefined, () => now)
    const first = facts.get()
    store.release()
    await first
    now += SESSION_FACTS_TTL_MS - 1
    expect(facts.get()).toEqual({ revoked: false })
    now += 1
    const again = facts.get()
    expect(again).toBeInstanceOf(Promise)
    store.release()
    await again
    expect(store.reads).toBe(2)
  })
})
