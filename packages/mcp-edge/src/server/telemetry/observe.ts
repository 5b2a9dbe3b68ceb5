/**
 * One MCP message, observed: its SERVER span (with the client's trace context as parent, or as a
 * link, or ignored), the `mcp.server.operation.duration` point, the one structured log line, and
 * the hooks. `McpServer.handle` starts an `Operation` per message and ends it with the outcome;
 * the HTTP lane says which era, session and transport context the message came with. The parts:
 * the span and the point (request-span.ts), the line (request-line.ts), the hooks (hooks.ts) and
 * opt-in recording (recorded.ts).
 *
 * Private by default: no argument, result, prompt argument, requestState, token or baggage is
 * recorded unless `record` opts in to that field, capped to `maxBytes` and passed through `redact`.
 * Nothing here is built or computed for a server without telemetry, logs or hooks.
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { RequestMeta } from '../../protocol/types.ts'
import { errorTypeOf, outcomeOf } from './conventions.ts'
import { hooksAtEnd, hooksAtStart } from './hooks.ts'
import type { McpHooks, RequestInfo } from './hooks.ts'
import { createLog, errorFields } from './log.ts'
import type { Log, LogLevelName } from './log.ts'
import { observedMessage } from './message.ts'
import type { MessageScope, PartialStats } from './message.ts'
import type { RecordOptions } from './recorded.ts'
import { requestLine } from './request-line.ts'
import { endMessageSpan, pointExporter, startMessageSpan } from './request-span.ts'
import type { TraceContextMode } from './request-span.ts'
import type { Telemetry, TelemetrySpan } from './tracer.ts'

export type { McpHooks, RequestEnd, RequestInfo } from './hooks.ts'
export type { MessageScope, PartialStats } from './message.ts'
export type { RecordOptions } from './recorded.ts'
export type { TraceContextMode } from './request-span.ts'

export interface ObserveOptions {
  /** Spans and the duration histogram; nothing is traced without it. */
  telemetry?: Telemetry | undefined
  /** Default `parent` (the conventions' choice): the client's `_meta` context parents the span. */
  traceContext?: TraceContextMode
  /** The level of the one line per request (default `info`); `off` prints none. */
  logs?: LogLevelName | 'off'
  hooks?: McpHooks
  record?: RecordOptions
  /** Where log lines go (default: `createLog(logs)`, one JSON text per line on the console). */
  log?: Log
}

export interface Operation {
  /** The message's span (attributes added by the method: the input round, the task, streaming). */
  readonly span: TelemetrySpan | undefined
  end(answer: { result: object } | { error: JsonRpcErrorObject }, extra?: { cancelled?: boolean; partial?: PartialStats }): void
}

export interface Observer {
  /**
   * A message begins. Never throws, and its `end` never throws and counts once: telemetry that
   * fails (a user's exporter, redact hook or the runtime's tracing) is logged, never the
   * request's failure. `known` says whether a method (alone), or a tool or prompt name, is
   * registered: names that are not become `_OTHER` in span names, metrics and log lines (a client
   * chooses them).
   */
  start(
    scope: MessageScope,
    method: string,
    params: Record<string, unknown>,
    id: string | number | null,
    meta: RequestMeta,
    known: (method: string, name?: string) => boolean,
  ): Operation | undefined
  readonly log: Log
}

/** Build the observer once per handler; `undefined` when there is nothing to observe. */
export function createObserver(options: ObserveOptions): Observer | undefined {
  const { telemetry, hooks, record } = options
  const level = options.logs ?? 'info'
  const log = options.log ?? createLog(level === 'off' ? 'error' : level)
  const lines = level !== 'off'
  if (!telemetry && !hooks && !lines) return undefined
  const mode = options.traceContext ?? 'parent'
  const exportPoint = telemetry && pointExporter(telemetry)
  let warned = false
  const failed = (error: unknown) => {
    if (warned) return
    warned = true
    log.error('telemetry failed; the request went on without it', errorFields(error))
  }

  const open = (
    scope: MessageScope,
    given: string,
    params: Record<string, unknown>,
    id: string | number | null,
    meta: RequestMeta,
    known: (method: string, name?: string) => boolean,
  ): Operation => {
    const started = Date.now()
    const message = observedMessage(scope, given, params, meta, known)
    const span = telemetry && startMessageSpan(telemetry, mode, message, params, id, record)
    const info: RequestInfo | undefined = hooks && {
      method: message.method,
      target: message.target,
      era: scope.era,
      protocolVersion: meta.protocolVersion,
      client: meta.clientInfo,
      principal: scope.principal,
      traceId: span?.context.traceId,
    }
    if (hooks && info) hooksAtStart(log, hooks, info)
    let ended = false
    return {
      span,
      end(answer, extra = {}) {
        if (ended) return
        ended = true
        try {
          const outcome = outcomeOf(answer, extra.cancelled === true)
          const errorType = errorTypeOf(outcome)
          const durationMs = Date.now() - started
          if (span && exportPoint) {
            endMessageSpan(span, message, answer, outcome, errorType, extra.partial, record)
            exportPoint(message, durationMs, errorType)
          }
          if (lines) requestLine(log, message, outcome, durationMs, span, extra.partial)
          if (hooks && info) hooksAtEnd(log, hooks, { ...info, outcome, durationMs })
        } catch (error) {
          failed(error)
        }
      },
    }
  }

  return {
    log,
    start(scope, method, params, id, meta, known) {
      try {
        return open(scope, method, params, id, meta, known)
      } catch (error) {
        failed(error)
        return undefined
      }
    },
  }
}
