/**
 * mcp-edge/sdk where a ported server would meet the SDKs' semantics (a review's findings): output
 * schemas checked into an `isError` result, error codes an SDK 2.x server throws, logs that reach
 * the caller only, rejection paths of handlers, URL elicitation from any handler, SDK 1.x's
 * setRequestHandler. In Node, through the core's `handle`. Who calls
 * (grants, authInfo, the forwarded caller) is sdk-auth.test.ts's.
 */
import {
  CallToolRequestSchema,
  ListToolsResultSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import type { EventHub, McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import {
  McpError,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  UrlElicitationRequiredError,
} from '../../packages/mcp-edge/src/sdk/errors.ts'
import type { IsomorphicHeaders, RequestHandlerExtra } from '../../packages/mcp-edge/src/sdk/context.ts'
import type { InputRequests } from '../../packages/mcp-edge/src/sdk/input.ts'
import { getMcpAuthContext, RequestHost, withRequest } from '../../packages/mcp-edge/src/sdk/request-store.ts'
import { inputRequired, isInputRequired } from '../../packages/mcp-edge/src/sdk/input.ts'
import { completable, isCompletable } from '../../packages/mcp-edge/src/sdk/schema/schema.ts'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'
import { ResourceTemplate } from '../../packages/mcp-edge/src/sdk/resource-template.ts'
import { Listener } from '../../packages/mcp-edge/src/server/events/listen-hub.ts'
import { Outbox } from '../../packages/mcp-edge/src/server/outbox.ts'
import { callAnsweringAs2025, drain, sendAs } from './support.ts'

type ToolAnswer = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown }

const call = (
  server: McpServer,
  name: string,
  args: Record<string, unknown> = {},
  principal?: { subject: string; scopes?: string[] },
) => sendAs<ToolAnswer>(server.edge, 'tools/call', { name, arguments: args }, principal)

describe('completion/complete, as the SDKs answer it', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })
  const many = Array.from({ length: 150 }, (_, i) => `city-${i}`)
  server.registerResource(
    'cities',
    new ResourceTemplate('cities://{name}', {
      list: undefined,
      complete: { name: (value) => many.filter((city) => city.startsWith(value)) },
    }),
    {},
    async (uri) => ({ contents: [{ uri: uri.href, text: uri.href }] }),
  )
  server.registerResource('readme', 'docs://readme', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'read me' }] }))
  const complete = (uri: string, value: string) =>
    sendAs<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>(server.edge, 'completion/complete', {
      ref: { type: 'ref/resource', uri },
      argument: { name: 'name', value },
    })

  it('gives total and hasMore with every answer, at most 100 values', async () => {
    expect((await complete('cities://{name}', 'city-14')).result?.completion).toEqual({
      values: ['city-14', ...Array.from({ length: 10 }, (_, i) => `city-14${i}`)],
      total: 11,
      hasMore: false,
    })
    const cut = (await complete('cities://{name}', '')).result?.completion
    expect([cut?.values.length, cut?.values[99], cut?.total, cut?.hasMore]).toEqual([100, 'city-99', 150, true])
  })

  it("answers a fixed resource's URI with no values, as SDK 1.x does, and an unknown one with -32602", async () => {
    expect((await complete('docs://readme', '')).result?.completion).toEqual({ values: [], hasMore: false })
    expect((await complete('docs://{nothing}', '')).error?.code).toBe(-32602)
  })
})

describe('output schemas, as the SDKs check them', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })
  const outputSchema = { total: z.number() }
  server.registerTool('none', { outputSchema }, async () => ({ content: [{ type: 'text', text: 'no structure' }] }))
  server.registerTool('wrong', { outputSchema }, async () => ({
    content: [{ type: 'text', text: 'x' }],
    structuredContent: { total: 'seven' },
  }))
  server.registerTool('right', { outputSchema }, async () => ({
    content: [{ type: 'text', text: '7' }],
    structuredContent: { total: 7 },
  }))
  server.registerTool('failing', { outputSchema }, async () => ({ content: [{ type: 'text', text: 'it broke' }], isError: true }))

  it('a result without structuredContent is an isError result naming the tool', async () => {
    const { result } = await call(server, 'none')
    expect(result).toMatchObject({
      content: [
        { type: 'text', text: 'Output validation error: Tool none has an output schema but no structured content was provided' },
      ],
      isError: true,
    })
  })

  it('structuredContent that does not match is an isError result with the mismatch', async () => {
    const { result, error } = await call(server, 'wrong')
    expect(error).toBeUndefined()
    expect(result?.isError).toBe(true)
    expect(result?.content[0]?.text).toMatch(/^Output validation error: Invalid structured content for tool wrong: total: /)
  })

  // Porting round R (a dashboard server's `apply`): listed without a root type, the SDK 1.x
  // client's listTools() threw on the whole list, and the 2.x client's refused it.
  it('a union of objects is listed with type "object" at its root, which the SDK clients require', async () => {
    const unions = new McpServer({ name: 'sdk', version: '1' })
    const Applied = z.discriminatedUnion('status', [
      z.object({ status: z.literal('ok'), id: z.string() }),
      z.object({ status: z.literal('error'), reason: z.string() }),
    ])
    unions.registerTool('apply', { outputSchema: Applied }, async () => ({
      content: [{ type: 'text', text: 'done' }],
      structuredContent: { status: 'ok' as const, id: 'a1' },
    }))
    unions.registerTool(
      'either',
      { outputSchema: z.union([z.object({ a: z.number() }), z.object({ b: z.string() })]) },
      async () => ({
        content: [],
        structuredContent: { b: 'x' },
      }),
    )
    const listed = await sendAs<{ tools: { outputSchema?: Record<string, unknown> }[] }>(unions.edge, 'tools/list', {})
    const [apply, either] = listed.result?.tools ?? []
    expect(Object.keys(apply?.outputSchema ?? {}).slice(0, 3)).toEqual(['$schema', 'type', 'oneOf'])
    expect(either?.outputSchema).toMatchObject({ type: 'object', anyOf: [{ type: 'object' }, { type: 'object' }] })
    expect(() => ListToolsResultSchema.parse(listed.result)).not.toThrow()
    expect((await call(unions, 'apply')).result).toMatchObject({ structuredContent: { status: 'ok', id: 'a1' } })
    expect((await call(unions, 'either')).result?.isError).toBeUndefined()
  })

  it('a root that may be other than an object is listed as it is, and said once in the log', async () => {
    const others = new McpServer({ name: 'sdk', version: '1' })
    const result = async () => ({ content: [], structuredContent: { a: 1 } })
    others.registerTool('maybe', { outputSchema: z.union([z.object({ a: z.number() }), z.string()]) }, result)
    others.registerTool('nullable', { outputSchema: z.object({ a: z.number() }).nullable() }, result)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const listed = await sendAs<{ tools: { name: string; outputSchema?: Record<string, unknown> }[] }>(
        others.edge,
        'tools/list',
        {},
      )
      for (const tool of listed.result?.tools ?? []) expect(tool.outputSchema?.type, tool.name).toBeUndefined()
      expect(warn.mock.calls.map(([line]) => JSON.parse(String(line)).msg)).toEqual([
        'Tool "maybe": its output schema does not describe an object: 2025-era clients get the tool without it, and its structured content as text',
        'Tool "nullable": its output schema does not describe an object: 2025-era clients get the tool without it, and its structured content as text',
      ])
    } finally {
      warn.mockRestore()
    }
  })

  it('a matching result, and a tool that reports its own error, pass as they are', async () => {
    const right = (await call(server, 'right')).result
    expect(right).toMatchObject({ content: [{ type: 'text', text: '7' }], structuredContent: { total: 7 } })
    expect(right?.isError).toBeUndefined()
    expect((await call(server, 'failing')).result).toMatchObject({ content: [{ type: 'text', text: 'it broke' }], isError: true })
  })
})

describe('the error codes an SDK 2.x server throws', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })
  server.registerResource('gone', 'memo://gone', {}, async (uri) => {
    throw new ResourceNotFoundError(uri.href)
  })
  server.registerResource('bad', 'memo://bad', {}, async () => {
    throw new ProtocolError(undefined as unknown as number, 'a code the table lacks')
  })
  server.registerResource('custom', 'memo://custom', {}, async () => {
    throw new McpError(-32050, 'the application says no')
  })
  const read = (uri: string) => sendAs(server.edge, 'resources/read', { uri })

  it('ResourceNotFoundError is -32602 with the URI, as 2026-07-28 answers an unknown resource (never -32002)', async () => {
    expect((await read('memo://gone')).error).toEqual({
      code: -32602,
      message: 'Resource memo://gone not found',
      data: { uri: 'memo://gone' },
    })
    expect(new ProtocolError(ProtocolErrorCode.ResourceNotFound, 'x').code).toBe(-32602)
    expect(new ResourceNotFoundError('memo://x').uri).toBe('memo://x')
  })

  it('a code that is not an integer answers -32603, so the error still has a code', async () => {
    expect((await read('memo://bad')).error).toEqual({ code: -32603, message: 'a code the table lacks' })
  })

  // Before, an empty contents answered -32603, where the schema has no minimum and the SDKs pass
  // it on (EpicMe returns one, with a field of its own). No contents at all is still a handler's
  // fault: -32603. (A missing resource is the handler's to throw as not found, -32602: above.)
  it('an empty contents passes as the handler returned it; none at all is -32603', async () => {
    const empty = new McpServer({ name: 'sdk', version: '1' })
    empty.registerResource('empty', 'memo://empty', {}, async () => ({ contents: [], error: { message: 'no such entry' } }))
    empty.registerResource('none', 'memo://none', {}, async () => ({}) as never)
    const { result } = await sendAs(empty.edge, 'resources/read', { uri: 'memo://empty' })
    expect(result).toMatchObject({ contents: [], error: { message: 'no such entry' } })
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      expect((await sendAs(empty.edge, 'resources/read', { uri: 'memo://none' })).error).toEqual({
        code: -32603,
        message: 'Internal error',
      })
      expect(String(logged.mock.calls[0]?.[0])).toContain('A resource handler must return { contents: [...] }')
    } finally {
      logged.mockRestore()
    }
  })

  it('an integer code of the application passes as given', async () => {
    // SDK 1.x's McpError says its code first, in the message it sends (as on the SDK); 2.x's ProtocolError does not.
    expect((await read('memo://custom')).error).toEqual({ code: -32050, message: 'MCP error -32050: the application says no' })
    expect(new ProtocolError(-32050, 'the application says no').message).toBe('the application says no')
    expect(new McpError(-32050, 'no')).toBeInstanceOf(ProtocolError)
    // As in SDK 1.x, where code that rethrows every McpError passes the URL on to the client.
    const url = new UrlElicitationRequiredError([
      { mode: 'url', message: 'Sign in', url: 'https://x.example', elicitationId: 'e1' },
    ])
    expect([url instanceof McpError, url.message]).toEqual([true, 'MCP error -32042: URL elicitation required'])
    expect(ProtocolErrorCode.MissingRequiredClientCapability).toBe(-32021)
    expect(ProtocolErrorCode.UnsupportedProtocolVersion).toBe(-32022)
  })
})

/** An event hub that keeps what is published to it, and is never listened to. */
function recordingHub(): { published: McpEvent[]; hub: EventHub } {
  const published: McpEvent[] = []
  const hub: EventHub = {
    async publish(event) {
      published.push(event)
      return 1
    },
    async listen() {
      throw new Error('not listened to in this test')
    },
  }
  return { published, hub }
}

describe('sendLoggingMessage reaches the caller, never every listener', () => {
  const { published, hub } = recordingHub()
  const server = new McpServer({ name: 'sdk', version: '1' }, { events: hub })
  server.registerTool('chatty', {}, async () => {
    await server.sendLoggingMessage({ level: 'info', data: 'working on it' }, 'a-session-id')
    return { content: [{ type: 'text', text: 'done' }] }
  })

  it('inside a handler, on the request itself: nothing is published to the hub', async () => {
    published.length = 0
    expect((await call(server, 'chatty', {}, { subject: 'alice' })).result?.content[0]?.text).toBe('done')
    expect(published).toEqual([])
  })

  it("outside a handler, to the served caller's streams only", async () => {
    published.length = 0
    const host = new RequestHost(new Request('https://x.test/mcp'), undefined, { subject: 'alice' }, undefined, {}, false)
    await withRequest(host, () => server.sendLoggingMessage({ level: 'warning', data: 'later', logger: 'jobs' }))
    expect(published).toMatchObject([{ type: 'log', level: 'warning', data: 'later', logger: 'jobs', audience: ['alice'] }])
  })

  it('with no caller to name, it throws rather than tell everyone', async () => {
    published.length = 0
    await expect(server.sendLoggingMessage({ level: 'info', data: 'to whom?' })).rejects.toThrow(
      /^sendLoggingMessage outside a handler: .*server\.edge\.notifyLog/,
    )
    expect(published).toEqual([])
  })

  // Before, a registration announced nothing (SDK 1.x announces one once connected): a client
  // heard of a tool a handler removed, never of one it added.
  it('a tool, resource or prompt registered once the server has served is announced; one registered at set-up is not', async () => {
    published.length = 0
    const built = new McpServer({ name: 'sdk', version: '1' }, { events: hub })
    built.registerTool('install', {}, async () => {
      built.registerTool('installed', {}, async () => ({ content: [{ type: 'text', text: 'here' }] }))
      built.registerResource('manual', 'memo://manual', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'read me' }] }))
      built.registerPrompt('greet', {}, () => ({ messages: [] }))
      return { content: [{ type: 'text', text: 'installed' }] }
    })
    // Set-up code that awaits before it registers (a factory reading its config) is set-up still.
    await Promise.resolve()
    built.registerTool('configured', {}, async () => ({ content: [{ type: 'text', text: 'configured' }] }))
    await Promise.resolve()
    expect(published).toEqual([])
    expect((await call(built, 'install')).result?.content[0]?.text).toBe('installed')
    await Promise.resolve()
    expect(published).toEqual([
      { type: 'listChanged', list: 'tools' },
      { type: 'listChanged', list: 'resources' },
      { type: 'listChanged', list: 'prompts' },
    ])
    expect((await call(built, 'installed')).result?.content[0]?.text).toBe('here')
    // Once served, a registration from outside a handler (a timer, work left running) is announced too.
    published.length = 0
    built.registerTool('later', {}, async () => ({ content: [{ type: 'text', text: 'later' }] }))
    await Promise.resolve()
    expect(published).toEqual([{ type: 'listChanged', list: 'tools' }])
  })

  it('server.server.sendResourceUpdated publishes the resource update', async () => {
    published.length = 0
    await server.server.sendResourceUpdated({ uri: 'memo://one' })
    await Promise.resolve()
    expect(published).toMatchObject([{ type: 'resourceUpdated', uri: 'memo://one' }])
  })
})

describe('rejection paths of SDK-style handlers', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })
  const plain = new McpServer({ name: 'sdk', version: '1' })
  plain.registerTool('state_only', {}, async () => inputRequired({ requestState: 'kept' }) as never)

  it('inputRequired with a requestState and no question is -32603 saying what to do instead', async () => {
    expect((await call(plain, 'state_only')).error).toEqual({
      code: -32603,
      message:
        'inputRequired() with requestState and no inputRequests is not supported by mcp-edge/sdk: ask a question in the round, or keep the state in ctx.edge.state',
    })
  })

  it('tool() refuses a z.object, naming registerTool, and registers nothing', () => {
    expect(() => server.tool('obj', z.object({ a: z.string() }) as never, async () => ({ content: [] }))).toThrow(
      "Tool obj: tool() takes a raw shape of zod schemas; pass a z.object as registerTool's inputSchema",
    )
    expect(server.edge.tools.has('obj')).toBe(false)
  })
})

describe('UrlElicitationRequiredError from any handler', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })
  const sign = () => {
    throw new UrlElicitationRequiredError([
      { mode: 'url', message: 'Sign in', url: 'https://example.com/in', elicitationId: 'e1' },
    ])
  }
  server.registerTool('signed_tool', {}, async () => sign())
  server.registerResource('signed', 'memo://signed', {}, async () => sign())
  server.registerPrompt('signed_prompt', {}, async () => sign())
  const ask = (method: string, params: Record<string, unknown>, version: string) =>
    sendAs(server.edge, method, params, undefined, version)
  const cases: [string, Record<string, unknown>][] = [
    ['tools/call', { name: 'signed_tool', arguments: {} }],
    ['resources/read', { uri: 'memo://signed' }],
    ['prompts/get', { name: 'signed_prompt' }],
  ]

  it.each(cases)('%s: -32603 naming inputRequired.elicitUrl at 2026-07-28, which retired -32042', async (method, params) => {
    const { error } = await ask(method, params, '2026-07-28')
    expect(error?.code).toBe(-32603)
    expect(error?.message).toMatch(/inputRequired\.elicitUrl/)
  })

  it.each(cases)('%s: -32042 with the elicitations for a 2025-era client', async (method, params) => {
    const { error } = await ask(method, params, '2025-11-25')
    expect(error).toMatchObject({ code: -32042, data: { elicitations: [{ elicitationId: 'e1' }] } })
  })
})

describe('setRequestHandler as SDK 1.x calls it, with a request schema', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })

  it('accepts the subscribe and unsubscribe schemas and refuses another, naming its method', () => {
    expect(() => server.server.setRequestHandler(SubscribeRequestSchema as never, () => ({}))).not.toThrow()
    expect(() => server.server.setRequestHandler(UnsubscribeRequestSchema as never, () => ({}))).not.toThrow()
    expect(() => server.server.setRequestHandler(CallToolRequestSchema as never, () => ({}))).toThrow(
      /^setRequestHandler\("tools\/call"\) is not supported .*or set the handlers of their lists, calls, reads and gets on a Server/,
    )
  })
})

// The official memory server keeps the URIs its subscribe handler saw, and sends an update only
// for those. Before, mcp-edge took the handlers and never called them: every update was lost.
// The SDK 2.x sticky-notes example starts with no note and declares resources; its tools register
// and remove them. Before, an empty list was no list: its capability and methods went away (-32601),
// so a client that read the capabilities at connect never listed the notes added later.
describe('a list that is empty', () => {
  const capabilitiesOf = async (server: McpServer) =>
    ((await sendAs(server.edge, 'server/discover', {})).result as { capabilities: Record<string, unknown> }).capabilities

  it('is offered when the server declares it, and from its first registration on, as the SDKs keep its handlers', async () => {
    const board = new McpServer({ name: 'stickynotes', version: '1' }, { capabilities: { resources: { listChanged: true } } })
    expect(await capabilitiesOf(board)).toHaveProperty('resources')
    expect((await sendAs(board.edge, 'resources/list', {})).result).toMatchObject({ resources: [] })
    const note = board.registerResource('note-1', 'note://1', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'hi' }] }))
    expect((await sendAs(board.edge, 'resources/list', {})).result).toMatchObject({ resources: [{ uri: 'note://1' }] })
    note.remove()
    expect((await sendAs(board.edge, 'resources/list', {})).result).toMatchObject({ resources: [] })
    // Never declared: offered once a tool was registered, and still when it is disabled.
    const plain = new McpServer({ name: 'plain', version: '1' })
    expect((await sendAs(plain.edge, 'tools/list', {})).error?.code).toBe(-32601)
    plain.registerTool('later', {}, async () => ({ content: [] })).disable()
    expect((await sendAs(plain.edge, 'tools/list', {})).result).toMatchObject({ tools: [] })
    expect(await capabilitiesOf(plain)).toHaveProperty('tools')
    // A list neither declared nor registered into stays unoffered.
    expect((await sendAs(plain.edge, 'prompts/list', {})).error?.code).toBe(-32601)
    expect(await capabilitiesOf(plain)).not.toHaveProperty('prompts')
  })
})

// Found by a review: the core parsed arguments synchronously, which zod refuses for a schema with
// an async refinement, so every call of such a tool was -32603; the SDKs await it.
describe('an input schema with an async refinement', () => {
  const server = new McpServer({ name: 'sdk', version: '1' })
  let checks = 0
  const taken = async (id: string) => {
    checks++
    return id === 'taken'
  }
  server.registerTool(
    'claim',
    { inputSchema: z.object({ id: z.string() }).refine(async ({ id }) => !(await taken(id)), { message: 'that id is taken' }) },
    async ({ id }) => ({ content: [{ type: 'text', text: `claimed ${id}` }] }),
  )
  server.registerPrompt(
    'greet',
    { argsSchema: { name: z.string().refine(async (name) => name !== 'nobody', 'no such name') } },
    ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `hello ${name}` } }],
    }),
  )

  it("is awaited: a good call runs, a refused one is the tool's isError result or the prompt's -32602", async () => {
    expect((await call(server, 'claim', { id: 'free' })).result).toMatchObject({ content: [{ text: 'claimed free' }] })
    // A schema with a refinement is awaited from its first parse, as the SDKs await it, so the check
    // runs once a call (it ran twice on the first call in an isolate before: zod's synchronous try).
    expect(checks).toBe(1)
    const refused = (await call(server, 'claim', { id: 'taken' })).result
    expect(checks).toBe(2)
    expect(refused?.isError).toBe(true)
    expect(refused?.content[0]?.text).toContain('that id is taken')
    const greeted = await sendAs(server.edge, 'prompts/get', { name: 'greet', arguments: { name: 'ann' } })
    expect(greeted.result).toMatchObject({ messages: [{ content: { text: 'hello ann' } }] })
    const nobody = await sendAs(server.edge, 'prompts/get', { name: 'greet', arguments: { name: 'nobody' } })
    expect(nobody.error?.code).toBe(-32602)
  })

  it('in an output schema is awaited too: a matching result goes out, one that fails is an isError result', async () => {
    const checked = new McpServer({ name: 'sdk', version: '1' })
    checked.registerTool(
      'count',
      {
        inputSchema: { n: z.number() },
        outputSchema: { total: z.number().refine(async (total) => total < 10, 'too many') },
      },
      async ({ n }) => ({ content: [{ type: 'text', text: String(n) }], structuredContent: { total: n } }),
    )
    for (let i = 0; i < 2; i++) {
      expect((await call(checked, 'count', { n: 3 })).result).toMatchObject({ structuredContent: { total: 3 } })
      const over = (await call(checked, 'count', { n: 12 })).result
      expect(over?.isError).toBe(true)
      expect(over?.content[0]?.text).toBe('Output validation error: Invalid structured content for tool count: total: too many')
    }
  })
})

// Found porting the SDK's sticky-notes example: a note registered in a tool reached each listener
// twice, once from the core's announcement to this isolate's listeners and once through the hub,
// which reaches this isolate's listeners too.
describe('a registration announced through the event hub', () => {
  it("is announced once: through the hub, not also to this isolate's listeners directly", async () => {
    const { published, hub } = recordingHub()
    const board = new McpServer({ name: 'board', version: '1' }, { events: hub })
    board.registerTool('add_note', {}, async () => {
      board.registerResource('note', 'note://1', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'hi' }] }))
      return { content: [{ type: 'text', text: 'added' }] }
    })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const listener = new Listener(1, { resourcesListChanged: true }, null)
    const stop = board.edge.hub.add(listener)
    published.length = 0
    await call(board, 'add_note')
    await Promise.resolve()
    stop()
    expect(published).toEqual([{ type: 'listChanged', list: 'resources' }])
    expect(listener.pending).toBe(0)
  })

  // Found by a review of the change above: quieted always, a registration the hub does not announce
  // (before the server has served) reached no listener at all.
  it("is still told to this isolate's listeners when the hub does not announce it (the server has not served yet)", async () => {
    const { published, hub } = recordingHub()
    const board = new McpServer({ name: 'board', version: '1' }, { events: hub })
    await new Promise((resolve) => setTimeout(resolve, 0))
    const listener = new Listener(1, { toolsListChanged: true }, null)
    const stop = board.edge.hub.add(listener)
    board.registerTool('later', {}, async () => ({ content: [] }))
    await Promise.resolve()
    stop()
    expect(published).toEqual([])
    expect(listener.pending).toBe(1)
  })

  // A handle's change (disable, enable, update, remove) the hub announces whether or not the
  // server has served: the core's own announcement stays out then, or listeners hear it twice.
  it("a handle's change before the server has served is announced once, through the hub", async () => {
    const { published, hub } = recordingHub()
    const board = new McpServer({ name: 'board', version: '1' }, { events: hub })
    const later = board.registerTool('later', {}, async () => ({ content: [] }))
    await new Promise((resolve) => setTimeout(resolve, 0))
    const listener = new Listener(1, { toolsListChanged: true }, null)
    const stop = board.edge.hub.add(listener)
    later.disable()
    await Promise.resolve()
    stop()
    expect(published).toEqual([{ type: 'listChanged', list: 'tools' }])
    expect(listener.pending).toBe(0)
  })
})

// The reference "everything" server logs each subscription from its subscribe handler. Before,
// sendLoggingMessage there found no running handler (and no named caller) and threw: every
// subscribe was -32603, and nothing was kept.
describe("a subscribe handler's sendLoggingMessage", () => {
  const server = new McpServer({ name: 'everything', version: '1' })
  server.registerResource('text', 'demo://resource/1', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'one' }] }))
  server.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    await server.sendLoggingMessage(
      { level: 'info', data: `Received Subscribe Resource request: ${request.params.uri}` },
      extra.sessionId,
    )
    return {}
  })
  const subscribe = async (logLevel: 'info' | 'error') => {
    const outbox = new Outbox()
    const answer = await server.edge.handle(
      { jsonrpc: '2.0', id: 7, method: 'resources/subscribe', params: { uri: 'demo://resource/1' } },
      { protocolVersion: '2025-11-25', clientCapabilities: {}, raw: {}, logLevel },
      { env: {}, cancel: { signal: new AbortController().signal }, outbox },
    )
    return { message: answer.message, sent: drain(outbox) }
  }

  it("goes on the subscribe request's own stream at the session's level, and the subscription is answered", async () => {
    const heard = await subscribe('info')
    expect(heard.message).toMatchObject({ result: {} })
    expect(heard.sent).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'Received Subscribe Resource request: demo://resource/1' },
      },
    ])
    const quiet = await subscribe('error')
    expect(quiet.message).toMatchObject({ result: {} })
    expect(quiet.sent).toEqual([])
  })
})

describe('subscribe, unsubscribe and setLevel handlers of a 2025 session, as the memory server sets them', () => {
  const { published, hub } = recordingHub()
  const server = new McpServer({ name: 'memory', version: '1' }, { events: hub })
  const subscriptions = new Set<string>()
  const heard: unknown[] = []
  server.server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    if (request.params.uri === 'memory://secret') throw new Error('not this one')
    subscriptions.add(request.params.uri)
    heard.push({ subscribed: request.params.uri, requestId: extra.requestId })
    return {}
  })
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscriptions.delete(request.params.uri)
    return {}
  })
  server.server.setRequestHandler('logging/setLevel', async (request) => {
    heard.push({ level: request.params.level })
    return {}
  })
  server.registerTool('touch', { inputSchema: { uri: z.string() } }, async ({ uri }) => {
    if (subscriptions.has(uri)) await server.server.sendResourceUpdated({ uri })
    return { content: [{ type: 'text', text: subscriptions.has(uri) ? 'sent' : 'nobody listens' }] }
  })
  server.registerResource('graph', 'memory://graph', {}, async (uri) => ({ contents: [{ uri: uri.href, text: '{}' }] }))
  const legacy = (method: string, params: Record<string, unknown>) => sendAs(server.edge, method, params, undefined, '2025-11-25')

  it("calls the server's handlers before keeping the subscription, so its own bookkeeping sees them", async () => {
    expect(await legacy('resources/subscribe', { uri: 'memory://graph' })).toMatchObject({ result: {} })
    expect(heard).toEqual([{ subscribed: 'memory://graph', requestId: 1 }])
    published.length = 0
    const touched = await call(server, 'touch', { uri: 'memory://graph' })
    expect(touched.result?.content[0]?.text).toBe('sent')
    await Promise.resolve()
    expect(published).toMatchObject([{ type: 'resourceUpdated', uri: 'memory://graph' }])
    expect(await legacy('resources/unsubscribe', { uri: 'memory://graph' })).toMatchObject({ result: {} })
    expect((await call(server, 'touch', { uri: 'memory://graph' })).result?.content[0]?.text).toBe('nobody listens')
    expect(await legacy('logging/setLevel', { level: 'warning' })).toMatchObject({ result: {} })
    expect(heard.at(-1)).toEqual({ level: 'warning' })
  })

  /** A 2025 session's request with a session ledger whose writes are recorded (or refused). */
  const withSession = (method: string, params: Record<string, unknown>, subscribe: (uri: string, on: boolean) => Promise<void>) =>
    server.edge.handle(
      { jsonrpc: '2.0', id: 3, method, params },
      { protocolVersion: '2025-11-25', clientCapabilities: {}, raw: {} },
      {
        env: {},
        principal: { subject: 'dave', scopes: [] },
        cancel: { signal: new AbortController().signal },
        legacySession: { setLogLevel: async () => {}, subscribe },
      },
    )

  it('hears a subscription before the session ledger keeps it; one it refuses is not kept', async () => {
    heard.length = 0
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const kept: [string, boolean][] = []
    const keep = async (uri: string, on: boolean) => void kept.push([uri, on])
    const refused = await withSession('resources/subscribe', { uri: 'memory://secret' }, keep)
    expect((refused.message as { error?: { code: number } }).error?.code).toBe(-32603)
    expect(kept).toEqual([])
    // The ledger full (its 65th): the handler has seen it, the client gets the ledger's refusal.
    const full = await withSession('resources/subscribe', { uri: 'memory://graph' }, async () => {
      throw new McpError(-32602, 'Invalid params: a session subscribes to at most 64 resources at once')
    })
    vi.restoreAllMocks()
    expect((full.message as { error?: { code: number } }).error?.code).toBe(-32602)
    expect(heard).toEqual([{ subscribed: 'memory://graph', requestId: 3 }])
    await withSession('resources/subscribe', { uri: 'memory://graph' }, keep)
    expect(kept).toEqual([['memory://graph', true]])
  })

  it('answers what the handler throws, and asks it nothing for a request the core refuses first', async () => {
    heard.length = 0
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const refused = await legacy('resources/subscribe', { uri: 'memory://secret' })
    vi.restoreAllMocks()
    expect(refused.error?.code).toBe(-32603)
    expect(subscriptions.has('memory://secret')).toBe(false)
    expect(await legacy('resources/subscribe', { uri: '' })).toMatchObject({ error: { code: -32602 } })
    expect(await legacy('logging/setLevel', { level: 'loud' })).toMatchObject({ error: { code: -32602 } })
    // A resource the caller lacks the scopes to read: 403, without a session ledger too.
    const guarded = new McpServer({ name: 'guarded', version: '1' })
    let asked = 0
    guarded.server.setRequestHandler(SubscribeRequestSchema, async () => {
      asked++
      return {}
    })
    guarded.registerResource('vault', 'memory://vault', { scopes: ['vault:read'] }, async (uri) => ({
      contents: [{ uri: uri.href, text: '' }],
    }))
    const scoped = await sendAs(
      guarded.edge,
      'resources/subscribe',
      { uri: 'memory://vault' },
      { subject: 'eve', scopes: [] },
      '2025-11-25',
    )
    expect(scoped.error).toMatchObject({ code: -32600, data: { requiredScopes: ['vault:read'] } })
    expect(asked).toBe(0)
    expect(heard).toEqual([])
  })

  it("runs the handler in the request's frame: getMcpAuthContext() reads the grant's props", async () => {
    const framed = new McpServer({ name: 'framed', version: '1' })
    const seen: unknown[] = []
    framed.server.setRequestHandler('resources/subscribe', async () => {
      seen.push(getMcpAuthContext()?.props)
      return {}
    })
    framed.registerResource('graph', 'memory://graph', {}, async (uri) => ({ contents: [{ uri: uri.href, text: '' }] }))
    const host = new RequestHost(new Request('https://x.test/mcp'), { login: 'dave' }, { subject: 'dave' }, undefined, {}, false)
    await withRequest(host, () => sendAs(framed.edge, 'resources/subscribe', { uri: 'memory://graph' }, undefined, '2025-11-25'))
    expect(seen).toEqual([{ login: 'dave' }])
  })
})

describe('server.server.getClientCapabilities(), as SDK 1.x reads them', () => {
  const server = new McpServer({ name: 'caps', version: '1' })
  server.registerTool('caps', {}, async () => ({
    content: [{ type: 'text', text: JSON.stringify(server.server.getClientCapabilities()) }],
  }))
  const declared = async (clientCapabilities: Record<string, unknown>) => {
    const answer = await server.edge.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'caps', arguments: {} } },
      { protocolVersion: '2026-07-28', clientCapabilities, raw: {} },
      { env: {}, cancel: { signal: new AbortController().signal } },
    )
    const { result } = answer.message as { result?: ToolAnswer }
    return JSON.parse(result?.content[0]?.text ?? 'null')
  }

  // Servers ask `getClientCapabilities()?.elicitation?.form` before they elicit: it answered undefined.
  it('reads an empty elicitation as form elicitation, and leaves a declared mode as it is', async () => {
    expect(await declared({ elicitation: {}, sampling: {} })).toEqual({ elicitation: { form: {} }, sampling: {} })
    expect(await declared({ elicitation: { url: {} } })).toEqual({ elicitation: { url: {} } })
    expect(await declared({ sampling: {} })).toEqual({ sampling: {} })
  })
})

// Cloudflare's mcp-common nested `{ title, annotations }` there; SDK 1.x took it until 1.2x.
describe("tool()'s annotations argument after a params schema, as SDK 1.x typed it", () => {
  it('compiles with keys besides the annotations, and lists them as given, as SDK 1.x did', async () => {
    const server = new McpServer({ name: 'loose', version: '1' })
    server.tool(
      'accounts_list',
      'List accounts',
      {},
      { title: 'List accounts', annotations: { readOnlyHint: true } },
      async () => ({
        content: [],
      }),
    )
    const { result } = await sendAs<{ tools: { annotations?: unknown }[] }>(server.edge, 'tools/list', {})
    expect(result?.tools[0]?.annotations).toEqual({ title: 'List accounts', annotations: { readOnlyHint: true } })
  })
})

describe("an SDK server's lists are not cached, and never shared between callers", () => {
  it('answers ttlMs 0 and cacheScope private: a server may be built per caller', async () => {
    const server = new McpServer({ name: 'per-caller', version: '1' })
    const ok = async () => ({ content: [] })
    server.registerTool('mine', { description: 'A tool this caller may use' }, ok)
    server.registerPrompt('p', { description: 'A prompt' }, async () => ({ messages: [] }))
    server.registerResource('r', 'notes://r', {}, async (uri) => ({ contents: [{ uri: uri.href, text: 'r' }] }))
    const template = new ResourceTemplate('notes://{id}', { list: undefined })
    server.registerResource('t', template, {}, async (uri) => ({ contents: [{ uri: uri.href, text: 't' }] }))
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      const { result } = await sendAs<{ ttlMs: number; cacheScope: string }>(server.edge, method, {})
      expect(result, method).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    }
    // The server's own choice, as an option, still stands.
    const cached = new McpServer({ name: 'shared', version: '1' }, { listCache: { ttlMs: 60_000, cacheScope: 'public' } })
    cached.registerTool('t', { description: 'A tool' }, ok)
    const { result } = await sendAs<{ ttlMs: number; cacheScope: string }>(cached.edge, 'tools/list', {})
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' })
  })
})

describe("server.server's request, close and onclose, as SDK 1.x code calls them", () => {
  it('request asks through the running handler, and outside one rejects saying so; close resolves', async () => {
    const server = new McpServer({ name: 'low', version: '1' })
    server.server.onclose = () => {}
    const logged = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await expect(server.server.request({ method: 'roots/list' })).rejects.toThrow(
        /^server\.request works inside a tool, prompt or resource handler only/,
      )
    } finally {
      logged.mockRestore()
    }
    await expect(server.server.close()).resolves.toBeUndefined()
  })
})

// agents' own test server has a tool that returns JSON.stringify(extra). Before, `extra` carried
// mcp-edge's context as an own field, and with it the Worker's env: that tool handed any caller
// MCP_STATE_KEYS.
describe('the handler’s extra, serialized as a debugging tool returns it', () => {
  it('serializes to the SDKs’ data fields, never the env; spread, it keeps its fields and functions', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('echo_extra', {}, async (extra) => ({
      content: [{ type: 'text', text: JSON.stringify({ keys: Object.keys(extra), extra, spread: { ...extra } }) }],
    }))
    const env = { MCP_STATE_KEYS: 'k1:c2VjcmV0IHNlY3JldCBzZWNyZXQgc2VjcmV0IDMyYg==', API_TOKEN: 'tok_live_123' }
    const answer = await server.edge.handle(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo_extra', arguments: {}, _meta: { progressToken: 'p1' } },
      },
      { protocolVersion: '2026-07-28', clientCapabilities: {}, raw: { progressToken: 'p1' } },
      { env, principal: { subject: 'dave' }, cancel: { signal: new AbortController().signal } },
    )
    const text = (answer.message as { result: ToolAnswer }).result.content[0]?.text ?? ''
    expect(text).not.toContain('c2VjcmV0')
    expect(text).not.toContain('tok_live_123')
    const { keys, extra, spread } = JSON.parse(text)
    expect(keys).toEqual([
      ...'signal authInfo sessionId requestId _meta requestInfo sendNotification sendRequest mcpReq http'.split(' '),
    ])
    expect(extra).toMatchObject({ requestId: 7, _meta: { progressToken: 'p1' }, mcpReq: { id: 7, method: 'tools/call' } })
    expect(extra.authInfo).toMatchObject({ clientId: 'dave' })
    expect(Object.keys(extra)).not.toContain('edge')
    expect(spread).toMatchObject({ requestId: 7, _meta: { progressToken: 'p1' } })
    expect(Object.keys(spread)).not.toContain('edge')
  })

  it('takes what code assigns or defines, as a plain object does, and refuses to be frozen or fixed', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('assign', {}, async (extra) => {
      const loose = extra as Record<string, unknown>
      loose.authInfo = { token: 't', clientId: 'middleware', scopes: [] }
      Object.defineProperty(extra, 'tenant', { value: 'acme', enumerable: true, configurable: true })
      const copy = { ...extra } as Record<string, unknown>
      let frozen = 'yes'
      try {
        Object.freeze(extra)
      } catch (error) {
        frozen = (error as Error).name
      }
      let fixed = 'yes'
      try {
        Object.defineProperty(extra, 'fixed', { value: 1, configurable: false })
      } catch (error) {
        fixed = (error as Error).name
      }
      const child = Object.create(extra) as Record<string, unknown>
      child.tenant = 'child'
      const text = [
        extra.authInfo?.clientId,
        copy.tenant,
        (copy.authInfo as { clientId: string }).clientId,
        'tenant' in extra,
        frozen,
        fixed,
        `${child.tenant} ${(extra as Record<string, unknown>).tenant}`,
      ]
      return { content: [{ type: 'text', text: JSON.stringify(text) }] }
    })
    const { result } = await call(server, 'assign')
    expect(JSON.parse(result?.content[0]?.text ?? '')).toEqual([
      'middleware',
      'acme',
      'middleware',
      true,
      'TypeError',
      'TypeError',
      'child acme',
    ])
  })

  // Wrappers that add the caller pass `{ ...extra, authInfo }` to the handler they wrap (as some
  // published servers do). Before, the copy had no fields at all: its sendNotification was undefined.
  it('spread into a wrapper’s copy, keeps its fields and the functions the wrapped handler calls', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const wrapped = async (extra: RequestHandlerExtra) => {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2 } })
      return {
        content: [{ type: 'text' as const, text: `${extra.requestId} ${extra.authInfo?.clientId} ${extra.signal.aborted}` }],
      }
    }
    server.registerTool('wrapped', {}, async (extra) =>
      wrapped({ ...extra, authInfo: { token: 't', clientId: 'wrapper', scopes: [] } }),
    )
    const answer = await server.edge.handle(
      { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'wrapped', arguments: {}, _meta: { progressToken: 'p1' } } },
      { protocolVersion: '2026-07-28', clientCapabilities: {}, raw: { progressToken: 'p1' } },
      { env: {}, cancel: { signal: new AbortController().signal } },
    )
    expect((answer.message as { result: ToolAnswer }).result.content[0]?.text).toBe('8 wrapper false')
  })
})

// Found porting agents' conformance server and TestMcpAgent: names and fields their code uses
// that mcp-edge/sdk lacked (a type error, or undefined at run time), with only the imports changed.
describe('what ported code reads of the request beside its arguments', () => {
  it("has SDK 2.x's guards: isCompletable, and isInputRequiredResult (isInputRequired)", () => {
    expect([isCompletable(completable(z.string(), () => [])), isCompletable(z.string()), isCompletable(undefined)]).toEqual([
      true,
      false,
      false,
    ])
    const asked = inputRequired({
      inputRequests: { sure: inputRequired.elicit({ message: 'Sure?', requestedSchema: z.object({}) }) },
    })
    expect([isInputRequired(asked), isInputRequired({ content: [] })]).toEqual([true, false])
  })

  it("ctx.mcpReq.envelope holds the request's reserved _meta keys (2026-07-28), and is undefined without them", async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('envelope', {}, async (ctx) => {
      // As SDK 1.x code casts it: a type alias, so the cast compiles (an interface would not).
      const loose = ctx as Record<string, unknown>
      const headers: IsomorphicHeaders | undefined = ctx.requestInfo?.headers
      const asked: InputRequests = {}
      return {
        content: [
          { type: 'text', text: JSON.stringify([ctx.mcpReq.envelope ?? null, typeof loose.signal, headers ?? null, asked]) },
        ],
      }
    })
    const capabilities = { elicitation: {} }
    const send = (meta: Record<string, unknown>) =>
      server.edge.handle(
        { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'envelope', arguments: {}, _meta: meta } },
        { protocolVersion: '2026-07-28', clientCapabilities: capabilities, raw: meta },
        { env: {}, cancel: { signal: new AbortController().signal } },
      )
    const text = async (meta: Record<string, unknown>) =>
      JSON.parse((((await send(meta)).message as { result: ToolAnswer }).result.content[0]?.text ?? '') as string)
    const meta = { 'io.modelcontextprotocol/clientCapabilities': capabilities, progressToken: 'p' }
    expect(await text(meta)).toEqual([{ 'io.modelcontextprotocol/clientCapabilities': capabilities }, 'object', null, {}])
    expect((await text({ progressToken: 'p' }))[0]).toBeNull()
  })
})

// Found by a review: an inputRequired question a 2025-era client answered with an error failed the
// call with -32603; SDK 2.x's legacy shim answers a tool's call with an isError result naming it.
describe("a 2025-era client's error answer to an inputRequired question", () => {
  it("is the tool's isError result, as SDK 2.x's shim answers it", async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('confirm', { annotations: { readOnlyHint: true } }, async (ctx) => {
      if (ctx.mcpReq.inputResponses?.ok) return { content: [{ type: 'text', text: 'confirmed' }] }
      return inputRequired({
        inputRequests: { ok: inputRequired.elicit({ message: 'Ok?', requestedSchema: { type: 'object', properties: {} } }) },
      })
    })
    const refused = (await callAnsweringAs2025(server.edge, 'confirm', {
      error: { code: -1, message: 'User closed the dialog' },
    })) as {
      result?: ToolAnswer
    }
    expect(refused.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "Fulfilling input required by 'tools/call' failed: User closed the dialog" }],
    })
    const accepted = (await callAnsweringAs2025(server.edge, 'confirm', { result: { action: 'accept', content: {} } })) as {
      result?: ToolAnswer
    }
    expect(accepted.result?.content[0]?.text).toBe('confirmed')
  })
})

// Found porting GitMCP: its init() passes `annotations ? { annotations } : undefined` after the
// callback, which SDK 1.x never read (it takes the first argument after the optional ones); here
// the last argument was taken as the callback, and every call failed "callback is not a function".
describe("SDK 1.x's tool(), resource() and prompt() overloads, read left to right", () => {
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
  it('take the callback after the optional arguments and ignore what follows it', async () => {
    const server = new McpServer({ name: 'overloads', version: '1' })
    const loose = server as unknown as {
      tool(...args: unknown[]): unknown
      resource(...args: unknown[]): unknown
      prompt(...args: unknown[]): unknown
    }
    loose.tool('shape_then_extra', 'd', { q: z.string() }, async ({ q }: { q: string }) => text(`got ${q}`), { annotations: {} })
    loose.tool('shape_then_undefined', 'd', { q: z.string() }, async ({ q }: { q: string }) => text(`and ${q}`), undefined)
    loose.tool('annotated', { readOnlyHint: true }, async () => text('read only'))
    loose.tool('shape_annotations', { q: z.string() }, { title: 'Shaped' }, async ({ q }: { q: string }) => text(q))
    loose.resource('notes', 'notes://a', async (uri: URL) => ({ contents: [{ uri: uri.href, text: 'a' }] }), 'extra')
    // (A prompt's arguments are read as SDK 1.x reads them: one more than the callback is its args schema.)
    loose.prompt('hello', 'Greets', async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }))
    expect((await call(server, 'shape_then_extra', { q: 'x' })).result?.content[0]?.text).toBe('got x')
    expect((await call(server, 'shape_then_undefined', { q: 'y' })).result?.content[0]?.text).toBe('and y')
    expect((await call(server, 'annotated')).result?.content[0]?.text).toBe('read only')
    const listed = await sendAs<{ tools: { name: string; annotations?: unknown; title?: string }[] }>(
      server.edge,
      'tools/list',
      {},
    )
    expect(listed.result?.tools.find((tool) => tool.name === 'annotated')?.annotations).toEqual({ readOnlyHint: true })
    expect(listed.result?.tools.find((tool) => tool.name === 'shape_annotations')?.annotations).toEqual({ title: 'Shaped' })
    const read = await sendAs<{ contents: { text: string }[] }>(server.edge, 'resources/read', { uri: 'notes://a' })
    expect(read.result?.contents[0]?.text).toBe('a')
    const prompts = await sendAs<{ prompts: { name: string; description?: string }[] }>(server.edge, 'prompts/list', {})
    expect(prompts.result?.prompts).toEqual([{ name: 'hello', description: 'Greets' }])
    const got = await sendAs<{ messages: { content: { text: string } }[] }>(server.edge, 'prompts/get', { name: 'hello' })
    expect(got.result?.messages[0]?.content.text).toBe('hi')
  })
})
