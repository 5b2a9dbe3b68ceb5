/**
 * The SDKs' error classes, on mcp-edge's one error table: `new McpError(ErrorCode.InvalidParams,
 * 'no such city')` (1.x) and `new ProtocolError(ProtocolErrorCode.InvalidParams, …)` (2.x) are
 * mcp-edge `McpError`s with the code given. Thrown in a tool they become an `isError` result, as
 * in the SDKs; thrown in a prompt or resource handler, the JSON-RPC error they name.
 */
import { McpError as EdgeError } from '../protocol/errors.ts'
import type { ErrorKind } from '../protocol/errors.ts'

/** JSON-RPC error codes by the SDKs' names. */
export const ErrorCode = {
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UrlElicitationRequired: -32042,
} as const

/** The SDK v2 name of the same codes. */
export const ProtocolErrorCode = ErrorCode

const KINDS: Record<number, ErrorKind> = {
  [-32700]: 'parseError',
  [-32600]: 'invalidRequest',
  [-32601]: 'methodNotFound',
  [-32602]: 'invalidParams',
}

/**
 * @example
 * throw new McpError(ErrorCode.InvalidParams, `Unknown city: ${city}`)
 */
export class McpError extends EdgeError {
  override readonly code: number

  constructor(code: number, message: string, data?: unknown) {
    super(KINDS[code] ?? 'internalError', message, data)
    this.code = code
  }
}

/** The SDK v2 name of the same class. */
export const ProtocolError = McpError

/**
 * SDK 2.x: the client did not declare a capability the handler needs: -32021 with
 * `data.requiredCapabilities` (a protocol error, not a tool result).
 *
 * @example
 * if (!clientCapabilities.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } })
 */
export class MissingRequiredClientCapabilityError extends EdgeError {
  constructor(data: { requiredCapabilities: Record<string, unknown> }, message?: string) {
    super('missingCapability', message ?? 'Missing required client capability', data)
  }

  get requiredCapabilities(): Record<string, unknown> {
    return (this.data as { requiredCapabilities: Record<string, unknown> }).requiredCapabilities
  }
}
