/**
 * Streamable HTTP header validation (streamable-http "Server Validation", SEP-2243): the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers must be present and equal what the
 * body says, and every `Mcp-Param-*` header derived from a tool's `x-mcp-header` annotations must
 * mirror its argument. Values may arrive as `=?base64?…?=`, which is decoded strictly first. Any
 * failure is -32020 (HTTP 400). Header names are case-insensitive (the Headers API lowercases
 * them); values are compared case-sensitively after trimming surrounding whitespace.
 */
import { decodeBase64 } from '../protocol/base64.ts'
import { HEADER } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import { argumentAt, HEADER_SENTINEL, NAME_FIELD, PLAIN_HEADER_VALUE } from '../protocol/header-values.ts'
import type { HeaderParam } from '../protocol/header-values.ts'
import type { JsonRpcRequest } from '../protocol/jsonrpc.ts'
import type { RequestMeta } from '../protocol/types.ts'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

function mismatch(message: string): McpError {
  return new McpError('headerMismatch', `Header mismatch: ${message}`)
}

/**
 * Decode a header value: a `=?base64?…?=` sentinel becomes its UTF-8 text; anything else must be
 * plain visible ASCII. `undefined` when the value is invalid.
 *
 * @example
 * decodeHeaderValue('=?base64?SGVsbG8=?=') // 'Hello'
 */
export function decodeHeaderValue(raw: string): string | undefined {
  const value = raw.trim()
  const sentinel = HEADER_SENTINEL.exec(value)
  if (!sentinel) return value === '' || PLAIN_HEADER_VALUE.test(value) ? value : undefined
  const bytes = decodeBase64(sentinel[1] ?? '')
  if (!bytes) return undefined
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

/** Require header `name` to carry `expected`. The common case, an exact plain match, is checked first. */
function requireHeader(headers: Headers, name: string, label: string, expected: string): void {
  const raw = headers.get(name)
  if (raw === expected && PLAIN_HEADER_VALUE.test(raw)) return
  if (raw === null) throw mismatch(`missing ${label} header`)
  const value = decodeHeaderValue(raw)
  if (value === undefined) throw mismatch(`${label} header value is not valid`)
  if (value !== expected) throw mismatch(`${label} header value '${value}' does not match body value '${expected}'`)
}

/** Check the standard headers against the body. */
export function validateStandardHeaders(headers: Headers, request: JsonRpcRequest, meta: RequestMeta): void {
  requireHeader(headers, HEADER.protocolVersion, 'MCP-Protocol-Version', meta.protocolVersion)
  requireHeader(headers, HEADER.method, 'Mcp-Method', request.method)
  const field = NAME_FIELD[request.method]
  if (field === undefined) return
  const bodyValue = (request.params as Record<string, unknown>)[field]
  // A body without the field is invalid params; the method reports that with -32602.
  if (typeof bodyValue !== 'string') return
  requireHeader(headers, HEADER.name, 'Mcp-Name', bodyValue)
}

function sameValue(header: string, value: unknown, type: HeaderParam['type']): boolean {
  if (type === 'string') return header === value
  // JSON: a boolean reads true or false; a string or an object in the body is no boolean.
  if (type === 'boolean') return header === JSON.stringify(value)
  // Integers compare numerically (SEP-2243), written in decimal.
  return /^-?\d+$/.test(header) && typeof value === 'number' && Number(header) === value
}

/** Check `Mcp-Param-*` headers of a `tools/call` against its arguments. */
export function validateParamHeaders(headers: Headers, params: readonly HeaderParam[], args: unknown): void {
  for (const param of params) {
    const label = `Mcp-Param-${param.name}`
    const raw = headers.get(`${HEADER.paramPrefix}${param.name}`)
    const value = argumentAt(args, param.path)
    if (value === undefined || value === null) {
      if (raw !== null) throw mismatch(`${label} header sent for an absent argument`)
      continue
    }
    if (raw === null) throw mismatch(`missing ${label} header for argument ${param.path.join('.')}`)
    const decoded = decodeHeaderValue(raw)
    if (decoded === undefined) throw mismatch(`${label} header value is not valid`)
    if (!sameValue(decoded, value, param.type)) {
      // JSON shows what the body held, strings quoted (an object such as {"toString":1} is no template value).
      throw mismatch(`${label} header value '${decoded}' does not match body value ${JSON.stringify(value)}`)
    }
  }
}
