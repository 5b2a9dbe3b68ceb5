/**
 * The portable exporter: OTLP/HTTP with JSON bodies (OTLP specification, "OTLP/HTTP" and
 * "JSON Protobuf Encoding"): finished spans POSTed to `<endpoint>/v1/traces`, the operation
 * duration histogram to `<endpoint>/v1/metrics`, `Content-Type: application/json`, ids as
 * lowercase hex, enums as integers (span kind SERVER = 2, status ERROR = 2), 64-bit integers as
 * decimal strings, attributes as AnyValue objects. Buffered per isolate and sent in batches:
 * `flush()` resolves when the next batch has been sent, `flushDelayMs` after the first span or
 * point of that batch (at once when it holds `maxBatchSpans`), so a busy isolate sends one POST
 * per second, not one per request; it returns the same promise for the whole batch, which the
 * HTTP handler gives to `waitUntil` once, from the request that started the batch. The histogram is sent with DELTA temporality (what was observed since the last send). A collector that is down costs a
 * failed fetch in the background, never a request; the buffer is bounded.
 *
 * Configured the standard way (OpenTelemetry's environment variables, as Worker vars or
 * secrets): OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS (`key=value,…`),
 * OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER_ARG (head sampling ratio).
 */
import { ConfigurationError } from '../errors.ts'
import { DURATION_BUCKETS_S, OPERATION_DURATION } from './conventions.ts'
import { libraryLog } from './log.ts'
import type { Log } from './log.ts'
import { createTelemetry } from './tracer.ts'
import type {
  AttributeValue,
  Attributes,
  FinishedSpan,
  NativeTracing,
  OperationPoint,
  SpanKind,
  Telemetry,
  TelemetryExporter,
} from './tracer.ts'

export interface OtlpExporterOptions {
  /** The collector's base URL (`http://127.0.0.1:4318`); `/v1/traces` and `/v1/metrics` are added. */
  endpoint: string
  headers?: Record<string, string>
  /** Resource attributes: `service.name` at least. */
  resource: Attributes
  /** Spans kept between flushes at most (default 2048, OpenTelemetry's); older ones are dropped first. */
  maxBufferedSpans?: number
  /** How long one export may take before it is abandoned (default 10 s, OTLP's default). */
  timeoutMs?: number
  /** How long a batch collects before it is sent (default 1000 ms; 0 sends at each flush). */
  flushDelayMs?: number
  /** A batch of this many spans is sent at once (default 512, OpenTelemetry's). */
  maxBatchSpans?: number
  fetch?: (request: Request) => Promise<Response>
  log?: Log
  now?: () => number
}

const KIND: Record<SpanKind, number> = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 }
const DELTA = 1
const SCOPE = { name: 'mcp-edge', version: '0.1.0' }
const nanos = (ms: number) => `${Math.round(ms)}000000`
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** An attribute value as OTLP's AnyValue. */
function anyValue(value: AttributeValue): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value }
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } }
}

const keyValues = (attributes: Attributes) =>
  Object.entries(attributes)
    .filter((entry): entry is [string, AttributeValue] => entry[1] !== undefined)
    .map(([key, value]) => ({ key, value: anyValue(value) }))

/**
 * A span as OTLP JSON text, written directly (a batch is thousands of spans a second on a busy
 * isolate; building objects for JSON.stringify cost twice as much). Ids are lowercase hex by
 * construction (parsed strictly, or made here); every other string goes through JSON.stringify.
 */
function spanJson(span: FinishedSpan): string {
  const { context } = span
  let json = `{"traceId":"${context.traceId}","spanId":"${context.spanId}"`
  if (span.parentSpanId) json += `,"parentSpanId":"${span.parentSpanId}"`
  if (context.traceState) json += `,"traceState":${JSON.stringify(context.traceState)}`
  json += `,"flags":${context.traceFlags},"name":${JSON.stringify(span.name)},"kind":${KIND[span.kind]}`
  json += `,"startTimeUnixNano":"${nanos(span.startMs)}","endTimeUnixNano":"${nanos(span.endMs)}"`
  json += `,"attributes":${attributesJson(span.attributes)}`
  if (span.events.length > 0) {
    const events = span.events.map(
      (event) =>
        `{"timeUnixNano":"${nanos(event.timeMs)}","name":${JSON.stringify(event.name)},"attributes":${attributesJson(event.attributes)}}`,
    )
    json += `,"events":[${events.join(',')}]`
  }
  if (span.links.length > 0) {
    const links = span.links.map((link) => {
      const state = link.context.traceState ? `,"traceState":${JSON.stringify(link.context.traceState)}` : ''
      return `{"traceId":"${link.context.traceId}","spanId":"${link.context.spanId}"${state},"attributes":${attributesJson(link.attributes ?? {})}}`
    })
    json += `,"links":[${links.join(',')}]`
  }
  if (span.status.code === 'error') {
    const message = span.status.message ? `,"message":${JSON.stringify(span.status.message)}` : ''
    json += `,"status":{"code":2${message}}`
  }
  return `${json}}`
}

/** Attributes as OTLP's KeyValue list, JSON text. */
function attributesJson(attributes: Attributes): string {
  let json = ''
  for (const key in attributes) {
    const value = attributes[key]
    if (value === undefined) continue
    json += `${json ? ',' : ''}{"key":${JSON.stringify(key)},"value":${anyValueJson(value)}}`
  }
  return `[${json}]`
}

/** `anyValue` as JSON text, without the object (this runs for every attribute of every span). */
function anyValueJson(value: AttributeValue): string {
  if (typeof value === 'string') return `{"stringValue":${JSON.stringify(value)}}`
  if (typeof value === 'number' && Number.isSafeInteger(value)) return `{"intValue":"${value}"}`
  return JSON.stringify(anyValue(value))
}

/** Histogram points of one attribute set, since the last flush. */
interface Series {
  attributes: Attributes
  count: number
  sum: number
  min: number
  max: number
  buckets: number[]
}

/**
 * An exporter to an OTLP/HTTP collector.
 *
 * @example
 * const exporter = otlpExporter({ endpoint: 'http://127.0.0.1:4318', resource: { 'service.name': 'weather' } })
 */
export function otlpExporter(options: OtlpExporterOptions): TelemetryExporter {
  const base = checkEndpoint(options.endpoint)
  const send = options.fetch ?? ((request: Request) => fetch(request))
  const log = options.log ?? libraryLog
  const now = options.now ?? Date.now
  const max = options.maxBufferedSpans ?? 2048
  const timeoutMs = options.timeoutMs ?? 10_000
  const delayMs = options.flushDelayMs ?? 1000
  const batchSize = options.maxBatchSpans ?? 512
  const headers = { 'content-type': 'application/json', ...options.headers }
  const resource = { attributes: keyValues(options.resource) }
  const resourceJson = JSON.stringify(resource)
  const scopeJson = JSON.stringify(SCOPE)
  let spans: FinishedSpan[] = []
  let series = new Map<string, Series>()
  let since = now()
  let warned = false
  /** The send the buffered data will go out with, once one is scheduled. */
  let scheduled: Promise<void> | undefined

  /** POST `body` (JSON text, or a value to serialize) to `path`. */
  const post = async (path: string, body: string | object) => {
    try {
      const response = await send(
        new Request(`${base}${path}`, {
          method: 'POST',
          headers,
          body: typeof body === 'string' ? body : JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        }),
      )
      if (!response.ok && !warned) {
        warned = true
        log.warn('telemetry export refused', { endpoint: base, path, status: response.status })
      }
      await response.body?.cancel()
    } catch (error) {
      if (!warned) {
        warned = true
        log.warn('telemetry export failed', { endpoint: base, path, error: String(error) })
      }
    }
  }

  /** Send what is buffered, as one POST of spans and one of points. */
  const sendNow = async (): Promise<void> => {
    scheduled = undefined
    const batch = spans
    const points = [...series.values()]
    const start = since
    spans = []
    series = new Map()
    since = now()
    const sends: Promise<void>[] = []
    try {
      if (batch.length > 0) {
        const spansJson = batch.map(spanJson).join(',')
        sends.push(
          post(
            '/v1/traces',
            `{"resourceSpans":[{"resource":${resourceJson},"scopeSpans":[{"scope":${scopeJson},"spans":[${spansJson}]}]}]}`,
          ),
        )
      }
      if (points.length > 0) sends.push(post('/v1/metrics', metricsBody(resource, points, start, since)))
    } catch (error) {
      // Encoding failed (an attribute no exporter expects): this batch is lost, the next is not.
      log.warn('telemetry batch dropped', { spans: batch.length, error: String(error) })
    }
    await Promise.all(sends)
  }

  return {
    exportSpan(span) {
      spans.push(span)
      if (spans.length > max) spans = spans.slice(-max)
    },
    recordOperation(point: OperationPoint) {
      addPoint(series, point)
    },
    flush() {
      if (delayMs <= 0 || spans.length >= batchSize) return sendNow()
      scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(sendNow)
      return scheduled
    },
  }
}

/** The OTLP/JSON metrics body: one delta histogram of operation durations, a data point per series. */
function metricsBody(resource: object, points: Series[], start: number, end: number): object {
  const dataPoints = points.map((point) => ({
    attributes: keyValues(point.attributes),
    startTimeUnixNano: nanos(start),
    timeUnixNano: nanos(end),
    count: String(point.count),
    sum: point.sum,
    min: point.min,
    max: point.max,
    bucketCounts: point.buckets.map(String),
    explicitBounds: [...DURATION_BUCKETS_S],
  }))
  const metric = {
    name: OPERATION_DURATION,
    description: 'MCP request or notification duration as observed on the receiver',
    unit: 's',
    histogram: { aggregationTemporality: DELTA, dataPoints },
  }
  return { resourceMetrics: [{ resource, scopeMetrics: [{ scope: SCOPE, metrics: [metric] }] }] }
}

/** Count one operation's duration in the series of its attributes (a new series at its first point). */
function addPoint(series: Map<string, Series>, { seconds, attributes }: OperationPoint): void {
  const key = JSON.stringify(attributes)
  let found = series.get(key)
  if (!found) {
    found = {
      attributes,
      count: 0,
      sum: 0,
      min: seconds,
      max: seconds,
      buckets: new Array(DURATION_BUCKETS_S.length + 1).fill(0),
    }
    series.set(key, found)
  }
  found.count++
  found.sum += seconds
  found.min = Math.min(found.min, seconds)
  found.max = Math.max(found.max, seconds)
  const bucket = DURATION_BUCKETS_S.findIndex((bound) => seconds <= bound)
  const index = bucket === -1 ? DURATION_BUCKETS_S.length : bucket
  found.buckets[index] = (found.buckets[index] ?? 0) + 1
}

/** The endpoint without a trailing slash: https, or http on loopback only (a local collector). */
function checkEndpoint(endpoint: string): string {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new ConfigurationError(
      `OTEL_EXPORTER_OTLP_ENDPOINT is not a URL: set it to your collector, such as https://otlp.example.com`,
    )
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new ConfigurationError(`OTEL_EXPORTER_OTLP_ENDPOINT must be https (http only on 127.0.0.1 or localhost): ${url.origin}`)
  }
  return endpoint.replace(/\/+$/, '')
}

/** `key=value,key2=value2` (values URL-encoded), as OTEL_EXPORTER_OTLP_HEADERS has them. */
export function parseOtlpHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const pair of (value ?? '').split(',')) {
    const equals = pair.indexOf('=')
    if (equals < 1) continue
    const name = pair.slice(0, equals).trim().toLowerCase()
    try {
      headers[name] = decodeURIComponent(pair.slice(equals + 1).trim())
    } catch {
      // a malformed value is left out rather than sent half-decoded
    }
  }
  return headers
}

export interface OtlpFromEnvOptions {
  /** `service.name` when OTEL_SERVICE_NAME is not set (the server's name). */
  serviceName: string
  serviceVersion?: string
  /** The runtime's tracing to mirror spans into (`workersTracing()` from mcp-edge/cloudflare). */
  native?: NativeTracing | undefined
  fetch?: (request: Request) => Promise<Response>
}

/**
 * Telemetry from OpenTelemetry's environment variables, or `undefined` when no endpoint is set
 * (and no native tracing is given): then nothing is traced.
 *
 * @example
 * const telemetry = otlpFromEnv(env, { serviceName: 'weather' })
 */
export function otlpFromEnv(env: unknown, options: OtlpFromEnvOptions): Telemetry | undefined {
  const vars = (env ?? {}) as Record<string, unknown>
  const text = (name: string) => (typeof vars[name] === 'string' && vars[name] !== '' ? (vars[name] as string) : undefined)
  const endpoint = text('OTEL_EXPORTER_OTLP_ENDPOINT')
  if (!endpoint && !options.native) return undefined
  const ratio = text('OTEL_TRACES_SAMPLER_ARG')
  const sampleRatio = ratio === undefined ? 1 : Number(ratio)
  if (!(sampleRatio >= 0 && sampleRatio <= 1)) {
    throw new ConfigurationError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, not "${ratio}"`)
  }
  const resource: Attributes = {
    'service.name': text('OTEL_SERVICE_NAME') ?? options.serviceName,
    'service.version': options.serviceVersion,
    'telemetry.sdk.name': 'mcp-edge',
    'telemetry.sdk.language': 'webjs',
  }
  const exporters = endpoint
    ? [otlpExporter({ endpoint, headers: parseOtlpHeaders(text('OTEL_EXPORTER_OTLP_HEADERS')), resource, fetch: options.fetch })]
    : []
  return createTelemetry({ exporters, native: options.native, sampleRatio })
}
