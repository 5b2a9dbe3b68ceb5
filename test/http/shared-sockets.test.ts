/**
 * Shared hub sockets across requests, over real HTTP (`wrangler dev`, the fixture's /shared-hub:
 * `cloudflareEventHub({ shareSockets: sharedHubSockets })`): listen streams opened by separate requests of one
 * isolate share one hub socket per principal and subscription; each hears only what its principal
 * may see; the stream whose request opened a socket ends, the socket closes with it, and the other
 * streams on it move without ending to one new socket, which the youngest opens (so when that one
 * ends, the other moves again); a hub restart ends every stream on a socket with its listen
 * result, and each resumes from its own id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectAudiences, listenResource, type MessageStream, nextUpdate, rpc } from '../support/mcp.ts'
import { type PairServer, startPair } from '../support/pair.ts'

let fixture: PairServer

beforeAll(async () => {
  fixture = await startPair({ config: 'test/fixture/wrangler.jsonc' })
}, 180_000)

afterAll(async () => {
  await fixture?.stop()
})

const call = (url: string, name: string, args: Record<string, unknown>) =>
  rpc(fetch, url, 'tools/call', { name, arguments: args })

const listen = (url: string, uri: string, principal: string, after?: string) => listenResource(fetch, url, uri, principal, after)

describe('shared hub sockets across requests (fixture, /shared-hub)', () => {
  it('serves separate requests on one socket; when its opener goes the others move to one the youngest opens; through a hub restart', async () => {
    const [owner, other] = fixture.urls
    const shared = other.replace(/\/mcp$/, '/shared-hub')
    const uri = `test://shared-${Date.now()}`
    const count = async (tool: string) => Number((await call(shared, tool, {})).message.result?.content?.[0]?.text)
    const sockets = () => count('hub_sockets')
    const connects = () => count('hub_connects')
    // `read` once it has reached `value` (sockets close and open a little after a stream ends), up to 5 s.
    const reach = async (read: () => Promise<number>, value: number) => {
      for (let tries = 0; (await read()) !== value && tries < 100; tries++) await new Promise((r) => setTimeout(r, 50))
      expect(await read()).toBe(value)
    }
    const before = await sockets()
    const connected = await connects()
    const opener = await listen(shared, uri, 'alice')
    const second = await listen(shared, uri, 'alice')
    const third = await listen(shared, uri, 'alice')
    const bob = await listen(shared, uri, 'bob')
    const open = [opener, second, third, bob]
    try {
      // Alice's three streams on one socket, bob's on another.
      expect(await sockets()).toBe(before + 2)
      expect(await connects()).toBe(connected + 2)
      await call(owner, 'notify_resource', { uri: `${uri}/alice`, audience: ['alice'] })
      await call(owner, 'notify_resource', { uri: `${uri}/all` })
      // One log, one numbering: all give the event the same id; bob's first is the open one.
      const allId = await expectAudiences([opener, second, third], bob, uri)
      // The request that opened alice's socket ends: the socket goes with it (workerd would cancel
      // its reads soon after), and alice's other streams move, without ending, to one new socket.
      await opener.close()
      await reach(connects, connected + 3)
      await reach(sockets, before + 2)
      await call(owner, 'notify_resource', { uri: `${uri}/moved` })
      for (const stream of [second, third, bob]) expect((await nextUpdate(stream))?.uri).toBe(`${uri}/moved`)
      // `third`, the youngest, opened it (woken first, in its own request): when it goes, `second`
      // moves again. Had `second` opened it, nothing would move and no socket would open.
      await third.close()
      await reach(connects, connected + 4)
      await reach(sockets, before + 2)
      await call(owner, 'notify_resource', { uri: `${uri}/2` })
      const secondLast = await nextUpdate(second)
      expect(secondLast?.uri).toBe(`${uri}/2`)
      const bobLast = await nextUpdate(bob)
      expect(bobLast?.uri).toBe(`${uri}/2`)
      // The hub restarts: every stream ends with its result, and each resumes from its own id.
      await call(owner, 'restart_event_hub', {})
      for (const stream of [second, bob]) expect(await nextUpdate(stream)).toBeUndefined()
      await call(owner, 'notify_resource', { uri: `${uri}/3` })
      // Resumed from the first id it heard, alice's stream hears everything after it.
      const resumed = [await listen(shared, uri, 'alice', allId), await listen(shared, uri, 'bob', bobLast?.id)]
      open.push(...resumed)
      for (const expected of ['moved', '2', '3']) {
        expect((await nextUpdate(resumed[0] as MessageStream))?.uri).toBe(`${uri}/${expected}`)
      }
      expect((await nextUpdate(resumed[1] as MessageStream))?.uri).toBe(`${uri}/3`)
      expect(secondLast?.id).not.toBe(allId)
    } finally {
      await Promise.all(open.map((stream) => stream.close().catch(() => {})))
    }
  }, 60_000)
})
