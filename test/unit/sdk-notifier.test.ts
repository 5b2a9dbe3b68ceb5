/**
 * SDK 2.x's `handler.notify` on mcp-edge (src/sdk/notifier.ts): each member publishes its event
 * through the served server's delivery (its `events` option here; the `MCP_EVENTS` hub by
 * convention in a Worker), or, before a factory built a server, through the hub found without one.
 * Without any delivery it throws naming `MCP_EVENTS`, since no listener anywhere could hear it.
 * Delivery to real clients' streams across isolates: test/http/sdk-examples-elicitation.test.ts.
 */
import { describe, expect, it, vi } from 'vitest'
import type { EventHub, McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import { createNotifier, factoryBuilt, notifierOf } from '../../packages/mcp-edge/src/sdk/notifier.ts'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'

/** A hub that keeps what it is given (the hub's own delivery is test/workers/event-hub tests'). */
function keepingHub(): EventHub & { published: McpEvent[] } {
  const published: McpEvent[] = []
  return { published, publish: async (event) => void published.push(event), listen: () => Promise.reject(new Error('not here')) }
}

describe('handler.notify', () => {
  it("publishes each member's event through the server's events option", async () => {
    const hub = keepingHub()
    const server = new McpServer({ name: 'sdk', version: '1' }, { events: hub })
    const notify = createNotifier({ server: () => server.edge, hub: () => undefined })
    await notify.toolsChanged()
    await notify.promptsChanged()
    await notify.resourcesChanged()
    await notify.resourceUpdated('counter://value')
    expect(hub.published).toMatchObject([
      { type: 'listChanged', list: 'tools' },
      { type: 'listChanged', list: 'prompts' },
      { type: 'listChanged', list: 'resources' },
      { type: 'resourceUpdated', uri: 'counter://value' },
    ])
  })

  it('publishes straight to the hub while a factory has built no server', async () => {
    const hub = keepingHub()
    await createNotifier({ server: () => undefined, hub: () => hub }).resourceUpdated('counter://value')
    expect(hub.published).toEqual([{ type: 'resourceUpdated', uri: 'counter://value' }])
  })

  it("a factory's: the Worker's hub before it built a server, then the server it built last", async () => {
    const [workerHub, ownHub] = [keepingHub(), keepingHub()]
    const factory = () => new McpServer({ name: 'sdk', version: '1' }, { events: ownHub })
    const notify = notifierOf(factory, () => workerHub)
    await notify.toolsChanged()
    factoryBuilt(factory, factory().edge)
    await notify.promptsChanged()
    expect(workerHub.published).toEqual([{ type: 'listChanged', list: 'tools' }])
    expect(ownHub.published).toMatchObject([{ type: 'listChanged', list: 'prompts' }])
  })

  it("a server without delivery of its own publishes on the Worker's hub, as before any build: the same whatever the isolate served", async () => {
    const hub = keepingHub()
    const server = new McpServer({ name: 'sdk', version: '1' })
    expect(server.edge.events).toBeUndefined()
    await createNotifier({ server: () => server.edge, hub: () => hub }).resourceUpdated('counter://value')
    expect(hub.published).toMatchObject([{ type: 'resourceUpdated', uri: 'counter://value' }])
  })

  it('throws naming MCP_EVENTS when nothing delivers, and publishes nothing', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const notify = createNotifier({ server: () => server.edge, hub: () => undefined })
    expect(() => notify.resourceUpdated('counter://value')).toThrow(
      /^handler\.notify\.resourceUpdated\("counter:\/\/value"\): no event hub to publish on.*MCP_EVENTS.*events option/,
    )
    expect(() => createNotifier({ server: () => undefined, hub: () => undefined }).toolsChanged()).toThrow(
      /^handler\.notify\.toolsChanged\(\): no event hub .*McpEventHub/,
    )
  })

  it('refuses a uri that is not a non-empty string', () => {
    const hub = keepingHub()
    const notify = createNotifier({ server: () => undefined, hub: () => hub })
    expect(() => notify.resourceUpdated('')).toThrow(TypeError)
    expect(() => notify.resourceUpdated(42 as never)).toThrow(/uri must be a non-empty string/)
    expect(hub.published).toEqual([])
  })

  it('logs a failed publish and settles, so an unawaited call rejects nothing', async () => {
    const failing: EventHub = {
      publish: () => Promise.reject(new Error('hub down')),
      listen: () => Promise.reject(new Error('x')),
    }
    const server = new McpServer({ name: 'sdk', version: '1' }, { events: failing })
    await expect(createNotifier({ server: () => server.edge, hub: () => undefined }).toolsChanged()).resolves.toBeUndefined()
  })

  it("delivers to the server's own listeners in this isolate with events: 'isolate'", async () => {
    const server = new McpServer({ name: 'sdk', version: '1' }, { events: 'isolate' })
    const heard = vi.spyOn(server.edge.hub, 'publish')
    await createNotifier({ server: () => server.edge, hub: () => undefined }).resourceUpdated('counter://value')
    expect(heard.mock.calls).toMatchObject([[{ type: 'resourceUpdated', uri: 'counter://value' }]])
  })
})
