/**
 * A resume replayed in several bounded batches (event-log.ts, hub-listener.ts), inside workerd with
 * the real `McpEventHub` objects, where batches meet what else the log holds: a topic pruned by
 * count below which another topic still has more than a batch of rows (the stream stays open, its
 * gap hinted once); shards whose batches interleave with live events routed to several shards (each
 * heard once); a listener that ended while a batch waited for room (no further connect); more
 * shards than two batches fit a listener's inbox; and a live-only announcement sent between two
 * batches (lost, so the listener is told once the next batch's path is registered).
 */
import { env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import type { EventHubRpc } from '../../packages/mcp-edge/src/cloudflare/event-hub.ts'
import { cloudflareEventHub, HUB_CAPACITY, shardOf } from '../../packages/mcp-edge/src/cloudflare/events.ts'
import { HubListener, shardName } from '../../packages/mcp-edge/src/cloudflare/hub-listener.ts'
import { replayBatch } from '../../packages/mcp-edge/src/cloudflare/event-log.ts'
import { decodeCursor } from '../../packages/mcp-edge/src/server/events/event-log.ts'
import { Listener } from '../../packages/mcp-edge/src/server/events/listen-hub.ts'
import { sessionChanged, sessionTopic } from '../../packages/mcp-edge/src/server/events/events.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'

const update = (uri: string): McpEvent => ({ type: 'resourceUpdated', uri })

/** A URI under `prefix` whose `resource:` topic falls in `shard` of `shards`. */
function uriOnShard(prefix: string, shard: number, shards: number): string {
  for (let i = 0; ; i++) {
    const uri = `${prefix}-${crypto.randomUUID().slice(0, 8)}-${i}`
    if (shardOf(`resource:${uri}`, shards) === shard) return uri
  }
}

/** A listener of `topics` through `hub`, resumed after `after` when given: what it heard, and whether its path closed. */
async function listener(
  hub: ReturnType<typeof cloudflareEventHub>,
  topics: string[],
  after?: string,
  pace?: () => Promise<boolean>,
) {
  const heard: Array<{ uri: string; id: string | undefined }> = []
  let wake = () => {}
  let closed = false
  const stop = new AbortController()
  const path = await hub.listen(
    { topics: new Set(topics), principal: null },
    (event, id) => {
      if (event.type === 'resourceUpdated') heard.push({ uri: event.uri, id })
      wake()
    },
    stop.signal,
    after === undefined ? undefined : decodeCursor(after),
    pace,
  )
  path.closed.then(() => {
    closed = true
    wake()
  })
  return {
    heard,
    path,
    stop: () => stop.abort(),
    get closed() {
      return closed
    },
    /** Resolves once `count` events were heard, or the path closed. */
    async until(count: number) {
      while (heard.length < count && !closed) await new Promise<void>((resolve) => (wake = resolve))
    },
  }
}

/**
 * A hub of 11 shards whose log keeps 130 events per topic, and a start cursor taken before topic
 * Y got 130 events and then topic X 140 (both on `shard`): X loses its 10 oldest to the count
 * bound, its floor above all of Y's rows, while Y keeps more than a batch (128) below that floor.
 */
async function prunedAboveOlderBacklog(shard: number, pruned: string, kept: string) {
  const SHARDS = 11
  const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, log: { maxEvents: 130 } })
  const x = uriOnShard(pruned, shard, SHARDS)
  const y = uriOnShard(kept, shard, SHARDS)
  const topics = [`resource:${x}`, `resource:${y}`]
  const before = await listener(hub, topics)
  const start = before.path.cursor ?? ''
  before.stop()
  for (let i = 0; i < 130; i++) await hub.publish(update(y))
  for (let i = 0; i < 140; i++) await hub.publish(update(x))
  return { hub, x, y, topics, start }
}

/** A listener's `pace` that holds every batch until `release()` is called. */
function heldPace() {
  let release = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  return { pace: () => gate.then(() => true), release }
}

describe('a resume in several batches', () => {
  it('stays open past a topic pruned by count above another topic’s older rows, hinted once, and hears the next event', async () => {
    // Every batch starts below X's floor.
    const { hub, x, y, topics, start } = await prunedAboveOlderBacklog(3, 'test://pruned', 'test://kept')
    const resumed = await listener(hub, topics, start)
    try {
      expect(resumed.path.gaps).toEqual([`resource:${x}`])
      // Y's 130 and X's newest 130, over three batches.
      await resumed.until(260)
      expect(resumed.closed).toBe(false)
      await hub.publish(update(x))
      await resumed.until(261)
      expect(resumed.closed).toBe(false)
      expect(resumed.heard.map((entry) => entry.uri)).toEqual([
        ...Array.from({ length: 130 }, () => y),
        ...Array.from({ length: 131 }, () => x),
      ])
      const seqs = resumed.heard.map((entry) => decodeCursor(entry.id ?? '')?.get(3) ?? -1)
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      expect(new Set(seqs).size).toBe(261)
    } finally {
      resumed.stop()
    }
  })

  it('ends when, between two batches, a hinted topic loses events published after the stream started', async () => {
    const { hub, x, topics, start } = await prunedAboveOlderBacklog(4, 'test://lost', 'test://older')
    const { pace, release } = heldPace()
    const resumed = await listener(hub, topics, start, pace)
    try {
      expect(resumed.path.gaps).toEqual([`resource:${x}`])
      await resumed.until(128)
      // While the second batch waits, X is pruned past the head the stream started at: those events
      // came after its hint, so only a resume (with a new hint) can cover them.
      for (let i = 0; i < 140; i++) await hub.publish(update(x))
      release()
      // Closed (the fix), or still hearing the batch (the loss unnoticed).
      await resumed.until(129)
      expect(resumed.closed).toBe(true)
      expect(resumed.heard).toHaveLength(128)
    } finally {
      resumed.stop()
    }
  })

  it('hears an event sent to two shards once when it comes live from one while the other is between batches', async () => {
    const SHARDS = 2
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS })
    // `parent` on one shard and `child` (under it) on the other: an update of `child` goes to both
    // (as `resource:child` and `resource:parent`, a prefix), one of `parent` only to the first.
    let parent = ''
    let child = ''
    while (!child) {
      parent = uriOnShard('test://parent', 0, SHARDS)
      const candidate = `${parent}/child`
      if (shardOf(`resource:${candidate}`, SHARDS) === 1) child = candidate
    }
    const topics = [`resource:${parent}`, `resource:${child}`]
    const before = await listener(hub, topics)
    const start = before.path.cursor ?? ''
    before.stop()
    for (let i = 0; i < 200; i++) await hub.publish(update(parent))
    const { pace, release } = heldPace()
    const resumed = await listener(hub, topics, start, pace)
    try {
      // Shard 0's first batch is out and its next waits for room; shard 1 replayed nothing and is live.
      const batch = replayBatch(SHARDS)
      await resumed.until(batch)
      await hub.publish(update(child))
      await resumed.until(batch + 1)
      expect(resumed.heard.at(-1)?.uri).toBe(child)
      release()
      await hub.publish(update(parent))
      // The rest of shard 0's replay (the parent's, the child's copy), then the last parent.
      await resumed.until(201)
      while (resumed.heard.filter((entry) => entry.uri === parent).length < 201 && !resumed.closed)
        await resumed.until(resumed.heard.length + 1)
      expect(resumed.heard.filter((entry) => entry.uri === child)).toHaveLength(1)
      expect(resumed.heard.filter((entry) => entry.uri === parent)).toHaveLength(201)
      expect(resumed.closed).toBe(false)
    } finally {
      resumed.stop()
    }
  })

  it('connects to the hub no more once the listener ended while a batch waited for room (pace resolves false)', async () => {
    const shard = 7
    const object = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(shardName(shard))) as unknown as EventHubRpc
    const uri = `test://ended-${crypto.randomUUID()}`
    const groups: Array<[number, string[]]> = [[shard, [`resource:${uri}`]]]
    // The real namespace, counting the listener's connects.
    let connects = 0
    const namespace = {
      idFromName: (name: string) => env.MCP_EVENTS.idFromName(name),
      get: (id: DurableObjectId) => {
        const stub = env.MCP_EVENTS.get(id)
        return {
          fetch: (input: RequestInfo, init?: RequestInit) => {
            connects++
            return stub.fetch(input, init)
          },
        }
      },
    } as unknown as DurableObjectNamespace
    const open = (deliver: () => void, signal: AbortSignal, pace?: () => Promise<boolean>) =>
      new HubListener({ namespace, binding: 'MCP_EVENTS', principal: null, capacity: HUB_CAPACITY, deliver, signal, pace })
    const first = new AbortController()
    const start = await open(() => {}, first.signal).start(groups, undefined)
    first.abort()
    for (let i = 0; i < 200; i++) await object.publish(update(uri))
    let heard = 0
    let paced = () => {}
    const asked = new Promise<void>((resolve) => (paced = resolve))
    const stop = new AbortController()
    connects = 0
    // The stream ends while its first batch is out: its pace says so.
    const pace = () => {
      paced()
      return Promise.resolve(false)
    }
    await open(() => heard++, stop.signal, pace).start(groups, decodeCursor(start.cursor ?? ''))
    try {
      await asked
      // A connect would start in the turn pace resolved in; one macrotask later it would be counted.
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(heard).toBe(128)
      expect(connects).toBe(1)
    } finally {
      stop.abort()
    }
  })

  it('fits the first batches of three shards in the listener’s inbox, so the stream does not end lagging', async () => {
    const SHARDS = 3
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS })
    // One parent URI per shard; each gets 100 updates of distinct children (none folds into another).
    const parents = [0, 1, 2].map((shard) => uriOnShard('test://inbox', shard, SHARDS))
    const topics = parents.map((uri) => `resource:${uri}`)
    const before = await listener(hub, topics)
    const start = before.path.cursor ?? ''
    before.stop()
    for (let i = 0; i < 100; i++) for (const parent of parents) await hub.publish(update(`${parent}/${i}`))
    // The real listener of a stream whose reader has not read yet: nothing leaves its inbox, and the
    // next batches wait for room (pace) that does not come in this test.
    const inbox = new Listener('listen-1', new Set(topics), null)
    let asked = 0
    let delivered = 0
    let settled = () => {}
    // Every shard's first batch is out (each asks for room), or the whole replay came at once.
    const firstBatches = new Promise<void>((resolve) => (settled = resolve))
    const pace = () => {
      if (++asked === SHARDS) settled()
      return new Promise<boolean>(() => {})
    }
    const deliver = (event: McpEvent, id?: string) => {
      inbox.offer(event, id)
      if (++delivered === 300) settled()
    }
    const stop = new AbortController()
    await hub.listen(inbox, deliver, stop.signal, decodeCursor(start), pace)
    try {
      await firstBatches
      expect(inbox.lagging).toBe(false)
      expect(inbox.pending).toBeGreaterThan(0)
      expect(inbox.pending).toBeLessThanOrEqual(128)
    } finally {
      stop.abort()
    }
  })

  it('says it re-linked once the next batch’s path is registered, after a live-only announcement sent between batches reached nobody', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: 1 })
    const uri = `test://relinked-${crypto.randomUUID()}`
    const nonce = crypto.randomUUID()
    const topics = [`resource:${uri}`, sessionTopic(nonce)]
    const before = await listener(hub, topics)
    const start = before.path.cursor ?? ''
    before.stop()
    for (let i = 0; i < 200; i++) await hub.publish(update(uri))
    const { pace, release } = heldPace()
    // What the listener was told, in order: `u` an update, `s` an announcement, `r` re-linked.
    const told: string[] = []
    let wake = () => {}
    const stop = new AbortController()
    const deliver = (event: McpEvent) => {
      told.push(event.type === 'session' ? 's' : 'u')
      wake()
    }
    // An announcement published as the listener says it re-linked must reach it: the new path is
    // registered by then (were it said before, this one would reach nobody, and the count below hang).
    let announced: Promise<unknown> | undefined
    const relinked = () => {
      told.push('r')
      announced = hub.publish(sessionChanged(nonce))
    }
    // Waits for what the listener is told, failing with what it was told after 5 s without it.
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 5000
      while (!done()) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`not told it in 5 s; told ${told.join('')}`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, left)
        })
      }
    }
    await hub.listen({ topics: new Set(topics), principal: null }, deliver, stop.signal, decodeCursor(start), pace, relinked)
    try {
      const batch = replayBatch(1)
      await until(() => told.length >= batch)
      // Between the batches: no socket of this listener is registered for it (sent live only, never replayed).
      await hub.publish(sessionChanged(nonce))
      release()
      const heard = (kind: string) => told.filter((one) => one === kind).length
      await until(() => heard('u') >= 200 && heard('s') >= 1)
      await announced
      await hub.publish(sessionChanged(nonce))
      await until(() => heard('s') >= 2)
      // The updates in order, 're-linked' once after the first batch, and both announcements heard
      // after it (the one between batches reached nobody).
      expect(told.slice(0, batch + 1).join('')).toBe(`${'u'.repeat(batch)}r`)
      expect([heard('u'), heard('r'), heard('s')]).toEqual([200, 1, 2])
      expect(told.at(-1)).toBe('s')
    } finally {
      stop.abort()
    }
  })
})
