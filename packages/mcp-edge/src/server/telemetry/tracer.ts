/**
 * The tracer port: spans and one histogram, named by the OpenTelemetry MCP conventions
 * (conventions.ts), with backends behind small interfaces: exporters that receive finished spans
 * and metric points (OTLP/HTTP, otlp.ts; in memory for tests, recording.ts) and, optionally, the
 * runtime's own tracing (Workers' `tracing`, mirrored span by span). Head sampling happens when
 * a trace starts here; a span of an unsampled trace records nothing and costs one context.
 * Without telemetry configured none of this is built: the request path checks one `undefined`.
 */
import { isSampled, randomId, SAMPLED } from './trace-context.ts'
import type { SpanContext } from './trace-context.ts'

export type AttributeValue = string | number | boolean | readonly string[]
export type Attributes = Record<string, AttributeValue | undefined>

/** OTLP's span kinds, by name. */
export type SpanKind = 'internal' | 'server' | 'client' | 'producer' | 'consumer'

export interface SpanLink {
  context: SpanContext
  attributes?: Attributes
}

export interface StartSpanOptions {
  kind: SpanKind
  /** The parent: a remote context (a client's, from `_meta`) or one of our spans. */
  parent?: SpanContext | undefined
  links?: SpanLink[] | undefined
  /** The span keeps this object and adds to it: pass one of its own. */
  attributes?: Attributes | undefined
  /** When it started, if before now (ms since the epoch). */
  startMs?: number | undefined
}

/** What instrumented code holds while an operation runs. */
export interface TelemetrySpan {
  readonly context: SpanContext
  /**
   * False when nothing keeps this span (its trace is unsampled, or no exporter takes it and the
   * runtime does not trace the invocation): attributes and events are dropped. Whether the trace
   * is sampled is its context's `traceFlags` (bit 0), which a span that records nothing still carries.
   */
  readonly recording: boolean
  setAttribute(key: string, value: AttributeValue | undefined): void
  addEvent(name: string, attributes?: Attributes): void
  addLink(link: SpanLink): void
  /** The operation failed: `error.type`, and status ERROR with `message`. */
  fail(errorType: string, message?: string): void
  end(): void
}

/** A span as exporters receive it: times in milliseconds since the epoch (Date.now()). */
export interface FinishedSpan {
  name: string
  kind: SpanKind
  context: SpanContext
  parentSpanId: string | undefined
  startMs: number
  endMs: number
  attributes: Attributes
  events: { name: string; timeMs: number; attributes: Attributes }[]
  links: SpanLink[]
  status: { code: 'unset' | 'error'; message?: string | undefined }
}

/** One observation of `mcp.server.operation.duration`. */
export interface OperationPoint {
  seconds: number
  attributes: Attributes
}

export interface TelemetryExporter {
  exportSpan(span: FinishedSpan): void
  recordOperation(point: OperationPoint): void
  /**
   * Send what is buffered, now or with the next batch; the HTTP handler passes it to `waitUntil`
   * after a response. Returns the same promise for as long as the same send is pending.
   */
  flush(): Promise<void>
}

/** A runtime's own span API (Workers' `tracing`), as far as mirroring needs it. */
export interface NativeTracing {
  startSpan(name: string): NativeSpan
  /** The invocation's active span: whether the runtime traces it, asked without making a span. */
  getActiveSpan?(): Pick<NativeSpan, 'isTraced'> | undefined
}

export interface NativeSpan {
  /** False when the runtime records nothing of this invocation (not sampled, or no tracing set up). */
  readonly isTraced?: boolean
  setAttribute(key: string, value: boolean | number | string): unknown
  setStatus(status: { code: 'unset' | 'ok' | 'error'; message?: string }): unknown
  end(): void
}

export interface TelemetryOptions {
  /** Where finished spans and metric points go. */
  exporters?: TelemetryExporter[]
  /** Mirror sampled spans into the runtime's own tracing (Workers: `tracing` from cloudflare:workers), where it traces the invocation. */
  native?: NativeTracing | undefined
  /** Head sampling of traces that start here, 0 to 1 (default 1). A remote parent's sampled flag decides for its trace. */
  sampleRatio?: number
  /** The clock (tests). */
  now?: () => number
}

export interface Telemetry {
  startSpan(name: string, options: StartSpanOptions): TelemetrySpan
  recordOperation(point: OperationPoint): void
  flush(): Promise<void>
  /** False when nothing takes spans or points (no exporter: spans only mirrored): callers skip recording and flushing. */
  readonly exporting?: boolean
}

const NOOP = () => {}
/** On a mirrored span: the trace id of the span as OTLP exporters send it. */
const ATTR_TRACE_ID = 'mcp_edge.trace_id'
/**
 * What a mirrored span carries besides its name and `mcp_edge.trace_id`: what tells one MCP span
 * from another and how it ended. Each attribute is a call into the runtime, so the rest (the
 * protocol version, the client, the network attributes…) stays with the OTLP span.
 */
const MIRRORED = new Set([
  // Names as in conventions.ts ATTR (which imports this module's types, so they are spelled here).
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.prompt.name',
  'mcp.resource.uri',
  'mcp.session.id',
  'error.type',
  'mcp_edge.result_type',
  'mcp_edge.input.round',
  'mcp_edge.task.id',
  'mcp_edge.task.status',
])

/**
 * Build the port from its backends.
 *
 * @example
 * const telemetry = createTelemetry({ exporters: [otlpExporter({ endpoint: 'http://127.0.0.1:4318', resource })] })
 */
export function createTelemetry(options: TelemetryOptions = {}): Telemetry {
  const exporters = options.exporters ?? []
  const now = options.now ?? Date.now
  const ratio = options.sampleRatio ?? 1
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`telemetry: sampleRatio must be between 0 and 1, not ${ratio}`)
  let flushing: { sends: Promise<void>[]; all: Promise<void> } | undefined
  const sampled = (traceId: string) => ratio >= 1 || (ratio > 0 && Number.parseInt(traceId.slice(-8), 16) / 0x100000000 < ratio)

  return {
    exporting: exporters.length > 0,
    startSpan(name, start) {
      const parent = start.parent
      const traceId = parent?.traceId ?? randomId(16)
      const record = parent ? isSampled(parent) : sampled(traceId)
      const context: SpanContext = { traceId, spanId: randomId(8), traceFlags: record ? SAMPLED : 0 }
      if (parent?.traceState !== undefined) context.traceState = parent.traceState
      if (!record) return unsampled(context)
      // The runtime's span, only where the runtime traces this invocation: Workers' head sampling
      // chose it (plain Miniflare traces none). Asked of the active span, so an untraced
      // invocation makes no runtime span; each mirrored attribute is a call into the runtime.
      const native = options.native
      // Read once: each read of `isTraced` is a call into the runtime.
      const traced = native?.getActiveSpan?.()?.isTraced
      let mirror = native && traced !== false ? native.startSpan(name) : undefined
      // Without a definite answer from the active span, the new one's says (one more runtime call).
      if (traced !== true && mirror?.isTraced === false) {
        mirror.end()
        mirror = undefined
      }
      // Nothing would keep a span that no exporter takes and the runtime does not trace.
      if (exporters.length === 0 && !mirror) return unsampled(context)
      return new RecordingSpan(name, start, context, exporters, mirror, now)
    },
    recordOperation(point) {
      for (const exporter of exporters) exporter.recordOperation(point)
    },
    flush() {
      // The same promise while the exporters' pending sends are the same ones, so that a caller
      // hands each batch to waitUntil once, not once per request that added to it.
      if (exporters.length === 1) return (exporters[0] as TelemetryExporter).flush()
      const sends = exporters.map((exporter) => exporter.flush())
      if (!flushing || sends.some((send, i) => send !== flushing?.sends[i])) {
        flushing = { sends, all: Promise.all(sends).then(NOOP) }
      }
      return flushing.all
    },
  }
}

/** A span of an unsampled trace: it carries its context on, and nothing else (its methods are its class's, not made per span). */
class UnsampledSpan implements TelemetrySpan {
  readonly context: SpanContext
  readonly recording = false
  constructor(context: SpanContext) {
    this.context = context
  }
  setAttribute(): void {}
  addEvent(): void {}
  addLink(): void {}
  fail(): void {}
  end(): void {}
}

const unsampled = (context: SpanContext): TelemetrySpan => new UnsampledSpan(context)

class RecordingSpan implements TelemetrySpan {
  readonly context: SpanContext
  readonly recording = true
  readonly #finished: FinishedSpan
  readonly #exporters: TelemetryExporter[]
  readonly #native: NativeSpan | undefined
  readonly #now: () => number
  #ended = false

  constructor(
    name: string,
    start: StartSpanOptions,
    context: SpanContext,
    exporters: TelemetryExporter[],
    native: NativeSpan | undefined,
    now: () => number,
  ) {
    this.context = context
    this.#exporters = exporters
    this.#now = now
    this.#finished = {
      name,
      kind: start.kind,
      context,
      parentSpanId: start.parent?.spanId,
      startMs: start.startMs ?? now(),
      endMs: 0,
      attributes: start.attributes ?? {},
      events: [],
      links: start.links ? [...start.links] : [],
      status: { code: 'unset' },
    }
    this.#native = native
    if (native) {
      // The runtime names its own trace; this one (the client's, when it sent one) finds the OTLP trace.
      native.setAttribute(ATTR_TRACE_ID, context.traceId)
      for (const [key, value] of Object.entries(start.attributes ?? {})) this.#mirror(key, value)
    }
  }

  setAttribute(key: string, value: AttributeValue | undefined): void {
    if (this.#ended || value === undefined) return
    this.#finished.attributes[key] = value
    this.#mirror(key, value)
  }

  addEvent(name: string, attributes: Attributes = {}): void {
    if (!this.#ended) this.#finished.events.push({ name, timeMs: this.#now(), attributes })
  }

  addLink(link: SpanLink): void {
    if (!this.#ended) this.#finished.links.push(link)
  }

  fail(errorType: string, message?: string): void {
    if (this.#ended) return
    this.setAttribute('error.type', errorType)
    this.#finished.status = { code: 'error', message }
    this.#native?.setStatus({ code: 'error', ...(message === undefined ? {} : { message }) })
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    this.#finished.endMs = this.#now()
    this.#native?.end()
    for (const exporter of this.#exporters) exporter.exportSpan(this.#finished)
  }

  #mirror(key: string, value: AttributeValue | undefined): void {
    if (!this.#native || value === undefined || !MIRRORED.has(key)) return
    this.#native.setAttribute(key, typeof value === 'object' ? value.join(',') : value)
  }
}
