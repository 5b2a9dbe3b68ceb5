/**
 * Small helpers shared by the unit tests: catching the `McpError` a call must throw, so a test can
 * assert its kind, code, HTTP status and message exactly; taking what an outbox holds; what every
 * public discovery document (Server Card, AI Catalog) answers besides itself; a tool called as a
 * 2025-era client that answers its question.
 */
import type { Hono } from 'hono'
import { expect } from 'vitest'
import { McpError } from '../../packages/mcp-edge/src/protocol/errors.ts'
import { memoryInputRelay, parseOutgoingId } from '../../packages/mcp-edge/src/server/input/input-relay.ts'
import type { ClientAnswer } from '../../packages/mcp-edge/src/server/input/input-relay.ts'
import { createLegacyAsk } from '../../packages/mcp-edge/src/server/legacy/ask.ts'
import { Outbox } from '../../packages/mcp-edge/src/server/outbox.ts'
import type { StreamMessage } from '../../packages/mcp-edge/src/server/outbox.ts'
import type { McpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { Principal } from '../../packages/mcp-edge/src/server/types.ts'

/** One request through `server.handle` as `principal`, with no client capabilities, at `version`. */
export async function sendAs<Result>(
  server: McpServer,
  method: string,
  params: Record<string, unknown>,
  principal?: Principal,
  version = '2026-07-28',
) {
  const options = { env: {}, principal, cancel: { signal: new AbortController().signal } }
  const answer = await server.handle(
    { jsonrpc: '2.0', id: 1, method, params },
    { protocolVersion: version, clientCapabilities: {}, raw: {} },
    options,
  )
  return answer.message as { result?: Result; error?: { code: number; message: string; data?: unknown } }
}

/** Everything `outbox` holds now, taken as a transport does (the JSON text made at the push), without waiting, parsed. */
export function drain(outbox: Outbox): StreamMessage[] {
  const out: StreamMessage[] = []
  for (let item = outbox.pollText(); item !== undefined; item = outbox.pollText()) {
    out.push(JSON.parse(item.json) as StreamMessage)
  }
  return out
}

/** The McpError `fn` throws; fails the test when it throws nothing or something else. */
export function caught(fn: () => unknown): McpError {
  let thrown: unknown
  try {
    fn()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(McpError)
  return thrown as McpError
}

/** The McpError `promise` rejects with; fails the test when it resolves or rejects with something else. */
export async function rejected(promise: Promise<unknown>): Promise<McpError> {
  let thrown: unknown
  try {
    await promise
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(McpError)
  return thrown as McpError
}

/** The plain Error `fn` throws (a configuration error, not a protocol one). */
export function configError(fn: () => unknown): Error {
  let thrown: unknown
  try {
    fn()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(Error)
  expect(thrown).not.toBeInstanceOf(McpError)
  return thrown as Error
}

/**
 * What `app` answers at the discovery document `url` besides the document: the Server Card draft's
 * CORS and caching headers, an ETag and 304 for it, HEAD without a body, the CORS preflight, and
 * 405 naming the methods it takes.
 */
export async function expectDiscoveryHeaders(app: Pick<Hono, 'request'>, url: string): Promise<void> {
  const first = await app.request(url)
  expect(Object.fromEntries(first.headers)).toMatchObject({
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET',
    'access-control-allow-headers': 'Content-Type, If-None-Match',
    'access-control-expose-headers': 'ETag',
    'cache-control': 'public, max-age=3600',
  })
  const etag = first.headers.get('etag') as string
  expect(etag).toMatch(/^"[0-9a-f]+"$/)
  const again = await app.request(url, { headers: { 'if-none-match': etag } })
  expect(again.status).toBe(304)
  expect(again.headers.get('etag')).toBe(etag)
  expect(await again.text()).toBe('')
  const head = await app.request(url, { method: 'HEAD' })
  expect(head.status).toBe(200)
  expect(head.headers.get('etag')).toBe(etag)
  expect(await head.text()).toBe('')
  const preflight = await app.request(url, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example' } })
  expect(preflight.status).toBe(204)
  expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
  const posted = await app.request(url, { method: 'POST', body: '{}' })
  expect(posted.status).toBe(405)
  expect(posted.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
}

/**
 * zod's JSON Schema as mcp-edge gives it: a tuple without a rest says zod's `items: false` as
 * `maxItems` at most its prefix's length (json-schema-types.ts `tuple`: a draft-07 validator, as
 * SDK 1.x's client runs, read `items: false` as every item refused). The one place mcp-edge
 * differs on purpose.
 */
export function asMcpEdgeGives<T>(json: T): T {
  if (Array.isArray(json)) return json.map(asMcpEdgeGives) as T
  if (json === null || typeof json !== 'object') return json
  // fromEntries: a `__proto__` key stays a key.
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(json).map(([key, value]) => [key, asMcpEdgeGives(value)]),
  )
  const prefix = out.prefixItems
  if (out.items === false && Array.isArray(prefix)) {
    delete out.items
    out.maxItems = Math.min((out.maxItems as number | undefined) ?? prefix.length, prefix.length)
  }
  return out as T
}

/**
 * Call `tool` as a 2025-11-25 client over the real legacy ask, its input relay and outbox,
 * answering the one question the tool asks with `answer` (a result or a JSON-RPC error).
 */
export async function callAnsweringAs2025(server: McpServer, tool: string, answer: ClientAnswer): Promise<unknown> {
  const relay = memoryInputRelay()
  const outbox = new Outbox()
  const cancel = { signal: new AbortController().signal }
  const askClient = createLegacyAsk({ relay, outbox, version: '2025-11-25', principal: null, timeoutMs: 5_000, cancel })
  const answered = server.handle(
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } },
    { protocolVersion: '2025-11-25', clientCapabilities: { elicitation: { form: {} } }, raw: {} },
    { env: {}, cancel, outbox, askClient },
  )
  for (;;) {
    const [question] = drain(outbox)
    if (question) {
      const id = parseOutgoingId((question as { id?: unknown }).id)
      if (!id) throw new Error('no question asked')
      await relay.answer(id.exchangeId, id.index, null, answer)
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  return (await answered).message
}
