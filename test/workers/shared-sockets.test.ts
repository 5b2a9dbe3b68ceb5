/**
 * Shared hub sockets (`cloudflareEventHub({ shareSockets: sharedHubSockets })`, shared-sockets.ts) inside
 * workerd, with the real `McpEventHub` objects: streams of one principal and one subscription
 * share one socket, and each hears only what its principal may see (a stream of another principal
 * has its own socket); a joiner leaves and the others keep hearing; the opener leaves, its socket
 * closes, and the others move to one new socket missing nothing; a throwing deliver ends its
 * stream only; a listen refused on one shard leaves the socket it joined on another; the socket drops and both streams end, each resuming from its own id; a stream that
 * joins a shared socket with a cursor hears its replay (several batches) and then the live events,
 * once and in order, while events keep being published; a full shard's object sends a shared
 * socket to a relay; a connect slower than another stream's wait leaves one socket, not two; a
 * chain of openers leaving, the youngest stream opening each new socket; a move while a stream's
 * start is still coming. Every stream here runs in the test's one request. `sharedHubSockets`
 * itself shares nothing here (a socket per stream, one warning), as in any Worker with
 * cross-request promise resolution off.
 *
 * Across requests: test/workers/shared-sockets-across.test.ts (each stream a request of its own in
 * an auxiliary Worker), test/http/shared-sockets.test.ts over `wrangler dev`, and the scale bench
 * (`node bench/run.mjs --only scale`). Not through `SELF.fetch`: the pool adds
 * `no_handle_cross_request_promise_resolution` to the Worker under test (the fixture), so there a
 * stream woken from another request's socket resumes in that request and fails at its first event
 * ("Promise will never complete"; bench/README.md has the evidence).
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import type { EventHubRpc } from '../../packages/mcp-edge/src/cloudflare/event-hub.ts'
import type { HubSocketSharing } from '../../packages/mcp-edge/src/cloudflare/hub-listener.ts'
import { cloudflareEventHub, shardOf } from '../../packages/mcp-edge/src/cloudflare/events.ts'
import { SharedSockets, sharedHubSockets } from '../../packages/mcp-edge/src/cloudflare/shared-sockets.ts'
import { countingHub } from '../fixture/counting-hub.ts'
import { listenResource, nextUpdate } from '../support/mcp.ts'
import type { HubCounts } from '../fixture/counting-hub.ts'
import { decodeCursor } from '../../packages/mcp-edge/src/server/events/event-log.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'

/** A layout whose shards 12–16 no other test uses, so their objects start empty; each test its own shard. */
const SHARDS = 17
const object = (name: string) => env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName(name)) as unknown as EventHubRpc
const update = (uri: string, audience?: string[]): McpEvent => ({ type: 'resourceUpdated', uri, audience })
const sockets = async (name: string) => (await object(name).stats()).sockets

function topicOnShard(shard: number): string {
  for (let i = 0; ; i++) {
    const uri = `test://shared-${crypto.randomUUID().slice(0, 8)}-${i}`
    if (shardOf(`resource:${uri}`, SHARDS) === shard) return uri
  }
}

/** A stream of `principal` on `uri` through `hub`, resumed after `after` when given: what it heard, and whether its path closed. */
async function stream(hub: ReturnType<typeof cloudflareEventHub>, uri: string, principal: string, after?: string) {
  const heard: Array<{ uri: string; id: string | undefined }> = []
  let wake = () => {}
  const stop = new AbortController()
  const path = await hub.listen(
    { topics: new Set([`resource:${uri}`]), principal },
    (event, id) => {
      if (event.type === 'resourceUpdated') heard.push({ uri: event.uri, id })
      wake()
    },
    stop.signal,
    after === undefined ? undefined : decodeCursor(after),
  )
  const state = { closed: false }
  void path.closed.then(() => {
    state.closed = true
    wake()
  })
  return {
    heard,
    state,
    start: path.cursor ?? '',
    stop: () => stop.abort(),
    uris: () => heard.map((entry) => entry.uri),
    async until(count: number) {
      while (heard.length < count) await new Promise<void>((resolve) => (wake = resolve))
    },
    async ended() {
      while (!state.closed) await new Promise<void>((resolve) => (wake = resolve))
    },
  }
}

type Stream = Awaited<ReturnType<typeof stream>>

/** Polls `done` (a socket closes a little after its stream ends), up to 5 s. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (const stop = Date.now() + 5000; !(await done()); ) {
    if (Date.now() > stop) throw new Error('not reached in 5 s')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Sharing as `sharedHubSockets` sets it up, less its check: the pool turns cross-request promise
 * resolution off (module header), where that check shares nothing, and every stream here runs in
 * the test's one request, where sharing needs none.
 */
const inOneRequest: HubSocketSharing = (namespace, binding) => new SharedSockets(namespace, binding).open
const shared = () => cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, shareSockets: inOneRequest })

describe('cloudflareEventHub shareSockets', () => {
  it('shares one socket among streams of one principal and subscription; each hears only what its principal may see', async () => {
    const hub = shared()
    const uri = topicOnShard(13)
    const alice = [await stream(hub, uri, 'alice'), await stream(hub, uri, 'alice')]
    const bob = await stream(hub, uri, 'bob')
    try {
      expect(await sockets('events/13')).toBe(2)
      // One send for both of alice's streams, none for bob's.
      expect(await hub.publish(update(`${uri}/alice`, ['alice']))).toBe(1)
      expect(await hub.publish(update(`${uri}/bob`, ['bob']))).toBe(1)
      expect(await hub.publish(update(`${uri}/all`))).toBe(2)
      for (const each of alice) {
        await each.until(2)
        expect(each.uris()).toEqual([`${uri}/alice`, `${uri}/all`])
      }
      await bob.until(2)
      expect(bob.uris()).toEqual([`${uri}/bob`, `${uri}/all`])
      // Both of alice's streams give the event the same id (the shard's seq), as their own sockets did.
      expect(alice[0]?.heard.map((entry) => entry.id)).toEqual(alice[1]?.heard.map((entry) => entry.id))
    } finally {
      for (const each of [...alice, bob]) each.stop()
    }
  })

  it('keeps hearing when a joiner leaves; when the opener leaves, the others move to one new socket and miss nothing', async () => {
    const hub = shared()
    const uri = topicOnShard(14)
    const opener = await stream(hub, uri, 'alice')
    const second = await stream(hub, uri, 'alice')
    const third = await stream(hub, uri, 'alice')
    const fourth = await stream(hub, uri, 'alice')
    third.stop()
    expect(await hub.publish(update(`${uri}/1`))).toBe(1)
    for (const each of [opener, second, fourth]) await each.until(1)
    expect(third.heard).toEqual([])
    // The opener leaves: its socket goes with it at once, and the other two open one new socket
    // from their own cursors; what is published meanwhile reaches them by replay or live, once.
    opener.stop()
    await hub.publish(update(`${uri}/2`))
    for (const each of [second, fourth]) await each.until(2)
    await until(async () => (await sockets('events/14')) === 1)
    expect(await hub.publish(update(`${uri}/3`))).toBe(1)
    // A new stream joins the moved socket.
    const next = await stream(hub, uri, 'alice')
    try {
      expect(await sockets('events/14')).toBe(1)
      expect(await hub.publish(update(`${uri}/4`))).toBe(1)
      for (const each of [second, fourth]) {
        await each.until(4)
        expect(each.uris()).toEqual([1, 2, 3, 4].map((i) => `${uri}/${i}`))
        expect(each.state.closed).toBe(false)
      }
      await next.until(1)
      expect(next.uris()).toEqual([`${uri}/4`])
      expect(opener.uris()).toEqual([`${uri}/1`])
    } finally {
      for (const each of [second, fourth, next]) each.stop()
    }
    await until(async () => (await sockets('events/14')) === 0)
  })

  it('ends a stream whose deliver throws, as a drop; the others on its socket keep hearing', async () => {
    const hub = shared()
    const uri = topicOnShard(14)
    const opener = await stream(hub, uri, 'alice')
    const failing = await hub.listen(
      { topics: new Set([`resource:${uri}`]), principal: 'alice' },
      () => {
        throw new Error('deliver failed in a test')
      },
      new AbortController().signal,
    )
    try {
      let ended = false
      void failing.closed.then(() => {
        ended = true
      })
      expect(await hub.publish(update(`${uri}/1`))).toBe(1)
      await opener.until(1)
      await until(async () => ended)
      expect(await hub.publish(update(`${uri}/2`))).toBe(1)
      await opener.until(2)
      expect(opener.uris()).toEqual([1, 2].map((i) => `${uri}/${i}`))
    } finally {
      opener.stop()
    }
    await until(async () => (await sockets('events/14')) === 0)
  })

  it('leaves every shard it joined when another shard refuses the stream', async () => {
    const hub = shared()
    const uri = topicOnShard(13)
    // A topic of 17,000 characters on another shard: its object refuses the socket (over 16 KiB).
    let refused = ''
    for (let i = 0; shardOf(refused, SHARDS) === 13 || refused === ''; i++) refused = `resource:test://${'x'.repeat(17_000)}${i}`
    const before = await sockets('events/13')
    await expect(
      hub.listen({ topics: new Set([`resource:${uri}`, refused]), principal: 'alice' }, () => {}, new AbortController().signal),
    ).rejects.toThrow()
    await until(async () => (await sockets('events/13')) === before)
    expect(await hub.publish(update(`${uri}/1`))).toBe(0)
  })

  it('ends every stream on a socket that drops; each resumes from its own id on one socket again', async () => {
    const hub = shared()
    const uri = topicOnShard(15)
    const early = await stream(hub, uri, 'alice')
    await hub.publish(update(`${uri}/1`))
    await early.until(1)
    const late = await stream(hub, uri, 'alice')
    await hub.publish(update(`${uri}/2`))
    await early.until(2)
    await late.until(1)
    expect(late.uris()).toEqual([`${uri}/2`])
    await runInDurableObject(env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/15')), (_instance, state) =>
      state.abort('restart in a test'),
    ).catch(() => {})
    await early.ended()
    await late.ended()
    await hub.publish(update(`${uri}/3`))
    // `early` from its first id (it missed 2 and 3 from there), `late` from its last.
    const resumed = [await stream(hub, uri, 'alice', early.heard[0]?.id), await stream(hub, uri, 'alice', late.heard[0]?.id)]
    try {
      expect(await sockets('events/15')).toBe(1)
      await hub.publish(update(`${uri}/4`))
      await resumed[0]?.until(3)
      await resumed[1]?.until(2)
      expect(resumed[0]?.uris()).toEqual([2, 3, 4].map((i) => `${uri}/${i}`))
      expect(resumed[1]?.uris()).toEqual([3, 4].map((i) => `${uri}/${i}`))
    } finally {
      for (const each of resumed) each?.stop()
    }
  })

  it('replays a stream that joins a shared socket with a cursor in batches, then the live events, once and in order', async () => {
    const hub = shared()
    const uri = topicOnShard(16)
    const first = await stream(hub, uri, 'alice')
    const open = [first]
    try {
      await hub.publish(update(`${uri}/0`))
      await first.until(1)
      // More than one replay batch (128 events) behind, and still published to while it joins.
      let count = 0
      for (; count < 160; ) await hub.publish(update(`${uri}/${++count}`))
      let more = Number.POSITIVE_INFINITY
      const published = (async () => {
        while (count < more) await hub.publish(update(`${uri}/${++count}`))
      })()
      const resumed = await stream(hub, uri, 'alice', first.heard[0]?.id)
      open.push(resumed)
      more = count + 5
      await published
      await resumed.until(count)
      expect(resumed.uris()).toEqual(Array.from({ length: count }, (_, i) => `${uri}/${i + 1}`))
      const seqs = resumed.heard.map((entry) => decodeCursor(entry.id ?? '')?.get(16) ?? -1)
      expect(seqs).toEqual(Array.from({ length: count }, (_, i) => seqs[0]! + i))
      expect(await sockets('events/16')).toBe(1)
    } finally {
      for (const each of open) each.stop()
    }
    await until(async () => (await sockets('events/16')) === 0)
  })

  it('puts a shared socket on a relay when the shard’s object is full, where its streams hear every event once', async () => {
    const hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, shareSockets: inOneRequest, capacity: 1 })
    const uri = topicOnShard(12)
    const bob = await stream(hub, uri, 'bob')
    const alice = [await stream(hub, uri, 'alice'), await stream(hub, uri, 'alice')]
    try {
      expect((await object('events/12').stats()).relays).toEqual(['events/12/1'])
      expect(await sockets('events/12/1')).toBe(1)
      for (let i = 1; i <= 3; i++) expect(await hub.publish(update(`${uri}/${i}`))).toBe(2)
      for (const each of [bob, ...alice]) {
        await each.until(3)
        expect(each.uris()).toEqual([1, 2, 3].map((i) => `${uri}/${i}`))
      }
    } finally {
      for (const each of [bob, ...alice]) each.stop()
    }
  })

  it('fails every stream waiting on a connect that fails (none hangs), and keeps no socket for it', async () => {
    const hub = shared()
    const uri = topicOnShard(13)
    // A principal of 17,000 characters: the object refuses the socket (its attachment is over 16 KiB).
    const principal = 'p'.repeat(17_000)
    const listen = () => hub.listen({ topics: new Set([`resource:${uri}`]), principal }, () => {}, new AbortController().signal)
    const before = await sockets('events/13')
    const results = await Promise.allSettled([listen(), listen(), listen()])
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected'])
    expect(await sockets('events/13')).toBe(before)
  })

  it('closes the socket of a connect a waiting stream gave up on, and joins the one that stream opened', async () => {
    const uri = topicOnShard(16)
    const stub = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/16'))
    const before = await sockets('events/16')
    // The shard's object takes no event for 400 ms, so the first connect outlasts the second
    // stream's wait (100 ms here): that stream opens a socket of its own, and the first, once
    // connected, must close its socket and join it.
    const blocked = runInDurableObject(stub, (_instance, state) =>
      state.blockConcurrencyWhile(() => new Promise((resolve) => setTimeout(resolve, 400))),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    const counts: HubCounts = { connects: 0, catchUps: 0 }
    const paths = new SharedSockets(countingHub(env.MCP_EVENTS, counts), 'MCP_EVENTS', 100)
    const connect = { topics: [`resource:${uri}`], principal: 'alice', capacity: 1000 }
    const handlers = { onMessage: () => {}, onClose: () => {} }
    const opened = await Promise.all([paths.open(16, connect, handlers), paths.open(16, connect, handlers)])
    await blocked
    try {
      // Two connects: the block held the first past the second stream's wait.
      expect(counts.connects).toBe(2)
      await until(async () => (await sockets('events/16')) === before + 1)
      expect(paths.size).toBe(1)
      expect(await shared().publish(update(`${uri}/1`))).toBe(1)
    } finally {
      for (const path of opened) path.leave()
    }
    await until(async () => (await sockets('events/16')) === before)
  })

  it('moves the streams to a socket the youngest opens, so older streams leave without moving anyone', async () => {
    const counts: HubCounts = { connects: 0, catchUps: 0 }
    const hub = cloudflareEventHub({
      binding: 'MCP_EVENTS',
      shards: SHARDS,
      shareSockets: (namespace, binding) => inOneRequest(countingHub(namespace, counts), binding),
    })
    const uri = topicOnShard(15)
    const streams = []
    for (let i = 0; i < 5; i++) streams.push(await stream(hub, uri, 'alice'))
    const [first, second, third, fourth, fifth] = streams as [Stream, Stream, Stream, Stream, Stream]
    expect(counts).toEqual({ connects: 1, catchUps: 5 })
    // The opener leaves: the four others move, each asking for what it missed, to one new socket.
    first.stop()
    await hub.publish(update(`${uri}/1`))
    for (const each of [second, third, fourth, fifth]) await each.until(1)
    expect(counts).toEqual({ connects: 2, catchUps: 9 })
    // The youngest opened it: the older ones leave and nobody moves.
    second.stop()
    third.stop()
    await hub.publish(update(`${uri}/2`))
    for (const each of [fourth, fifth]) await each.until(2)
    expect(counts).toEqual({ connects: 2, catchUps: 9 })
    // Its opener leaves: the last one moves.
    fifth.stop()
    await hub.publish(update(`${uri}/3`))
    await fourth.until(3)
    expect(counts).toEqual({ connects: 3, catchUps: 10 })
    expect(fourth.uris()).toEqual([1, 2, 3].map((i) => `${uri}/${i}`))
    fourth.stop()
    await until(async () => (await sockets('events/15')) === 0)
  })

  it('moves a stream whose socket goes while its own start is still coming, from its cursor once that is known', async () => {
    const hub = shared()
    const uri = topicOnShard(13)
    const opener = await stream(hub, uri, 'alice')
    for (let i = 1; i <= 3; i++) await hub.publish(update(`${uri}/${i}`))
    await opener.until(3)
    // The shard's object takes no event for 300 ms: the joiner's `catchUp` (a resume after 1) waits,
    // and the opener leaves meanwhile, so the joiner must move before its start is known.
    const stub = env.MCP_EVENTS.get(env.MCP_EVENTS.idFromName('events/13'))
    const blocked = runInDurableObject(stub, (_instance, state) =>
      state.blockConcurrencyWhile(() => new Promise((resolve) => setTimeout(resolve, 300))),
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    let started = false
    const joining = stream(hub, uri, 'alice', opener.heard[0]?.id).finally(() => {
      started = true
    })
    await new Promise((resolve) => setTimeout(resolve, 50))
    // Its start is still coming (the block holds its `catchUp`) when the opener leaves.
    expect(started).toBe(false)
    opener.stop()
    await blocked
    const joiner = await joining
    try {
      await hub.publish(update(`${uri}/4`))
      await joiner.until(3)
      expect(joiner.uris()).toEqual([2, 3, 4].map((i) => `${uri}/${i}`))
      expect(joiner.state.closed).toBe(false)
    } finally {
      joiner.stop()
    }
  })

  it('shares nothing where cross-request promise resolution is off (this pool): a socket per stream, and one warning', async () => {
    const flags = (globalThis as { Cloudflare?: { compatibilityFlags?: Record<string, boolean> } }).Cloudflare?.compatibilityFlags
    expect(
      flags?.handle_cross_request_promise_resolution,
      'the pool no longer turns cross-request promise resolution off: test the fallback in an auxiliary Worker with no_handle_cross_request_promise_resolution',
    ).toBe(false)
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    let hub: ReturnType<typeof cloudflareEventHub>
    try {
      hub = cloudflareEventHub({ binding: 'MCP_EVENTS', shards: SHARDS, shareSockets: sharedHubSockets })
      const lines = warned.mock.calls.map((call) => String(call[0]))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/shared hub sockets .* are off in this Worker/)
      expect(lines[0]).toMatch(/no_handle_cross_request_promise_resolution/)
      // …and says that under the test pool this is expected (the pool, not the Worker's config, turns it off).
      expect(lines[0]).toMatch(/Workers test pool \(@cloudflare\/vitest-pool-workers\) that is expected/)
    } finally {
      warned.mockRestore()
    }
    const uri = topicOnShard(12)
    const before = await sockets('events/12')
    const alice = [await stream(hub, uri, 'alice'), await stream(hub, uri, 'alice')]
    try {
      // Two streams of one principal and subscription: two sockets, where sharing would open one.
      expect(await sockets('events/12')).toBe(before + 2)
      expect(await hub.publish(update(`${uri}/1`))).toBe(2)
      for (const each of alice) {
        await each.until(1)
        expect(each.uris()).toEqual([`${uri}/1`])
      }
    } finally {
      for (const each of alice) each.stop()
    }
    await until(async () => (await sockets('events/12')) === before)
    // Through the fixture's /shared-hub (shareSockets on, one shard: events/0), as clients see it:
    // two listens of one principal are served, each on a socket of its own, and both hear an update.
    const fixtureUri = 'test://shared-hub'
    const fixtureBefore = await sockets('events/0')
    const fetcher = (request: Request) => SELF.fetch(request)
    const listens = [
      await listenResource(fetcher, 'http://127.0.0.1/shared-hub', fixtureUri, 'alice'),
      await listenResource(fetcher, 'http://127.0.0.1/shared-hub', fixtureUri, 'alice'),
    ]
    try {
      expect(await sockets('events/0')).toBe(fixtureBefore + 2)
      await cloudflareEventHub({ binding: 'MCP_EVENTS' }).publish(update(fixtureUri))
      for (const listen of listens) expect((await nextUpdate(listen))?.uri).toBe(fixtureUri)
    } finally {
      for (const listen of listens) await listen.close()
    }
  })
})
