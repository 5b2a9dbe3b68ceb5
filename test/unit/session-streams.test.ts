/**
 * A 2025 session's GET stream is served by `services.sessionStreams` (`openSessionStream`, which
 * `cloudflareServices` sets with `sessions`), so a Worker without it bundles none of that code
 * (issue 38). Without it, a session's GET is 405 naming what the endpoint accepts, and the hub is
 * never asked; with it (and a ledger, session ids and a hub), the GET opens the session's stream.
 */
import { describe, expect, it, vi } from 'vitest'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import type { McpServices } from '../../packages/mcp-edge/src/server/dispatch.ts'
import type { EventHub, McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import { openSessionStream } from '../../packages/mcp-edge/src/server/legacy/session-stream.ts'
import { MAX_SESSION_SUBSCRIPTIONS } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import type { SessionFacts, SessionLedger } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import { ANNOUNCE_TIMEOUT_MS, END_RETRY_DELAYS_MS } from '../../packages/mcp-edge/src/http/legacy-client.ts'
import type { LogLevel } from '../../packages/mcp-edge/src/protocol/constants.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { legacyConnect, legacyHeaders, legacyRpc } from '../support/legacy.ts'

const ENDPOINT = 'http://127.0.0.1:8787/mcp'
const KEYS = 'unit:bWNwLWVkZ2UgdW5pdCB0ZXN0IGtleSwgbm90IGEgc2VjcmV0ISEhISE='

/** A hub that counts the listeners it is asked to open (their paths never drop). */
function countingHub() {
  const hub = {
    listens: 0,
    publish: async () => 0,
    listen: async () => {
      hub.listens++
      return { closed: new Promise<void>(() => {}) }
    },
  } satisfies EventHub & Record<string, unknown>
  return hub
}

/** A ledger where every session is live. */
const ledger: SessionLedger = {
  read: async () => ({ revoked: false }),
  setLogLevel: async () => ({ revoked: false }),
  subscribe: async () => ({ revoked: false }),
  openStream: async () => ({ revoked: false }),
  revoke: async () => {},
  revokePrincipal: async () => {},
}

/** `modules`: the library's server and handler modules, by default this file's (fresh ones: a new isolate's). */
async function setup(extra: Partial<McpServices>, modules = { createMcpServer, createMcpHandler }) {
  const hub = countingHub()
  const server = modules.createMcpServer({ name: 'streams', version: '1.0.0', events: hub })
  const requestState = new RequestStateCodec(createKeyRing(KEYS))
  const handle = modules.createMcpHandler(server, { services: () => ({ requestState, sessions: ledger, ...extra }) })
  const fetcher = (request: Request) => handle(request, undefined)
  const client = await legacyConnect(fetcher, ENDPOINT)
  expect(client.sessionId).toBeTruthy()
  const abort = new AbortController()
  const headers = legacyHeaders(client, { accept: 'text/event-stream', 'content-type': null })
  const get = () => fetcher(new Request(ENDPOINT, { method: 'GET', headers, signal: abort.signal }))
  return { hub, get, abort }
}

describe("a 2025 session's GET stream", () => {
  it('is 405 without sessionStreams, saying what the endpoint accepts, and asks the hub nothing', async () => {
    const { hub, get } = await setup({})
    const response = await get()
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST, DELETE')
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600)
    expect(hub.listens).toBe(0)
  })

  it('warns once per isolate, naming sessionStreams: openSessionStream, when services have sessions and a hub but not it', async () => {
    // A new isolate's modules (other tests here said it already), and two handlers: said once.
    vi.resetModules()
    const modules = {
      createMcpServer: (await import('../../packages/mcp-edge/src/server/server.ts')).createMcpServer,
      createMcpHandler: (await import('../../packages/mcp-edge/src/http/handler.ts')).createMcpHandler,
    }
    const warnings: string[] = []
    const original = console.warn
    console.warn = (line: unknown) => void warnings.push(String(line))
    try {
      const { get } = await setup({}, modules)
      expect((await get()).status).toBe(405)
      expect((await get()).status).toBe(405)
      expect((await (await setup({}, modules)).get()).status).toBe(405)
    } finally {
      console.warn = original
    }
    const named = warnings.filter((line) => line.includes('sessionStreams: openSessionStream'))
    expect(named).toHaveLength(1)
    expect(JSON.parse(named[0]!).level).toBe('warn')
  })

  it('opens the session stream from the hub with sessionStreams, without that warning', async () => {
    const warnings: string[] = []
    const original = console.warn
    console.warn = (line: unknown) => void warnings.push(String(line))
    try {
      const { get, abort } = await setup({ sessionStreams: openSessionStream })
      const response = await get()
      expect(response.status).toBe(200)
      abort.abort()
      await response.body?.cancel()
    } finally {
      console.warn = original
    }
    expect(warnings.filter((line) => line.includes('sessionStreams'))).toEqual([])
  })

  it('opens the session stream from the hub with sessionStreams', async () => {
    const { hub, get, abort } = await setup({ sessionStreams: openSessionStream })
    const response = await get()
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/event-stream')
    expect(hub.listens).toBe(1)
    abort.abort()
    await response.body?.cancel()
  })
})

describe("a 2025 session's subscriptions", () => {
  it('refuses one past the bound with -32602 naming it, and keeps the others; after an unsubscribe it is kept', async () => {
    // A ledger that keeps at most MAX_SESSION_SUBSCRIPTIONS per session, as McpSessionLedger does
    // (test/workers/session-ledger.test.ts checks the object itself).
    const kept = new Set<string>()
    const facts = () => ({ revoked: false, subscriptions: [...kept].sort() })
    const bounded: SessionLedger = {
      ...ledger,
      read: async () => facts(),
      subscribe: async (_key, uri, subscribed) => {
        if (!subscribed) kept.delete(uri)
        else if (kept.size < MAX_SESSION_SUBSCRIPTIONS) kept.add(uri)
        return facts()
      },
    }
    const server = createMcpServer({ name: 'subs', version: '1.0.0', events: countingHub() })
    server.resource('notes://{id}', { name: 'note', description: 'A note' }, () => ({ contents: [] }))
    const requestState = new RequestStateCodec(createKeyRing(KEYS))
    const handle = createMcpHandler(server, { services: () => ({ requestState, sessions: bounded }) })
    const fetcher = (request: Request) => handle(request, undefined)
    const client = await legacyConnect(fetcher, ENDPOINT)
    const subscribe = (uri: string, method = 'resources/subscribe') => legacyRpc(fetcher, ENDPOINT, client, method, { uri })
    for (let i = 0; i < MAX_SESSION_SUBSCRIPTIONS; i++) expect((await subscribe(`notes://${i}`)).message.result).toEqual({})
    const refused = await subscribe('notes://one-too-many')
    expect(refused.status).toBe(200)
    expect(refused.message.error).toEqual({
      code: -32602,
      message: `Invalid params: a session subscribes to at most ${MAX_SESSION_SUBSCRIPTIONS} resources at once`,
    })
    expect(kept.size).toBe(MAX_SESSION_SUBSCRIPTIONS)
    expect(kept.has('notes://one-too-many')).toBe(false)
    expect((await subscribe('notes://0', 'resources/unsubscribe')).message.result).toEqual({})
    expect((await subscribe('notes://one-too-many')).message.result).toEqual({})
    expect(kept.has('notes://one-too-many')).toBe(true)
  })
})

describe("a 2025 session's changes and its open stream", () => {
  /**
   * A hub that keeps what is published and the open stream's `deliver`, and whose publish fails
   * (`hub.failing`: throws, or `hang`s unanswered) until told otherwise; a ledger that counts reads
   * and keeps one session's subscriptions, level and end.
   */
  function recording(failing: false | 'throw' | 'hang' = false) {
    const published: McpEvent[] = []
    const control = { failing }
    let deliver: ((event: McpEvent) => void) | undefined
    let relinked: (() => void) | undefined
    const hub: EventHub = {
      publish: async (event) => {
        if (control.failing === 'throw') throw new Error('hub down')
        if (control.failing === 'hang') return new Promise<number>(() => {})
        published.push(event)
        return 1
      },
      listen: async (_subscription, given, _signal, _after, _pace, onRelinked) => {
        deliver = given
        relinked = onRelinked
        return { closed: new Promise<void>(() => {}) }
      },
    }
    const counted = {
      reads: 0,
      subscriptions: [] as string[],
      level: undefined as LogLevel | undefined,
      revoked: false,
      /** A DELETE elsewhere ends the session while the next write runs (after its request read the facts). */
      endDuringWrite: false,
      cap: MAX_SESSION_SUBSCRIPTIONS,
    }
    const facts = (): SessionFacts => ({
      revoked: counted.revoked,
      subscriptions: [...counted.subscriptions],
      ...(counted.level ? { logLevel: counted.level } : {}),
    })
    const sessions: SessionLedger = {
      ...ledger,
      read: async () => {
        counted.reads++
        return facts()
      },
      subscribe: async (_key, uri) => {
        if (counted.subscriptions.length < counted.cap) counted.subscriptions.push(uri)
        return facts()
      },
      setLogLevel: async (_key, level) => {
        counted.level = level
        if (counted.endDuringWrite) counted.revoked = true
        return facts()
      },
      revoke: async () => {
        counted.revoked = true
      },
    }
    const server = createMcpServer({ name: 'announce', version: '1.0.0', events: hub })
    server.resource('notes://{id}', { name: 'note', description: 'A note' }, () => ({ contents: [] }))
    const requestState = new RequestStateCodec(createKeyRing(KEYS))
    const handle = createMcpHandler(server, {
      services: () => ({ requestState, sessions, sessionStreams: openSessionStream }),
    })
    // What the handler left running after its answer (the host's waitUntil).
    const kept: Promise<unknown>[] = []
    const fetcher = (request: Request) => handle(request, undefined, { waitUntil: (promise) => void kept.push(promise) })
    return {
      kept,
      published,
      counted,
      control,
      fetcher,
      deliver: (event: McpEvent) => deliver?.(event),
      relinked: () => relinked?.(),
    }
  }
  const settle = () => new Promise((done) => setTimeout(done, 10))

  it('announces a change through the hub before answering; the stream reads the ledger at open and on an announcement, not per event', async () => {
    const { published, counted, fetcher, deliver } = recording()
    const client = await legacyConnect(fetcher, ENDPOINT)
    const abort = new AbortController()
    const headers = legacyHeaders(client, { accept: 'text/event-stream', 'content-type': null })
    const response = await fetcher(new Request(ENDPOINT, { method: 'GET', headers, signal: abort.signal }))
    expect(response.status).toBe(200)
    await settle()
    const nonce = (published[0] as { nonce: string }).nonce
    // The GET announced its stream (an older one elsewhere ends); the stream read the facts once
    // (the GET's own check of the session read them too).
    expect(published).toEqual([{ type: 'session', nonce }])
    expect(counted.reads).toBe(2)
    expect((await legacyRpc(fetcher, ENDPOINT, client, 'resources/subscribe', { uri: 'notes://1' })).message.result).toEqual({})
    expect(published).toEqual([
      { type: 'session', nonce },
      { type: 'session', nonce },
    ])
    const before = counted.reads
    for (let i = 0; i < 5; i++) deliver({ type: 'listChanged', list: 'tools' })
    // Another session's announcement changes nothing here; its own makes the stream read again.
    deliver({ type: 'session', nonce: 'someone-else' })
    await settle()
    expect(counted.reads).toBe(before)
    deliver({ type: 'session', nonce })
    deliver({ type: 'resourceUpdated', uri: 'notes://1' })
    await settle()
    expect(counted.reads).toBe(before + 1)
    const reader = response.body!.getReader()
    let text = ''
    while (!text.includes('notes://1')) text += new TextDecoder().decode((await reader.read()).value)
    expect(text).toContain('"uri":"notes://1"')
    abort.abort()
    await reader.cancel()
  })

  it('reads the facts again when the hub re-links it between replay batches (an announcement meanwhile reached nobody), ending if the session ended', async () => {
    const { counted, fetcher, relinked } = recording()
    const client = await legacyConnect(fetcher, ENDPOINT)
    const headers = legacyHeaders(client, { accept: 'text/event-stream', 'content-type': null })
    const response = await fetcher(new Request(ENDPOINT, { method: 'GET', headers }))
    expect(response.status).toBe(200)
    await settle()
    const before = counted.reads
    // Ended elsewhere while the hub had no path to this stream: its announcement was lost.
    counted.revoked = true
    relinked()
    await settle()
    expect(counted.reads).toBe(before + 1)
    const reader = response.body!.getReader()
    while (!(await reader.read()).done) {}
  })

  const UNANNOUNCED = {
    code: -32603,
    message: 'Service unavailable: the event hub could not be told of the session’s change (it is kept); retry',
  }

  it('answers a change the hub could not be told of with -32603 (service unavailable), the change kept', async () => {
    const { counted, fetcher } = recording('throw')
    const client = await legacyConnect(fetcher, ENDPOINT)
    const refused = await legacyRpc(fetcher, ENDPOINT, client, 'resources/subscribe', { uri: 'notes://1' })
    // A method's error, as when the ledger cannot be reached (a GET would be HTTP 503).
    expect(refused.status).toBe(200)
    expect(refused.message.error).toEqual(UNANNOUNCED)
    expect(counted.subscriptions).toEqual(['notes://1'])
  })

  it('announces a retried logging/setLevel whose first announcement failed, though the level is already kept', async () => {
    const { counted, control, published, fetcher } = recording('throw')
    const client = await legacyConnect(fetcher, ENDPOINT)
    const setLevel = () => legacyRpc(fetcher, ENDPOINT, client, 'logging/setLevel', { level: 'debug' })
    expect((await setLevel()).message.error).toEqual(UNANNOUNCED)
    expect(counted.level).toBe('debug')
    control.failing = false
    // This isolate's cache knows the level now; the retry still tells the hub (a stream elsewhere keeps the old one until then).
    expect((await setLevel()).message.result).toEqual({})
    expect(published).toEqual([{ type: 'session', nonce: expect.any(String) }])
  })

  it('answers a GET whose stream the hub could not be told of with 503, opening none', async () => {
    const { fetcher } = recording('throw')
    const client = await legacyConnect(fetcher, ENDPOINT)
    const headers = legacyHeaders(client, { accept: 'text/event-stream', 'content-type': null })
    const response = await fetcher(new Request(ENDPOINT, { method: 'GET', headers }))
    expect(response.status).toBe(503)
    expect(((await response.json()) as { error: unknown }).error).toEqual(UNANNOUNCED)
  })

  it('answers an ended session -32600 (session not found) and a subscription past the cap -32602 though the hub is down: nothing to announce', async () => {
    const { counted, fetcher } = recording('throw')
    const client = await legacyConnect(fetcher, ENDPOINT)
    counted.cap = 0
    const full = await legacyRpc(fetcher, ENDPOINT, client, 'resources/subscribe', { uri: 'notes://1' })
    expect(full.message.error).toEqual({
      code: -32602,
      message: `Invalid params: a session subscribes to at most ${MAX_SESSION_SUBSCRIPTIONS} resources at once`,
    })
    // Ended elsewhere after this request read its facts: the write's answer says so.
    const other = await legacyConnect(fetcher, ENDPOINT)
    counted.endDuringWrite = true
    const ended = await legacyRpc(fetcher, ENDPOINT, other, 'logging/setLevel', { level: 'debug' })
    // The method's answer (HTTP 200) for a session that ended while it ran, as without a hub.
    expect(ended.message.error).toEqual({ code: -32600, message: 'Session not found: send initialize again' })
  })

  it('ends the session on a DELETE the hub could not be told of with 204, and announces its end in the background', async () => {
    const { counted, control, published, kept, fetcher } = recording('throw')
    const client = await legacyConnect(fetcher, ENDPOINT)
    const headers = legacyHeaders(client, { 'content-type': null })
    const remove = () => fetcher(new Request(ENDPOINT, { method: 'DELETE', headers }))
    vi.useFakeTimers()
    try {
      // The SDK's terminateSession throws on any other status but 405 and keeps the id: it could never end it.
      expect((await remove()).status).toBe(204)
      expect(counted.revoked).toBe(true)
      expect(kept).toHaveLength(1)
      // Ended: a request of the session is 404, and so is a second DELETE, which announces nothing.
      expect((await legacyRpc(fetcher, ENDPOINT, client, 'tools/list', {})).status).toBe(404)
      expect((await remove()).status).toBe(404)
      // The first retry fails too; the second, once the hub is back, announces the end.
      await vi.advanceTimersByTimeAsync(END_RETRY_DELAYS_MS[0])
      expect(published).toEqual([])
      control.failing = false
      await vi.advanceTimersByTimeAsync(END_RETRY_DELAYS_MS[1])
      await kept[0]
      expect(published).toEqual([{ type: 'session', nonce: expect.any(String) }])
    } finally {
      vi.useRealTimers()
    }
  })

  it('does not wait on a hub that never answers: a DELETE is 204 after ANNOUNCE_TIMEOUT_MS, the session ended; a change is -32603', async () => {
    const { counted, fetcher } = recording('hang')
    const client = await legacyConnect(fetcher, ENDPOINT)
    vi.useFakeTimers()
    try {
      let answered = false
      const subscribed = legacyRpc(fetcher, ENDPOINT, client, 'resources/subscribe', { uri: 'notes://1' })
      const removed = subscribed.then(() =>
        fetcher(new Request(ENDPOINT, { method: 'DELETE', headers: legacyHeaders(client, { 'content-type': null }) })),
      )
      void removed.then(() => (answered = true))
      await vi.advanceTimersByTimeAsync(ANNOUNCE_TIMEOUT_MS)
      expect((await subscribed).message.error).toEqual(UNANNOUNCED)
      expect(answered).toBe(false)
      await vi.advanceTimersByTimeAsync(ANNOUNCE_TIMEOUT_MS)
      expect((await removed).status).toBe(204)
      expect(counted.revoked).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })
})
