/**
 * The clients people use today, at their default settings, against the template Worker under
 * `wrangler dev`, over real HTTP: the official SDK 1.x client, the official 2.x client without a
 * version option (its default is the 2025 era), MCP Inspector's CLI (default era), and mcp-remote
 * driven over stdio as a desktop host drives it. Each connects, lists tools, calls `add`, reads a
 * resource and gets a prompt; those with an elicitation handler complete `delete_record` through
 * it (Inspector's CLI cannot answer elicitation). The AI SDK's MCP client (`@ai-sdk/mcp`) connects,
 * lists, calls and turns the tools into AI SDK tools. The Python SDK's client runs too, both ways,
 * where `.venv-python` holds it (the last describe).
 */
import { createMCPClient } from '@ai-sdk/mcp'
import type { MCPClient } from '@ai-sdk/mcp'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { answeringClientV1, answerWith } from '../support/sdk-clients.ts'
import { hasPython, inspect as inspectAt, pythonClient, pythonSeen, startMcpRemote } from '../support/client-processes.ts'
import type { McpRemote } from '../support/client-processes.ts'
import { legacyRpc } from '../support/legacy.ts'
import { DEMO_TOOLS } from '../support/mcp.ts'

const TOOLS = DEMO_TOOLS
/** The demo's identity (apps/demo/src/worker.ts), as a 2025-11-25 or 2026-07-28 client receives it. */
const IDENTITY = {
  name: 'mcp-edge-template',
  version: '0.1.0',
  title: 'mcp-edge demo',
  websiteUrl: 'https://github.com/mcp-edge/mcp-edge',
  icons: [{ src: expect.stringMatching(/^data:image\/svg\+xml;base64,/), mimeType: 'image/svg+xml', sizes: ['any'] }],
}
const CONFIRM = { action: 'accept', content: { confirm: true, reason: 'cleanup' } } as const

describe('@modelcontextprotocol/sdk 1.x client (defaults)', () => {
  let client: Client
  let transport: StreamableHTTPClientTransport
  const asked: unknown[] = []

  beforeAll(async () => {
    ;({ client, transport } = await answeringClientV1(new URL(inject('templateUrl')), answerWith(CONFIRM, asked)))
  })
  afterAll(() => client?.close())

  it('connects through initialize and keeps the sealed session', () => {
    expect(transport.protocolVersion).toBe('2025-11-25')
    expect(transport.sessionId).toMatch(/^s1\./)
    expect(client.getServerVersion()).toEqual(IDENTITY)
  })

  it('lists tools, calls add, reads a resource and gets a prompt', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS)
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content).toEqual([{ type: 'text', text: '5' }])
    expect((await client.readResource({ uri: 'info://server' })).contents[0]).toMatchObject({
      uri: 'info://server',
      mimeType: 'text/plain',
    })
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'MCP' } })
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Summarize this:\n\nMCP' })
  })

  it('completes delete_record through its elicitation handler', async () => {
    const result = await client.callTool({ name: 'delete_record', arguments: { id: 'r-1' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Record r-1 deleted (cleanup).' }])
    expect(asked).toMatchObject([{ message: 'Delete record r-1? This cannot be undone.' }])
  })

  it('validates structured content against the output schema (draft 2020-12 dialect)', async () => {
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })
    expect(weather.structuredContent).toMatchObject({ city: 'Oslo' })
  })

  // Last: it ends the session the tests above share.
  it('ends its session with terminateSession() (DELETE, 204): the old id then gets 404', async () => {
    const ended = transport.sessionId as string
    await transport.terminateSession()
    expect(transport.sessionId).toBeUndefined() // (the SDK forgets it on 405 too: the 404 below is the proof)
    const after = await legacyRpc(fetch, inject('templateUrl'), { version: '2025-11-25', sessionId: ended }, 'tools/list')
    expect(after.status).toBe(404)
  })
})

describe('@modelcontextprotocol/client 2.x (no version option: the 2025 era)', () => {
  let client: ClientV2
  const asked: unknown[] = []

  beforeAll(async () => {
    client = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params)
      return CONFIRM
    })
    await client.connect(new TransportV2(new URL(inject('templateUrl'))))
  })
  afterAll(() => client?.close())

  it('connects in the legacy era', () => {
    expect(client.getProtocolEra()).toBe('legacy')
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25')
  })

  it('lists tools, calls add, reads a resource, gets a prompt and completes delete_record', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS)
    expect((await client.callTool({ name: 'add', arguments: { a: 4, b: 5 } })).content).toEqual([{ type: 'text', text: '9' }])
    expect((await client.readResource({ uri: 'info://server' })).contents[0]?.uri).toBe('info://server')
    expect((await client.getPrompt({ name: 'summarize', arguments: { text: 'x' } })).messages).toHaveLength(1)
    const result = await client.callTool({ name: 'delete_record', arguments: { id: 'r-2' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Record r-2 deleted (cleanup).' }])
    expect(asked).toHaveLength(1)
  })
})

describe('@ai-sdk/mcp (the AI SDK, defaults)', () => {
  let client: MCPClient
  beforeAll(async () => {
    client = await createMCPClient({ transport: { type: 'http', url: inject('templateUrl') } })
  })
  afterAll(() => client?.close())

  it('connects, lists tools, calls add, reads a resource and gets a prompt', async () => {
    expect(client.initializeResult.serverInfo).toEqual(IDENTITY)
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS)
    expect((await client.callTool({ name: 'add', arguments: { a: 6, b: 7 } })).content).toEqual([{ type: 'text', text: '13' }])
    expect((await client.readResource({ uri: 'info://server' })).contents[0]?.uri).toBe('info://server')
    expect((await client.getPrompt({ name: 'summarize', arguments: { text: 'x' } })).messages).toHaveLength(1)
  })

  it('gives the tools to a model as AI SDK tools, which call the server', async () => {
    const tools = await client.tools()
    expect(Object.keys(tools)).toEqual(TOOLS)
    const weather = await tools.get_weather?.execute?.({ city: 'Lisbon' }, { toolCallId: 't1', messages: [], context: {} })
    expect(weather).toMatchObject({ structuredContent: { city: 'Lisbon', tempC: expect.any(Number) } })
  })
})

describe('MCP Inspector CLI (default era)', () => {
  const inspect = (...args: string[]) => inspectAt(inject('templateUrl'), ...args)

  it('lists tools, calls add, reads a resource and gets a prompt', async () => {
    const listed = await inspect('--method', 'tools/list')
    expect([listed.code, listed.stderr]).toEqual([0, ''])
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS)
    const added = await inspect('--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40')
    expect([added.code, added.result.content]).toEqual([0, [{ type: 'text', text: '42' }]])
    const read = await inspect('--method', 'resources/read', '--uri', 'info://server')
    expect([read.code, read.result.contents[0].uri]).toEqual([0, 'info://server'])
    const prompt = await inspect('--method', 'prompts/get', '--prompt-name', 'summarize', '--prompt-args', 'text=hello')
    expect([prompt.code, prompt.result.messages[0].content.text]).toEqual([0, 'Summarize this:\n\nhello'])
  })
})

describe('mcp-remote, driven over stdio as a desktop host', () => {
  let remote: McpRemote
  const request = (method: string, params: object) => remote.request(method, params)

  beforeAll(() => {
    remote = startMcpRemote(inject('templateUrl'), CONFIRM)
  })
  afterAll(() => remote?.close())

  it('initializes through the proxy, lists tools, calls add, reads a resource and gets a prompt', async () => {
    const initialized = await request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'desktop-host', version: '1.0.0' },
    })
    expect(initialized.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'mcp-edge-template' } })
    remote.notify('notifications/initialized')
    expect((await request('tools/list', {})).result.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS)
    expect((await request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).result.content).toEqual([
      { type: 'text', text: '2' },
    ])
    expect((await request('resources/read', { uri: 'info://server' })).result.contents[0].uri).toBe('info://server')
    expect((await request('prompts/get', { name: 'summarize', arguments: { text: 'y' } })).result.messages).toHaveLength(1)
  })

  it('forwards delete_record’s elicitation to the host and returns the confirmed result', async () => {
    const result = await request('tools/call', { name: 'delete_record', arguments: { id: 'r-3' } })
    expect(result.result.content).toEqual([{ type: 'text', text: 'Record r-3 deleted (cleanup).' }])
    expect(remote.asked).toHaveLength(1)
    expect(remote.asked[0]).toMatchObject({ message: 'Delete record r-3? This cannot be undone.' })
  })
})

/**
 * The official Python SDK (PyPI `mcp`, pinned in .ci/run), when `.venv-python` holds it: `.ci/run`
 * installs it where pip can reach it; elsewhere these tests are skipped (README "Connect a client").
 */
describe.skipIf(!hasPython)('Python SDK (mcp 2.x), when .venv-python has it', () => {
  const python = (how: 'session' | 'client') => pythonClient(inject('templateUrl'), how)
  const seen = pythonSeen(TOOLS)

  it('ClientSession.initialize(): lists tools, calls add, reads a resource, gets a prompt, completes delete_record through its elicitation callback', async () => {
    expect(await python('session')).toEqual({ protocolVersion: '2025-11-25', ...seen })
  })

  it('Client at its defaults (probes server/discover): the same over 2026-07-28, delete_record through input_required rounds', async () => {
    expect(await python('client')).toEqual({ protocolVersion: '2026-07-28', ...seen })
  })
})
