/**
 * Interop: the official MCP client (@modelcontextprotocol/client, pinned to 2026-07-28) against
 * the template Worker under `wrangler dev`, over real HTTP. It discovers, lists and calls tools,
 * reads a resource, gets a prompt, answers a multi-round-trip confirmation through its own
 * elicitation handler, and receives the template's streamed story as a complete final result.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { DEMO_TOOLS } from '../support/mcp.ts'

describe('official MCP client against the template Worker', () => {
  let client: Client
  const elicitations: unknown[] = []

  beforeAll(async () => {
    client = new Client(
      { name: 'interop-test', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    client.setRequestHandler('elicitation/create', async (request) => {
      elicitations.push(request.params)
      return { action: 'accept', content: { confirm: true, reason: 'cleanup' } }
    })
    await client.connect(new StreamableHTTPClientTransport(new URL(inject('templateUrl'))))
  })

  afterAll(async () => {
    await client?.close()
  })

  it('negotiates the stateless revision and reads the server identity from discover', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect(client.getServerVersion()).toMatchObject({ name: 'mcp-edge-template', version: '0.1.0', title: 'mcp-edge demo' })
    expect(client.getServerVersion()?.icons?.[0]?.src).toMatch(/^data:image\/svg\+xml;base64,/)
    const discovered = await client.discover()
    expect(discovered.capabilities).toMatchObject({ tools: { listChanged: true }, prompts: {}, resources: {} })
    // Tasks, and MCP Apps since write_story has a view.
    expect(discovered.capabilities.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/ui': {} })
  })

  it('lists the tools with their JSON Schemas', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(DEMO_TOOLS)
    const add = tools.find((tool) => tool.name === 'add')
    expect(add?.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    })
    // streamingHint (SEP-2998, a draft) is not in the client's ToolAnnotations schema, so the
    // client drops it; the raw tools/list contract test checks that the server sends it.
  })

  it('calls a tool and gets structured content validated against its output schema', async () => {
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    const weather = await client.callTool({ name: 'get_weather', arguments: { city: 'Lisbon' } })
    expect(weather.structuredContent).toMatchObject({ city: 'Lisbon', tempC: expect.any(Number) })
  })

  it('reads a resource and gets a prompt', async () => {
    const { contents } = await client.readResource({ uri: 'info://server' })
    expect(contents[0]).toMatchObject({ uri: 'info://server', mimeType: 'text/plain' })
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'MCP at the edge' } })
    expect(prompt.messages[0]?.content).toMatchObject({ type: 'text', text: 'Summarize this:\n\nMCP at the edge' })
  })

  it('answers a multi-round-trip confirmation through its elicitation handler', async () => {
    const result = await client.callTool({ name: 'delete_record', arguments: { id: 'r-17' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Record r-17 deleted (cleanup).' }])
    expect(elicitations).toHaveLength(1)
    expect(elicitations[0]).toMatchObject({ mode: 'form', message: 'Delete record r-17? This cannot be undone.' })
  })

  it('gets the complete story from a streaming tool without declaring partial results', async () => {
    const result = await client.callTool({ name: 'write_story', arguments: { topic: 'a lighthouse', sentences: 3 } })
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'Sentence 1 of a story about a lighthouse. Sentence 2 of a story about a lighthouse. Sentence 3 of a story about a lighthouse. ',
      },
    ])
  })
})
