/**
 * The one structured log line per message (STYLE "one structured line per request"): method,
 * target, lane, revision, client, outcome, duration and the trace it belongs to, at `info`, or
 * `warn` for a protocol error and `error` for an internal one. Written by the observer (observe.ts).
 */
import type { Outcome } from './conventions.ts'
import type { Log } from './log.ts'
import type { ObservedMessage, PartialStats } from './message.ts'
import type { TelemetrySpan } from './tracer.ts'

export function requestLine(
  log: Log,
  message: ObservedMessage,
  outcome: Outcome,
  durationMs: number,
  span: TelemetrySpan | undefined,
  partial: PartialStats | undefined,
): void {
  const { meta } = message
  const level = outcome.kind === 'error' ? (outcome.error.code === -32603 ? 'error' : 'warn') : 'info'
  log[level]('mcp request', {
    trace_id: span?.context.traceId,
    span_id: span?.context.spanId,
    method: message.method,
    target: message.target,
    lane: message.scope.era === 'legacy' ? '2025' : '2026-07-28',
    protocol_version: meta.protocolVersion,
    client: meta.clientInfo ? `${meta.clientInfo.name}/${meta.clientInfo.version}` : undefined,
    outcome: outcome.kind === 'ok' ? outcome.resultType : outcome.kind,
    error_code: outcome.kind === 'error' ? outcome.error.code : undefined,
    duration_ms: durationMs,
    chunks: partial?.emitted ? partial.emitted : undefined,
    chunk_bytes: partial?.emitted ? partial.emittedBytes : undefined,
    max_gap_ms: partial?.emitted ? partial.maxGapMs : undefined,
    dropped: partial?.dropped ? partial.dropped : undefined,
  })
}
