/**
 * The SDKs' error classes, on mcp-edge's one error table: `new McpError(ErrorCode.InvalidParams,
 * 'no such city')` (1.x) and `new ProtocolError(ProtocolErrorCode.InvalidParams, …)` (2.x) are
 * mcp-edge `McpError`s with the code given (1.x's message starts `MCP error -32602: `, as there). Thrown in a tool they become an `isError` result, as
 * in the SDKs; thrown in a prompt or resource handler, the JSON-RPC error they name.
 */
import { ERROR_KINDS, McpError as EdgeError } from '../protocol/errors.ts'
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
/** One of the codes, as SDK 1.x's enum names its type (`code: ErrorCode`). */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode]

/** The SDK v2 names: 1.x's, less the transport's two, plus the codes 2.x added. */
export const ProtocolErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  UrlElicitationRequired: -32042,
} as const
export type ProtocolErrorCode = (typeof ProtocolErrorCode)[keyof typeof ProtocolErrorCode]

const KINDS: Record<number, ErrorKind> = {
  [-32700]: 'parseError',
  [-32600]: 'invalidRequest',
  [-32601]: 'methodNotFound',
  [-32602]: 'invalidParams',
  // Retired by 2026-07-28, which says resource not found is -32602 and -32002 MUST NOT be emitted
  // (SDK 1.x answered an unknown resource with -32602 too).
  [-32002]: 'invalidParams',
  [-32021]: 'missingCapability',
  [-32022]: 'unsupportedVersion',
}

/** The code an error answers with: the one given if it is one, -32602 for the retired -32002. */
function codeOf(code: number): number {
  if (code === ProtocolErrorCode.ResourceNotFound) return ErrorCode.InvalidParams
  return Number.isInteger(code) ? code : ErrorCode.InternalError
}

/**
 * SDK 2.x's error with a JSON-RPC code: its message is the one given.
 *
 * @example
 * throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown city: ${city}`)
 */
export class ProtocolError extends EdgeError {
  override readonly code: number
  override readonly status: number

  constructor(code: number, message: string, data?: unknown) {
    const kind = KINDS[code] ?? 'internalError'
    super(kind, message, data)
    this.name = 'ProtocolError'
    // Any integer is a JSON-RPC code; anything else (an enum member the SDK has and this table
    // lacks, read as undefined) would leave the response without one.
    this.code = codeOf(code)
    // Thrown by a handler, an error rides a 200 as every method's own error does
    // (protocol/errors.ts), whatever its code: -32600 or -32601 from a prompt is not a request the
    // endpoint refused. The two request gates a handler may name keep their 400.
    this.status = kind === 'missingCapability' || kind === 'unsupportedVersion' ? ERROR_KINDS[kind].status : 200
  }
}

/**
 * SDK 1.x's name, whose message starts `MCP error <code>: ` as the SDK's does: a tool's `isError`
 * text, a prompt's JSON-RPC error message and `error.message` read as they did on the SDK.
 *
 * @example
 * throw new McpError(ErrorCode.InvalidParams, `Unknown city: ${city}`)
 */
export class McpError extends ProtocolError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, `MCP error ${code}: ${message}`, data)
    this.name = 'McpError'
  }
}

/**
 * SDK 2.x: no resource has this URI. -32602 with `data.uri`, as 2026-07-28 answers an unknown
 * resource (its retired -32002 is not emitted).
 *
 * @example
 * throw new ResourceNotFoundError(uri)
 */
export class ResourceNotFoundError extends ProtocolError {
  constructor(uri: string, message?: string) {
    super(ProtocolErrorCode.ResourceNotFound, message ?? `Resource ${uri} not found`, { uri })
  }

  get uri(): string {
    return (this.data as { uri: string }).uri
  }
}

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

/** One URL the user must open, as `UrlElicitationRequiredError` carries it (SDK `ElicitRequestURLParams`). */
export interface UrlElicitation {
  mode: 'url'
  message: string
  url: string
  elicitationId: string
  _meta?: Record<string, unknown>
}

/**
 * SDK 1.x and 2.x: a tool cannot go on until the user opens a URL. A 2025-era client gets the
 * JSON-RPC error -32042 with `data.elicitations`, as the SDKs send it; 2026-07-28 retired that
 * code, so there it is -32603 naming `inputRequired.elicitUrl` (as the SDK 2.x says it). An
 * `McpError`, as in SDK 1.x (code that rethrows what is an `McpError` passes it on).
 *
 * @example
 * throw new UrlElicitationRequiredError([{ mode: 'url', message: 'Sign in', url, elicitationId: crypto.randomUUID() }])
 */
export class UrlElicitationRequiredError extends McpError {
  constructor(elicitations: UrlElicitation[], message = `URL elicitation${elicitations.length > 1 ? 's' : ''} required`) {
    super(ErrorCode.UrlElicitationRequired, message, { elicitations })
  }

  get elicitations(): UrlElicitation[] {
    return (this.data as { elicitations?: UrlElicitation[] } | undefined)?.elicitations ?? []
  }
}

/**
 * agents' error for a query of `this.sql` that failed (an `McpAgent`'s): `SQL query failed: ` and
 * SQLite's message, with the query (placeholders as `?`) and SQLite's error as its `cause`.
 *
 * @example
 * try { this.sql`INSERT INTO notes (id) VALUES (${id})` } catch (error) { if (error instanceof SqlError) log(error.query) }
 */
export class SqlError extends Error {
  /** The query that failed, its values as `?`. */
  readonly query: string

  constructor(query: string, cause: unknown) {
    super(`SQL query failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'SqlError'
    this.query = query
  }
}
