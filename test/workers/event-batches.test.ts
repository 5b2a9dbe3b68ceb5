/**
 * A resume replayed in several bounded batches (event-log.ts, hub-listener.ts), inside workerd with
 * the real `McpEventHub` objects, where batches meet what else the log holds: a topic pruned by
 * count below which another topic still has more than a batch of rows (the stream stays open, its
 * gap hinted once); shards whose batches interleave with live events routed to several shards (each
 * heard once); and more shards than two batches fit a listener's inbox.
 */
import { describe, expect, it } from 'vitest'
import { cloudflareEventHub, shardOf } from '../../packages/mcp-edge/src/cloudflare/events.ts'
import { decodeCursor } from '../../packages/mcp-edge/src/server/events/event-log.ts'
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
async function listener(hub: ReturnType<typeof cloudflareEventHub>, topics: string[], after?: string) {
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

describe('a resume in several batches', () => {
  it('stays open past a topic pruned by count above another topic’s older rows, hinted once, and hears the next event', async () => {
    // Topic X loses its oldest rows to the count bound (its floor above all of Y's rows), while Y
    // keeps more than a batch (128) of rows below X's floor: every batch starts below that floor.
    const SHARDS = 11
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, log: { maxEvents: 130 } })
    const x = uriOnShard('test://pruned', 3, SHARDS)
    const y = uriOnShard('test://kept', 3, SHARDS)
    const topics = [`resource:${x}`, `resource:${y}`]
    const before = await listener(hub, topics)
    const start = before.path.cursor ?? ''
    before.stop()
    for (let i = 0; i < 130; i++) await hub.publish(update(y))
    for (let i = 0; i < 140; i++) await hub.publish(update(x))
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
})
