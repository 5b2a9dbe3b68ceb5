/**
 * Servers written on SDK 1.x's low-level `Server`, their imports changed to `mcp-edge/sdk` and
 * nothing else (test/fixture-sdk/low-level), under `wrangler dev`, driven by real clients at their
 * defaults: the SDK 1.x client (2025 era: the confirmation through its elicitation handler,
 * progress through onprogress), the 2.x client pinned to 2026-07-28 (the same confirmation through
 * input_required rounds), Inspector's CLI, the Python SDK both ways where `.venv-python` holds it;
 * and an `McpAgent` whose server is a promise of a low-level `Server` (as Cloudflare's Playwright
 * server), its state kept per 2025 session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Client as ClientV2 } from '@modelcontextprotocol/client'
import { ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answeringClientV1, answeringClientV2, answerWith } from '../support/sdk-clients.ts'
import { hasPython, inspect, pythonClient } from '../support/client-processes.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const TOOLS = ['add', 'countdown', 'delete_note', 'fail']
const NOTES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon']
const CONFIRM = { action: 'accept', content: { confirm: true } } as const

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/low-level/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

/** The JSON-RPC error a call is refused with (the SDK 1.x client throws it as an McpError). */
async function refusal(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!(error instanceof McpError)) throw new Error(`expected an McpError, got ${String(error)}`)
  return { code: error.code, message: error.message }
}

describe('a low-level Server via createMcpHandler: the SDK 1.x client (2025 era, defaults)', () => {
  let client: Client
  const asked: unknown[] = []

  beforeAll(async () => {
    ;({ client } = await answeringClientV1(new URL(worker.url), answerWith(CONFIRM, asked)))
  })
  afterAll(() => client?.close())

  it('initializes with the server’s identity, instructions and the capabilities its handlers serve (its own initialize handler never called)', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'sdk-low-level-notes', version: '1.0.0' })
    expect(client.getInstructions()).toBe('Notes, read as resources.')
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {} })
  })

  it('lists the tools its ListTools handler returns, schemas as written', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS)
    expect(tools[0]).toEqual({
      name: 'add',
      description: 'Add two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      annotations: { readOnlyHint: true },
    })
  })

  it('calls through its CallTool handler: structured content, progress, and the confirmation', async () => {
    const added = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
    expect(added).toMatchObject({ content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 } })
    const progress: number[] = []
    const counted = await client.callTool({ name: 'countdown', arguments: { from: 3 } }, undefined, {
      onprogress: ({ progress: done }) => progress.push(done),
    })
    expect([counted.content, progress]).toEqual([[{ type: 'text', text: 'Liftoff' }], [1, 2, 3]])
    const deleted = await client.callTool({ name: 'delete_note', arguments: { name: 'beta' } })
    expect(deleted.content).toEqual([{ type: 'text', text: 'Deleted beta.' }])
    expect(asked).toMatchObject([{ message: 'Delete note beta?' }])
  })

  it('a handler that throws, and a tool it never listed, are JSON-RPC errors', async () => {
    // The thrown message stays in the server's log: the client learns only that it failed.
    expect(await refusal(client.callTool({ name: 'fail', arguments: {} }))).toEqual({
      code: -32603,
      message: 'MCP error -32603: Internal error',
    })
    expect(await refusal(client.callTool({ name: 'nope', arguments: {} }))).toMatchObject({ code: -32602 })
  })

  it('lists every resource its paginated handler returns on one page, and reads listed and templated ones', async () => {
    const listed = await client.listResources()
    expect(listed.resources.map((resource) => resource.uri)).toEqual(NOTES.map((name) => `notes://${name}`))
    expect(listed.nextCursor).toBeUndefined()
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'archive://{name}', name: 'archived note', mimeType: 'text/plain' },
    ])
    expect((await client.readResource({ uri: 'notes://gamma' })).contents).toEqual([
      { uri: 'notes://gamma', mimeType: 'text/plain', text: 'Third note.' },
    ])
    expect((await client.readResource({ uri: 'archive://delta' })).contents[0]).toMatchObject({ text: 'Fourth note.' })
  })

  it('completes the template’s variable and the prompt’s argument through its Complete handler', async () => {
    const note = await client.complete({
      ref: { type: 'ref/resource', uri: 'archive://{name}' },
      argument: { name: 'name', value: 'e' },
    })
    expect(note.completion.values).toEqual(['epsilon'])
    const style = await client.complete({
      ref: { type: 'ref/prompt', name: 'summarize' },
      argument: { name: 'style', value: 'b' },
    })
    expect(style.completion.values).toEqual(['bullets'])
  })

  it('gets the prompt with its listed arguments, and sets the log level', async () => {
    const { prompts } = await client.listPrompts()
    expect(prompts).toEqual([
      {
        name: 'summarize',
        description: 'Summarize a note',
        arguments: [
          { name: 'note', description: 'Which note', required: true },
          { name: 'style', description: 'How to write it', required: false },
        ],
      },
    ])
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { note: 'alpha', style: 'haiku' } })
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize alpha (haiku): First note.' } }])
    expect(await client.setLoggingLevel('info')).toEqual({})
  })
})

describe('a low-level Server via createMcpHandler: the 2.x client pinned to 2026-07-28', () => {
  let client: ClientV2
  const asked: unknown[] = []

  beforeAll(async () => {
    client = await answeringClientV2(new URL(worker.url), answerWith(CONFIRM, asked))
  })
  afterAll(() => client?.close())

  it('lists and calls statelessly, the confirmation through input_required rounds', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS)
    expect((await client.callTool({ name: 'add', arguments: { a: 4, b: 5 } })).structuredContent).toEqual({ sum: 9 })
    const deleted = await client.callTool({ name: 'delete_note', arguments: { name: 'alpha' } })
    expect(deleted.content).toEqual([{ type: 'text', text: 'Deleted alpha.' }])
    expect(asked).toMatchObject([{ mode: 'form', message: 'Delete note alpha?' }])
  })

  it('reads a resource and gets the prompt', async () => {
    expect((await client.readResource({ uri: 'notes://epsilon' })).contents[0]).toMatchObject({ text: 'Fifth note.' })
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { note: 'beta' } })
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Summarize beta (plain): Second note.' })
  })
})

describe('a low-level Server via createMcpHandler: Inspector CLI', () => {
  it('lists the tools and calls add', async () => {
    const listed = await inspect(worker.url, '--method', 'tools/list')
    expect([listed.code, listed.stderr]).toEqual([0, ''])
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS)
    const added = await inspect(worker.url, '--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40')
    expect([added.code, added.result.structuredContent]).toEqual([0, { sum: 42 }])
  })
})

describe.skipIf(!hasPython)('a low-level Server via createMcpHandler: the Python SDK, when .venv-python has it', () => {
  const seen = {
    tools: TOOLS,
    add: { sum: 5 },
    resource: 'Third note.',
    prompt: 'Summarize alpha (haiku): First note.',
    delete: ['Deleted beta.'],
    asked: ['Delete note beta?'],
  }

  it('ClientSession.initialize() (2025 era), the confirmation through its elicitation callback', async () => {
    expect(await pythonClient(worker.url, 'session', 'low-level')).toEqual({ protocolVersion: '2025-11-25', ...seen })
  })

  it('Client at its defaults (2026-07-28), the confirmation through input_required rounds', async () => {
    expect(await pythonClient(worker.url, 'client', 'low-level')).toEqual({ protocolVersion: '2026-07-28', ...seen })
  })
})

describe('an McpAgent whose server is a promise of a low-level Server (Cloudflare’s Playwright server’s shape)', () => {
  const connect = async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/browser', worker.url)))
    return client
  }
  const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text

  it('serves its tools, and keeps each session’s history in that session’s agent state', async () => {
    const first = await connect()
    const second = await connect()
    try {
      expect((await first.listTools()).tools.map((tool) => tool.name)).toEqual(['browser_navigate', 'browser_history'])
      await first.callTool({ name: 'browser_navigate', arguments: { url: 'https://example.com/a' } })
      await first.callTool({ name: 'browser_navigate', arguments: { url: 'https://example.com/b' } })
      await second.callTool({ name: 'browser_navigate', arguments: { url: 'https://example.com/c' } })
      expect(text(await first.callTool({ name: 'browser_history', arguments: {} }))).toBe(
        'https://example.com/a https://example.com/b',
      )
      expect(text(await second.callTool({ name: 'browser_history', arguments: {} }))).toBe('https://example.com/c')
    } finally {
      await Promise.all([first.close(), second.close()])
    }
  })

  it('a tool it never listed is -32602, before the handler that would answer it with isError', async () => {
    const client = await connect()
    try {
      expect(await refusal(client.callTool({ name: 'browser_click', arguments: {} }))).toMatchObject({ code: -32602 })
    } finally {
      await client.close()
    }
  })
})

describe('a low-level Server whose lists cannot be read', () => {
  /** What an `initialize` at `path` is answered with: HTTP status and JSON-RPC error. */
  const initialize = async (path: string) => {
    const response = await fetch(new URL(path, worker.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    })
    const body = (await response.json()) as { error: { code: number; message: string } }
    return [response.status, body.error]
  }
  const misconfigured = (message: string) => [500, { code: -32603, message: `Server misconfigured: ${message}` }]
  const SHAPELESS = 'tools/list: tool "shapeless" has no inputSchema of type "object"'

  /** What the SDK 1.x client is told when it lists the tools at `path` (it connects first). */
  const listed = async (path: string) => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(path, worker.url)))
    try {
      return await refusal(client.listTools())
    } finally {
      await client.close()
    }
  }
  const LIST_THREW = { code: -32603, message: 'MCP error -32603: Internal error: tools/list threw; see the server logs' }

  // Before (porting round R), every request was answered 500, initialize included.
  it('a list handler that throws: the client connects, and that list’s methods are -32603, the message kept for the log (it may hold anything)', async () => {
    expect(await listed('/throwing')).toEqual(LIST_THREW)
    await expect.poll(() => readFileSync(worker.logFile, 'utf8'), { timeout: 5000 }).toContain('SECRET-KEY')
  })

  it('a list with an item mcp-edge cannot serve: 500 naming the item', async () => {
    expect(await initialize('/invalid')).toEqual(misconfigured(SHAPELESS))
  })

  it('an McpAgent whose server’s list handler throws: the same', async () => {
    expect(await listed('/misbuilt-agent')).toEqual(LIST_THREW)
    await expect.poll(() => readFileSync(worker.logFile, 'utf8'), { timeout: 5000 }).toContain('the catalog is down')
  })

  it('an McpAgent whose server lists a tool mcp-edge cannot serve: 500 naming the tool', async () => {
    expect(await initialize('/shapeless-agent')).toEqual(misconfigured(SHAPELESS))
  })
})

// Porting round R: the SDK's reference "everything" server lists from the client's capabilities,
// which its oninitialized keeps; read before any client, its ListTools handler threw, and every
// request was answered 500.
describe('a low-level Server whose list reads the client (kept by oninitialized)', () => {
  it('is read in the first request after a 2025 client initialized, for that client; until then the list fails', async () => {
    const modern = await answeringClientV2(new URL('/roots', worker.url), () => ({ action: 'decline' }))
    try {
      // A 2026-07-28 client initializes nothing, so this server's list cannot be read for it.
      const refused = await modern.listTools().then(
        () => undefined,
        (error: { code?: number }) => error.code,
      )
      expect(refused).toBe(-32603)
      const legacy = new Client({ name: 'sdk-1x', version: '1.0.0' }, { capabilities: { roots: {} } })
      legacy.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }))
      await legacy.connect(new StreamableHTTPClientTransport(new URL('/roots', worker.url)))
      try {
        expect((await legacy.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'listRoots'])
        expect(await legacy.callTool({ name: 'listRoots', arguments: {} })).toMatchObject({
          content: [{ type: 'text', text: 'file:///work' }],
        })
      } finally {
        await legacy.close()
      }
      // Read once, the list is the server's for every client of the isolate, as the SDK's would be for its process.
      expect((await modern.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'listRoots'])
    } finally {
      await modern.close()
    }
  })
})
