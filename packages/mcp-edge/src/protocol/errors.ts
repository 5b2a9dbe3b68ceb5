/**
 * The one table of JSON-RPC errors: code, default message and HTTP status. Code anywhere in the
 * runtime throws `McpError` with a kind from this table; the HTTP layer turns it into a response.
 * Nothing else builds error JSON by hand.
 *
 * HTTP statuses: streamable-http gives 400 for the request gates (missing `_meta`, header mismatch,
 * unsupported version, missing capability) and 404 for an unknown method. An error produced by the
 * method itself (unknown tool, missing resource, bad cursor) has no specified status; it rides a
 * 200, exactly as it would when it ends an SSE stream, so a client sees the same thing either way.
 */

export const ERROR_KINDS = {
  parseError: { code: -32700, status: 400, message: 'Parse error: Invalid JSON' },
  invalidRequest: { code: -32600, status: 400, message: 'Invalid Request' },
  methodNotFound: { code: -32601, status: 404, message: 'Method not found' },
  /** A required `_meta` field (or `params` itself) is missing: basic/index.mdx, HTTP 400. */
  invalidMeta: { code: -32602, status: 400, message: 'Invalid params: missing required _meta' },
  invalidParams: { code: -32602, status: 200, message: 'Invalid params' },
  internalError: { code: -32603, status: 200, message: 'Internal error' },
  headerMismatch: { code: -32020, status: 400, message: 'Header mismatch' },
  missingCapability: { code: -32021, status: 400, message: 'Missing required client capability' },
  unsupportedVersion: { code: -32022, status: 400, message: 'Unsupported protocol version' },
  // 2025-era transport (the legacy lane). A session id that cannot be opened is 404 (2025
  // streamable-http: the client MUST then initialize again). No code of the implementation-defined
  // -32000..-32019 range is used: the spec says new implementations SHOULD NOT.
  sessionNotFound: { code: -32600, status: 404, message: 'Session not found: send initialize again' },
  inputTimeout: { code: -32603, status: 200, message: "Request timed out waiting for the client's answer" },
  /** The session ledger could not be reached: the request is not served on a session that may have ended. */
  sessionsUnavailable: {
    code: -32603,
    status: 503,
    message: 'Service unavailable: the session ledger could not be reached; retry',
  },
  /** A JSON-RPC response for a server-to-client request that is unknown, expired, answered or another's. */
  unknownAnswer: { code: -32600, status: 400, message: 'Invalid Request: no pending request has this id' },
  // HTTP-level rejections that happen before a JSON-RPC message exists. Their bodies are id-less
  // JSON-RPC errors (streamable-http: "the body MAY be a JSON-RPC error with no id").
  unauthorized: { code: -32600, status: 401, message: 'Unauthorized' },
  forbidden: { code: -32600, status: 403, message: 'Forbidden' },
  /**
   * The authorization server could not say whether the bearer token is good (introspection timed
   * out, failed or answered nonsense): refused, never served, and the client may retry.
   */
  authUnavailable: { code: -32603, status: 503, message: 'Service unavailable: the token could not be checked; retry' },
  /** Busy for a while with work that must end first (mcp-edge/sdk's McpAgent, set up for another grant): retry. */
  unavailable: { code: -32603, status: 503, message: 'Service unavailable: retry' },
  /** A valid token without the scopes an operation needs (authorization "Scope Challenge"); step-up. */
  insufficientScope: { code: -32600, status: 403, message: 'Forbidden: insufficient scope' },
  /** A per-principal or per-isolate cap, or the rate limit, was reached; retry later. */
  tooManyRequests: { code: -32600, status: 429, message: 'Too many requests' },
  methodNotAllowed: {
    code: -32600,
    status: 405,
    message: 'Method not allowed: see the Allow header for what this MCP endpoint accepts',
  },
  notAcceptable: {
    code: -32600,
    status: 406,
    message: 'Not Acceptable: Accept must list application/json and text/event-stream',
  },
  payloadTooLarge: { code: -32600, status: 413, message: 'Request body too large' },
  /** The Worker cannot serve at all (a missing secret or binding); the message says what to fix, else the logs do. */
  misconfigured: { code: -32603, status: 500, message: 'Server misconfigured: see the server logs' },
  unsupportedMediaType: { code: -32600, status: 415, message: 'Unsupported Media Type: use application/json' },
} as const satisfies Record<string, { code: number; status: number; message: string }>

export type ErrorKind = keyof typeof ERROR_KINDS

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

/**
 * A protocol failure. Thrown anywhere below the HTTP layer; turned into a JSON-RPC error there.
 *
 * @example
 * throw new McpError('invalidParams', `Unknown tool: ${name}`)
 */
export class McpError extends Error {
  readonly kind: ErrorKind
  readonly code: number
  readonly status: number
  readonly data: unknown

  constructor(kind: ErrorKind, message?: string, data?: unknown) {
    const entry = ERROR_KINDS[kind]
    super(message ?? entry.message)
    this.name = 'McpError'
    this.kind = kind
    this.code = entry.code
    this.status = entry.status
    this.data = data
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

/**
 * -32022 with `data: { supported, requested }` (basic/versioning), the one builder of it.
 *
 * @example
 * throw unsupportedVersion('1999-01-01', ['2026-07-28'])
 */
export function unsupportedVersion(requested: string, supported: readonly string[], message?: string): McpError {
  return new McpError('unsupportedVersion', message ?? `Unsupported protocol version: ${requested}`, { supported, requested })
}

export function isMcpError(value: unknown): value is McpError {
  return value instanceof McpError
}
