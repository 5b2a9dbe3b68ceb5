/**
 * The SDKs' low-level `Server` on mcp-edge/sdk (src/sdk/low-level-server.ts): its list handlers
 * read into the core's registries when it is prepared, and again when it announces a change; each
 * item served by its call, read or get handler with the request as the SDK builds it; what a list
 * handler returns that cannot be served fails the read, naming the item. In Node, through the
 * core's `handle`; real clients over HTTP are test/http/sdk-low-level.test.ts's.
 */
import {
  CallToolRequestSchema as Sdk1CallTool,
  ListToolsRequestSchema as Sdk1ListTools,
} from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it, vi } from 'vitest'
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
} from '../../packages/mcp-edge/src/sdk/low-level/schemas.ts'
import { ErrorCode, McpError } from '../../packages/mcp-edge/src/sdk/errors.ts'
import { ListHandlerFailed } from '../../packages/mcp-edge/src/sdk/low-level/prepare.ts'
import { Server } from '../../packages/mcp-edge/src/sdk/low-level/server.ts'
import type { RequestHandlerExtra as Sdk1Extra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { McpServer, ResourceTemplate } from '../../packages/mcp-edge/src/sdk/server.ts'
import { sendAs } from './support.ts'

type Listed = {
  tools: { name: string; inputSchema: unknown; outputSchema?: unknown; annotations?: unknown }[]
  nextCursor?: string
}
type ToolAnswer = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown }

const OBJECT = { type: 'object', properties: { text: { type: 'string' } } }
const echoTool = (name: string, extra: Record<string, unknown> = {}) => ({ name, inputSchema: OBJECT, ...extra })

function echoServer(tools: () => Record<string, unknown>[]) {
  const server = new Server({ name: 'low', version: '1' }, { capabilities: { tools: {} } })
  const seen: unknown[] = []
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    seen.push(request)
    return { content: [{ type: 'text', text: `${request.params.name}: ${String(request.params.arguments?.text)}` }] }
  })
  return { server, seen }
}

describe('a low-level Server’s tools', () => {
  it('are what its list handler returned, schemas and fields as given, once prepared', async () => {
    const annotations = { readOnlyHint: true }
    const output = { type: 'object', properties: { n: { type: 'number' } } }
    const { server } = echoServer(() => [echoTool('echo', { title: 'Echo', annotations, outputSchema: output, _meta: { a: 1 } })])
    // Nothing is listed before: the server has no tools yet. Its list handler offers the list
    // already (empty), as the SDK's server answers it once the handler is set.
    expect((await sendAs<Listed>(server.edge, 'tools/list', {})).result?.tools).toEqual([])
    await server.prepared()
    const { result } = await sendAs<Listed>(server.edge, 'tools/list', {})
    expect(result?.tools).toEqual([
      { name: 'echo', title: 'Echo', inputSchema: OBJECT, outputSchema: output, annotations, _meta: { a: 1 } },
    ])
  })

  it('are called through its CallTool handler with the request as the SDK builds it', async () => {
    const { server, seen } = echoServer(() => [echoTool('echo')])
    await server.prepared()
    const { result } = await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })
    expect(result?.content).toEqual([{ type: 'text', text: 'echo: hi' }])
    expect(seen).toEqual([{ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }])
  })

  it('a name it did not list is -32602 before its handler runs', async () => {
    const { server, seen } = echoServer(() => [echoTool('echo')])
    await server.prepared()
    const { error } = await sendAs(server.edge, 'tools/call', { name: 'nope', arguments: {} })
    expect(error?.code).toBe(-32602)
    expect(seen).toEqual([])
  })

  it('takes SDK 1.x’s own request schemas, and SDK 2.x’s method names', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(Sdk1ListTools, async () => ({ tools: [echoTool('one')] }))
    // The request is typed by SDK 1.x's own schema: its params are read as the SDK types them.
    // A helper typed with SDK 1.x's RequestHandlerExtra takes the handler's extra as it is.
    const helper = (extra: Sdk1Extra<ServerRequest, ServerNotification>) => extra.requestId
    server.setRequestHandler(Sdk1CallTool, async (request, extra) => ({
      _meta: { request: helper(extra) },
      content: [{ type: 'text', text: request.params.name.length.toString() }],
    }))
    const v2 = new Server({ name: 'low', version: '1' })
    v2.setRequestHandler('tools/list', async () => ({ tools: [echoTool('two')] }))
    v2.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: '2' }] }))
    await Promise.all([server.prepared(), v2.prepared()])
    expect((await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'one' })).result?.content[0]?.text).toBe('3')
    expect((await sendAs<ToolAnswer>(v2.edge, 'tools/call', { name: 'two' })).result?.content[0]?.text).toBe('2')
  })

  it('are read again when the server announces a change: added, changed and removed', async () => {
    let tools = [echoTool('a'), echoTool('b', { description: 'old' })]
    const { server } = echoServer(() => tools)
    await server.prepared()
    tools = [echoTool('b', { description: 'new' }), echoTool('c')]
    await server.sendToolListChanged()
    const { result } = await sendAs<Listed>(server.edge, 'tools/list', {})
    expect(result?.tools.map((tool) => [tool.name, (tool as { description?: string }).description])).toEqual([
      ['b', 'new'],
      ['c', undefined],
    ])
    expect((await sendAs(server.edge, 'tools/call', { name: 'a' })).error?.code).toBe(-32602)
  })

  it('follows nextCursor through every page into one list', async () => {
    const server = new Server({ name: 'low', version: '1' })
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      '': { tools: [echoTool('p1')], nextCursor: 'two' },
      two: { tools: [echoTool('p2')], nextCursor: 'three' },
      three: { tools: [echoTool('p3')] },
    }
    server.setRequestHandler(ListToolsRequestSchema, async (request) => pages[request.params?.cursor ?? ''])
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }))
    await server.prepared()
    const { result } = await sendAs<Listed>(server.edge, 'tools/list', {})
    expect(result?.tools.map((tool) => tool.name)).toEqual(['p1', 'p2', 'p3'])
  })

  it('a tool that throws is a JSON-RPC error, as the SDK’s low-level server answers', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [echoTool('boom')] }))
    server.setRequestHandler(CallToolRequestSchema, async () => {
      throw new Error('broke')
    })
    await server.prepared()
    const { result, error } = await sendAs(server.edge, 'tools/call', { name: 'boom' })
    expect(result).toBeUndefined()
    expect(error?.code).toBe(-32603)
  })
})

describe('a low-level Server’s onerror', () => {
  it('hears what a handler throws unexpectedly, not the errors meant for the client', async () => {
    const server = new Server({ name: 'low', version: '1' })
    const heard: string[] = []
    server.onerror = (error) => void heard.push(error.message)
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [echoTool('bug'), echoTool('meant')] }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === 'meant') throw new McpError(ErrorCode.InvalidParams, 'no such record')
      throw new Error('a bug')
    })
    await server.prepared()
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      expect((await sendAs(server.edge, 'tools/call', { name: 'bug' })).error?.code).toBe(-32603)
      expect((await sendAs(server.edge, 'tools/call', { name: 'meant' })).error).toMatchObject({
        code: -32602,
        message: 'MCP error -32602: no such record',
      })
    } finally {
      errors.mockRestore()
    }
    expect(heard).toEqual(['a bug'])
  })
})

describe('what a list handler returns that cannot be served fails the read, naming it', () => {
  const failing = async (tools: unknown) => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async () => tools as { tools: [] })
    return server.prepared().then(
      () => 'read',
      (error: Error) => error.message,
    )
  }

  it('no tools array, a tool without a name, without an object input schema, or listed twice', async () => {
    expect(await failing({})).toBe('tools/list: the handler returned no "tools" array')
    expect(await failing({ tools: [{ inputSchema: OBJECT }] })).toBe('tools/list: a tool has no name')
    expect(await failing({ tools: [{ name: '', inputSchema: OBJECT }] })).toBe('tools/list: a tool has no name')
    expect(await failing({ tools: [{ name: 'x', inputSchema: { type: 'string' } }] })).toBe(
      'tools/list: tool "x" has no inputSchema of type "object"',
    )
    expect(await failing({ tools: [echoTool('x'), echoTool('x')] })).toBe('tools/list: tool "x" is listed twice')
  })

  it('a cursor that never ends stops at 100 pages', async () => {
    const server = new Server({ name: 'low', version: '1' })
    let pages = 0
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      pages++
      return { tools: [], nextCursor: 'again' }
    })
    await expect(server.prepared()).rejects.toThrow('tools/list: more than 100 pages')
    expect(pages).toBe(100)
  })

  // Porting round R (the SDK's reference "everything" server reads the client's capabilities,
  // kept by oninitialized, in its tools/list handler): before, every request was answered 500.
  it('a list handler that throws leaves its list unread, served nothing, and read again in each request that needs it', async () => {
    let fail = true
    const { server } = echoServer(() => {
      if (fail) throw new Error('upstream down')
      return [echoTool('back')]
    })
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      await server.prepared()
      expect(warnings.mock.calls.join('\n')).toContain('the tools/list handler threw: upstream down')
      // Its methods fail while it cannot be read, naming the handler (its message for the log only)…
      const internal = { code: -32603, message: 'Internal error: tools/list threw; see the server logs' }
      expect((await sendAs(server.edge, 'tools/list', {})).error).toEqual(internal)
      expect((await sendAs(server.edge, 'tools/call', { name: 'back', arguments: {} })).error).toEqual(internal)
      expect(errors.mock.calls.join('\n')).toContain('upstream down')
      // …the others answer (a list it never offered is still not offered)…
      const discovered = await sendAs<{ capabilities: Record<string, unknown> }>(server.edge, 'server/discover', {})
      expect(discovered.result?.capabilities.tools).toBeDefined()
      expect((await sendAs(server.edge, 'prompts/list', {})).error?.code).toBe(-32601)
      // …and the first request after it can be read is served from it, with no prepare.
      fail = false
      expect((await sendAs<Listed>(server.edge, 'tools/list', {})).result?.tools.map((tool) => tool.name)).toEqual(['back'])
      fail = true
      expect((await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'back', arguments: { text: 'x' } })).result).toEqual({
        content: [{ type: 'text', text: 'back: x' }],
        resultType: 'complete',
        _meta: expect.any(Object),
      })
    } finally {
      warnings.mockRestore()
      errors.mockRestore()
    }
  })

  it('read in a request, a list handler reads that request’s client', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const capabilities = server.getClientCapabilities()
      if (!capabilities) throw new TypeError("Cannot read properties of undefined (reading 'roots')")
      return { tools: capabilities.roots ? [echoTool('roots')] : [echoTool('plain')] }
    })
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await server.prepared()
    } finally {
      warnings.mockRestore()
    }
    const answer = await server.edge.handle(
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { protocolVersion: '2026-07-28', clientCapabilities: { roots: {} }, raw: {} },
      { env: {}, cancel: { signal: new AbortController().signal } },
    )
    expect((answer.message as { result: Listed }).result.tools.map((tool) => tool.name)).toEqual(['roots'])
  })

  /** `method` as a 2026-07-28 client declaring `capabilities` asks it. */
  const askAs = (server: Server, method: string, capabilities: Record<string, unknown>, params = {}) =>
    server.edge.handle(
      { jsonrpc: '2.0', id: 1, method, params },
      { protocolVersion: '2026-07-28', clientCapabilities: capabilities, raw: {} },
      { env: {}, cancel: { signal: new AbortController().signal } },
    )
  /** A server whose tools list reads the client, as the reference everything server's does; its reads counted. */
  const rootsAware = (delayMs: number) => {
    const server = new Server({ name: 'low', version: '1' })
    const reads: string[] = []
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const roots = server.getClientCapabilities()?.roots
      reads.push(roots ? 'roots' : 'plain')
      await new Promise((resolve) => setTimeout(resolve, delayMs))
      if (!roots) throw new Error('no roots')
      return { tools: [echoTool('roots')] }
    })
    return { server, reads }
  }
  const quietly = async <T>(run: () => Promise<T>) => {
    const spies = [vi.spyOn(console, 'warn'), vi.spyOn(console, 'error')].map((spy) => spy.mockImplementation(() => {}))
    try {
      return await run()
    } finally {
      for (const spy of spies) spy.mockRestore()
    }
  }

  // Review of the change: each request of a burst read the list again, one after another.
  it('requests that come while a read runs wait for it: a burst reads once, and one read fails only its own request', async () => {
    const { server, reads } = rootsAware(20)
    await quietly(() => server.prepared())
    reads.length = 0
    const burst = await quietly(() => Promise.all(Array.from({ length: 10 }, () => askAs(server, 'tools/list', { roots: {} }))))
    expect(burst.map((answer) => (answer.message as { error?: unknown }).error)).toEqual(Array(10).fill(undefined))
    expect(reads).toEqual(['roots'])
    // A client the handler cannot list for, then one it can, together: the second reads for itself.
    const fresh = rootsAware(20)
    await quietly(() => fresh.server.prepared())
    const [plain, roots] = await quietly(() =>
      Promise.all([askAs(fresh.server, 'tools/list', {}), askAs(fresh.server, 'tools/list', { roots: {} })]),
    )
    expect((plain.message as { error?: { code: number } }).error?.code).toBe(-32603)
    expect((roots.message as { result?: Listed }).result?.tools.map((tool) => tool.name)).toEqual(['roots'])
  })

  it('completion/complete reads the prompts it completes first, though no prompt was listed to offer completions', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListPromptsRequestSchema, async () => {
      if (!server.getClientCapabilities()) throw new Error('no client yet')
      return { prompts: [{ name: 'greet', arguments: [{ name: 'who' }] }] }
    })
    server.setRequestHandler(CompleteRequestSchema, async () => ({ completion: { values: ['Ada'] } }))
    await quietly(() => server.prepared())
    const params = { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }
    const answer = await askAs(server, 'completion/complete', {}, params)
    expect((answer.message as { result?: { completion: { values: string[] } } }).result?.completion.values).toEqual(['Ada'])
  })

  // Porting round W: a server whose lists were filtered by extra.authInfo served every caller the
  // caller-less list, and nothing said so.
  it('a list handler that reads its caller gets none, and the log says once that lists are read for every caller', async () => {
    const server = new Server({ name: 'low', version: '1' })
    const seen: unknown[] = []
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      seen.push(extra.authInfo)
      return { tools: extra.authInfo ? [echoTool('admin_purge')] : [echoTool('read')] }
    })
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await server.prepared()
      await server.sendToolListChanged()
      const lines = warned.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('read its caller'))
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain('tools/list')
      expect(lines[0]).toContain('factory')
    } finally {
      warned.mockRestore()
    }
    expect(seen).toEqual([undefined, undefined])
    expect((await sendAs<Listed>(server.edge, 'tools/list', {})).result?.tools.map((tool) => tool.name)).toEqual(['read'])
    // One that only copies or logs its extra, as a wrapper does, reads no caller and is told nothing.
    const wrapped = new Server({ name: 'low', version: '1' })
    wrapped.setRequestHandler(ListPromptsRequestSchema, async (_request, extra) => {
      JSON.stringify({ ...extra, signal: undefined })
      return { prompts: [{ name: 'p' }] }
    })
    const quiet = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await wrapped.prepared()
      expect(quiet.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('read its caller'))).toEqual([])
    } finally {
      quiet.mockRestore()
    }
  })

  // Last stop's documented gap: a completion waited for both lists, so while one could not be read it failed for both.
  it('completion/complete fails only with the list its ref completes from: a failing template list fails no prompt completion', async () => {
    const server = new Server({ name: 'low', version: '1' })
    let templateReads = 0
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: [{ name: 'greet', arguments: [{ name: 'who' }] }],
    }))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
      templateReads++
      throw new Error('template store down')
    })
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [{ uri: request.params.uri, text: '' }],
    }))
    server.setRequestHandler(CompleteRequestSchema, async (request) => ({
      completion: { values: [`${request.params.argument.value}da`] },
    }))
    await quietly(() => server.prepared())
    templateReads = 0
    const complete = (ref: Record<string, unknown>) =>
      quietly(() => askAs(server, 'completion/complete', {}, { ref, argument: { name: 'who', value: 'A' } }))
    const prompt = await complete({ type: 'ref/prompt', name: 'greet' })
    expect((prompt.message as { result?: { completion: { values: string[] } } }).result?.completion.values).toEqual(['Ada'])
    // Nor does it wait for the template list: with a prompt held, completions are offered either way
    // (second review: each prompt completion waited for, and logged, the failing template read).
    expect(templateReads).toBe(0)
    // A template's completion needs its list, and fails while it cannot be read.
    const template = await complete({ type: 'ref/resource', uri: 'files://{dir}' })
    expect((template.message as { error?: unknown }).error).toEqual({
      code: -32603,
      message: 'Internal error: resources/templates/list threw; see the server logs',
    })
  })

  // Review of the change: with no prompts and the template list unread, a prompt's completion read
  // no template, found nothing offered and answered -32601 where completions were advertised.
  it('a prompt completion on a server of templates reads the template list that decides whether completions are offered', async () => {
    const server = new Server({ name: 'low', version: '1' })
    let fail = true
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => {
      if (fail) throw new Error('once')
      return { resourceTemplates: [{ uriTemplate: 'files://{dir}', name: 'file' }] }
    })
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [{ uri: request.params.uri, text: '' }],
    }))
    server.setRequestHandler(CompleteRequestSchema, async () => ({ completion: { values: [] } }))
    await quietly(() => server.prepared())
    fail = false
    const answer = await quietly(() =>
      askAs(server, 'completion/complete', {}, { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: '' } }),
    )
    expect((answer.message as { error?: { code: number } }).error?.code).toBe(-32602)
  })

  // Second review: a list handler that asks through the server (not extra) was read again forever.
  it('a list handler that asks the client through the server fails serving, naming why; an unservable item found in a request is named too', async () => {
    const asking = new Server({ name: 'low', version: '1' })
    asking.setRequestHandler(ListToolsRequestSchema, async () => {
      await asking.listRoots()
      return { tools: [echoTool('never')] }
    })
    await quietly(() =>
      expect(asking.prepared()).rejects.toThrow('server.listRoots works inside a tool, prompt or resource handler only'),
    )
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      if (!server.getClientCapabilities()) throw new Error('no client yet')
      return { tools: [{ name: 'shapeless' }] } as never
    })
    await quietly(() => server.prepared())
    const answer = await askAs(server, 'tools/list', {})
    expect((answer.message as { error?: unknown }).error).toEqual({
      code: -32603,
      message: 'Server misconfigured: tools/list: tool "shapeless" has no inputSchema of type "object"',
    })
    expect(answer.status).toBe(500)
  })

  it('a failed read of a list once read keeps what was read served', async () => {
    let fail = false
    const { server } = echoServer(() => {
      if (fail) throw new Error('upstream down')
      return [echoTool(fail ? 'never' : 'first')]
    })
    await server.prepared()
    fail = true
    await expect(server.sendToolListChanged()).rejects.toThrow(new ListHandlerFailed('tools/list', new Error('upstream down')))
    expect((await sendAs<Listed>(server.edge, 'tools/list', {})).result?.tools.map((tool) => tool.name)).toEqual(['first'])
  })

  it('a list handler that asks the client is told there is none', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
      await extra.sendRequest({ method: 'roots/list' })
      return { tools: [] }
    })
    await expect(server.prepared()).rejects.toThrow('tools/list is read when mcp-edge builds its lists, with no client to ask')
  })
})

describe('a low-level Server’s resources and prompts', () => {
  it('resources listed on pages are one list, read through ReadResource', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
      request.params?.cursor
        ? { resources: [{ uri: 'n://2', name: 'two' }] }
        : { resources: [{ uri: 'n://1', name: 'one', mimeType: 'text/plain' }], nextCursor: 'next' },
    )
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [{ uri: request.params.uri, text: `read ${request.params.uri}` }],
    }))
    await server.prepared()
    const listed = await sendAs<{ resources: unknown[] }>(server.edge, 'resources/list', {})
    expect(listed.result?.resources).toEqual([
      { uri: 'n://1', name: 'one', mimeType: 'text/plain' },
      { uri: 'n://2', name: 'two' },
    ])
    const read = await sendAs<{ contents: unknown[] }>(server.edge, 'resources/read', { uri: 'n://2' })
    expect(read.result?.contents).toEqual([{ uri: 'n://2', text: 'read n://2' }])
  })

  it('prompt arguments: __proto__ or one listed twice fail the read; unlisted ones reach the handler', async () => {
    const server = new Server({ name: 'low', version: '1' })
    let listed: unknown[] = [{ name: 'who', required: true }]
    const got: unknown[] = []
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: 'p', arguments: listed }] }) as never)
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      got.push(request.params.arguments)
      return { messages: [] }
    })
    await server.prepared()
    expect((await sendAs(server.edge, 'prompts/get', { name: 'p', arguments: { who: 'Ada', extra: 'e' } })).error).toBeUndefined()
    expect(got).toEqual([{ who: 'Ada', extra: 'e' }])
    listed = [{ name: 'a' }, { name: 'a', required: true }]
    await expect(server.sendPromptListChanged()).rejects.toThrow('prompts/list: prompt "p" lists argument "a" twice')
    // zod leaves __proto__ out of what it parses: the handler could never read it.
    listed = [{ name: '__proto__' }]
    await expect(server.sendPromptListChanged()).rejects.toThrow('prompts/list: prompt "p" has an argument named __proto__')
    expect((await sendAs<{ prompts: unknown[] }>(server.edge, 'prompts/list', {})).result?.prompts).toEqual([
      { name: 'p', arguments: [{ name: 'who', required: true }] },
    ])
  })

  it('a resource without a name fails the read', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'n://1' }] }) as never)
    await expect(server.prepared()).rejects.toThrow('resources/list: resource "n://1" has no name')
  })

  it('prompts keep their listed arguments; a missing required one is refused before the handler', async () => {
    const server = new Server({ name: 'low', version: '1' })
    const got: unknown[] = []
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: [{ name: 'greet', arguments: [{ name: 'who', description: 'Whom', required: true }, { name: 'tone' }] }],
    }))
    server.setRequestHandler(GetPromptRequestSchema, async (request) => {
      got.push(request.params)
      return { messages: [{ role: 'user', content: { type: 'text', text: `hi ${request.params.arguments?.who}` } }] }
    })
    await server.prepared()
    const listed = await sendAs<{ prompts: unknown[] }>(server.edge, 'prompts/list', {})
    expect(listed.result?.prompts).toEqual([
      {
        name: 'greet',
        arguments: [
          { name: 'who', description: 'Whom', required: true },
          { name: 'tone', required: false },
        ],
      },
    ])
    expect((await sendAs(server.edge, 'prompts/get', { name: 'greet', arguments: {} })).error?.code).toBe(-32602)
    expect(got).toEqual([])
    const { result } = await sendAs<{ messages: unknown[] }>(server.edge, 'prompts/get', {
      name: 'greet',
      arguments: { who: 'Ada' },
    })
    expect(result?.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'hi Ada' } }])
    expect(got).toEqual([{ name: 'greet', arguments: { who: 'Ada' } }])
  })
})

/** Run `act`; then `failure` must reach the error log, and no promise be left rejected unhandled. */
async function loggedNotUnhandled(failure: string, act: () => Promise<void>) {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => {})
  const unhandled = vi.fn()
  process.on('unhandledRejection', unhandled)
  try {
    await act()
    await vi.waitFor(() => expect(errors.mock.calls.map(([line]) => String(line)).join('\n')).toContain(failure))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(unhandled).not.toHaveBeenCalled()
  } finally {
    process.off('unhandledRejection', unhandled)
    errors.mockRestore()
  }
}

describe('reading a low-level Server’s lists again', () => {
  const names = async (server: Server) =>
    (await sendAs<Listed>(server.edge, 'tools/list', {})).result?.tools.map((tool) => tool.name)

  it('a prepare while a slow read runs waits for it', async () => {
    let release = () => {}
    const slow = new Promise<void>((resolve) => {
      release = resolve
    })
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      await slow
      return { tools: [echoTool('late')] }
    })
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }))
    const first = server.prepared()
    let second = false
    const waiting = server.prepared().then(() => {
      second = true
    })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(second).toBe(false)
    release()
    await Promise.all([first, waiting])
    expect(await names(server)).toEqual(['late'])
  })

  it('a list with an item the core cannot serve changes nothing: the last read stays listed and callable', async () => {
    let tools: Record<string, unknown>[] = [echoTool('a'), echoTool('b')]
    const { server } = echoServer(() => tools)
    await server.prepared()
    tools = [echoTool('a', { description: 'changed' }), { name: 'bad', inputSchema: { type: 'string' } }, echoTool('c')]
    await expect(server.sendToolListChanged()).rejects.toThrow('tools/list: tool "bad" has no inputSchema of type "object"')
    expect(await names(server)).toEqual(['a', 'b'])
    expect(
      (await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'b', arguments: { text: 'x' } })).result?.content,
    ).toEqual([{ type: 'text', text: 'b: x' }])
  })

  it('keeps the list’s order when an item changes', async () => {
    let tools = [echoTool('a'), echoTool('b'), echoTool('c')]
    const { server } = echoServer(() => tools)
    await server.prepared()
    tools = [echoTool('a', { description: 'new' }), echoTool('b'), echoTool('c')]
    await server.sendToolListChanged()
    expect(await names(server)).toEqual(['a', 'b', 'c'])
  })

  it('puts back an entry the registry lost (an McpAgent’s rollback of a failed init) though the list is the same', async () => {
    const { server } = echoServer(() => [echoTool('a')])
    await server.prepared()
    server.edge.removeTool('a')
    await server.sendToolListChanged()
    expect(await names(server)).toEqual(['a'])
  })

  it('a prepare reads again what the registry lost since', async () => {
    const { server } = echoServer(() => [echoTool('a')])
    await server.prepared()
    server.edge.removeTool('a')
    await server.prepared()
    expect(await names(server)).toEqual(['a'])
  })

  it('templates the core refuses put the resources of the same read back as they were', async () => {
    let uri = 'n://one'
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri, name: uri }] }))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: uri === 'n://one' ? [] : [{ uriTemplate: 't://{x}', name: 't' }],
    }))
    server.setRequestHandler(ReadResourceRequestSchema, async () => ({ contents: [] }))
    await server.prepared()
    // Registered on the server underneath: the listed template of the same URI template is refused.
    server.edge.resourceTemplate('t://{x}', { name: 'native' }, () => ({ contents: [] }))
    uri = 'n://two'
    await expect(server.sendResourceListChanged()).rejects.toThrow('t://{x}')
    const listed = await sendAs<{ resources: { uri: string }[] }>(server.edge, 'resources/list', {})
    expect(listed.result?.resources.map((resource) => resource.uri)).toEqual(['n://one'])
  })

  it('sendToolListChanged() left unawaited, whose read fails, is logged, not an unhandled rejection', async () => {
    let fail = false
    const { server } = echoServer(() => {
      if (fail) throw new Error('catalog gone')
      return [echoTool('a')]
    })
    await server.prepared()
    fail = true
    await loggedNotUnhandled('catalog gone', async () => {
      void server.sendToolListChanged()
    })
  })

  it('a change announced from a tool (extra.sendNotification) whose read fails is logged, not an unhandled rejection', async () => {
    let fail = false
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      if (fail) throw new Error('db down')
      return { tools: [echoTool('poke')] }
    })
    server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
      fail = true
      await extra.sendNotification({ method: 'notifications/tools/list_changed' })
      return { content: [{ type: 'text', text: 'poked' }] }
    })
    await server.prepared()
    await loggedNotUnhandled('db down', async () => {
      expect((await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'poke' })).result?.content[0]?.text).toBe('poked')
    })
  })

  it('a completion handler set after the first read completes what was read before', async () => {
    const server = new Server({ name: 'low', version: '1' })
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [{ uriTemplate: 'files://{ dir }/{name}', name: 'file' }],
    }))
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [{ uri: request.params.uri, text: '' }],
    }))
    await server.prepared()
    server.setRequestHandler(CompleteRequestSchema, async (request) => ({
      completion: { values: [`${request.params.argument.name}:${request.params.argument.value}`] },
    }))
    await server.prepared()
    const ref = { type: 'ref/resource', uri: 'files://{ dir }/{name}' }
    const { result } = await sendAs<{ completion: { values: string[] } }>(server.edge, 'completion/complete', {
      ref,
      argument: { name: 'dir', value: 'sr' },
    })
    expect(result?.completion.values).toEqual(['dir:sr'])
  })
})

describe('resource annotations (audience, priority, lastModified), listed as given', () => {
  const annotations = { audience: ['user' as const], priority: 0.8, lastModified: '2026-12-06T00:00:00Z' }
  const listed = async (edge: Server['edge']) => {
    const resources = await sendAs<{ resources: unknown[] }>(edge, 'resources/list', {})
    const templates = await sendAs<{ resourceTemplates: unknown[] }>(edge, 'resources/templates/list', {})
    return [resources.result?.resources, templates.result?.resourceTemplates]
  }

  it('on the native API, an McpServer’s registerResource and a low-level Server’s lists', async () => {
    const native = createMcpServer({ name: 'native', version: '1' })
    native.resource('n://a', { name: 'a', annotations }, (uri) => ({ contents: [{ uri, text: '' }] }))
    native.resourceTemplate('n://{x}', { name: 'x', annotations }, (uri) => ({ contents: [{ uri, text: '' }] }))
    const sdk = new McpServer({ name: 'sdk', version: '1' })
    sdk.registerResource('a', 'n://a', { annotations }, (uri) => ({ contents: [{ uri: uri.href, text: '' }] }))
    sdk.registerResource('x', new ResourceTemplate('n://{x}', { list: undefined }), { annotations }, (uri) => ({
      contents: [{ uri: uri.href, text: '' }],
    }))
    const low = new Server({ name: 'low', version: '1' })
    low.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'n://a', name: 'a', annotations }] }))
    low.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [{ uriTemplate: 'n://{x}', name: 'x', annotations }],
    }))
    low.setRequestHandler(ReadResourceRequestSchema, async () => ({ contents: [] }))
    await low.prepared()
    const expected = [[{ uri: 'n://a', name: 'a', annotations }], [{ uriTemplate: 'n://{x}', name: 'x', annotations }]]
    expect(await listed(native)).toEqual(expected)
    expect(await listed(sdk.edge)).toEqual(expected)
    expect(await listed(low.edge)).toEqual(expected)
  })
})

describe('setRequestHandler on a low-level Server', () => {
  it('accepts what mcp-edge keeps itself and refuses what it cannot serve, naming why', () => {
    const server = new Server({ name: 'low', version: '1' })
    expect(() => server.setRequestHandler('logging/setLevel', async () => ({}))).not.toThrow()
    expect(() => server.setRequestHandler('resources/subscribe', async () => ({}))).not.toThrow()
    // ping and initialize are taken and never called (test/unit/sdk-unsupported.test.ts); a custom method is refused.
    expect(() => server.setRequestHandler('acme/search', async () => ({}))).toThrow(
      /setRequestHandler\("acme\/search"\) is not supported/,
    )
    expect(() => server.setRequestHandler('tools/call', 'not a function' as never)).toThrow(TypeError)
  })

  it("calls its own subscribe handler for a 2025 session's resources/subscribe, not its McpServer's", async () => {
    const server = new Server({ name: 'low', version: '1' }, { capabilities: { resources: { subscribe: true } } })
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [{ uri: 'memory://graph', name: 'graph' }] }))
    const subscribed: string[] = []
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      subscribed.push(request.params.uri)
      return {}
    })
    await server.prepared()
    const answer = await sendAs(server.edge, 'resources/subscribe', { uri: 'memory://graph' }, undefined, '2025-11-25')
    expect(answer.error).toBeUndefined()
    expect(subscribed).toEqual(['memory://graph'])
    // Removed, it is not called again.
    server.removeRequestHandler('resources/subscribe')
    await sendAs(server.edge, 'resources/subscribe', { uri: 'memory://graph' }, undefined, '2025-11-25')
    expect(subscribed).toEqual(['memory://graph'])
    // Its extra is not a call's: it asks the client nothing, and the types say so.
    server.setRequestHandler(SubscribeRequestSchema, async (_request, extra) => {
      // @ts-expect-error: a kept request's extra has no sendNotification
      void extra.sendNotification
      return {}
    })
  })

  it('setNotificationHandler is accepted and never called, said once in the log', () => {
    const server = new Server({ name: 'low', version: '1' })
    const logged = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      server.setNotificationHandler('notifications/roots/list_changed', () => {})
      server.setNotificationHandler('notifications/roots/list_changed', () => {})
      const messages = logged.mock.calls.map(([line]) => (JSON.parse(String(line)) as { msg: string }).msg)
      const said = 'setNotificationHandler("notifications/roots/list_changed") is accepted and never called'
      expect(messages.filter((message) => message.startsWith(said))).toHaveLength(1)
    } finally {
      logged.mockRestore()
    }
  })

  it('connect(transport) says how a Worker serves it', async () => {
    await expect(new Server({ name: 'low', version: '1' }).connect({})).rejects.toThrow(/createMcpHandler\(server\)/)
  })
})
