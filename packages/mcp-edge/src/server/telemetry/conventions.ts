/**
 * The OpenTelemetry semantic conventions for MCP (semantic-conventions-genai, docs/gen-ai/mcp.md,
 * status Development) as mcp-edge applies them to a server, and what it adds where they are
 * silent. One SERVER span per MCP message, named `{mcp.method.name} {target}`, the target being
 * the tool or prompt name (never a resource URI: too many names); `mcp.server.operation.duration`
 * in seconds with the conventions' buckets. What the conventions do not cover (they were written
 * for 2025-06-18) is named under `mcp_edge.*` and documented in docs/observability.md:
 * the era, the result type of 2026-07-28 (complete, input_required, task), the input round, the
 * task, streamed partial results.
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { RequestMeta } from '../../protocol/types.ts'
import type { Attributes } from './tracer.ts'

/** The conventions' explicit bucket boundaries for the operation duration, in seconds. */
export const DURATION_BUCKETS_S = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300] as const
export const OPERATION_DURATION = 'mcp.server.operation.duration'

/** The names used, so that spans, metrics, logs and docs agree. */
export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operationName: 'gen_ai.operation.name',
  resourceUri: 'mcp.resource.uri',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  clientName: 'mcp_edge.client.name',
  clientVersion: 'mcp_edge.client.version',
  era: 'mcp_edge.era',
  resultType: 'mcp_edge.result_type',
  inputRound: 'mcp_edge.input.round',
  taskId: 'mcp_edge.task.id',
  taskRun: 'mcp_edge.task.run',
  taskStep: 'mcp_edge.task.step',
  taskStatus: 'mcp_edge.task.status',
  /** On a link: what the linked span is (`previous_round`, …). */
  linkKind: 'mcp_edge.link',
  eventType: 'mcp_edge.event.type',
  eventListeners: 'mcp_edge.event.listeners',
  subscriptionId: 'mcp_edge.subscription.id',
  partialChunks: 'mcp_edge.partial.chunks',
  partialBytes: 'mcp_edge.partial.bytes',
  partialMaxGap: 'mcp_edge.partial.max_gap_ms',
  partialDropped: 'mcp_edge.partial.dropped',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  promptArguments: 'mcp_edge.prompt.arguments',
} as const

/** `error.type` of a tool's own failure (`isError: true`), as the conventions name it. */
export const TOOL_ERROR = 'tool_error'
/** `error.type` of a call whose client went away before it ended. */
export const CANCELLED = 'cancelled'
/** OpenTelemetry's name for a value outside the known set (a method or name a client chose), and the `error.type` of an unknown failure. */
export const OTHER = '_OTHER'

/** The low-cardinality target of a span name: the tool or prompt, when the method has one. */
export function targetOf(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'tools/call' || method === 'prompts/get') return typeof params.name === 'string' ? params.name : undefined
  return undefined
}

export const spanName = (method: string, target: string | undefined) => (target === undefined ? method : `${method} ${target}`)

/** The attributes a request message carries from the start. */
export function requestAttributes(
  method: string,
  /** The tool or prompt (`targetOf`, `_OTHER` when not registered). */
  target: string | undefined,
  params: Record<string, unknown>,
  id: string | number | null | undefined,
  meta: RequestMeta,
): Attributes {
  const attributes: Attributes = {
    [ATTR.method]: method,
    [ATTR.protocolVersion]: meta.protocolVersion,
    [ATTR.networkTransport]: 'tcp',
    [ATTR.networkProtocol]: 'http',
  }
  if (id !== null && id !== undefined) attributes[ATTR.requestId] = String(id)
  if (method === 'tools/call') {
    attributes[ATTR.operationName] = 'execute_tool'
    if (target !== undefined) attributes[ATTR.toolName] = target
  } else if (method === 'prompts/get' && target !== undefined) {
    attributes[ATTR.promptName] = target
  } else if (method.startsWith('resources/') && typeof params.uri === 'string') {
    attributes[ATTR.resourceUri] = params.uri
  }
  if (meta.clientInfo) {
    attributes[ATTR.clientName] = meta.clientInfo.name
    attributes[ATTR.clientVersion] = meta.clientInfo.version
  }
  return attributes
}

/** How a message ended, for spans, metrics, logs and hooks. */
export type Outcome =
  | { kind: 'ok'; resultType: 'complete' | 'input_required' | 'task' }
  | { kind: 'tool_error' }
  | { kind: 'error'; error: JsonRpcErrorObject }
  | { kind: 'cancelled' }

/** The outcome of a handled request from its answer. */
export function outcomeOf(answer: { result: object } | { error: JsonRpcErrorObject }, cancelled: boolean): Outcome {
  if (cancelled) return { kind: 'cancelled' }
  if ('error' in answer) return { kind: 'error', error: answer.error }
  const result = answer.result as { isError?: unknown; resultType?: unknown }
  if (result.isError === true) return { kind: 'tool_error' }
  const resultType = result.resultType === 'input_required' || result.resultType === 'task' ? result.resultType : 'complete'
  return { kind: 'ok', resultType }
}

/** `error.type` of an outcome, or nothing for a success. */
export function errorTypeOf(outcome: Outcome): string | undefined {
  if (outcome.kind === 'error') return String(outcome.error.code)
  if (outcome.kind === 'tool_error') return TOOL_ERROR
  if (outcome.kind === 'cancelled') return CANCELLED
  return undefined
}
