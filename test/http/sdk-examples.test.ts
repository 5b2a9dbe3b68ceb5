/**
 * Fixture (f), the SDK 1.x repository's example servers (simpleStreamableHttp, mcpServerOutputSchema,
 * toolWithSampleServer) with their imports changed to `mcp-edge/sdk` (test/fixture-sdk/examples),
 * under one `wrangler dev`, driven by the SDK 1.x client at its defaults (2025 era: elicitation and
 * sampling on the call's stream, logs through its notification handler, structured content checked
 * against the output schema by the client itself) and the 2.x client pinned to 2026-07-28 (the
 * same questions as input_required rounds, logs on the call's stream when the call asks for them).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const TOOLS = ['greet', 'multi-greet', 'collect-user-info', 'start-notification-stream', 'list-files', 'get_weather', 'summarize']
const CONTACT = { name: 'Ada', email: 'ada@example.com' }
const SUMMARY = { role: 'assistant', model: 'stub-llm', content: { type: 'text', text: 'Short.' } } as const
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
// ext-apps' example (examples/apps.ts): its view, and what a host renders of it.
const RESOURCE_MIME_TYPE = 'text/html;profile=mcp-app'
const APP_URI = 'ui://get-time/mcp-app.html'
const APP_HTML = '<!doctype html><html><body><p id="time">…</p></body></html>'

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/examples/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

/** An SDK 1.x client at its defaults that answers forms with `answer` and records what it heard. */
async function connectV1(answer: { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }) {
  const client = new Client({ name: 'sdk-1x', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } })
  const asked: { message: string; requestedSchema?: unknown }[] = []
  const logs: { level: string; data: unknown }[] = []
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params as (typeof asked)[number])
    return answer
  })
  client.setRequestHandler(CreateMessageRequestSchema, async () => SUMMARY)
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params))
  const transport = new StreamableHTTPClientTransport(new URL('/simple', worker.url))
  await client.connect(transport)
  return { client, transport, asked, logs }
}

describe('SDK 1.x example servers on mcp-edge/sdk: the SDK 1.x client (2025 era, defaults)', () => {
  let you: Awaited<ReturnType<typeof connectV1>>
  let other: Awaited<ReturnType<typeof connectV1>>

  beforeAll(async () => {
    you = await connectV1({ action: 'accept', content: CONTACT })
    other = await connectV1({ action: 'cancel' })
  })
  afterAll(async () => {
    await you?.client.close()
    await other?.client.close()
  })

  it('initializes with the server’s icons, website and logging capability', () => {
    expect(you.transport.protocolVersion).toBe('2025-11-25')
    expect(you.client.getServerVersion()).toMatchObject({
      name: 'simple-streamable-http-server',
      icons: [{ src: './mcp.svg', sizes: ['512x512'], mimeType: 'image/svg+xml' }],
      websiteUrl: 'https://github.com/modelcontextprotocol/typescript-sdk',
    })
    expect(you.client.getServerCapabilities()?.logging).toEqual({})
  })

  it('lists the tools; zod defaults are optional inputs with their defaults, as the SDK lists them', async () => {
    const { tools } = await you.client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(TOOLS)
    const stream = tools.find((tool) => tool.name === 'start-notification-stream')
    expect(stream?.inputSchema).toMatchObject({
      properties: { interval: { type: 'number', default: 100 }, count: { type: 'number', default: 50 } },
    })
    expect(stream?.inputSchema.required ?? []).toEqual([])
    const weather = tools.find((tool) => tool.name === 'get_weather')
    expect(weather?.outputSchema).toMatchObject({
      properties: {
        temperature: { type: 'object', required: ['celsius', 'fahrenheit'] },
        humidity: { minimum: 0, maximum: 100 },
      },
    })
  })

  it('greets, and multi-greet’s sendLoggingMessage reaches the caller only, in order', async () => {
    expect((await you.client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).content).toEqual([
      { type: 'text', text: 'Hello, Ada!' },
    ])
    const result = await you.client.callTool({ name: 'multi-greet', arguments: { name: 'Ada' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Good morning, Ada!' }])
    expect(you.logs).toEqual([
      { level: 'debug', data: 'Starting multi-greet for Ada' },
      { level: 'info', data: 'Sending first greeting to Ada' },
      { level: 'info', data: 'Sending second greeting to Ada' },
    ])
    expect(other.logs).toEqual([])
  })

  it('a session that set its level to warning hears none of multi-greet’s debug and info', async () => {
    await other.client.setLoggingLevel('warning')
    await other.client.callTool({ name: 'multi-greet', arguments: { name: 'Cy' } })
    expect(other.logs).toEqual([])
  })

  it('applies the zod defaults to omitted arguments (start-notification-stream)', async () => {
    you.logs.length = 0
    const result = await you.client.callTool({ name: 'start-notification-stream', arguments: { count: 2 } })
    expect(result.content).toEqual([{ type: 'text', text: 'Started sending periodic notifications every 100ms' }])
    expect(you.logs.map((log) => log.data)).toEqual(['Periodic notification #1', 'Periodic notification #2'])
  })

  it('collect-user-info asks through extra.sendRequest, its try/catch around the question included', async () => {
    const result = await you.client.callTool({ name: 'collect-user-info', arguments: { infoType: 'contact' } })
    expect(result.content).toEqual([
      { type: 'text', text: `Thank you! Collected contact information: ${JSON.stringify(CONTACT)}` },
    ])
    expect(you.asked).toMatchObject([
      {
        message: 'Please provide your contact information',
        requestedSchema: { properties: { email: { format: 'email' } }, required: ['name', 'email'] },
      },
    ])
    const cancelled = await other.client.callTool({ name: 'collect-user-info', arguments: { infoType: 'preferences' } })
    expect(cancelled.content).toEqual([{ type: 'text', text: 'Information collection was cancelled by the user.' }])
    expect(other.asked[0]?.requestedSchema).toMatchObject({ properties: { theme: { enumNames: ['Light', 'Dark', 'Auto'] } } })
  })

  it('list-files returns resource links, and each linked resource reads', async () => {
    const result = await you.client.callTool({ name: 'list-files', arguments: { includeDescriptions: false } })
    const links = (result.content as { type: string; uri?: string; description?: string }[]).filter(
      (block) => block.type === 'resource_link',
    )
    expect(links.map((link) => link.uri)).toEqual([
      'https://example.com/greetings/default',
      'file:///example/file1.txt',
      'file:///example/file2.txt',
    ])
    expect(links.every((link) => link.description === undefined)).toBe(true)
    const read = await you.client.readResource({ uri: 'file:///example/file2.txt' })
    expect(read.contents).toEqual([{ uri: 'file:///example/file2.txt', text: 'This is the content of file 2' }])
  })

  it('get_weather’s structured content passes the client’s own output-schema check; summarize samples', async () => {
    const weather = await you.client.callTool({ name: 'get_weather', arguments: { city: 'Oslo', country: 'NO' } })
    expect(weather.isError).toBeUndefined()
    expect(JSON.parse((weather.content as { text: string }[])[0]?.text ?? '')).toEqual(weather.structuredContent)
    const summary = await you.client.callTool({ name: 'summarize', arguments: { text: 'A long text.' } })
    expect(summary.content).toEqual([{ type: 'text', text: 'Short.' }])
  })

  it('gets the greeting prompt', async () => {
    const prompt = await you.client.getPrompt({ name: 'greeting-template', arguments: { name: 'Ada' } })
    expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Please greet Ada in a friendly manner.' } }])
  })
})

describe('SDK 1.x example servers on mcp-edge/sdk: the 2.x client pinned to 2026-07-28', () => {
  let client: ClientV2
  const logs: unknown[] = []
  const asked: unknown[] = []

  beforeAll(async () => {
    client = new ClientV2(
      { name: 'client-2x', version: '1.0.0' },
      { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params)
      return { action: 'decline' }
    })
    client.setRequestHandler('sampling/createMessage', async () => SUMMARY)
    client.setNotificationHandler('notifications/message', (notification) => void logs.push(notification.params))
    await client.connect(new TransportV2(new URL('/simple', worker.url)))
  })
  afterAll(() => client?.close())

  it('multi-greet’s logs go on the call’s stream when the call asks for them, and not otherwise', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    await client.callTool({ name: 'multi-greet', arguments: { name: 'Bo' } })
    expect(logs).toEqual([])
    const result = await client.callTool({ name: 'multi-greet', arguments: { name: 'Bo' }, _meta: { [LOG_LEVEL]: 'info' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Good morning, Bo!' }])
    expect(logs).toEqual([
      { level: 'info', data: 'Sending first greeting to Bo' },
      { level: 'info', data: 'Sending second greeting to Bo' },
    ])
  })

  it('collect-user-info’s question becomes an input_required round; a decline answers as the example says', async () => {
    const result = await client.callTool({ name: 'collect-user-info', arguments: { infoType: 'feedback' } })
    expect(result.content).toEqual([
      { type: 'text', text: 'No information was collected. User declined feedback information request.' },
    ])
    expect(asked).toMatchObject([{ mode: 'form', message: 'Please provide your feedback' }])
  })

  it('summarize samples through an input round; get_weather’s structured content', async () => {
    const summary = await client.callTool({ name: 'summarize', arguments: { text: 'Another long text.' } })
    expect(summary.content).toEqual([{ type: 'text', text: 'Short.' }])
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Lima', country: 'PE' } })
    expect(weather.structuredContent).toMatchObject({ conditions: expect.any(String), wind: { direction: expect.any(String) } })
  })
})

/**
 * ext-apps' basic example (examples/apps.ts), its helpers imported from mcp-edge/sdk: a host
 * finds each tool's view under both keys, the view as `text/html;profile=mcp-app` with its
 * `_meta.ui`, and the tool's structured content, in both eras.
 */
describe('ext-apps’ basic example server on mcp-edge/sdk (registerAppTool, registerAppResource)', () => {
  const plain = 'ui://get-time/plain.html'

  /** `check` with the SDK 1.x client at its defaults (2025 era), then the 2.x client pinned to 2026-07-28; both closed whatever it throws. */
  async function withClients(check: (client: Client | ClientV2) => Promise<void>) {
    const v1 = new Client({ name: 'host-1x', version: '1.0.0' })
    const v2 = new ClientV2({ name: 'host-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    try {
      await v1.connect(new StreamableHTTPClientTransport(new URL('/apps', worker.url)))
      await check(v1)
      await v2.connect(new TransportV2(new URL('/apps', worker.url)))
      await check(v2)
    } finally {
      await Promise.allSettled([v1.close(), v2.close()])
    }
  }

  it('lists each tool with its view under _meta.ui and the flat key, whichever the code gave, other keys kept', async () => {
    await withClients(async (client) => {
      const { tools } = await client.listTools()
      const meta = Object.fromEntries(tools.map((tool) => [tool.name, tool._meta]))
      expect(meta).toEqual({
        'get-time': { 'ui/resourceUri': APP_URI, ui: { resourceUri: APP_URI } },
        'shift-time': { 'ui/resourceUri': APP_URI, ui: { resourceUri: APP_URI } },
        'refresh-time': { 'ui/resourceUri': APP_URI, ui: { resourceUri: APP_URI, visibility: ['app'] } },
        'compare-time': { 'ui/resourceUri': plain, ui: { resourceUri: APP_URI }, 'openai/outputTemplate': APP_URI },
      })
      const time = await client.callTool({ name: 'get-time', arguments: {} })
      expect(time.structuredContent).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) })
      const shifted = await client.callTool({ name: 'shift-time', arguments: { hours: 1 } })
      expect(shifted.isError).toBeFalsy()
    })
  })

  it('lists and reads a view as text/html;profile=mcp-app (given, or by default) unless its metadata says otherwise', async () => {
    await withClients(async (client) => {
      const { resources } = await client.listResources()
      expect(resources).toEqual([
        { name: APP_URI, uri: APP_URI, mimeType: RESOURCE_MIME_TYPE, _meta: { ui: { prefersBorder: true } } },
        { name: 'Plain view', uri: plain, mimeType: RESOURCE_MIME_TYPE },
        { name: 'Page', uri: 'ui://get-time/page.html', mimeType: 'text/html' },
      ])
      const read = await client.readResource({ uri: APP_URI })
      expect(read.contents).toEqual([{ uri: APP_URI, mimeType: RESOURCE_MIME_TYPE, text: APP_HTML }])
    })
  })
})
