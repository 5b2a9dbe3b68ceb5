/**
 * Fixture (b), an `McpAgent` keeping a counter in its state (`this.setState`), served with
 * `CounterMCP.serve('/mcp')` on the MCP_OBJECT binding, its imports changed to `mcp-edge/sdk` and
 * nothing else (test/fixture-sdk/agent), under `wrangler dev`. The state is the agent's per 2025
 * session: it persists across calls in one session and is separate between two; for 2026-07-28
 * clients, which have no session, it is kept per principal (here the one anonymous principal). The
 * SSE transport, which mcp-edge does not offer, answers an error that names `serve`. `LateMCP`
 * assigns its server in `init()` behind a throwing getter, on a metering subclass (metered.ts)
 * with 57 tools, listed on one page as an SDK server lists them.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inspect } from '../support/client-processes.ts'
import { buildRequest } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/agent/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

/**
 * The SDK 2.x client pinned to 2026-07-28, connected to the agent at `path`, sending `grant` as
 * the props an OAuth provider in front would hand over (the fixture's `x-test-grant`).
 */
async function pinnedClient(path: string, grant?: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  const requestInit = grant === undefined ? {} : { requestInit: { headers: { 'x-test-grant': grant } } }
  await client.connect(new TransportV2(new URL(path, worker.url), requestInit))
  return client
}

const text = (result: object) => ((result as { content?: { text: string }[] }).content ?? [])[0]?.text

async function session(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(worker.url))
  await client.connect(transport)
  return { client, transport }
}

const increment = (client: Client | ClientV2, by: number) =>
  client.callTool({ name: 'increment', arguments: { by } }).then((result) => text(result))
const counter = async (client: Client | ClientV2) => (await client.readResource({ uri: 'mcp://resource/counter' })).contents[0]

describe('McpAgent served with serve("/mcp"): 2025 sessions (the SDK 1.x client)', () => {
  let first: Awaited<ReturnType<typeof session>>
  let second: Awaited<ReturnType<typeof session>>

  beforeAll(async () => {
    first = await session()
    second = await session()
  })
  afterAll(async () => {
    await first?.client.close()
    await second?.client.close()
  })

  it('lists the tools registered in init(), registerTool and the older tool() alike', async () => {
    const { tools } = await first.client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['increment', 'add', 'calculate'])
    expect(tools[0]?.inputSchema).toMatchObject({ properties: { by: { type: 'integer' } }, required: ['by'] })
    expect(text(await first.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toBe('42')
  })

  it('serves a tool whose schema is zod 3, as SDK 1.x did: listed, called, bad arguments refused', async () => {
    const { tools } = await first.client.listTools()
    expect(tools.find((tool) => tool.name === 'calculate')?.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        operation: { type: 'string', enum: ['add', 'subtract', 'multiply', 'divide'] },
        a: { type: 'number' },
        b: { type: 'number', description: 'The second operand' },
      },
      required: ['operation', 'a', 'b'],
    })
    expect(text(await first.client.callTool({ name: 'calculate', arguments: { operation: 'multiply', a: 6, b: 7 } }))).toBe('42')
    const refused = await first.client.callTool({ name: 'calculate', arguments: { operation: 'modulo', a: 6, b: 7 } })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/operation/)
  })

  it('keeps the counter across calls within one session', async () => {
    expect(first.transport.sessionId).toBeTruthy()
    expect(await increment(first.client, 2)).toBe('counter is 2')
    expect(await increment(first.client, 3)).toBe('counter is 5')
    expect(await counter(first.client)).toEqual({ uri: 'mcp://resource/counter', text: '5' })
  })

  it('keeps a separate counter for another session', async () => {
    expect(second.transport.sessionId).not.toBe(first.transport.sessionId)
    expect(await increment(second.client, 1)).toBe('counter is 1')
    expect(await increment(first.client, 1)).toBe('counter is 6')
    expect(await counter(second.client)).toMatchObject({ text: '1' })
  })

  // This fixture binds no McpSessionLedger (sdk-adapter.test.ts ends a session where one is bound).
  it('answers DELETE of a session 405 naming MCP_SESSIONS, and the session goes on', async () => {
    const { client, transport } = await session()
    try {
      expect(await increment(client, 7)).toBe('counter is 7')
      const headers = { 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-11-25' }
      const response = await fetch(worker.url, { method: 'DELETE', headers })
      expect(response.status).toBe(405)
      expect((await response.json()).error.message).toContain('Bind McpSessionLedger as MCP_SESSIONS')
      expect(await increment(client, 1)).toBe('counter is 8')
    } finally {
      await client.close()
    }
  })

  it('starts each Inspector CLI run (a new session each) from initialState', async () => {
    for (let run = 0; run < 2; run++) {
      const called = await inspect(worker.url, '--method', 'tools/call', '--tool-name', 'increment', '--tool-arg', 'by=4')
      expect([called.code, called.result?.content]).toEqual([0, [{ type: 'text', text: 'counter is 4' }]])
    }
  })
})

describe('McpAgent served with serve("/mcp"): 2026-07-28 clients (no session)', () => {
  const clients: ClientV2[] = []
  const connect = async () => {
    const client = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new TransportV2(new URL(worker.url)))
    clients.push(client)
    return client
  }
  afterAll(() => Promise.all(clients.map((client) => client.close())))

  it('keeps the counter per principal: two anonymous clients share it, apart from every 2025 session', async () => {
    const one = await connect()
    expect(one.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect(await increment(one, 10)).toBe('counter is 10')
    const other = await connect()
    expect(await increment(other, 1)).toBe('counter is 11')
    expect(await counter(one)).toMatchObject({ text: '11' })
  })

  it('calls the zod 3 tool, and refuses its bad arguments', async () => {
    const client = await connect()
    expect(text(await client.callTool({ name: 'calculate', arguments: { operation: 'divide', a: 1, b: 0 } }))).toBe(
      'Error: Cannot divide by zero',
    )
    const refused = await client.callTool({ name: 'calculate', arguments: { operation: 'add', a: '1', b: 2 } })
    expect(refused.isError).toBe(true)
    expect(text(refused)).toMatch(/^Invalid arguments for tool calculate: a: /)
  })
})

// As most of Cloudflare's own McpAgent apps were written (a review ported one, radar): before,
// every request answered 500 ("onStart() threw"), since the getter threw when read before init().
describe('McpAgent whose server is assigned in init() behind a throwing getter, on a metering subclass with 57 tools', () => {
  const clients: (Client | ClientV2)[] = []
  afterAll(() => Promise.all(clients.map((client) => client.close())))
  const late = () => new URL('/late', worker.url)
  let names2025: string[] = []

  it('lists every tool on one page, as an SDK server does, and meters the calls (SDK 1.x client, 2025)', async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    clients.push(client)
    await client.connect(new StreamableHTTPClientTransport(late()))
    const listed = await client.listTools()
    expect(listed.tools).toHaveLength(57)
    expect(listed.nextCursor).toBeUndefined()
    expect(text(await client.callTool({ name: 'echo_55', arguments: { text: 'hi' } }))).toBe('55: hi')
    const metered = JSON.parse(text(await client.callTool({ name: 'metered', arguments: {} })) ?? '')
    // oninitialized ran once the client's notifications/initialized came, reading the client there
    // (it was taken and never called before).
    expect(metered).toMatchObject({ calls: { echo_55: { ok: 1, failed: 0 } }, clients: 1 })
    names2025 = listed.tools.map((tool) => tool.name)
  })

  it('serves a 2026-07-28 client the same list', async () => {
    const client = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    clients.push(client)
    await client.connect(new TransportV2(late()))
    const listed = await client.listTools()
    expect(listed.tools.map((tool) => tool.name)).toEqual(names2025)
    expect(names2025.slice(-3)).toEqual(['echo_55', 'describe_request', 'metered'])
    // A handler annotated RequestHandlerExtra<ServerRequest, ServerNotification>, registered as it is.
    const described = await client.callTool({
      name: 'describe_request',
      arguments: { level: 'info' },
      _meta: { progressToken: 7 },
    })
    expect(text(described)).toBe('token 7, level info, code -32602')
    expect(listed.nextCursor).toBeUndefined()
    expect(text(await client.callTool({ name: 'echo_1', arguments: { text: 'x' } }))).toBe('1: x')
  })
})

// Before, serve('/repo/*') matched only the path '/repo/*' itself: every request was 404; an
// onStart override never ran, and onStateChanged and validateStateChange were never called.
describe("McpAgent served at a path pattern (serve('/repo/*')), with agents' lifecycle hooks", () => {
  const clients: (Client | ClientV2)[] = []
  afterAll(() => Promise.all(clients.map((client) => client.close())))
  const visit = async (client: Client | ClientV2) => text(await client.callTool({ name: 'visit', arguments: {} }))

  it('serves every path the pattern matches, a 2026-07-28 caller getting an object per path; onStart runs once, before init()', async () => {
    const at = async (path: string) => {
      const client = new ClientV2(
        { name: 'client-2x', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      )
      await client.connect(new TransportV2(new URL(path, worker.url)))
      clients.push(client)
      return client
    }
    const a = await at('/repo/acme/widgets')
    expect(await visit(a)).toBe('1 visits; hooks onStart; 2 state changes')
    expect(await visit(a)).toBe('2 visits; hooks onStart; 3 state changes')
    // validateStateChange refuses a third: the tool's error, and nothing stored or announced.
    const refused = await a.callTool({ name: 'visit', arguments: {} })
    expect(refused).toMatchObject({ isError: true, content: [{ type: 'text', text: 'at most 2 visits a path' }] })
    const b = await at('/repo/acme/gadgets')
    expect(await visit(b)).toBe('1 visits; hooks onStart; 2 state changes')
  })

  it("keeps a 2025 session's state on an object of its own, apart from the path's", async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/repo/acme/widgets', worker.url)))
    clients.push(client)
    expect(await visit(client)).toBe('1 visits; hooks onStart; 2 state changes')
    expect(await visit(client)).toBe('2 visits; hooks onStart; 3 state changes')
  })
})

describe('McpAgent whose start fails: first in init(), then in onStart after init() ran', () => {
  /**
   * The message of the 500 a request to `path` gets, from an allowed page's browser client: it
   * reads the 500 (CORS headers), where before it saw a network error.
   */
  const failed = async (path: string) => {
    const request = buildRequest(new URL(path, worker.url).href, 'tools/list')
    request.headers.set('origin', 'http://localhost:5173')
    const response = await fetch(request)
    expect(response.status).toBe(500)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    return ((await response.json()) as { error: { message: string } }).error.message
  }
  /** What the `inits` tool of the agent at `path` says, asked by the SDK 2.x client. */
  const inits = async (path: string) => {
    const client = await pinnedClient(path)
    try {
      return text(await client.callTool({ name: 'inits', arguments: {} }))
    } finally {
      await client.close()
    }
  }

  // Before, the init() that failed left its tool registered: its next run failed on the tool's
  // name, and so did every request after it until the object was evicted. And an onStart failure
  // cleared init()'s run too: the next request ran init() again, which failed the same way.
  // A failed start is taken back whole, as agents' new object would start again: onStart's failure
  // after init() ran takes init()'s tool back, and the next start runs init() again.
  it('answers 500 naming each hook, then serves, with onStart and init() run again after each failure', async () => {
    expect(await failed('/flaky')).toBe('Server misconfigured: FlakyMCP.init() threw; see the server logs')
    expect(await failed('/flaky')).toBe('Server misconfigured: FlakyMCP.onStart() threw; see the server logs')
    expect(await inits('/flaky')).toBe('init ran 3 time(s)')
  })

  it('takes back what a failed init() registered on a server given as a promise too', async () => {
    expect(await failed('/promised')).toBe('Server misconfigured: PromisedMCP.init() threw; see the server logs')
    expect(await inits('/promised')).toBe('init ran 2 time(s)')
  })
})

// A 2026-07-28 client has no session: the person's requests are served by their principal's
// object, which outlives any one grant. Before, init() ran once there, with the first grant's
// props: signed in again without image_generation, the same person still listed and called
// generateImage (and, with it granted later, never got it) until the object was evicted.
describe("McpAgent whose init() registers by the grant's props (Cloudflare's remote-mcp-authkit demo)", () => {
  const grant = (permissions: string[], accessToken: string) => JSON.stringify({ sub: 'user_dave', permissions, accessToken })
  const clientWith = (props: string) => pinnedClient('/gate', props)
  const names = async (client: ClientV2) => (await client.listTools()).tools.map((tool) => tool.name)
  const inits = async (client: ClientV2) => text(await client.callTool({ name: 'inits', arguments: {} }))

  it('sets the object up again for a grant whose permissions differ, and not for a new token alone', async () => {
    const granted = await clientWith(grant(['image_generation'], 'token-1'))
    expect(await names(granted)).toEqual(['add', 'inits', 'generateImage'])
    expect(await inits(granted)).toBe('init ran 1 time(s); token token-1')
    // A new token (a refresh) that init() does not read: the same set-up, the new token in the tool.
    const refreshed = await clientWith(grant(['image_generation'], 'token-2'))
    expect(await inits(refreshed)).toBe('init ran 1 time(s); token token-2')
    // Signed in again without the permission: no generateImage, listed or called.
    const revoked = await clientWith(grant([], 'token-3'))
    expect(await names(revoked)).toEqual(['add', 'inits'])
    await expect(revoked.callTool({ name: 'generateImage', arguments: { prompt: 'a cat' } })).rejects.toThrow(
      /Unknown tool: generateImage/,
    )
    expect(await inits(revoked)).toBe('init ran 2 time(s); token token-3')
    // Granted again: back.
    expect(text(await granted.callTool({ name: 'generateImage', arguments: { prompt: 'a cat' } }))).toBe('an image of a cat')
    expect(await inits(granted)).toBe('init ran 3 time(s); token token-1')
    await Promise.all([granted.close(), refreshed.close(), revoked.close()])
  })

  it('serves two grants of one person at once, each with its own tools', async () => {
    const [granted, revoked] = await Promise.all([clientWith(grant(['image_generation'], 'a')), clientWith(grant([], 'b'))])
    try {
      const lists = await Promise.all(Array.from({ length: 8 }, (_, i) => names(i % 2 === 0 ? granted : revoked)))
      for (const [i, list] of lists.entries()) {
        expect(list, `request ${i}`).toEqual(i % 2 === 0 ? ['add', 'inits', 'generateImage'] : ['add', 'inits'])
      }
      const calls = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 === 0 ? granted : revoked).callTool({ name: 'generateImage', arguments: { prompt: String(i) } }),
        ),
      )
      for (const [i, call] of calls.entries()) {
        if (i % 2 === 0) expect(call, `call ${i}`).toMatchObject({ status: 'fulfilled' })
        else expect(String((call as PromiseRejectedResult).reason), `call ${i}`).toMatch(/Unknown tool: generateImage/)
      }
    } finally {
      await Promise.all([granted.close(), revoked.close()])
    }
  })
})

// Published McpAgent servers narrow `props` with a field of their own (`props!: Props`, or
// `private props!: Props`) and assign it in init(). Before, the field (an own property, as this
// fixture emits fields) hid the grant's props, and the assignment threw where it did not.
describe('McpAgent whose class narrows props with a field and assigns it', () => {
  const grant = (sub: string, token: string) => JSON.stringify({ sub, permissions: [], accessToken: token })
  const call = async (client: Client | ClientV2, name: string, args: Record<string, unknown> = {}) =>
    text(await client.callTool({ name, arguments: args }))

  const connect = (sub: string, token: string) => pinnedClient('/narrowed', grant(sub, token))

  it("serves the value init() assigned, and a handler's assignment for its own request only (2026-07-28)", async () => {
    const first = await connect('erin', 't1')
    const second = await connect('erin', 't2')
    try {
      expect(await call(first, 'whoami')).toBe('ERIN t1')
      expect(await call(first, 'rename', { sub: 'mallory' })).toBe('mallory')
      expect(await call(first, 'whoami')).toBe('ERIN t1')
      // undefined assigned in a handler: the request's own props (not the set-up's value).
      expect(await call(first, 'unassign')).toBe('erin t1')
      // The same person's other grant (init() read all of it): the same object set up again, its own value.
      expect(await call(second, 'whoami')).toBe('ERIN t2')
      expect(await call(first, 'whoami')).toBe('ERIN t1')
      expect(await call(first, 'object')).toBe(await call(second, 'object'))
      // Outside any request (a fetch override before super.fetch()), nothing: not the last set-up's value.
      expect(await call(first, 'before')).toBe('undefined')
    } finally {
      await Promise.all([first.close(), second.close()])
    }
  })

  it("a set-up that failed after assigning leaves nothing to the next grant's", async () => {
    // The client's first request (its version probe) is answered 500: init() threw.
    await expect(connect('ivan', 'fail')).rejects.toThrow(/HTTP 500/)
    const next = await connect('ivan', 't5')
    try {
      expect(await call(next, 'whoami')).toBe('IVAN t5')
    } finally {
      await next.close()
    }
  })

  it("a handler still running when another grant's set-up begins keeps its own grant's value", async () => {
    const first = await connect('jack', 't1')
    const second = await connect('jack', 't2')
    try {
      let progressed!: () => void
      const heard = new Promise<void>((resolve) => (progressed = resolve))
      const slow = first.callTool({ name: 'slow', arguments: {} }, { onprogress: () => progressed() })
      await heard
      // Its answer is streaming: the other grant's request sets the object up again meanwhile.
      expect(await call(second, 'whoami')).toBe('JACK t2')
      // One object serves both grants.
      expect(await call(second, 'object')).toBe(await call(first, 'object'))
      expect(await call(second, 'release')).toBe('released')
      expect(text(await slow)).toBe('JACK t1')
    } finally {
      await Promise.all([first.close(), second.close()])
    }
  })

  it('the same in a 2025 session (the SDK 1.x client)', async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL('/narrowed', worker.url), {
      requestInit: { headers: { 'x-test-grant': grant('grace', 't3') } },
    })
    await client.connect(transport)
    try {
      expect(await call(client, 'whoami')).toBe('GRACE t3')
      expect(await call(client, 'rename', { sub: 'mallory' })).toBe('mallory')
      expect(await call(client, 'whoami')).toBe('GRACE t3')
    } finally {
      await client.close()
    }
  })
})

describe('McpAgent.serveSSE', () => {
  it('answers an error that names serve() instead of opening an SSE stream', async () => {
    const response = await fetch(new URL('/sse', worker.url), { headers: { accept: 'text/event-stream' } })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.headers.get('content-type') ?? '').not.toContain('text/event-stream')
    expect(await response.text()).toMatch(/serve\(/)
  })
})
