/**
 * Building one 2026-07-28 request over Streamable HTTP, as a client must send it: the JSON-RPC body
 * with the required `_meta` (protocol version, client capabilities, client info), and the headers
 * that mirror it (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` for a tool's
 * `x-mcp-header` arguments, base64-spelled when a value is not plain ASCII). Runtime-neutral: Fetch
 * API types only. It sends nothing (see `McpClient` for that).
 */
import { META, PROTOCOL_VERSION } from '../protocol/constants.ts'
import { argumentAt, encodeHeaderValue, findHeaderParams, NAME_FIELD } from '../protocol/header-values.ts'

export type JsonObject = Record<string, unknown>

export interface Implementation {
  name: string
  version: string
}

export interface RequestOptions {
  id: string | number
  /** This request's `clientCapabilities` (`{}` declares none). */
  capabilities?: JsonObject
  clientInfo?: Implementation
  /** More `_meta` keys: `progressToken`, `partialResultToken`, `dev.mcp-edge/partialLog`… */
  meta?: JsonObject
  /** A tool's `inputSchema`, for the `Mcp-Param-*` headers of a `tools/call`. */
  inputSchema?: JsonObject
  /** `Authorization: Bearer <token>` when set. */
  token?: string
  signal?: AbortSignal
}

/** The `Mcp-Param-*` headers a `tools/call` with these arguments needs (SEP-2243). */
export function paramHeaders(toolName: string, inputSchema: JsonObject, args: unknown): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const param of findHeaderParams(toolName, inputSchema)) {
    const value = argumentAt(args, param.path)
    if (value === undefined || value === null) continue
    headers[`mcp-param-${param.name}`] = encodeHeaderValue(String(value))
  }
  return headers
}

/**
 * A `Request` for `method` at `url`, with `params._meta` and every header the transport requires.
 *
 * @example
 * const request = createMcpRequest('http://127.0.0.1:8787/mcp', 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, { id: 1 })
 * const response = await fetch(request)
 */
export function createMcpRequest(url: string | URL, method: string, params: JsonObject, options: RequestOptions): Request {
  const meta: JsonObject = {
    [META.protocolVersion]: PROTOCOL_VERSION,
    [META.clientCapabilities]: options.capabilities ?? {},
    ...(options.clientInfo ? { [META.clientInfo]: options.clientInfo } : {}),
    ...options.meta,
  }
  const headers = new Headers({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
  })
  const field = NAME_FIELD[method]
  const name = field === undefined ? undefined : params[field]
  if (typeof name === 'string') headers.set('mcp-name', encodeHeaderValue(name))
  if (options.inputSchema && typeof params.name === 'string') {
    for (const [header, value] of Object.entries(paramHeaders(params.name, options.inputSchema, params.arguments))) {
      headers.set(header, value)
    }
  }
  if (options.token) headers.set('authorization', `Bearer ${options.token}`)
  const body = { jsonrpc: '2.0', id: options.id, method, params: { ...params, _meta: meta } }
  return new Request(url, { method: 'POST', headers, body: JSON.stringify(body), signal: options.signal })
}
