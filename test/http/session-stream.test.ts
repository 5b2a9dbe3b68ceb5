/**
 * A 2025-era session's stream (its GET, docs legacy-clients.md "The session's stream") with real
 * clients at their defaults, on the fixture as two isolates sharing its Durable Objects
 * (`npm run dev:pair`): the SDK 1.x client hears a tool registered at run time announced, lives
 * through a restart of the event hub, and resumes with `Last-Event-ID` after a dropped connection
 * and after a hub restart, hearing once what was published meanwhile; mcp-remote hands the
 * notifications to its host.
 *
 * Registries are per isolate: `server.tool` at run time adds the tool to the isolate that ran it,
 * and only `server.notifyListChanged('tools')` travels (through the hub, to every isolate). So the
 * client that registers a tool talks to isolate a alone, and the other isolate's list lacks it.
 *
 * The hub restart is the fixture's `McpEventHub`, the library's class with one more method that
 * calls `ctx.abort()`: workerd resets the object as a crash would, the isolates keep running.
 *
 * What mcp-remote 0.15.1 forwards (node_modules/mcp-remote/dist/chunk-KJCT2FXL.js): everything the
 * server sends, notifications included, unchanged, in its default (legacy, 2025) mode:
 * `transportToServer.onmessage` (line 32482) keeps only answers to its own requests (ids starting
 * `mcp-remote-`) and sends the rest to the host (line 32554). Only with `--protocol auto` against
 * a 2026-07-28 server does it drop `notifications/subscriptions/acknowledged` (lines 31670 and
 * 32506) and strip the subscription id from `_meta` (31717). It reaches the server through the
 * forwarder of test/support/forwarder.ts, which tells the test when its GET stream is open.
 */
import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { childEnv, removeHomeOnClose } from '../support/client-processes.ts'
import { startForwarder } from '../support/forwarder.ts'
import { rpc } from '../support/mcp.ts'
import { within } from '../support/oauth-browser.ts'
import { type PairServer, startPair } from '../support/pair.ts'
import { groupSignaller } from '../support/process-group.ts'

const ROOT = resolve(import.meta.dirname, '../..')
/** How long any one awaited event may take: each takes milliseconds, a reconnect one second; 15 s leaves a loaded machine room. */
const WAIT_MS = 15_000

/** Waiters for the next message of each method, filled by whoever receives them. */
function inbox<T>() {
  const waiting = new Map<string, Array<(message: T) => void>>()
  return {
    next: (method: string) =>
      new Promise<T>((wake) => {
        waiting.set(method, [...(waiting.get(method) ?? []), wake])
      }),
    receive(method: string, message: T) {
      for (const wake of waiting.get(method) ?? []) wake(message)
      waiting.delete(method)
    },
  }
}

/** One GET stream the client opened: the `Last-Event-ID` it sent, how its body ended, and a way to break it. */
interface WatchedStream {
  lastEventId: string | null
  end: Promise<'clean' | 'error' | 'cancelled'>
  /** Fail the body as a dropped connection would (the client sees a network error). */
  drop(): void
}

/**
 * The SDK 1.x client at its defaults, through a fetch that passes everything on and watches its
 * GET streams (opened by the client itself) and every error it reports.
 */
async function connectSdk(url: string) {
  const streams: WatchedStream[] = []
  const opened = inbox<WatchedStream>()
  const notes = inbox<unknown>()
  const errors: Error[] = []
  /** Every resource update the client's handler got, in order. */
  const updates: string[] = []
  /** GETs wait for this before they reach the server (a client held away). */
  let gate: Promise<void> = Promise.resolve()
  const watch = (response: Response, init: RequestInit): Response => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    let settle!: (how: 'clean' | 'error' | 'cancelled') => void
    let body!: ReadableStreamDefaultController<Uint8Array>
    const stream: WatchedStream = {
      lastEventId: new Headers(init.headers).get('last-event-id'),
      end: new Promise((resolve) => {
        settle = resolve
      }),
      drop() {
        settle('error')
        body.error(new TypeError('connection dropped by the test'))
        void reader.cancel().catch(() => {})
      },
    }
    const watched = new ReadableStream<Uint8Array>({
      start(controller) {
        body = controller
      },
      async pull(controller) {
        try {
          const { done, value } = await reader.read()
          if (!done) return controller.enqueue(value)
          settle('clean')
          controller.close()
        } catch (error) {
          settle('error')
          controller.error(error)
        }
      },
      cancel(reason) {
        settle('cancelled')
        return reader.cancel(reason)
      },
    })
    streams.push(stream)
    opened.receive('GET', stream)
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (input, init) => {
      if (init?.method === 'GET') await gate
      const response = await fetch(input, init)
      return init?.method === 'GET' && response.status === 200 && response.body ? watch(response, init) : response
    },
  })
  const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
  client.onerror = (error) => errors.push(error)
  client.setNotificationHandler(ToolListChangedNotificationSchema, (note) => notes.receive(note.method, note))
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
    updates.push(note.params.uri)
    notes.receive(note.method, note)
  })
  const stream = (index: number) => (streams[index] ? Promise.resolve(streams[index]) : opened.next('GET'))
  await client.connect(transport)
  return {
    client,
    errors,
    /** The client's `index`-th GET stream, once answered 200 (the first opens after initialize). */
    stream: (index: number) => within(stream(index), WAIT_MS, `the client's GET stream #${index}`),
    /** The next notification of `method` the client's handler gets. */
    heard: (method: string) => notes.next(method),
    updates,
    /** Hold the client's next GETs away from the server until the returned function is called. */
    hold(): () => void {
      let release!: () => void
      gate = new Promise((resolve) => {
        release = resolve
      })
      return release
    },
    async close() {
      await transport.terminateSession()
      await client.close()
    },
  }
}

/** Every tool name of a list, page after page (the fixture has more than one page). */
async function allNames(list: (cursor?: string) => Promise<{ tools: Array<{ name: string }>; nextCursor?: string }>) {
  const names: string[] = []
  let cursor: string | undefined
  do {
    const page = await list(cursor)
    names.push(...page.tools.map((tool) => tool.name))
    cursor = page.nextCursor
  } while (cursor)
  return names
}

const callText = async (url: string, name: string, args: Record<string, unknown> = {}) =>
  (await rpc(fetch, url, 'tools/call', { name, arguments: args })).message.result?.content?.[0]?.text as string

/** mcp-remote at its defaults, as a desktop host runs it over stdio, reaching `url` through a forwarder that watches it. */
async function startMcpRemote(url: string) {
  const forwarder = await startForwarder(url)
  const env = childEnv()
  // http is allowed for 127.0.0.1 without --allow-http.
  const child = removeHomeOnClose(
    spawn(process.execPath, [join(ROOT, 'node_modules/mcp-remote/dist/proxy.js'), forwarder.url], { env, detached: true }),
    env,
  )
  const stop = groupSignaller(child)
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const answers = inbox<any>()
  const notes = inbox<any>()
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line)
    if (message.method === undefined) answers.receive(String(message.id), message)
    else notes.receive(message.method, message)
  })
  let nextId = 1
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
  const request = (method: string, params: object) => {
    const id = nextId++
    const answered = answers.next(String(id))
    send({ jsonrpc: '2.0', id, method, params })
    return within(answered, 15_000, `mcp-remote's answer to ${method}`).catch((error: Error) => {
      throw new Error(`${error.message}; its stderr:\n${stderr}`)
    })
  }
  return {
    forwarder,
    notes,
    send,
    request,
    async stop() {
      child.stdin.end()
      await stop('SIGTERM')
      await forwarder.close()
    },
    /** initialize as a host does; the host's session is the last the server assigned (mcp-remote
     * first tests the connection with a session of its own, whose notifications never reach the host). */
    async initialize() {
      const initialized = await request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'desktop-host', version: '1.0.0' },
      })
      send({ jsonrpc: '2.0', method: 'notifications/initialized' })
      const session = forwarder.sessions.at(-1) as string
      await within(forwarder.streamOpened(session), WAIT_MS, "mcp-remote's GET stream")
      return { initialized, session }
    },
  }
}

describe('a 2025-era session’s stream with real clients, on two isolates (fixture)', () => {
  let pair: PairServer

  beforeAll(async () => {
    pair = await startPair({ config: 'test/fixture/wrangler.jsonc' })
  })
  afterAll(async () => {
    await pair?.stop()
  })

  it('announces a tool registered at run time with tools/list_changed, and the SDK 1.x client’s next list shows it', async () => {
    const [a, b] = pair.urls
    const name = `added_${Date.now()}`
    const sdk = await connectSdk(a)
    try {
      await sdk.stream(0)
      const list = (cursor?: string) => sdk.client.listTools(cursor ? { cursor } : undefined)
      expect(await allNames(list)).not.toContain(name)
      const changed = sdk.heard('notifications/tools/list_changed')
      const registered = await sdk.client.callTool({ name: 'register_tool_here', arguments: { name } })
      expect(registered.content).toEqual([{ type: 'text', text: `registered ${name}` }])
      await within(changed, WAIT_MS, 'notifications/tools/list_changed')
      expect(await allNames(list)).toContain(name)
      expect((await sdk.client.callTool({ name, arguments: {} })).content).toEqual([{ type: 'text', text: `${name} ran` }])
      // Registries are per isolate: b never ran the registration.
      const listOnB = async (cursor?: string) => (await rpc(fetch, b, 'tools/list', cursor ? { cursor } : {})).message.result
      expect(await allNames(listOnB)).not.toContain(name)
      expect(sdk.errors).toEqual([])
    } finally {
      await sdk.close()
    }
  })

  it('ends the SDK 1.x client’s stream cleanly when the event hub restarts; the client reconnects by itself and hears the next update', async () => {
    const [a, b] = pair.urls
    const uri = `test://session-stream/${Date.now()}`
    const sdk = await connectSdk(a)
    try {
      const first = await sdk.stream(0)
      await sdk.client.subscribeResource({ uri })
      const before = sdk.heard('notifications/resources/updated')
      expect(await callText(b, 'notify_resource', { uri })).toBe(`published ${uri}`)
      expect(await within(before, WAIT_MS, 'the update before the restart')).toMatchObject({ params: { uri } })

      expect(await callText(b, 'restart_event_hub')).toBe('Error: reset by restart_event_hub')
      // The hub's socket closed: the stream's body ends (no error), and the SDK reconnects after
      // the stream's `retry: 1000`, sending the priming event's id as Last-Event-ID.
      expect(await within(first.end, WAIT_MS, 'the end of the first stream')).toBe('clean')
      const second = await sdk.stream(1)
      expect(second.lastEventId).toEqual(expect.any(String))

      // The subscription is the session's: the new stream, on the restarted hub, hears it.
      const after = sdk.heard('notifications/resources/updated')
      expect(await callText(b, 'notify_resource', { uri })).toBe(`published ${uri}`)
      expect(await within(after, WAIT_MS, 'the update after the restart')).toMatchObject({ params: { uri } })
      expect(sdk.errors).toEqual([])
    } finally {
      await sdk.close()
    }
  })

  it('resumes the SDK 1.x client’s stream after a dropped connection and after a hub restart: what was published meanwhile arrives once, in order', async () => {
    const [a, b] = pair.urls
    const base = `test://session-stream/resume-${Date.now()}`
    const [one, two, three] = [`${base}/1`, `${base}/2`, `${base}/3`]
    const sdk = await connectSdk(a)
    const update = async (uri: string, label: string) => {
      const heard = sdk.heard('notifications/resources/updated')
      expect(await callText(b, 'notify_resource', { uri })).toBe(`published ${uri}`)
      return () => within(heard, WAIT_MS, label)
    }
    try {
      const first = await sdk.stream(0)
      for (const uri of [one, two, three]) await sdk.client.subscribeResource({ uri })
      await (await update(one, 'the first update'))()

      // The connection drops; an update is published while the client is held away.
      let release = sdk.hold()
      first.drop()
      const missed = await update(two, 'the update published while the connection was down')
      release()
      const second = await sdk.stream(1)
      expect(second.lastEventId).toMatch(/^ev:0-\d+$/)
      await missed()

      // The hub restarts (the stream ends cleanly); an update is published while the client is away.
      release = sdk.hold()
      expect(await callText(b, 'restart_event_hub')).toBe('Error: reset by restart_event_hub')
      expect(await within(second.end, WAIT_MS, 'the end of the second stream')).toBe('clean')
      const replayed = await update(three, 'the update published while the hub restarted')
      release()
      expect((await sdk.stream(2)).lastEventId).toMatch(/^ev:0-\d+$/)
      await replayed()
      await (await update(one, 'a live update after both resumes'))()

      expect(sdk.updates).toEqual([one, two, three, one])
      expect(sdk.errors.map((error) => error.message)).toEqual([expect.stringContaining('SSE stream disconnected')])
    } finally {
      await sdk.close()
    }
  })

  it('mcp-remote, driven over stdio as a host, forwards resources/updated, tools/list_changed and log messages from its GET stream', async () => {
    const [a, b] = pair.urls
    const uri = `test://session-stream/remote-${Date.now()}`
    const name = `added_remote_${Date.now()}`
    const remote = await startMcpRemote(a)
    const { notes, request } = remote
    try {
      const { initialized } = await remote.initialize()
      expect(initialized.result.capabilities).toMatchObject({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      })
      expect((await request('resources/subscribe', { uri })).result).toEqual({})

      // A change made on the other isolate.
      const updated = notes.next('notifications/resources/updated')
      expect(await callText(b, 'notify_resource', { uri })).toBe(`published ${uri}`)
      expect(await within(updated, WAIT_MS, 'notifications/resources/updated at the host')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri },
      })

      // A tool the host registers through mcp-remote (on a, where the proxy's requests go).
      const changed = notes.next('notifications/tools/list_changed')
      const registered = await request('tools/call', { name: 'register_tool_here', arguments: { name } })
      expect(registered.result.content).toEqual([{ type: 'text', text: `registered ${name}` }])
      expect(await within(changed, WAIT_MS, 'notifications/tools/list_changed at the host')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: {},
      })
      const list = async (cursor?: string) => (await request('tools/list', cursor ? { cursor } : {})).result
      expect(await allNames(list)).toContain(name)

      // A log message published on the other isolate, at the session's level (the lane's info).
      const logged = notes.next('notifications/message')
      expect(await callText(b, 'notify_log', { levels: ['debug', 'warning'] })).toBe('published 2')
      expect(await within(logged, WAIT_MS, 'notifications/message at the host')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'warning', data: { said: 'warning' } },
      })
    } finally {
      await remote.stop()
    }
  })

  it('mcp-remote resumes its GET stream with Last-Event-ID after a hub restart: the host hears the update published while it was away', async () => {
    const [a, b] = pair.urls
    const uri = `test://session-stream/remote-resume-${Date.now()}`
    const remote = await startMcpRemote(a)
    const { forwarder, notes, request } = remote
    try {
      const { session } = await remote.initialize()
      expect((await request('resources/subscribe', { uri })).result).toEqual({})
      const before = notes.next('notifications/resources/updated')
      expect(await callText(b, 'notify_resource', { uri })).toBe(`published ${uri}`)
      await within(before, WAIT_MS, 'the update before the restart')

      // The hub restarts (the GET stream ends cleanly); mcp-remote's reconnect is held while an update is published.
      const away = forwarder.hold()
      const count = forwarder.gets.length
      expect(await callText(b, 'restart_event_hub')).toBe('Error: reset by restart_event_hub')
      await within(away.held, WAIT_MS, "mcp-remote's reconnecting GET")
      // mcp-remote's own probe session (client "mcp-remote-fallback-test") reconnects its GET too,
      // in either order: wait until the host's session is held as well, so the update is published
      // while the host is away, and it is the host's session that must come back with Last-Event-ID.
      const hostGet = () => forwarder.gets.slice(count).find((get) => get.session === session)
      await vi.waitFor(() => expect(hostGet()).toBeDefined(), { timeout: WAIT_MS, interval: 20 })
      const missed = notes.next('notifications/resources/updated')
      expect(await callText(b, 'notify_resource', { uri })).toBe(`published ${uri}`)
      away.release()
      expect(hostGet()).toEqual({ session, lastEventId: expect.stringMatching(/^ev:0-\d+$/) })
      expect(await within(missed, WAIT_MS, 'the update published while mcp-remote was away')).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: { uri },
      })
    } finally {
      await remote.stop()
    }
  })
})
