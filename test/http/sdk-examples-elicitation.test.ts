/**
 * The SDK 2.x examples on mcp-edge/sdk under one `wrangler dev` (test/fixture-sdk/examples).
 * The elicitation example (elicitation.ts), one factory reading its request's era, handed every
 * request by `handler.fetch(request)` as 2.x code does (no env, no execution context): the SDK 1.x
 * client (2025 era) is asked push-style on the call's stream, the 2.x client pinned to 2026-07-28
 * through input_required rounds, the chained form's first answer riding the handler's own
 * `requestState` string. The resources example (resources.ts): what its `increment` tool publishes
 * on `handler.notify.resourceUpdated`, and what another route publishes on
 * `handler.notify.resourcesChanged`, is heard through the `MCP_EVENTS` hub on the 1.x client's GET
 * stream (2025 era) and the 2.x client's `subscriptions/listen` stream (2026-07-28) at once.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitRequestSchema,
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SESSION_FACTS_TTL_MS } from '../../packages/mcp-edge/src/server/legacy/session-ledger.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const ADA = { username: 'ada', email: 'ada@example.com', plan: 'pro' }
const OSLO = { destination: 'Oslo' }
const DATES = { departure: '2026-12-24', nights: 3 }

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/examples/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

/** A person answering each form by its message; every question asked is kept. */
function person(answers: Record<string, { action: 'accept' | 'decline' | 'cancel'; content?: object }>) {
  const asked: { mode?: string; message: string; requestedSchema?: unknown; url?: string }[] = []
  const answer = (params: (typeof asked)[number]) => {
    asked.push(params)
    return answers[params.message] ?? { action: 'cancel' as const }
  }
  return { asked, answer }
}

const text = (result: object) => ((result as { content?: { text: string }[] }).content ?? [])[0]?.text

describe('the SDK 2.x elicitation example on mcp-edge/sdk: the SDK 1.x client (2025 era, defaults)', () => {
  let client: Client
  const you = person({
    'Please provide your registration information:': { action: 'accept', content: ADA },
    'Where to?': { action: 'accept', content: OSLO },
    'When?': { action: 'accept', content: DATES },
  })

  beforeAll(async () => {
    client = new Client({ name: 'sdk-1x', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } })
    client.setRequestHandler(ElicitRequestSchema, async (request) => you.answer(request.params as never) as never)
    await client.connect(new StreamableHTTPClientTransport(new URL(worker.url)))
  })
  afterAll(() => client?.close())

  it('register_user asks with ctx.mcpReq.elicitInput, its enumNames passed as given', async () => {
    expect(text(await client.callTool({ name: 'register_user', arguments: {} }))).toBe(
      'registered ada <ada@example.com> (plan: pro)',
    )
    expect(you.asked[0]?.requestedSchema).toMatchObject({ properties: { plan: { enumNames: ['Free tier', 'Pro', 'Team'] } } })
  })

  it('plan_trip asks twice in one call, the second form built from the first answer', async () => {
    you.asked.length = 0
    expect(text(await client.callTool({ name: 'plan_trip', arguments: {} }))).toBe(
      'trip planned: Oslo on 2026-12-24 for 3 nights',
    )
    expect(you.asked.map((question) => question.message)).toEqual(['Where to?', 'When?'])
    expect(you.asked[1]?.requestedSchema).toMatchObject({ properties: { departure: { title: 'Departure date for Oslo' } } })
  })

  it('link_account’s createElicitationCompletionNotifier is refused with the reason, before anything is asked', async () => {
    you.asked.length = 0
    const result = await client.callTool({ name: 'link_account', arguments: { provider: 'github' } })
    expect(result.isError).toBe(true)
    expect(text(result)).toMatch(/createElicitationCompletionNotifier\(".+"\) is not supported by mcp-edge\/sdk: .*elicitUrl/)
    expect(you.asked).toEqual([])
  })

  it('confirm_payment’s UrlElicitationRequiredError is the JSON-RPC error -32042 with its elicitations', async () => {
    const failed = await client.callTool({ name: 'confirm_payment', arguments: { cartId: 'c 1' } }).catch((error) => error)
    expect(failed).toBeInstanceOf(McpError)
    expect(failed.code).toBe(-32042)
    expect(failed.data.elicitations).toMatchObject([
      { mode: 'url', message: 'Open the link to confirm payment', url: 'https://example.com/confirm-payment?cart=c%201' },
    ])
  })
})

describe('the SDK 2.x elicitation example on mcp-edge/sdk: the 2.x client pinned to 2026-07-28', () => {
  let client: ClientV2
  const you = person({
    'Please provide your registration information:': { action: 'decline' },
    'Where to?': { action: 'accept', content: OSLO },
    'When?': { action: 'accept', content: DATES },
    'Sign in to github to link your account': { action: 'accept' },
  })

  beforeAll(async () => {
    client = new ClientV2(
      { name: 'client-2x', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    client.setRequestHandler('elicitation/create', async (request) => you.answer(request.params as never) as never)
    await client.connect(new TransportV2(new URL(worker.url)))
  })
  afterAll(() => client?.close())

  it('register_user returns inputRequired; a decline answers as the example says', async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect(text(await client.callTool({ name: 'register_user', arguments: {} }))).toBe('registration decline')
  })

  it('plan_trip chains two rounds, the destination carried in its own requestState string', async () => {
    you.asked.length = 0
    expect(text(await client.callTool({ name: 'plan_trip', arguments: {} }))).toBe(
      'trip planned: Oslo on 2026-12-24 for 3 nights',
    )
    expect(you.asked.map((question) => question.message)).toEqual(['Where to?', 'When?'])
  })

  it('link_account asks for the URL through inputRequired.elicitUrl', async () => {
    you.asked.length = 0
    expect(text(await client.callTool({ name: 'link_account', arguments: { provider: 'github' } }))).toBe('linked github')
    expect(you.asked).toMatchObject([{ mode: 'url', url: 'https://example.com/oauth/github/authorize' }])
  })

  it('confirm_payment’s throw is -32603 naming inputRequired.elicitUrl: -32042 is retired in 2026-07-28', async () => {
    const failed = await client.callTool({ name: 'confirm_payment', arguments: { cartId: 'c1' } }).catch((error) => error)
    expect(failed.code).toBe(-32603)
    expect(failed.message).toMatch(/inputRequired\.elicitUrl/)
  })
})

describe('the SDK 2.x createMcpHandler on mcp-edge/sdk: another path', () => {
  it('is 404 naming the path served and the route option (the SDK’s own handler serves any path)', async () => {
    const response = await fetch(new URL('/api/mcp', worker.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    expect(response.status).toBe(404)
    expect(await response.text()).toBe(
      "404 Not Found: this MCP server is served at /mcp (createMcpHandler's route option); it was asked at /api/mcp",
    )
  })
})

/** What a client heard, and a wait for the first that matches (8 s, as the example client waits). */
function inbox<T>() {
  const heard: T[] = []
  const until = async (match: (item: T) => boolean): Promise<T> => {
    for (const started = Date.now(); Date.now() - started < 8000; await new Promise((r) => setTimeout(r, 20))) {
      const found = heard.find(match)
      if (found !== undefined) return found
    }
    throw new Error(`not heard within 8 s; heard: ${JSON.stringify(heard)}`)
  }
  return { heard, until }
}

describe('the SDK 2.x resources example on mcp-edge/sdk: handler.notify, heard by both eras', () => {
  const COUNTER = 'counter://value'
  const endpoint = () => new URL('/resources', worker.url)
  let legacy: Client
  let modern: ClientV2
  let subscription: Awaited<ReturnType<ClientV2['listen']>>
  const legacyHeard = inbox<{ method: string; uri?: string }>()
  const modernHeard = inbox<{ method: string; uri?: string }>()

  beforeAll(async () => {
    legacy = new Client({ name: 'sdk-1x', version: '1.0.0' })
    legacy.setNotificationHandler(ResourceUpdatedNotificationSchema, async ({ method, params }) => {
      legacyHeard.heard.push({ method, uri: params.uri })
    })
    legacy.setNotificationHandler(ResourceListChangedNotificationSchema, async ({ method }) => {
      legacyHeard.heard.push({ method })
    })
    await legacy.connect(new StreamableHTTPClientTransport(endpoint()))
    await legacy.subscribeResource({ uri: COUNTER })
    // The open GET stream reads the session's subscriptions through a cache of SESSION_FACTS_TTL_MS
    // (400 ms; server/legacy/session-stream.ts), and each request here builds its own server.
    const settled = new Promise((resolve) => setTimeout(resolve, SESSION_FACTS_TTL_MS + 50))

    // As the example's own client connects for 2026-07-28.
    modern = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    modern.setNotificationHandler('notifications/resources/updated', ({ method, params }) => {
      modernHeard.heard.push({ method, uri: params.uri })
    })
    modern.setNotificationHandler('notifications/resources/list_changed', ({ method }) => {
      modernHeard.heard.push({ method })
    })
    await modern.connect(new TransportV2(endpoint()))
    subscription = await modern.listen({ resourceSubscriptions: [COUNTER], resourcesListChanged: true })
    await settled
  })
  afterAll(async () => {
    await subscription?.close()
    await Promise.all([legacy?.close(), modern?.close()])
  })

  it('serves the example as written: its direct, templated and counter resources', async () => {
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [COUNTER], resourcesListChanged: true })
    const { resources } = await legacy.listResources()
    expect(resources.map((resource) => resource.uri).sort()).toEqual(['config://app', COUNTER])
    const { resourceTemplates } = await modern.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(['greeting://{name}'])
    expect((await modern.readResource({ uri: 'greeting://world' })).contents).toMatchObject([{ text: 'Hello, world!' }])
    expect((await legacy.readResource({ uri: 'config://app' })).contents).toMatchObject([{ text: '{"feature":true}' }])
  })

  it('one increment’s handler.notify.resourceUpdated reaches the 1.x GET stream and the 2.x listen stream', async () => {
    const bumped = text(await modern.callTool({ name: 'increment', arguments: {} }))
    expect(bumped).toMatch(/^\d+$/)
    const updated = { method: 'notifications/resources/updated', uri: COUNTER }
    expect(await modernHeard.until((note) => note.uri === COUNTER)).toEqual(updated)
    expect(await legacyHeard.until((note) => note.uri === COUNTER)).toEqual(updated)
    // The resource and the tool observe the same state, as the example's client checks.
    expect((await legacy.readResource({ uri: COUNTER })).contents).toMatchObject([{ text: bumped }])
  })

  it('another route’s handler.notify.resourcesChanged, outside any MCP request, reaches both', async () => {
    const response = await fetch(new URL('/resources/changed', worker.url), { method: 'POST' })
    expect(response.status).toBe(202)
    const changed = { method: 'notifications/resources/list_changed' }
    expect(await legacyHeard.until((note) => note.method === changed.method)).toEqual(changed)
    expect(await modernHeard.until((note) => note.method === changed.method)).toEqual(changed)
  })
})
