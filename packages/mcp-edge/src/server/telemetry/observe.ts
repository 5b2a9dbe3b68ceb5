/**
 * One MCP message, observed: its SERVER span (with the client's trace context as parent, or as a
 * link, or ignored), the `mcp.server.operation.duration` point, the one structured log line, and
 * the hooks. `McpServer.handle` starts an `Operation` per message and ends it with the outcome;
 * the HTTP lane says which era, session and transport context the message came with.
 *
 * Private by default: no argument, result, prompt argument, requestState, token or baggage is
 * recorded unless `record` opts in to that field, capped to `maxBytes` and passed through `redact`.
 * Nothing here is built or computed for a server without telemetry, logs or hooks.
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { Implementation, RequestMeta } from '../../protocol/types.ts'
import { ATTR, errorTypeOf, outcomeOf, requestAttributes, spanName, targetOf } from './conventions.ts'
import type { Outcome } from './conventions.ts'
import { createLog, errorFields } from './log.ts'
import type { Log, LogLevelName } from './log.ts'
import { extractContext } from './trace-context.ts'
import type { SpanContext } from './trace-context.ts'
import type { Attributes, OperationPoint, SpanLink, Telemetry, TelemetrySpan } from './tracer.ts'

/** What to do with a client's trace context (SEP-414 `_meta`, or the HTTP `traceparent` header). */
export type TraceContextMode = 'parent' | 'link' | 'ignore'

export interface RecordOptions {
  /** Record `tools/call` arguments (`gen_ai.tool.call.arguments`). */
  toolArguments?: boolean
  /** Record tool results (`gen_ai.tool.call.result`). */
  toolResults?: boolean
  /** Record `prompts/get` arguments. */
  promptArguments?: boolean
  /** Cap of each recorded value, in bytes of JSON (default 1024); longer values are cut and marked. */
  maxBytes?: number
  /** Change or drop (return undefined) what is about to be recorded. */
  redact?: (field: 'toolArguments' | 'toolResults' | 'promptArguments', value: unknown) => unknown
}

/** What a hook hears about a message. */
export interface RequestInfo {
  method: string
  /** The tool or prompt name. */
  target: string | undefined
  era: 'modern' | 'legacy'
  protocolVersion: string
  client: Implementation | undefined
  /** The principal's subject. */
  principal: string | null
  /** The trace the message's span is part of, when tracing. */
  traceId: string | undefined
}

export interface RequestEnd extends RequestInfo {
  outcome: Outcome
  durationMs: number
}

/** Audit and custom metrics. Called synchronously; an exception in a hook is logged and ignored. */
export interface McpHooks {
  onRequest?(info: RequestInfo): void
  onRequestEnd?(end: RequestEnd): void
  onToolCall?(info: RequestInfo): void
  onToolCallEnd?(end: RequestEnd): void
}

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

/** Where a message came from, as the HTTP lane knows it. */
export interface MessageScope {
  era: 'modern' | 'legacy'
  /** A 2025 session's public identity (never the sealed id). */
  sessionId?: string | undefined
  /** The HTTP request's own `traceparent` header. */
  transport?: SpanContext | undefined
  principal: string | null
  /** The host's `waitUntil`: exporting happens after the response, within it. */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
}

export interface Operation {
  /** The message's span (attributes added by the method: the input round, the task, streaming). */
  readonly span: TelemetrySpan | undefined
  end(answer: { result: object } | { error: JsonRpcErrorObject }, extra?: { cancelled?: boolean; partial?: PartialStats }): void
}

/** A call's partial results so far (the outbox's counters). */
export interface PartialStats {
  /** Chunks the handler emitted. */
  emitted: number
  /** Their size (text and data characters of their content, JSON of the rest). */
  emittedBytes: number
  /** The longest time between two of them, in ms. */
  maxGapMs: number
  /** Chunks dropped unsent for a slow reader (each leaves a gap in the seq the client sees). */
  dropped: number
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

const DEFAULT_MAX_BYTES = 1024
/** OpenTelemetry's name for a value outside the known set. */
const OTHER = '_OTHER'
const TRUNCATED = '…[truncated]'

/** Build the observer once per handler; `undefined` when there is nothing to observe. */
export function createObserver(options: ObserveOptions): Observer | undefined {
  const { telemetry, hooks, record } = options
  const level = options.logs ?? 'info'
  const log = options.log ?? createLog(level === 'off' ? 'error' : level)
  const lines = level !== 'off'
  if (!telemetry && !hooks && !lines) return undefined
  const mode = options.traceContext ?? 'parent'
  /** The last flush given to waitUntil. */
  let handed: Promise<void> | undefined
  /** The duration point, then one waitUntil per batch: the request that started it keeps it alive; the others only add to it (a waitUntil per request would hold every request's context open). */
  const exported = (telemetry: Telemetry, scope: MessageScope, point: OperationPoint) => {
    telemetry.recordOperation(point)
    const flushing = telemetry.flush()
    if (flushing !== handed) {
      handed = flushing
      if (scope.waitUntil) scope.waitUntil(flushing)
      else flushing.catch(() => {})
    }
  }
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
    // A method name is the client's to choose too: one the server does not have is `_OTHER`.
    const method = known(given) ? given : OTHER
    const named = targetOf(method, params)
    const target = named === undefined || known(method, named) ? named : OTHER
    let span: TelemetrySpan | undefined
    if (telemetry) {
      const client = mode === 'ignore' ? undefined : extractContext(meta.raw as Record<string, unknown>)
      const transport = mode === 'ignore' ? undefined : scope.transport
      // conventions: the _meta context is the parent; the transport's (HTTP) context a link.
      const parent = mode === 'parent' ? (client ?? transport) : undefined
      const linked = client && mode === 'link' ? client : undefined
      const other = transport && transport !== parent ? transport : undefined
      const links: SpanLink[] | undefined =
        linked || other ? [linked, other].filter((context) => context !== undefined).map((context) => ({ context })) : undefined
      span = telemetry.startSpan(spanName(method, target), { kind: 'server', parent, links })
      // A span that records nothing (an unsampled trace; no exporter, and the runtime does not
      // trace this invocation) needs no attributes: none are built.
      if (span.recording) {
        const attributes = requestAttributes(method, target, params, id, meta)
        attributes[ATTR.era] = scope.era
        if (scope.sessionId) attributes[ATTR.sessionId] = scope.sessionId
        if (record) recordInputs(attributes, method, params, record)
        for (const key in attributes) span.setAttribute(key, attributes[key])
      }
    }
    const info = hooks ? requestInfo(scope, method, target, meta, span) : undefined
    if (info)
      call(
        log,
        () => (method === 'tools/call' ? hooks?.onToolCall : undefined)?.(info),
        () => hooks?.onRequest?.(info),
      )

    return {
      span,
      end(answer, extra = {}) {
        const outcome = outcomeOf(answer, extra.cancelled === true)
        const errorType = errorTypeOf(outcome)
        const durationMs = Date.now() - started
        if (span && telemetry) {
          if (outcome.kind === 'ok') span.setAttribute(ATTR.resultType, outcome.resultType)
          if (outcome.kind === 'error') span.setAttribute(ATTR.statusCode, String(outcome.error.code))
          // As of the result: the chunks the tool emitted, and those dropped by then for a slow
          // reader (the stream may still be sending the rest; its end is not this span's).
          if (extra.partial && extra.partial.emitted > 0) {
            span.setAttribute(ATTR.partialChunks, extra.partial.emitted)
            span.setAttribute(ATTR.partialBytes, extra.partial.emittedBytes)
            span.setAttribute(ATTR.partialMaxGap, extra.partial.maxGapMs)
            span.setAttribute(ATTR.partialDropped, extra.partial.dropped)
          }
          if (record?.toolResults && method === 'tools/call' && 'result' in answer) {
            span.setAttribute(ATTR.toolResult, recorded('toolResults', answer.result, record))
          }
          const taskId =
            outcome.kind === 'ok' && outcome.resultType === 'task'
              ? (answer as { result: { taskId?: unknown } }).result.taskId
              : undefined
          if (typeof taskId === 'string') span.setAttribute(ATTR.taskId, taskId)
          if (errorType) span.fail(errorType, outcome.kind === 'error' ? outcome.error.message : undefined)
          span.end()
          // Nothing to record or send where no exporter takes it (spans only mirrored).
          if (telemetry.exporting !== false)
            exported(telemetry, scope, {
              seconds: durationMs / 1000,
              attributes: metricAttributes(method, target, meta, errorType),
            })
        }
        if (lines) requestLine(log, scope, method, target, meta, outcome, durationMs, span, extra.partial)
        if (info) {
          const end: RequestEnd = { ...info, outcome, durationMs }
          call(
            log,
            () => (method === 'tools/call' ? hooks?.onToolCallEnd : undefined)?.(end),
            () => hooks?.onRequestEnd?.(end),
          )
        }
      },
    }
  }

  return {
    log,
    start(scope, method, params, id, meta, known) {
      let operation: Operation
      try {
        operation = open(scope, method, params, id, meta, known)
      } catch (error) {
        failed(error)
        return undefined
      }
      let ended = false
      return {
        span: operation.span,
        end(answer, extra) {
          if (ended) return
          ended = true
          try {
            operation.end(answer, extra)
          } catch (error) {
            failed(error)
          }
        },
      }
    },
  }
}

function requestInfo(
  scope: MessageScope,
  method: string,
  target: string | undefined,
  meta: RequestMeta,
  span: TelemetrySpan | undefined,
): RequestInfo {
  return {
    method,
    target,
    era: scope.era,
    protocolVersion: meta.protocolVersion,
    client: meta.clientInfo,
    principal: scope.principal,
    traceId: span?.context.traceId,
  }
}

/** Run hooks; one that throws is logged, never the request's failure. */
function call(log: Log, ...hooks: (() => void)[]): void {
  for (const hook of hooks) {
    try {
      hook()
    } catch (error) {
      log.error('hook failed', { error: String(error) })
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

function requestLine(
  log: Log,
  scope: MessageScope,
  method: string,
  target: string | undefined,
  meta: RequestMeta,
  outcome: Outcome,
  durationMs: number,
  span: TelemetrySpan | undefined,
  partial: PartialStats | undefined,
): void {
  const level = outcome.kind === 'error' ? (outcome.error.code === -32603 ? 'error' : 'warn') : 'info'
  log[level]('mcp request', {
    trace_id: span?.context.traceId,
    span_id: span?.context.spanId,
    method,
    target,
    lane: scope.era === 'legacy' ? '2025' : '2026-07-28',
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

function recordInputs(attributes: Attributes, method: string, params: Record<string, unknown>, record: RecordOptions): void {
  if (method === 'tools/call' && record.toolArguments)
    attributes[ATTR.toolArguments] = recorded('toolArguments', params.arguments ?? {}, record)
  if (method === 'prompts/get' && record.promptArguments)
    attributes[ATTR.promptArguments] = recorded('promptArguments', params.arguments ?? {}, record)
}

/** One opted-in value as an attribute: redacted, serialized, capped. */
function recorded(
  field: 'toolArguments' | 'toolResults' | 'promptArguments',
  value: unknown,
  record: RecordOptions,
): string | undefined {
  const kept = record.redact ? record.redact(field, value) : value
  if (kept === undefined) return undefined
  const text = JSON.stringify(kept) ?? ''
  return capped(text, record.maxBytes ?? DEFAULT_MAX_BYTES)
}

const utf8 = new TextEncoder()

/** `text` cut to at most `max` UTF-8 bytes, the marker included, never inside a character. */
function capped(text: string, max: number): string {
  if (utf8.encode(text).length <= max) return text
  return `${utf8Prefix(text, max - utf8.encode(TRUNCATED).length)}${TRUNCATED}`
}

/** The longest start of `text` of at most `max` UTF-8 bytes, never cut inside a character. */
export function utf8Prefix(text: string, max: number): string {
  let bytes = 0
  let end = 0
  for (const char of text) {
    bytes += utf8.encode(char).length
    if (bytes > max) break
    end += char.length
  }
  return text.slice(0, end)
}
