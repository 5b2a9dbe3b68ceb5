/**
 * One isolate's cache of 2025 sessions' facts (server/legacy/session-ledger.ts): a fresh read
 * answers at once without the ledger; after 400 ms (counted from when the read started) the
 * ledger is read again; each request that misses reads for itself, and what began last is kept;
 * what this isolate writes is seen at once, and an end it knows of is never undone; a failed
 * read is not kept; the oldest of too many sessions is dropped. Time is a counter the tests move.
 */
import { describe, expect, it } from 'vitest'
import { SESSION_FACTS_TTL_MS, SessionFactsCache } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import type { SessionFacts, SessionKey, SessionLedger } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'

/** A ledger whose reads wait until released, counting them. */
function ledger(facts: Record<string, SessionFacts> = {}) {
  const pending: Array<() => void> = []
  const store = {
    reads: 0,
    failNext: false,
    release: () => {
      for (const done of pending.splice(0)) done()
    },
    read(key: SessionKey): Promise<SessionFacts> {
      store.reads++
      const failing = store.failNext
      store.failNext = false
      return new Promise((resolve, reject) =>
        pending.push(() =>
          failing ? reject(new Error('ledger down')) : resolve({ ...(facts[key.nonce] ?? { revoked: false }) }),
        ),
      )
    },
    setLogLevel: async () => ({ revoked: false }),
    subscribe: async () => ({ revoked: false }),
    openStream: async () => ({ revoked: false }),
    revoke: async () => {},
    revokePrincipal: async () => {},
  } satisfies SessionLedger & Record<string, unknown>
  return store
}

const key = (nonce = 'n1'): SessionKey => ({ nonce, principal: null, issuedAt: 0, expiresAt: 10_000_000 })

describe('SessionFactsCache', () => {
  it('reads once, then answers synchronously until the read is 400 ms old', async () => {
    let now = 1_000
    const cache = new SessionFactsCache(() => now)
    const store = ledger({ n1: { revoked: false, logLevel: 'error' } })
    const first = cache.get(store, key())
    store.release()
    expect(await first).toEqual({ revoked: false, logLevel: 'error' })
    now += SESSION_FACTS_TTL_MS - 1
    expect(cache.get(store, key())).toEqual({ revoked: false, logLevel: 'error' }) // not a promise
    expect(store.reads).toBe(1)
    now += 1
    const again = cache.get(store, key())
    expect(again).toBeInstanceOf(Promise)
    store.release()
    await again
    expect(store.reads).toBe(2)
  })

  it('gives each request that misses a read of its own (Workers tie a pending call to its request), and keeps the newest', async () => {
    let now = 0
    const cache = new SessionFactsCache(() => now)
    const store = ledger({ n1: { revoked: false, logLevel: 'error' } })
    const reads = [cache.get(store, key()), cache.get(store, key())]
    expect(store.reads).toBe(2)
    store.release()
    expect(await Promise.all(reads)).toEqual([
      { revoked: false, logLevel: 'error' },
      { revoked: false, logLevel: 'error' },
    ])
    // Once answered, the others are served from it until it is 400 ms old.
    now += SESSION_FACTS_TTL_MS - 1
    expect(cache.get(store, key())).toEqual({ revoked: false, logLevel: 'error' })
    expect(store.reads).toBe(2)
  })

  it('keeps what began last: a write made after a read began is not undone when the read answers', async () => {
    let now = 0
    const cache = new SessionFactsCache(() => now)
    const store = ledger()
    const read = cache.get(store, key()) // began at 0, answers { revoked: false }
    now = 10
    cache.put('n1', { revoked: false, logLevel: 'debug' }, 5)
    store.release()
    await read
    expect(cache.get(store, key())).toEqual({ revoked: false, logLevel: 'debug' })
  })

  it('sees what this isolate wrote at once (a revocation, a level), whatever it had read', async () => {
    const now = 0
    const cache = new SessionFactsCache(() => now)
    const store = ledger()
    const read = cache.get(store, key())
    cache.put('n1', { revoked: true })
    store.release()
    await read // the older read, answering late, does not overwrite the write
    expect(cache.get(store, key())).toEqual({ revoked: true })
    expect(store.reads).toBe(1)
  })

  it('never lets later facts undo an end this isolate knows of (a level written while the session ended)', () => {
    const cache = new SessionFactsCache(() => 0)
    const store = ledger()
    cache.put('n1', { revoked: true })
    cache.put('n1', { revoked: false, logLevel: 'debug' })
    expect(cache.get(store, key())).toEqual({ revoked: true })
    expect(store.reads).toBe(0)
  })

  it('does not keep a failed read: the next request reads again (and fails closed while the ledger is down)', async () => {
    const cache = new SessionFactsCache(() => 0)
    const store = ledger()
    store.failNext = true
    const failed = cache.get(store, key())
    store.release()
    await expect(failed).rejects.toThrow('ledger down')
    const retried = cache.get(store, key())
    expect(store.reads).toBe(2)
    store.release()
    expect(await retried).toEqual({ revoked: false })
  })

  it('keeps at most 4,096 sessions, dropping the oldest read first', async () => {
    const cache = new SessionFactsCache(() => 0)
    const store = ledger()
    for (let i = 0; i <= 4096; i++) cache.put(`s${i}`, { revoked: false })
    cache.get(store, key('s1'))
    expect(store.reads).toBe(0)
    cache.get(store, key('s0'))
    expect(store.reads).toBe(1)
  })
})
