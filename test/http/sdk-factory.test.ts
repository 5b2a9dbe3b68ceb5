/**
 * Fixture (d), an SDK 2.x server factory through agents' stateless `createMcpHandler`, its imports
 * changed to `mcp-edge/sdk` and nothing else (test/fixture-sdk/v2-factory), under `wrangler dev`.
 * `deploy` returns `inputRequired(...)` for a confirmation and reads it with `acceptedContent` when
 * called again: the 2.x client pinned to 2026-07-28 answers through input_required rounds, the SDK
 * 1.x client and mcp-remote (2025 era) through elicitation requests on the call's stream.
 */
import type { Client as ClientV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answeringClientV2 } from '../support/sdk-clients.ts'
import { startMcpRemote } from '../support/client-processes.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/v2-factory/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

/** What the person answers, in order; every question asked is kept. */
function person(...answers: boolean[]) {
  const asked: { message?: string; requestedSchema?: unknown }[] = []
  const answer = (params: { message?: string; requestedSchema?: unknown }) => {
    asked.push(params)
    return { action: 'accept' as const, content: { confirm: answers.shift() ?? false } }
  }
  return { asked, answer }
}

describe('SDK 2.x factory via createMcpHandler: the 2.x client pinned to 2026-07-28', () => {
  let client: ClientV2
  const you = person(true, false)

  beforeAll(async () => {
    client = await answeringClientV2(new URL(worker.url), (params) => you.answer(params as never))
  })
  afterAll(() => client?.close())

  it('lists the tools with the JSON Schemas of their zod objects', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['hello', 'deploy', 'shout'])
    expect(tools[1]).toMatchObject({
      inputSchema: {
        type: 'object',
        properties: { env: { type: 'string', enum: ['staging', 'production'] } },
        required: ['env'],
      },
      annotations: { destructiveHint: true },
    })
    expect((await client.callTool({ name: 'hello', arguments: {} })).content).toEqual([{ type: 'text', text: 'Hello, World!' }])
  })

  // Registered through generic wrappers, as cloudflare/mcp-server-cloudflare registers every tool
  // and prompt: the SDK's type arguments in its order, and the callbacks typed by its types.
  it('serves what generic wrappers registered: a tool with an output schema, prompts with and without arguments', async () => {
    const shout = await client.callTool({ name: 'shout', arguments: { text: 'hi' } })
    expect([shout.content, shout.structuredContent]).toEqual([[{ type: 'text', text: 'HI' }], { loud: 'HI' }])
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['ask', 'greeting'])
    expect((await client.getPrompt({ name: 'ask', arguments: { topic: 'tides' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Tell me about tides.' } },
    ])
    expect((await client.getPrompt({ name: 'greeting' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Hello!' } },
    ])
  })

  it('confirms deploy through an input_required round: acceptedContent reads the answer on re-entry', async () => {
    const result = await client.callTool({ name: 'deploy', arguments: { env: 'staging' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Deployed to staging.' }])
    expect(you.asked).toHaveLength(1)
    expect(you.asked[0]).toMatchObject({
      message: 'Deploy to staging?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    })
  })

  it('takes a refusal as the answer', async () => {
    const result = await client.callTool({ name: 'deploy', arguments: { env: 'production' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Deployment to production cancelled.' }])
    expect(you.asked).toHaveLength(2)
  })
})

describe('SDK 2.x factory via createMcpHandler: 2025-era clients', () => {
  it('the SDK 1.x client confirms deploy through its elicitation handler', async () => {
    const you = person(true)
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, async (request) => you.answer(request.params))
    const transport = new StreamableHTTPClientTransport(new URL(worker.url))
    await client.connect(transport)
    try {
      expect(transport.protocolVersion).toBe('2025-11-25')
      const result = await client.callTool({ name: 'deploy', arguments: { env: 'staging' } })
      expect(result.content).toEqual([{ type: 'text', text: 'Deployed to staging.' }])
      expect(you.asked).toMatchObject([{ message: 'Deploy to staging?' }])
    } finally {
      await client.close()
    }
  })

  it('mcp-remote forwards the confirmation to the desktop host', async () => {
    const remote = startMcpRemote(worker.url, { action: 'accept', content: { confirm: true } })
    try {
      const initialized = await remote.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: { elicitation: {} },
        clientInfo: { name: 'desktop-host', version: '1.0.0' },
      })
      expect(initialized.result).toMatchObject({ serverInfo: { name: 'sdk-v2-fixture', version: '2.0.0' } })
      remote.notify('notifications/initialized')
      const deployed = await remote.request('tools/call', { name: 'deploy', arguments: { env: 'production' } })
      expect(deployed.result.content).toEqual([{ type: 'text', text: 'Deployed to production.' }])
      expect(remote.asked).toMatchObject([{ message: 'Deploy to production?' }])
    } finally {
      remote.close()
    }
  })
})
