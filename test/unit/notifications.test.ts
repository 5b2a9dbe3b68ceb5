/**
 * Notifications in Node: what a filter and a principal let through (src/server/events.ts, the one
 * matcher every path uses), which capabilities are advertised with and without a delivery, and
 * the listen method's filter limits. Cross-isolate delivery through the hub is tested in workerd
 * (test/workers/events.test.ts) and over two isolates (test/http/notifications.test.ts).
 */
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import {
  eventNotification,
  eventTopics,
  filterTopics,
  MAX_PREFIX_TOPICS,
  MAX_LOG_EVENT_BYTES,
  matches,
  visibleTo,
} from '../../packages/mcp-edge/src/server/events/events.ts'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import { MAX_SUBSCRIPTION_BYTES } from '../../packages/mcp-edge/src/server/methods/listen.ts'
import { serverCapabilities } from '../../packages/mcp-edge/src/server/server-capabilities.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { quiet } from '../../packages/mcp-edge/src/server/quiet.ts'
import { watchKeptRequests } from '../../packages/mcp-edge/src/server/kept-requests.ts'
import { McpError } from '../../packages/mcp-edge/src/protocol/errors.ts'
import type { EventDelivery } from '../../packages/mcp-edge/src/server/events/events.ts'
import { Listener } from '../../packages/mcp-edge/src/server/events/listen-hub.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'
import { sendAs } from './support.ts'

const URL = 'http://127.0.0.1/mcp'
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

function serve(events: EventDelivery | undefined, listenTimeoutMs = 60_000) {
  const server = createMcpServer({ name: 'unit', version: '1.0.0', events, listenTimeoutMs })
  server.tool('a', { input: z.object({}) }, () => text('a'))
  server.resource('notes://all', { name: 'notes' }, (uri) => ({ contents: [{ uri, text: '' }] }))
  // "Authorization: Bearer <name>" is principal <name>.
  const handle = createMcpHandler(server, {
    authenticate: (request) => ({ subject: request.headers.get('authorization')?.slice('Bearer '.length) ?? 'anonymous' }),
  })
  return { server, fetch: (request: Request) => handle(request, undefined) }
}

describe('topics and matching', () => {
  it('routes a resource update under its URI, each of its /-prefixes, and resources:all', () => {
    expect(eventTopics({ type: 'resourceUpdated', uri: 'file:///data/a.txt' })).toEqual([
      'resource:file:///data/a.txt',
      'resource:file:',
      'resource:file:/',
      'resource:file://',
      'resource:file:///data',
      'resources:all',
    ])
    // No filter subscribes to resources:all (a URI "all" is resource:all, a URI "*" resource:*).
    expect(filterTopics({ resourceSubscriptions: ['all', '*', 'resources:all'] })).toEqual([
      'resource:all',
      'resource:*',
      'resource:resources:all',
    ])
    expect(eventTopics({ type: 'listChanged', list: 'prompts' })).toEqual(['list:prompts'])
    expect(eventTopics({ type: 'task', taskId: 't1', params: {} })).toEqual(['task:t1'])
    expect(
      filterTopics({ toolsListChanged: true, promptsListChanged: false, resourceSubscriptions: ['x://y'], taskIds: ['t1'] }),
    ).toEqual(['list:tools', 'resource:x://y', 'task:t1'])
  })

  // Found by review: a URI of 2,000 segments wrote 2,000 log rows of the whole event (136 MB) and
  // held the hub's thread for a second; one of 32 and more is routed under its first 32 prefixes.
  it(`routes an update under at most ${MAX_PREFIX_TOPICS} /-prefixes, the shortest; refuses a URI longer than a subscription may be`, async () => {
    const segments = Array.from({ length: 40 }, (_, i) => `d${i}`)
    const uri = `x:/${segments.join('/')}`
    const topics = eventTopics({ type: 'resourceUpdated', uri })
    expect(topics).toHaveLength(1 + MAX_PREFIX_TOPICS + 1)
    expect(topics.slice(0, 3)).toEqual([`resource:${uri}`, 'resource:x:', 'resource:x:/d0'])
    expect(topics.at(-2)).toBe(`resource:x:/${segments.slice(0, MAX_PREFIX_TOPICS - 1).join('/')}`)
    const hears = (subscribed: string) =>
      matches(
        { topics: new Set(filterTopics({ resourceSubscriptions: [subscribed] })), principal: null },
        { type: 'resourceUpdated', uri },
      )
    expect(hears('x:/d0/d1')).toBe(true)
    expect(hears(`x:/${segments.slice(0, MAX_PREFIX_TOPICS - 1).join('/')}`)).toBe(true)
    expect(hears(`x:/${segments.slice(0, MAX_PREFIX_TOPICS).join('/')}`)).toBe(false)
    expect(hears(uri)).toBe(true)
    const server = createMcpServer({ name: 'long', version: '1.0.0', events: 'isolate' })
    expect(() => server.notifyResourceUpdated(`x://${'a'.repeat(2045)}`)).toThrow(
      new RangeError('notifyResourceUpdated: uri is 2049 characters, more than 2048'),
    )
    expect(() => server.notifyResourceUpdated('')).toThrow(TypeError)
    await server.notifyResourceUpdated(`x://${'a'.repeat(2044)}`)
  })

  it('matches a subscribed URI exactly when it is the URI or a /-parent of it (every short string pair)', () => {
    const strings = ['']
    for (let length = 1; length <= 4; length++) {
      for (const prefix of strings.filter((s) => s.length === length - 1)) strings.push(...['a', '/', ':'].map((c) => prefix + c))
    }
    let checked = 0
    for (const subscribed of strings) {
      const subscription = { topics: new Set(filterTopics({ resourceSubscriptions: [subscribed] })), principal: null }
      for (const uri of strings) {
        const expected = uri === subscribed || uri.startsWith(`${subscribed}/`)
        expect(matches(subscription, { type: 'resourceUpdated', uri })).toBe(expected)
        checked++
      }
    }
    expect(checked).toBe(121 * 121)
  })

  it('shows an event with an audience only to those principals, and never to a listener without one', () => {
    const event: McpEvent = { type: 'listChanged', list: 'tools', audience: ['alice'] }
    expect([visibleTo(event, 'alice'), visibleTo(event, 'bob'), visibleTo(event, null)]).toEqual([true, false, false])
    const open: McpEvent = { type: 'listChanged', list: 'tools' }
    expect([visibleTo(open, 'bob'), visibleTo(open, null)]).toEqual([true, true])
  })

  it('tags each notification with the subscription id, keeping a task notification’s own _meta', () => {
    expect(eventNotification({ type: 'resourceUpdated', uri: 'x://y', audience: ['a'] }, 'L1')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: 'x://y', _meta: { 'io.modelcontextprotocol/subscriptionId': 'L1' } },
    })
    const task = eventNotification({ type: 'task', taskId: 't', params: { taskId: 't', status: 'working', _meta: { k: 1 } } }, 2)
    expect(task.params).toEqual({ taskId: 't', status: 'working', _meta: { k: 1, 'io.modelcontextprotocol/subscriptionId': 2 } })
  })
})

describe('honest capabilities', () => {
  it('advertises listChanged and subscribe only with a delivery', () => {
    const options = { env: undefined, cancel: new AbortController() }
    expect(serverCapabilities(serve(undefined).server, options)).toEqual({ logging: {}, tools: {}, resources: {} })
    expect(serverCapabilities(serve('isolate').server, options)).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    })
  })

  it('without a delivery, discover says so and listen honours no list or resource subscription', async () => {
    const { server, fetch } = serve(undefined, 200)
    const discovered = await rpc(fetch, URL, 'server/discover')
    expect(discovered.message.result?.capabilities).toEqual({ logging: {}, tools: {}, resources: {} })
    const listen = await openStream(
      fetch,
      buildRequest(URL, 'subscriptions/listen', {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['notes://all'] },
      }),
    )
    expect((await listen.next()).params?.notifications).toEqual({})
    await server.notifyResourceUpdated('notes://all')
    server.tool('b', { input: z.object({}) }, () => text('b'))
    // Nothing was honoured, so nothing arrives before the graceful end.
    const end = await listen.next()
    expect([end.method, end.result?.resultType]).toEqual([undefined, 'complete'])
  })
})

describe('in-isolate delivery', () => {
  it('delivers to the principals of the audience only', async () => {
    const { server, fetch } = serve('isolate')
    const open = (who: string) =>
      openStream(
        fetch,
        buildRequest(
          URL,
          'subscriptions/listen',
          { notifications: { resourceSubscriptions: ['notes://all'] } },
          {
            headers: { authorization: `Bearer ${who}` },
          },
        ),
      )
    const [alice, bob] = await Promise.all([open('alice'), open('bob')])
    try {
      await Promise.all([alice.next(), bob.next()])
      await server.notifyResourceUpdated('notes://all/secret', { audience: ['alice'] })
      await server.notifyResourceUpdated('notes://all/public')
      expect((await alice.next()).params?.uri).toBe('notes://all/secret')
      expect((await alice.next()).params?.uri).toBe('notes://all/public')
      expect((await bob.next()).params?.uri).toBe('notes://all/public')
    } finally {
      await Promise.all([alice.close(), bob.close()])
    }
  })
})

// A server that refuses subscriptions in its own subscribe handler (mcp-edge/sdk hands it the
// requests: kept-requests.ts) refused 2025 sessions' only; a listen stream's went around it.
describe("a listen stream's resources, heard by the server's own subscribe handler", () => {
  it('leaves out of the acknowledgement what it refuses, and hears the rest unsubscribed when the stream ends', async () => {
    const { server, fetch } = serve('isolate')
    const heard: string[] = []
    watchKeptRequests(server, async (request) => {
      const uri = String((request.params as { uri: string }).uri)
      if (uri === 'notes://denied') throw new McpError('invalidParams', 'Invalid params: not subscribable')
      heard.push(`${request.method} ${uri}`)
    })
    const listen = await openStream(
      fetch,
      buildRequest(URL, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['notes://all', 'notes://denied'] } }),
    )
    expect((await listen.next()).params?.notifications).toEqual({ resourceSubscriptions: ['notes://all'] })
    expect(heard).toEqual(['resources/subscribe notes://all'])
    await listen.close()
    await vi.waitFor(() => expect(heard).toEqual(['resources/subscribe notes://all', 'resources/unsubscribe notes://all']))
  })
})

describe('registry changes heard in this isolate', () => {
  it("are not heard while the server is quiet (an McpAgent's set-up made again), and are again after", () => {
    const server = createMcpServer({ name: 'quiet', version: '1.0.0' })
    const listener = new Listener('l', { toolsListChanged: true }, null)
    server.hub.add(listener)
    const loud = quiet(server)
    const louder = quiet(server)
    server.tool('set_up_again', { input: z.object({}) }, () => ({ content: [] }))
    server.removeTool('set_up_again')
    loud()
    loud()
    server.tool('still_quiet', { input: z.object({}) }, () => ({ content: [] }))
    expect(listener.take()).toEqual([])
    louder()
    server.tool('heard', { input: z.object({}) }, () => ({ content: [] }))
    expect(listener.take().map((message) => message.method)).toEqual(['notifications/tools/list_changed'])
  })
})

describe('server.notifyLog', () => {
  it('refuses an unknown level or no data (TypeError) and data over 64 KiB of JSON (RangeError), publishing nothing', async () => {
    const { server, fetch } = serve('isolate')
    const listen = await openStream(
      fetch,
      buildRequest(URL, 'subscriptions/listen', {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['notes://all'] },
      }),
    )
    try {
      await listen.next()
      expect(() => server.notifyLog('loud' as never, 'x')).toThrow(TypeError)
      expect(() => server.notifyLog('info', undefined)).toThrow(TypeError)
      expect(() => server.notifyLog('info', 'x'.repeat(MAX_LOG_EVENT_BYTES))).toThrow(RangeError)
      // At the bound it goes, and a 2026 listen stream never hears a log message (only 2025
      // session streams take the topic): the next thing it carries is the list change after it.
      await server.notifyLog('info', 'x'.repeat(MAX_LOG_EVENT_BYTES - 2))
      await server.notifyListChanged('tools')
      expect((await listen.next()).method).toBe('notifications/tools/list_changed')
    } finally {
      await listen.close()
    }
  })
})

describe('listen filter limits', () => {
  it(`refuses resource subscriptions and task ids over ${MAX_SUBSCRIPTION_BYTES} bytes with -32602, and serves ones just under`, async () => {
    const { fetch } = serve('isolate', 100)
    const many = (length: number) => Array.from({ length }, (_, i) => `notes://all/${String(i).padStart(4, '0')}`)
    // Measured as the JSON of the topics ("resource:notes://all/0000", …): 438 take 12,265 bytes, 439 take 12,293.
    const under = await rpc(fetch, URL, 'subscriptions/listen', { notifications: { resourceSubscriptions: many(438) } })
    expect(under.message.result?.resultType).toBe('complete')
    const over = await rpc(fetch, URL, 'subscriptions/listen', { notifications: { resourceSubscriptions: many(439) } })
    expect([over.status, over.message.error]).toEqual([
      200,
      { code: -32602, message: 'Invalid params: resourceSubscriptions and taskIds exceed 12288 bytes' },
    ])
    // Characters past Latin-1 count two bytes each, as the hub's attachment keeps them: 26 URIs of
    // 290 such characters (8,217 characters of JSON, 16,408 bytes) are refused here, where the hub
    // refused them (-32603); 20 (12,622 bytes) too; 19 (11,991 bytes) pass.
    const wide = (length: number) =>
      Array.from({ length }, (_, i) => `notes://all/${String(i).padStart(2, '0')}${'界'.repeat(290)}`)
    for (const length of [26, 20]) {
      const refused = await rpc(fetch, URL, 'subscriptions/listen', { notifications: { resourceSubscriptions: wide(length) } })
      expect(refused.message.error?.code).toBe(-32602)
    }
    const fits = await rpc(fetch, URL, 'subscriptions/listen', { notifications: { resourceSubscriptions: wide(19) } })
    expect(fits.message.result?.resultType).toBe('complete')
  })
})

describe('a 2025 client subscribing where nothing keeps it (no session ledger, no hub)', () => {
  it('is answered {} as before, and the log says once that no update will reach the session, naming the fix', async () => {
    const server = createMcpServer({ name: 'unkept', version: '1.0.0' })
    server.resource('notes://all', { name: 'notes' }, () => ({ contents: [] }))
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const subscribe = (uri: string) => sendAs(server, 'resources/subscribe', { uri }, undefined, '2025-11-25')
      expect(await subscribe('notes://all')).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
      expect(await subscribe('notes://all')).toMatchObject({ result: {} })
      expect(await sendAs(server, 'resources/unsubscribe', { uri: 'notes://all' }, undefined, '2025-11-25')).toMatchObject({
        result: {},
      })
      expect(warn).toHaveBeenCalledTimes(1)
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/resources\/subscribe answered and not kept.*MCP_SESSIONS.*MCP_EVENTS/)
    } finally {
      warn.mockRestore()
    }
  })
})
