/**
 * Building and sending MCP requests in tests, over any fetch (real HTTP, or `SELF.fetch` inside
 * workerd). Responses are read whole: JSON, or every SSE event up to the end of the stream.
 */
import { expect } from 'vitest'
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import { NAME_FIELD } from '../../packages/mcp-edge/src/protocol/header-values.ts'

export type Fetcher = (request: Request) => Promise<Response>

export const PROTOCOL_VERSION = '2026-07-28'

/** The demo's tools (apps/demo/src/worker.ts), in the order tools/list gives them. */
export const DEMO_TOOLS = [
  'add',
  'get_weather',
  'delete_record',
  'write_story',
  'generate_report',
  'draft_article',
  'add_note',
  'large_report',
]

export function meta(capabilities: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'mcp-edge-tests', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    ...extra,
  }
}

export interface RpcOptions {
  id?: string | number
  capabilities?: Record<string, unknown>
  /** Extra `_meta` keys (progressToken, logLevel, partialResultToken…). */
  meta?: Record<string, unknown>
  /** Header overrides; `null` removes a default header. */
  headers?: Record<string, string | null>
  signal?: AbortSignal
}

let nextId = 1

/** The standard headers for a request, Mcp-Name included when the method names a target. */
export function requestHeaders(
  method: string,
  params: Record<string, unknown>,
  overrides: Record<string, string | null> = {},
): Headers {
  const headers = new Headers({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    host: '127.0.0.1',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  })
  const field = NAME_FIELD[method]
  if (field !== undefined && typeof params[field] === 'string') headers.set('mcp-name', params[field] as string)
  for (const [name, value] of Object.entries(overrides)) {
    if (value === null) headers.delete(name)
    else headers.set(name, value)
  }
  return headers
}

export function buildRequest(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RpcOptions = {},
): Request {
  const body = {
    jsonrpc: '2.0',
    id: options.id ?? nextId++,
    method,
    params: { ...params, _meta: meta(options.capabilities, options.meta) },
  }
  return new Request(url, {
    method: 'POST',
    headers: requestHeaders(method, params, options.headers),
    body: JSON.stringify(body),
    signal: options.signal,
  })
}

export interface RpcResult {
  status: number
  headers: Headers
  /** The final JSON-RPC response (empty when the body had none). Loosely typed: tests read deep into it. */
  message: { id?: unknown; result?: any; error?: { code: number; message: string; data?: any } }
  /** Notifications received before the response (SSE only). */
  notifications: Array<{ method: string; params: any }>
  sse: boolean
}

/** The data of each SSE event that carries a message: a priming event (SEP-1699: an id, empty data) carries none, and clients skip it. */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  for await (const event of readSse(body)) if (event.data !== '') yield event.data
}

export async function readResponse(response: Response): Promise<RpcResult> {
  const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream')
  const notifications: RpcResult['notifications'] = []
  let message: RpcResult['message'] = {} as RpcResult['message']
  if (sse && response.body) {
    for await (const data of sseData(response.body)) {
      const parsed = JSON.parse(data) as Record<string, unknown>
      if (typeof parsed.method === 'string') notifications.push(parsed as RpcResult['notifications'][number])
      else message = parsed as RpcResult['message']
    }
  } else {
    const text = await response.text()
    message = (text === '' ? {} : JSON.parse(text)) as RpcResult['message']
  }
  return { status: response.status, headers: response.headers, message, notifications, sse }
}

/** Send one request and read the whole answer. */
export async function rpc(
  fetcher: Fetcher,
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: RpcOptions = {},
): Promise<RpcResult> {
  return readResponse(await fetcher(buildRequest(url, method, params, options)))
}

/** Send a raw body with the given headers (for malformed-input tests). */
export async function rawPost(fetcher: Fetcher, url: string, body: string, headers: Record<string, string>): Promise<RpcResult> {
  return readResponse(await fetcher(new Request(url, { method: 'POST', headers: { host: '127.0.0.1', ...headers }, body })))
}

/** An SSE response read one message at a time (listen streams, long calls). */
export interface MessageStream {
  response: Response
  next(): Promise<{ method?: string; params?: any; id?: unknown; result?: any; error?: any }>
  close(): Promise<void>
}

export async function openStream(fetcher: Fetcher, request: Request): Promise<MessageStream> {
  const response = await fetcher(request)
  if (!response.body) throw new Error(`no body (HTTP ${response.status})`)
  const events = sseData(response.body)
  return {
    response,
    async next() {
      const { done, value } = await events.next()
      if (done) throw new Error('stream ended')
      return JSON.parse(value)
    },
    async close() {
      await events.return(undefined)
      await response.body?.cancel().catch(() => {})
    },
  }
}

/** A listen stream of `principal` (the fixtures' "Bearer <name>") on resource `uri`, past its acknowledgement; resumed after `after` when given. */
export async function listenResource(
  fetcher: Fetcher,
  url: string,
  uri: string,
  principal: string,
  after?: string,
): Promise<MessageStream> {
  const meta = after === undefined ? undefined : { 'dev.mcp-edge/lastEventId': after }
  const request = buildRequest(
    url,
    'subscriptions/listen',
    { notifications: { resourceSubscriptions: [uri] } },
    { headers: { authorization: `Bearer ${principal}` }, meta },
  )
  const stream = await openStream(fetcher, request)
  expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
  return stream
}

/** The next notification's URI and id; `undefined` once the stream ended with its listen result. */
export async function nextUpdate(stream: MessageStream): Promise<{ uri: string; id: string } | undefined> {
  const message = await stream.next()
  if (!message.method) return undefined
  return { uri: message.params?.uri as string, id: message.params?._meta?.['dev.mcp-edge/eventId'] as string }
}

/**
 * After an update for alice only (`<uri>/alice`) and one for all (`<uri>/all`) were published:
 * each of alice's streams hears both, in order, and gives the second one id (one log, one
 * numbering); bob's hears the second only. Returns that id.
 */
export async function expectAudiences(alice: MessageStream[], bob: MessageStream, uri: string): Promise<string> {
  const ids: string[] = []
  for (const stream of alice) {
    expect((await nextUpdate(stream))?.uri).toBe(`${uri}/alice`)
    const all = await nextUpdate(stream)
    expect(all?.uri).toBe(`${uri}/all`)
    ids.push(all?.id ?? '')
  }
  expect(new Set(ids).size).toBe(1)
  expect((await nextUpdate(bob))?.uri).toBe(`${uri}/all`)
  return ids[0] ?? ''
}

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const TERMINAL = ['completed', 'failed', 'cancelled']

/** A task's status once terminal: read once after the listen stream is acknowledged, else awaited on it. */
export async function taskSettled(fetcher: Fetcher, url: string, taskId: string): Promise<Record<string, any>> {
  const stream = await openStream(
    fetcher,
    buildRequest(url, 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, { capabilities: TASKS }),
  )
  try {
    expect((await stream.next()).params?.notifications?.taskIds).toEqual([taskId])
    const now = (await rpc(fetcher, url, 'tasks/get', { taskId }, { capabilities: TASKS })).message.result
    if (TERMINAL.includes(now.status)) return now
    for (;;) {
      const message = await stream.next()
      if (message.method === 'notifications/tasks' && TERMINAL.includes(message.params.status)) return message.params
    }
  } finally {
    await stream.close()
  }
}
