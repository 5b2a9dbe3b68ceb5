/**
 * Hub capacity and relays inside workerd, with the real `McpEventHub` objects: a hub object serves
 * at most `capacity` listeners and refuses the next (503, with its count of relays); listeners of
 * one topic beyond it spread over relay objects, and each hears every event once, in the shard's
 * order; a stream that resumes on another object than the one it left (shard's object → relay,
 * relay → shard's object), while events keep being published, hears what it missed and then the
 * live ones in order, with no duplicate, also when its replay on a relay comes in several batches; a
 * session's announcement (live only) is answered without waiting on a relay, which still gets it;
 * a forward that fails does not fail the publish, and a relay that missed one ends its streams so
 * that they resume through the log. Many isolates and 10,000 streams: `node bench/run.mjs --only scale`.
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { SUBSCRIPTION_HEADER } from '../../packages/mcp-edge/src/cloudflare/event-hub.ts'
import type { EventHubRpc } from '../../packages/mcp-edge/src/cloudflare/event-hub.ts'
import { cloudflareEventHub, shardOf } from '../../packages/mcp-edge/src/cloudflare/events.ts'
import { decodeCursor } from '../../packages/mcp-edge/src/server/events/event-log.ts'
import { sessionChanged, sessionTopic } from '../../packages/mcp-edge/src/server/events/events.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'

/** A layout no other test uses, so the shard's objects start empty: 8 shards, each test its own shard (storage is the file's). */
const SHARDS = 8
const update = (uri: string): McpEvent => ({ type: 'resourceUpdated', uri })
const object = (name: string) => env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(name)) as unknown as EventHubRpc

function topicOnShard(shard: number): string {
  for (let i = 0; ; i++) {
    const uri = `test://relay-${crypto.randomUUID().slice(0, 8)}-${i}`
    if (shardOf(`resource:${uri}`, SHARDS) === shard) return uri
  }
}

/** A listener through `hub` on `uri`: what it heard (uri and id), and a way to wait for the n-th. */
async function listener(hub: ReturnType<typeof cloudflareEventHub>, uri: string, after?: string) {
  const heard: Array<{ uri: string; id: string | undefined }> = []
  let wake = () => {}
  const stop = new AbortController()
  const path = await hub.listen(
    { topics: new Set([`resource:${uri}`]), principal: null },
    (event, id) => {
      if (event.type === 'resourceUpdated') heard.push({ uri: event.uri, id })
      wake()
    },
    stop.signal,
    after === undefined ? undefined : decodeCursor(after),
  )
  let ended = false
  void path.closed.then(() => {
    ended = true
    wake()
  })
  return {
    heard,
    start: path.cursor ?? '',
    ended: () => ended,
    stop: () => stop.abort(),
    async until(count: number) {
      while (heard.length < count) await new Promise<void>((resolve) => (wake = resolve))
    },
    async untilEnded() {
      while (!ended) await new Promise<void>((resolve) => (wake = resolve))
    },
  }
}

const seqOf = (id: string | undefined, shard: number) => decodeCursor(id ?? '')?.get(shard) ?? -1

describe('McpEventHub capacity', () => {
  it('refuses a listener past the capacity the listener names, with how many relays its shard has', async () => {
    const hub = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(`capacity-test/${crypto.randomUUID()}`))
    const connect = (capacity: number) =>
      hub.fetch('http://hub', {
        headers: {
          upgrade: 'websocket',
          [SUBSCRIPTION_HEADER]: encodeURIComponent(JSON.stringify({ topics: ['list:tools'], principal: null, capacity })),
        },
      })
    const first = await connect(1)
    expect(first.status).toBe(101)
    first.webSocket?.accept()
    const refused = await connect(1)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('x-relays')).toBe('0')
    expect(refused.webSocket).toBeNull()
    // Nothing else changed: the first listener still gets events, and a larger capacity admits more.
    expect(await (hub as unknown as EventHubRpc).publish({ type: 'listChanged', list: 'tools' })).toBe(1)
    expect((await connect(2)).status).toBe(101)
    first.webSocket?.close(1000)
  })
})

describe('cloudflareEventHub relays', () => {
  it('spreads listeners of one topic over relays, none past its capacity, each hearing every event once and in order', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 2 })
    const uri = topicOnShard(5)
    const listeners = []
    for (let i = 0; i < 5; i++) listeners.push(await listener(hub, uri))
    try {
      const stats = await object('events/5').stats()
      expect(stats.sockets).toBe(2)
      expect(stats.relays).toEqual(['events/5/1', 'events/5/2'])
      expect(await Promise.all(stats.relays.map(async (name) => (await object(name).stats()).sockets))).toEqual([2, 1])
      for (let i = 0; i < 3; i++) expect(await hub.publish(update(`${uri}/${i}`))).toBe(5)
      for (const each of listeners) {
        await each.until(3)
        expect(each.heard.map((entry) => entry.uri)).toEqual([0, 1, 2].map((i) => `${uri}/${i}`))
        const seqs = each.heard.map((entry) => seqOf(entry.id, 5))
        expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
        expect(new Set(seqs).size).toBe(3)
      }
    } finally {
      for (const each of listeners) each.stop()
    }
  })

  it('resumes on another object than the one it left, in order and without duplicates, while events are published', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 2 })
    const uri = topicOnShard(6)
    // Two on the shard's object, one on relay 1, which is then already forwarding.
    const open = [await listener(hub, uri), await listener(hub, uri), await listener(hub, uri)]
    try {
      expect((await object('events/6').stats()).relays).toEqual(['events/6/1'])
      await hub.publish(update(`${uri}/0`))
      await open[0]?.until(1)
      const from = open[0]?.heard[0]?.id
      // Published one after another all through the resume (as the stream connects to relay 1, which
      // already forwards, and attaches), and for a few more after it.
      let count = 0
      let more = Number.POSITIVE_INFINITY
      const published = (async () => {
        while (count < more) await hub.publish(update(`${uri}/${++count}`))
      })()
      const resumed = await listener(hub, uri, from)
      open.push(resumed)
      more = count + 5
      await published
      await resumed.until(count)
      expect(resumed.heard.map((entry) => entry.uri)).toEqual(Array.from({ length: count }, (_, i) => `${uri}/${i + 1}`))
      const seqs = resumed.heard.map((entry) => seqOf(entry.id, 6))
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
      expect(new Set(seqs).size).toBe(count)
      expect((await object('events/6/1').stats()).sockets).toBe(2)
      // And back: from the relay's last id onto the shard's object, once it has room again.
      for (const each of open.splice(0, 2)) each.stop()
      resumed.stop()
      const last = resumed.heard.at(-1)?.id
      while ((await object('events/6').stats()).sockets > 0) await new Promise((resolve) => setTimeout(resolve, 10))
      await hub.publish(update(`${uri}/${count + 1}`))
      const back = await listener(hub, uri, last)
      open.push(back)
      expect((await object('events/6').stats()).sockets).toBe(1)
      await hub.publish(update(`${uri}/${count + 2}`))
      await back.until(2)
      expect(back.heard.map((entry) => entry.uri)).toEqual([`${uri}/${count + 1}`, `${uri}/${count + 2}`])
    } finally {
      for (const each of open) each.stop()
    }
  })

  it("replays a resume on a relay in bounded batches, each from the shard's object, then hears the live events, once and in order", async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 1 })
    const uri = topicOnShard(4)
    const first = await listener(hub, uri)
    const open = [first]
    try {
      await hub.publish(update(`${uri}/0`))
      await first.until(1)
      // More than two batches (128 events each) missed, then resumed while the shard's object is full.
      const missed = 300
      for (let i = 1; i <= missed; i++) await hub.publish(update(`${uri}/${i}`))
      const resumed = await listener(hub, uri, first.heard[0]?.id)
      open.push(resumed)
      await resumed.until(missed)
      expect((await object('events/4').stats()).relays.length).toBeGreaterThan(0)
      await hub.publish(update(`${uri}/${missed + 1}`))
      await resumed.until(missed + 1)
      expect(resumed.heard.map((entry) => entry.uri)).toEqual(Array.from({ length: missed + 1 }, (_, i) => `${uri}/${i + 1}`))
      const seqs = resumed.heard.map((entry) => seqOf(entry.id, 4))
      expect(seqs).toEqual(Array.from({ length: missed + 1 }, (_, i) => seqs[0]! + i))
    } finally {
      for (const each of open) each.stop()
    }
  })

  it('answers a session announcement once its own sockets have it, without waiting on a busy relay, which gets it afterwards', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 1 })
    let nonce = crypto.randomUUID()
    while (shardOf(sessionTopic(nonce), SHARDS) !== 3) nonce = crypto.randomUUID()
    const heard = [0, 0]
    let wake = () => {}
    const stop = new AbortController()
    // One listener on the shard's object, the next (past its capacity) on its relay.
    for (const i of [0, 1]) {
      await hub.listen(
        { topics: new Set([sessionTopic(nonce)]), principal: null },
        () => {
          heard[i] = (heard[i] ?? 0) + 1
          wake()
        },
        stop.signal,
      )
    }
    try {
      expect((await object('events/3').stats()).relays).toEqual(['events/3/1'])
      const relay = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/3/1'))
      // The relay is busy for a while: nothing reaches it until then, and a request made now answers after that.
      await runInDurableObject(relay, (_instance, state) => {
        void state.blockConcurrencyWhile(() => new Promise((resolve) => setTimeout(resolve, 1_000)))
      })
      const busy = relay.fetch('http://hub').then(() => 'relay free')
      const published = hub.publish(sessionChanged(nonce)).then(() => 'published')
      expect(await Promise.race([busy, published])).toBe('published')
      await busy
      while (heard[0] === 0 || heard[1] === 0) await new Promise<void>((resolve) => (wake = resolve))
      expect(heard).toEqual([1, 1])
    } finally {
      stop.abort()
    }
  })

  // Review of issue 40: a forward that failed left the relay's listeners without that event, and
  // failed the publish of an event the shard's object had logged and sent.
  it('a relay that missed a forward closes its listeners, which resume from their last id through the log', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 1 })
    const uri = topicOnShard(2)
    const onShard = await listener(hub, uri)
    const onRelay = await listener(hub, uri)
    const open = [onShard, onRelay]
    try {
      expect((await object('events/2').stats()).relays).toEqual(['events/2/1'])
      expect(await hub.publish(update(`${uri}/0`))).toBe(2)
      await onRelay.until(1)
      const seq = seqOf(onRelay.heard[0]?.id, 2)
      // What the relay gets after a forward of `seq + 1` failed: the next one.
      const next = update(`${uri}/2`)
      const message = JSON.stringify({ seq: seq + 2, event: next })
      expect(await object('events/2/1').relay(message, next, [`resource:${uri}`], seq + 2)).toBe(0)
      await onRelay.untilEnded()
      expect(onRelay.heard.map((entry) => entry.uri)).toEqual([`${uri}/0`])
      expect(onShard.ended()).toBe(false)
      // Its client resumes from its last id, and hears what the shard's object logged meanwhile.
      await hub.publish(update(`${uri}/1`))
      const resumed = await listener(hub, uri, onRelay.heard[0]?.id)
      open.push(resumed)
      await resumed.until(1)
      expect(resumed.heard.map((entry) => entry.uri)).toEqual([`${uri}/1`])
    } finally {
      for (const each of open) each.stop()
    }
  })

  // Last stop's documented gap: every socket was closed, also those whose replay had the missed
  // events, so after a relay restarted the listeners that came back to it were sent away again.
  it('a relay that missed a forward keeps the sockets whose replay reached past it, which hear the event; the others resume', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 2 })
    const uri = topicOnShard(7)
    const relay = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/7/1'))
    const heads = () =>
      runInDurableObject(relay, (_instance, state) =>
        state.getWebSockets().map((socket) => (socket.deserializeAttachment() as { head?: number }).head),
      )
    const told = async (count: number) => {
      for (;;) {
        const known = await heads()
        if (known.length === count && known.every((head) => head !== undefined)) return known
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const open = [await listener(hub, uri), await listener(hub, uri)]
    try {
      const early = await listener(hub, uri)
      open.push(early)
      const [earlyHead] = await told(1)
      for (const i of [0, 1]) await hub.publish(update(`${uri}/${i}`))
      await early.until(2)
      const seq = seqOf(early.heard[1]?.id, 7)
      expect(seq).toBe((earlyHead ?? 0) + 2)
      // The forward of `seq` is taken as lost; a listener attaching now has it in its replay's reach.
      await runInDurableObject(relay, (_instance, state) => state.storage.kv.put('hub_forwarded', seq - 1))
      const late = await listener(hub, uri)
      open.push(late)
      expect((await told(2)).sort()).toEqual([earlyHead, seq])
      const next = update(`${uri}/2`)
      const message = JSON.stringify({ seq: seq + 1, event: next })
      expect(await object('events/7/1').relay(message, next, [`resource:${uri}`], seq + 1)).toBe(1)
      await early.untilEnded()
      await late.until(1)
      expect(late.heard.map((entry) => entry.uri)).toEqual([`${uri}/2`])
      expect(late.ended()).toBe(false)
      expect(open.slice(0, 2).map((each) => each.ended())).toEqual([false, false])
      // What the listener sends the relay is read as a head only: anything else changes nothing.
      const [socketHead] = await runInDurableObject(relay, (instance, state) => {
        const [socket] = state.getWebSockets()
        for (const junk of ['{"head":"1"}', 'not json', '{"head":1.5}', `{"head":${seq + 100}}`])
          (instance as unknown as { webSocketMessage(socket: WebSocket, message: string): void }).webSocketMessage(
            socket as WebSocket,
            junk,
          )
        return state.getWebSockets().map((each) => (each.deserializeAttachment() as { head?: number }).head)
      })
      expect(socketHead).toBe(seq)
    } finally {
      for (const each of open) each.stop()
    }
  })

  it('a forward that fails is logged and does not fail the publish: the shard’s sockets and its other relays have the event', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 1 })
    const uri = topicOnShard(0)
    const open = [await listener(hub, uri), await listener(hub, uri)]
    try {
      // A relay every forward to fails: an object of another class, which has no `relay` method.
      await object('events/0').attach('events/0/broken', 'MCP_TASKS', { topics: [], principal: null })
      expect((await object('events/0').stats()).relays).toEqual(['events/0/1', 'events/0/broken'])
      for (const i of [0, 1]) expect(await hub.publish(update(`${uri}/${i}`))).toBe(2)
      for (const each of open) {
        await each.until(2)
        expect(each.heard.map((entry) => entry.uri)).toEqual([`${uri}/0`, `${uri}/1`])
      }
    } finally {
      for (const each of open) each.stop()
    }
  })

  // Review of the change: a late forward took the count back, and the next in-order one closed every listener again.
  it('a forward that arrives late (after a later one) does not take the relay’s count back', async () => {
    const stub = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(`events/6/late-${crypto.randomUUID()}`))
    const event = update('test://late')
    const forward = (seq: number) =>
      (stub as unknown as EventHubRpc).relay(JSON.stringify({ seq, event }), event, ['resource:test://late'], seq)
    for (const seq of [10, 11, 13, 12]) await forward(seq)
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.kv.get('hub_forwarded'))).toBe(13)
  })

  // Second review: a new relay took its first forward as where its count started, so a forward lost before it went unseen.
  it('a new relay checks its first forward too: its shard tells it where forwards start when it attaches', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, capacity: 1 })
    const uri = topicOnShard(1)
    const open = [await listener(hub, uri), await listener(hub, uri)]
    const [, onRelay] = open
    try {
      const { head } = await object('events/1').catchUp({ topics: [], principal: null })
      const relay = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/1/1'))
      const told = () => runInDurableObject(relay, (_instance, state) => state.storage.kv.get('hub_forwarded'))
      while ((await told()) === undefined) await new Promise((resolve) => setTimeout(resolve, 5))
      expect(await told()).toBe(head)
      // The forward of head + 1 was lost: the next one ends the relay's streams.
      const next = update(`${uri}/2`)
      const message = JSON.stringify({ seq: head + 2, event: next })
      expect(await object('events/1/1').relay(message, next, [`resource:${uri}`], head + 2)).toBe(0)
      await onRelay?.untilEnded()
      expect(onRelay?.heard).toEqual([])
    } finally {
      for (const each of open) each.stop()
    }
  })
})
