/**
 * mcp-edge/client: small, runtime-neutral helpers for clients of an mcp-edge server (browsers,
 * Workers, Node, tests). Not a full MCP client; use @modelcontextprotocol/client for that.
 */
export { PartialResultReader, readToolCall } from './partial-results.ts'
export type {
  GapEvent,
  NotificationEvent,
  PartialChunkEvent,
  PartialResultReaderOptions,
  ToolCallEvent,
} from './partial-results.ts'
export { readSse } from './sse.ts'
export type { SseEvent } from './sse.ts'
