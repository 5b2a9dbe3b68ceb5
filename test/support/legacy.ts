/**
 * A hand-written 2025-era client for tests: `initialize` without `_meta`, then requests carrying
 * the negotiated `MCP-Protocol-Version` and the minted `Mcp-Session-Id`, over any fetch (real
 * HTTP or `SELF.fetch` inside workerd). Raw on purpose: the contract checks exact codes, statuses
 * and shapes that a client library would hide.
 */
import { type Fetcher, readResponse, type RpcResult, sseData } from './mcp.ts'

export interface LegacyClient {
  version: string
  sessionId: string | null
  /** `Authorization: Bearer <principal>` on every request (the fixture's principals). */
  principal?: string
}

export const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: '127.0.0.1',
}

let nextId = 1

export function legacyHeaders(client: Partial<LegacyClient>, extra: Record<string, string | null> = {}): Headers {
  const headers = new Headers(LEGACY_HEADERS)
  if (client.version) headers.set('mcp-protocol-version', client.version)
  if (client.sessionId) headers.set('mcp-session-id', client.sessionId)
  if (client.principal) headers.set('authorization', `Bearer ${client.principal}`)
  for (const [name, value] of Object.entries(extra)) {
    if (value === null) headers.delete(name)
    else headers.set(name, value)
  }
  return headers
}

export function legacyRequest(
  url: string,
  client: Partial<LegacyClient>,
  message: Record<string, unknown> | unknown[],
  extra: Record<string, string | null> = {},
  signal?: AbortSignal,
): Request {
  return new Request(url, { method: 'POST', headers: legacyHeaders(client, extra), body: JSON.stringify(message), signal })
}

/** A 2025 client's `initialize` request (no session yet). */
export function initializeRequest(
  url: string,
  options: { version?: string; capabilities?: Record<string, unknown>; principal?: string } = {},
): Request {
  return legacyRequest(url, options.principal ? { principal: options.principal } : {}, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: {
      protocolVersion: options.version ?? '2025-11-25',
      capabilities: options.capabilities ?? {},
      clientInfo: { name: 'mcp-edge-legacy-tests', version: '1.0.0' },
    },
  })
}

/** `initialize` then `notifications/initialized`, as a 2025 client does. */
export async function legacyConnect(
  fetcher: Fetcher,
  url: string,
  options: { version?: string; capabilities?: Record<string, unknown>; principal?: string } = {},
): Promise<LegacyClient & { initialize: RpcResult }> {
  const initialize = await readResponse(await fetcher(initializeRequest(url, options)))
  const version = initialize.message.result?.protocolVersion as string
  const client: LegacyClient = { version, sessionId: initialize.headers.get('mcp-session-id') }
  if (options.principal) client.principal = options.principal
  const initialized = await fetcher(legacyRequest(url, client, { jsonrpc: '2.0', method: 'notifications/initialized' }))
  if (initialized.status !== 202) throw new Error(`notifications/initialized got ${initialized.status}`)
  return { ...client, initialize }
}

/** One request on the legacy lane, read whole. */
export async function legacyRpc(
  fetcher: Fetcher,
  url: string,
  client: Partial<LegacyClient>,
  method: string,
  params?: Record<string, unknown>,
  extra: Record<string, string | null> = {},
): Promise<RpcResult> {
  const message =
    params === undefined ? { jsonrpc: '2.0', id: nextId++, method } : { jsonrpc: '2.0', id: nextId++, method, params }
  return readResponse(await fetcher(legacyRequest(url, client, message, extra)))
}

/** POST a JSON-RPC response (an answer to a server-to-client request). */
export function answer(
  fetcher: Fetcher,
  url: string,
  client: Partial<LegacyClient>,
  id: unknown,
  result: unknown,
): Promise<Response> {
  return fetcher(legacyRequest(url, client, { jsonrpc: '2.0', id, result }))
}

/** A call whose SSE stream is read message by message (server-to-client requests arrive on it). */
export async function legacyStream(
  fetcher: Fetcher,
  url: string,
  client: Partial<LegacyClient>,
  method: string,
  params: Record<string, unknown>,
  id: string | number = nextId++,
) {
  const controller = new AbortController()
  const response = await fetcher(legacyRequest(url, client, { jsonrpc: '2.0', id, method, params }, {}, controller.signal))
  if (!response.body) throw new Error(`no body (HTTP ${response.status})`)
  const events = sseData(response.body)
  return {
    id,
    response,
    async next(): Promise<{ id?: unknown; method?: string; params?: any; result?: any; error?: any }> {
      const { done, value } = await events.next()
      if (done) throw new Error('stream ended')
      return JSON.parse(value)
    },
    async close(): Promise<void> {
      controller.abort()
      await events.return(undefined).catch(() => {})
    },
  }
}

/**
 * A 2025 session's GET stream: its raw text so far (`raw()`, for the `retry` and priming lines),
 * and its messages one by one (`next()`, skipping events without data, as clients do).
 */
export async function legacyGet(
  fetcher: Fetcher,
  url: string,
  client: Partial<LegacyClient>,
  extra: Record<string, string> = {},
) {
  const controller = new AbortController()
  const headers = legacyHeaders(client, { accept: 'text/event-stream', 'content-type': null, ...extra })
  const response = await fetcher(new Request(url, { method: 'GET', headers, signal: controller.signal }))
  const reader = response.body?.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let read = 0
  const more = async () => {
    const chunk = await reader?.read()
    if (!chunk || chunk.done) return false
    text += decoder.decode(chunk.value, { stream: true })
    return true
  }
  return {
    response,
    /** Read until the stream holds `pattern`; its whole text so far. */
    async raw(pattern: RegExp = /\n\n/): Promise<string> {
      while (!pattern.test(text)) if (!(await more())) break
      return text
    },
    /** The next event with data, parsed. */
    async next(): Promise<{ method?: string; params?: any }> {
      for (;;) {
        const end = text.indexOf('\n\n', read)
        if (end < 0) {
          if (!(await more())) throw new Error('stream ended')
          continue
        }
        const block = text.slice(read, end)
        read = end + 2
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n')
        if (data !== '') return JSON.parse(data)
      }
    },
    /** The messages (events with data) it has received so far, unread or not. */
    messages(): unknown[] {
      return text
        .split('\n\n')
        .map((block) =>
          block
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n'),
        )
        .filter((data) => data !== '')
        .map((data) => JSON.parse(data))
    },
    /** Whether the stream ended (the server closed it) within `ms`. */
    async endsWithin(ms: number): Promise<boolean> {
      const timer = new Promise<'open'>((done) => setTimeout(() => done('open'), ms))
      for (;;) {
        const next = await Promise.race([more(), timer])
        if (next === 'open') return false
        if (next === false) return true
      }
    },
    close(): void {
      controller.abort()
      reader?.cancel().catch(() => {})
    },
  }
}
