/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), strictly: the `traceparent` and
 * `tracestate` a client puts in `_meta` (SEP-414) or an HTTP header. A malformed value is
 * ignored, never an error: tracing must not fail or slow a request. Baggage is not parsed: its
 * values are the client's and are never recorded.
 */

/** The identity of a span, as W3C Trace Context carries it: lowercase hex ids and the flags byte. */
export interface SpanContext {
  traceId: string
  spanId: string
  /** Bit 0 is `sampled`. */
  traceFlags: number
  /** Vendor state, passed on as it came (`tracestate`). */
  traceState?: string
}

export const SAMPLED = 0x01

/** Whether the trace's `sampled` flag is set (its spans are to be kept, wherever they are made). */
export const isSampled = (context: SpanContext): boolean => (context.traceFlags & SAMPLED) === SAMPLED
const ZERO_TRACE = '0'.repeat(32)
const ZERO_SPAN = '0'.repeat(16)
const HEX = /^[0-9a-f]+$/
/** Longest traceparent worth reading: version 00 is 55 characters; later versions may append fields. */
const MAX_TRACEPARENT = 512
/** tracestate: at most 32 members, and 512 characters is what the spec asks receivers to keep. */
const MAX_TRACESTATE = 512
const MAX_MEMBERS = 32
const STATE_KEY = /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})$/
const STATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/

/**
 * Parse a `traceparent`: version, trace id, parent id and flags. Version `ff` is invalid; a
 * version above `00` may carry more fields after the flags (read the first four, as the spec
 * says); `00` has exactly four. All-zero ids are invalid.
 *
 * @example
 * parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')
 * // { traceId: '4bf9…4736', spanId: '00f0…02b7', traceFlags: 1 }
 */
export function parseTraceparent(value: unknown): SpanContext | undefined {
  if (typeof value !== 'string' || value.length < 55 || value.length > MAX_TRACEPARENT) return undefined
  const version = value.slice(0, 2)
  if (!HEX.test(version) || version === 'ff') return undefined
  if (version === '00' ? value.length !== 55 : value.length > 55 && value[55] !== '-') return undefined
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined
  const traceId = value.slice(3, 35)
  const spanId = value.slice(36, 52)
  const flags = value.slice(53, 55)
  if (!HEX.test(traceId) || !HEX.test(spanId) || !HEX.test(flags)) return undefined
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) }
}

/** A `tracestate` kept whole when every member is well formed, else dropped (the spec's choice). */
export function parseTracestate(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TRACESTATE) return undefined
  const members = value.split(',').map((member) => member.trim())
  if (members.length > MAX_MEMBERS) return undefined
  const keys = new Set<string>()
  for (const member of members) {
    if (member === '') continue
    const equals = member.indexOf('=')
    const key = member.slice(0, equals)
    if (equals < 1 || !STATE_KEY.test(key) || !STATE_VALUE.test(member.slice(equals + 1)) || keys.has(key)) return undefined
    keys.add(key)
  }
  return keys.size > 0 ? members.filter(Boolean).join(',') : undefined
}

/** A span context from a carrier (`_meta`, or headers read into a record): traceparent and tracestate. */
export function extractContext(carrier: { traceparent?: unknown; tracestate?: unknown } | undefined): SpanContext | undefined {
  const parent = parseTraceparent(carrier?.traceparent)
  if (!parent) return undefined
  const state = parseTracestate(carrier?.tracestate)
  return state === undefined ? parent : { ...parent, traceState: state }
}

/** `traceparent` of a span context (version 00). */
export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`
}

/** Each lowercase hex digit's character code, by value. */
const HEX_CODES = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0))
/**
 * The character codes of the id being made, one array per size, reused: `String.fromCharCode`
 * then makes the id as one flat string, where joining 8 or 16 pairs of digits made as many
 * pieces, each an allocation, which V8 copies again into one string when the log line is written.
 */
const TRACE_CODES = new Array<number>(32).fill(0)
const SPAN_CODES = new Array<number>(16).fill(0)

/**
 * Random bytes for ids, drawn from the platform's CSPRNG a kilobyte at a time: a span needs 8 or
 * 24 bytes, and a call into the runtime per span cost more than the span's other work.
 */
const pool = new Uint8Array(1024)
let drawn = pool.length

/** A random id of `bytes` bytes, lowercase hex, never all zeros. */
export function randomId(bytes: 8 | 16): string {
  for (;;) {
    if (drawn + bytes > pool.length) {
      crypto.getRandomValues(pool)
      drawn = 0
    }
    const codes = bytes === 16 ? TRACE_CODES : SPAN_CODES
    let zero = true
    for (let i = 0; i < bytes; i++) {
      const byte = pool[drawn + i] as number
      if (byte !== 0) zero = false
      codes[2 * i] = HEX_CODES[byte >> 4] as number
      codes[2 * i + 1] = HEX_CODES[byte & 15] as number
    }
    drawn += bytes
    if (!zero) return String.fromCharCode.apply(null, codes)
  }
}
