/**
 * Reading the per-request `_meta` that replaces the handshake (basic/index.mdx "_meta"): the
 * protocol version and client capabilities are required on every request; a request without
 * them is malformed (-32602, HTTP 400). Optional keys are read leniently and checked where used.
 */
import { LOG_LEVELS, META } from './constants.ts'
import type { LogLevel } from './constants.ts'
import { McpError } from './errors.ts'
import { isObject } from './jsonrpc.ts'
import type { ClientCapabilities, Implementation, RequestMeta } from './types.ts'

/**
 * Read and check the required `_meta` fields of a request's params.
 *
 * @example
 * const meta = readRequestMeta(request.params) // throws McpError('invalidMeta') when incomplete
 */
export function readRequestMeta(params: unknown): RequestMeta {
  if (!isObject(params)) throw new McpError('invalidMeta', 'Invalid params: params with _meta is required')
  const raw = params._meta
  if (!isObject(raw)) throw new McpError('invalidMeta', 'Invalid params: _meta is required')
  const protocolVersion = raw[META.protocolVersion]
  if (typeof protocolVersion !== 'string' || protocolVersion === '') {
    throw new McpError('invalidMeta', `Invalid params: _meta["${META.protocolVersion}"] is required`)
  }
  const clientCapabilities = raw[META.clientCapabilities]
  if (!isObject(clientCapabilities)) {
    throw new McpError('invalidMeta', `Invalid params: _meta["${META.clientCapabilities}"] must be an object`)
  }
  const meta: RequestMeta = { protocolVersion, clientCapabilities: clientCapabilities as ClientCapabilities, raw }
  const clientInfo = raw[META.clientInfo]
  if (isObject(clientInfo)) meta.clientInfo = clientInfo as unknown as Implementation
  const progressToken = raw[META.progressToken]
  if (isToken(progressToken)) meta.progressToken = progressToken
  const partialResultToken = raw[META.partialResultToken]
  if (isToken(partialResultToken)) meta.partialResultToken = partialResultToken
  return meta
}

/**
 * The per-request log level (deprecated but functional). An invalid level SHOULD get -32602
 * (server/utilities/logging).
 */
export function readLogLevel(meta: RequestMeta): LogLevel | undefined {
  const level = meta.raw[META.logLevel]
  if (level === undefined) return undefined
  if (typeof level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new McpError('invalidParams', `Invalid params: unknown log level ${JSON.stringify(level)}`)
  }
  return level as LogLevel
}

/** A progress or partial-result token: a string or a finite number. */
export function isToken(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
}
