/**
 * JSON-RPC 2.0 framing for MCP: tell a request from a notification, reject everything else, and
 * build the two response shapes. Hand-written guards rather than a schema library: this runs on
 * every request and only looks at four fields.
 */
import { McpError } from './errors.ts'
import type { JsonRpcErrorObject } from './errors.ts'

export type RequestId = string | number

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: RequestId
  method: string
  params?: unknown
}

export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: unknown
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0'
  id: RequestId
  result: object
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0'
  id?: RequestId
  error: JsonRpcErrorObject
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse

export type IncomingMessage =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }

/** A server-to-client request (2025 revisions only: elicitation, sampling, roots). */
export interface JsonRpcOutgoingRequest {
  jsonrpc: '2.0'
  id: RequestId
  method: string
  params?: object
}

/** Anything the server writes on a response stream. */
export type OutgoingMessage = JsonRpcNotification | JsonRpcOutgoingRequest | JsonRpcResponse

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A JSON-RPC id MUST be a string or an integer, never null (basic/index.mdx "Requests"). */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))
}

/**
 * The request id, if one can be read from a value that failed validation, so the error response
 * can echo it (every error response carries the id unless it could not be read).
 */
export function readableId(value: unknown): RequestId | undefined {
  return isObject(value) && isRequestId(value.id) ? value.id : undefined
}

/**
 * Classify one parsed JSON message. Batches and responses are not valid client messages in the
 * stateless revision (streamable-http: "a single request or notification"; "clients MUST NOT
 * send responses"), so they fail with -32600 unless `responses` admits the answers a 2025-era
 * client sends to server-to-client requests.
 *
 * @example
 * const incoming = classifyMessage(JSON.parse(body))
 * if (incoming.kind === 'notification') return new Response(null, { status: 202 })
 */
export function classifyMessage(value: unknown, { responses = false } = {}): IncomingMessage {
  if (Array.isArray(value)) throw new McpError('invalidRequest', 'Invalid Request: batches are not supported')
  if (!isObject(value) || value.jsonrpc !== '2.0') {
    throw new McpError('invalidRequest', 'Invalid Request: expected a JSON-RPC 2.0 object')
  }
  if ('result' in value || 'error' in value) {
    if (!responses) throw new McpError('invalidRequest', 'Invalid Request: clients must not send responses')
    return { kind: 'response', message: readResponse(value) }
  }
  if (typeof value.method !== 'string' || value.method === '') {
    throw new McpError('invalidRequest', 'Invalid Request: method must be a non-empty string')
  }
  if (!('id' in value)) return { kind: 'notification', message: value as unknown as JsonRpcNotification }
  if (!isRequestId(value.id)) {
    throw new McpError('invalidRequest', 'Invalid Request: id must be a string or an integer')
  }
  return { kind: 'request', message: value as unknown as JsonRpcRequest }
}

function readResponse(value: Record<string, unknown>): JsonRpcResponse {
  const { id, result, error } = value
  const valid =
    isRequestId(id) &&
    ('result' in value ? !('error' in value) && isObject(result) : isObject(error) && typeof error.code === 'number')
  if (!valid) throw new McpError('invalidRequest', 'Invalid Request: a response needs an id and one result or error')
  return value as unknown as JsonRpcResponse
}

export function resultResponse(id: RequestId, result: object): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result }
}

export function errorResponse(id: RequestId | undefined, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error }
}

export function notification(method: string, params: object): JsonRpcNotification {
  return { jsonrpc: '2.0', method, params }
}
