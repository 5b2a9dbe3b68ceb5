/**
 * mcp-edge/client: small, runtime-neutral helpers for clients of an mcp-edge server (browsers,
 * Workers, Node, tests). Not a full MCP client; use @modelcontextprotocol/client for that.
 */
export { McpClient, McpClientError } from './client.ts'
export type { CallToolOptions, McpClientOptions, Notification, SendOptions } from './client.ts'
export { resolveInput, TooManyInputRounds } from './input-rounds.ts'
export type { InputRetry, InputRoundsOptions } from './input-rounds.ts'
export { PartialResultReader, readToolCall } from './partial-results.ts'
export type {
  GapEvent,
  NotificationEvent,
  PartialChunkEvent,
  PartialResultReaderOptions,
  ToolCallEvent,
} from './partial-results.ts'
export { findHeaderParams } from '../protocol/header-values.ts'
export { createMcpRequest, paramHeaders } from './request.ts'
export type { Implementation, JsonObject, RequestOptions } from './request.ts'
export { readSse } from './sse.ts'
export type { SseEvent } from './sse.ts'
