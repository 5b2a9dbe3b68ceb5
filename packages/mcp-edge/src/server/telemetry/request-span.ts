/**
 * A message's SERVER span (observe.ts): started with the client's trace context as its parent, as
 * a link, or without it (`TraceContextMode`), given the conventions' attributes only when it
 * records (an unsampled or unmirrored span costs its context and nothing else), and ended with its
 * outcome; then the `mcp.server.operation.duration` point, where an exporter takes it.
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { RequestMeta } from '../../protocol/types.ts'
import { ATTR, requestAttributes, spanName } from './conventions.ts'
import type { Outcome } from './conventions.ts'
import type { ObservedMessage, PartialStats } from './message.ts'
import { recorded, recordInputs } from './recorded.ts'
import type { RecordOptions } from './recorded.ts'
import { extractContext } from './trace-context.ts'
import type { Attributes, SpanLink, Telemetry, TelemetrySpan } from './tracer.ts'

/** What to do with a client's trace context (SEP-414 `_meta`, or the HTTP `traceparent` header). */
export type TraceContextMode = 'parent' | 'link' | 'ignore'

/** The message's span; its attributes only when it records. */
export function startMessageSpan(
  telemetry: Telemetry,
  mode: TraceContextMode,
  message: ObservedMessage,
  params: Record<string, unknown>,
  id: string | number | null,
  record: RecordOptions | undefined,
): TelemetrySpan {
  const { scope, method, target, meta } = message
  const client = mode === 'ignore' ? undefined : extractContext(meta.raw as Record<string, unknown>)
  const transport = mode === 'ignore' ? undefined : scope.transport
  // conventions: the _meta context is the parent; the transport's (HTTP) context a link.
  const parent = mode === 'parent' ? (client ?? transport) : undefined
  const linked = client && mode === 'link' ? client : undefined
  const other = transport && transport !== parent ? transport : undefined
  const links: SpanLink[] | undefined =
    linked || other ? [linked, other].filter((context) => context !== undefined).map((context) => ({ context })) : undefined
  const span = telemetry.startSpan(spanName(method, target), { kind: 'server', parent, links })
  // A span that records nothing (an unsampled trace; no exporter, and the runtime does not
  // trace this invocation) needs no attributes: none are built.
  if (span.recording) {
    const attributes = requestAttributes(method, target, params, id, meta)
    attributes[ATTR.era] = scope.era
    if (scope.sessionId) attributes[ATTR.sessionId] = scope.sessionId
    if (record) recordInputs(attributes, method, params, record)
    for (const key in attributes) span.setAttribute(key, attributes[key])
  }
  return span
}

/** How the message ended, on its span (which then ends). */
export function endMessageSpan(
  span: TelemetrySpan,
  message: ObservedMessage,
  answer: { result: object } | { error: JsonRpcErrorObject },
  outcome: Outcome,
  errorType: string | undefined,
  partial: PartialStats | undefined,
  record: RecordOptions | undefined,
): void {
  if (outcome.kind === 'ok') span.setAttribute(ATTR.resultType, outcome.resultType)
  if (outcome.kind === 'error') span.setAttribute(ATTR.statusCode, String(outcome.error.code))
  // As of the result: the chunks the tool emitted, and those dropped by then for a slow
  // reader (the stream may still be sending the rest; its end is not this span's).
  if (partial && partial.emitted > 0) {
    span.setAttribute(ATTR.partialChunks, partial.emitted)
    span.setAttribute(ATTR.partialBytes, partial.emittedBytes)
    span.setAttribute(ATTR.partialMaxGap, partial.maxGapMs)
    span.setAttribute(ATTR.partialDropped, partial.dropped)
  }
  if (record?.toolResults && message.method === 'tools/call' && 'result' in answer) {
    span.setAttribute(ATTR.toolResult, recorded('toolResults', answer.result, record))
  }
  const taskId =
    outcome.kind === 'ok' && outcome.resultType === 'task'
      ? (answer as { result: { taskId?: unknown } }).result.taskId
      : undefined
  if (typeof taskId === 'string') span.setAttribute(ATTR.taskId, taskId)
  if (errorType) span.fail(errorType, outcome.kind === 'error' ? outcome.error.message : undefined)
  span.end()
}

/**
 * The duration point, then one waitUntil per batch: the request that started it keeps it alive;
 * the others only add to it (a waitUntil per request would hold every request's context open).
 * Nothing to record or send where no exporter takes it (spans only mirrored).
 */
export function pointExporter(telemetry: Telemetry) {
  /** The last flush given to waitUntil. */
  let handed: Promise<void> | undefined
  return (message: ObservedMessage, durationMs: number, errorType: string | undefined): void => {
    if (telemetry.exporting === false) return
    telemetry.recordOperation({
      seconds: durationMs / 1000,
      attributes: metricAttributes(message.method, message.target, message.meta, errorType),
    })
    const flushing = telemetry.flush()
    if (flushing !== handed) {
      handed = flushing
      if (message.scope.waitUntil) message.scope.waitUntil(flushing)
      else flushing.catch(() => {})
    }
  }
}

/** The metric's attributes: low cardinality only (no ids, no URIs). */
function metricAttributes(
  method: string,
  target: string | undefined,
  meta: RequestMeta,
  errorType: string | undefined,
): Attributes {
  const attributes: Attributes = { [ATTR.method]: method, [ATTR.protocolVersion]: meta.protocolVersion }
  if (target !== undefined) attributes[method === 'prompts/get' ? ATTR.promptName : ATTR.toolName] = target
  if (errorType !== undefined) attributes[ATTR.errorType] = errorType
  return attributes
}
