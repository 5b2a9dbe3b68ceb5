/**
 * Fixture (a), an SDK 1.x `McpServer` through agents' `createMcpHandler`, its imports changed to
 * `mcp-edge/sdk` and nothing else (test/fixture-sdk/v1-handler), under `wrangler dev`, driven by
 * the clients people run, at their defaults: the SDK 1.x client (2025 era: the confirmation through
 * its elicitation handler, progress through onprogress), the 2.x client pinned to 2026-07-28 (the
 * same confirmation through input_required rounds), Inspector's CLI, mcp-remote as a desktop host,
 * and the Python SDK both ways where `.venv-python` holds it.
 */
import type { Client as ClientV2 } from '@modelcontextprotocol/client'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answeringClientV1, answeringClientV2, answerWith } from '../support/sdk-clients.ts'
import { hasPython, inspect, pythonClient, pythonSeen, startMcpRemote } from '../support/client-processes.ts'
import type { McpRemote } from '../support/client-processes.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const TOOLS = ['add', 'get_weather', 'echo', 'delete_record', 'countdown']
const CONFIRM = { action: 'accept', content: { confirm: true, reason: 'cleanup' } } as const
const IDENTITY = { name: 'sdk-v1-fixture', version: '1.0.0' }

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/v1-handler/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

describe('SDK 1.x server via createMcpHandler: the SDK 1.x client (2025 era, defaults)', () => {
  let client: Client
  let transport: StreamableHTTPClientTransport
  const asked: unknown[] = []

  beforeAll(async () => {
    ;({ client, transport } = await answeringClientV1(new URL(worker.url), answerWith(CONFIRM, asked)))
  })
  afterAll(() => client?.close())

  it('initializes in the 2025 era with the server’s identity', () => {
    expect(transport.protocolVersion).toBe('2025-11-25')
    expect(client.getServerVersion()).toMatchObject(IDENTITY)
  })

  it('lists the tools with the JSON Schemas of their zod shapes, the older tool() call included', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS)
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
    expect(byName.add).toMatchObject({
      title: 'Add',
      description: 'Add two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    })
    expect(byName.get_weather).toMatchObject({
      inputSchema: { properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
      outputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, tempC: { type: 'number' }, conditions: { type: 'string' } },
      },
      annotations: { readOnlyHint: true },
    })
    expect(byName.echo).toMatchObject({ description: 'Repeat a message back', inputSchema: { required: ['message'] } })
    expect(byName.countdown?.inputSchema).toMatchObject({ properties: { from: { type: 'integer', minimum: 1, maximum: 10 } } })
  })

  it('calls tools: text, structured content, and the older tool() form', async () => {
    expect((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content).toEqual([{ type: 'text', text: '5' }])
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } })
    expect(weather.structuredContent).toEqual({ city: 'Oslo', tempC: 23, conditions: 'cloudy' })
    expect((await client.callTool({ name: 'echo', arguments: { message: 'hi' } })).content).toEqual([
      { type: 'text', text: 'hi' },
    ])
  })

  it('refuses arguments that do not fit the zod shape, as a tool error naming the field', async () => {
    const result = await client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } })
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('a')
  })

  it('confirms delete_record through server.server.elicitInput and the client’s elicitation handler', async () => {
    const result = await client.callTool({ name: 'delete_record', arguments: { id: 'r-1' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Record r-1 deleted (cleanup).' }])
    expect(asked).toMatchObject([{ message: 'Delete record r-1? This cannot be undone.' }])
  })

  it('delivers extra.sendNotification progress to onprogress before the result', async () => {
    const seen: { progress: number; total?: number; message?: string }[] = []
    const result = await client.callTool({ name: 'countdown', arguments: { from: 3 } }, undefined, {
      onprogress: (progress) => seen.push(progress),
    })
    expect(result.content).toEqual([{ type: 'text', text: 'Liftoff' }])
    expect(seen).toEqual([
      { progress: 1, total: 3, message: '2 to go' },
      { progress: 2, total: 3, message: '1 to go' },
      { progress: 3, total: 3, message: '0 to go' },
    ])
  })

  it('lists and reads resources, the template’s listed ones included, and completes its variable', async () => {
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri)).toEqual([
      'info://server',
      'notes://welcome',
      'notes://weekly',
      'notes://wishlist',
    ])
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates).toMatchObject([{ name: 'note', uriTemplate: 'notes://{name}', mimeType: 'text/plain' }])
    expect((await client.readResource({ uri: 'notes://weekly' })).contents).toEqual([
      { uri: 'notes://weekly', mimeType: 'text/plain', text: 'Ship the adapter, then the guide.' },
    ])
    expect((await client.readResource({ uri: 'info://server' })).contents[0]).toMatchObject({ mimeType: 'text/plain' })
    const completed = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{name}' },
      argument: { name: 'name', value: 'w' },
    })
    expect(completed.completion.values).toEqual(['welcome', 'weekly', 'wishlist'])
  })

  it('gets the prompt with its argument', async () => {
    const { prompts } = await client.listPrompts()
    expect(prompts).toMatchObject([{ name: 'summarize', title: 'Summarize', arguments: [{ name: 'text', required: true }] }])
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'MCP' } })
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Summarize this:\n\nMCP' } }])
  })
})

describe('SDK 1.x server via createMcpHandler: the 2.x client pinned to 2026-07-28', () => {
  let client: ClientV2
  const asked: unknown[] = []

  beforeAll(async () => {
    client = await answeringClientV2(new URL(worker.url), answerWith(CONFIRM, asked))
  })
  afterAll(() => client?.close())

  it('lists and calls tools statelessly', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(TOOLS)
    expect((await client.callTool({ name: 'add', arguments: { a: 4, b: 5 } })).content).toEqual([{ type: 'text', text: '9' }])
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Lima' } })
    expect(weather.structuredContent).toEqual({ city: 'Lima', tempC: 23, conditions: 'cloudy' })
  })

  it('confirms delete_record’s elicitInput through input_required rounds', async () => {
    const result = await client.callTool({ name: 'delete_record', arguments: { id: 'r-2' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Record r-2 deleted (cleanup).' }])
    expect(asked).toMatchObject([{ mode: 'form', message: 'Delete record r-2? This cannot be undone.' }])
  })

  it('reads the template’s resource and gets the prompt', async () => {
    expect((await client.readResource({ uri: 'notes://welcome' })).contents[0]).toMatchObject({
      text: 'Hello from the notes shelf.',
    })
    expect((await client.getPrompt({ name: 'summarize', arguments: { text: 'x' } })).messages).toHaveLength(1)
  })
})

describe('SDK 1.x server via createMcpHandler: Inspector CLI and mcp-remote', () => {
  let remote: McpRemote
  beforeAll(() => {
    remote = startMcpRemote(worker.url, CONFIRM)
  })
  afterAll(() => remote?.close())

  it('Inspector CLI lists tools, calls add and gets the prompt', async () => {
    const listed = await inspect(worker.url, '--method', 'tools/list')
    expect([listed.code, listed.stderr]).toEqual([0, ''])
    expect(listed.result.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS)
    const added = await inspect(worker.url, '--method', 'tools/call', '--tool-name', 'add', '--tool-arg', 'a=2', 'b=40')
    expect([added.code, added.result.content]).toEqual([0, [{ type: 'text', text: '42' }]])
    const prompt = await inspect(worker.url, '--method', 'prompts/get', '--prompt-name', 'summarize', '--prompt-args', 'text=hi')
    expect([prompt.code, prompt.result.messages[0].content.text]).toEqual([0, 'Summarize this:\n\nhi'])
  })

  it('mcp-remote initializes, calls add, and forwards delete_record’s confirmation to the host', async () => {
    const initialized = await remote.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { elicitation: {} },
      clientInfo: { name: 'desktop-host', version: '1.0.0' },
    })
    expect(initialized.result).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: IDENTITY })
    remote.notify('notifications/initialized')
    expect((await remote.request('tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).result.content).toEqual([
      { type: 'text', text: '2' },
    ])
    const deleted = await remote.request('tools/call', { name: 'delete_record', arguments: { id: 'r-3' } })
    expect(deleted.result.content).toEqual([{ type: 'text', text: 'Record r-3 deleted (cleanup).' }])
    expect(remote.asked).toMatchObject([{ message: 'Delete record r-3? This cannot be undone.' }])
  })
})

describe.skipIf(!hasPython)('SDK 1.x server via createMcpHandler: the Python SDK, when .venv-python has it', () => {
  const seen = pythonSeen(TOOLS)

  it('ClientSession.initialize() (2025 era), the confirmation through its elicitation callback', async () => {
    expect(await pythonClient(worker.url, 'session')).toEqual({ protocolVersion: '2025-11-25', ...seen })
  })

  it('Client at its defaults (2026-07-28), the confirmation through input_required rounds', async () => {
    expect(await pythonClient(worker.url, 'client')).toEqual({ protocolVersion: '2026-07-28', ...seen })
  })
})
