/**
 * A hand-written 2025-era client for tests: `initialize` without `_meta`, then requests carrying
 * the negotiated `MCP-Protocol-Version` and the minted `Mcp-Session-Id`, over any fetch (real
 * HTTP or `SELF.fetch` inside workerd). Raw on purpose: the contract checks exact codes, statuses
 * and shapes that a client library would hide.
 */
import { readSse } from '../../packages/mcp-edge/src/client/sse.ts'
import { type Fetcher, readResponse, type RpcResult } from './mcp.ts'

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

/** `initialize` then `notifications/initialized`, as a 2025 client does. */
export async function legacyConnect(
  fetcher: Fetcher,
  url: string,
  options: { version?: string; capabilities?: Record<string, unknown>; principal?: string } = {},
): Promise<LegacyClient & { initialize: RpcResult }> {
  const request = legacyRequest(url, options.principal ? { principal: options.principal } : {}, {
    jsonrpc: '2.0',
    id: nextId++,
    method: 'initialize',
    params: {
      protocolVersion: options.version ?? '2025-11-25',
      capabilities: options.capabilities ?? {},
      clientInfo: { name: 'mcp-edge-legacy-tests', version: '1.0.0' },
    },
  })
  const initialize = await readResponse(await fetcher(request))
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
  const events = readSse(response.body)
  return {
    id,
    response,
    async next(): Promise<{ id?: unknown; method?: string; params?: any; result?: any; error?: any }> {
      const { done, value } = await events.next()
      if (done) throw new Error('stream ended')
      return JSON.parse(value.data)
    },
    async close(): Promise<void> {
      controller.abort()
      await events.return(undefined).catch(() => {})
    },
  }
}
