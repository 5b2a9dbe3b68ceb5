/**
 * What a span records of a message's content, only where the server opted in (`record`): tool
 * arguments and results, prompt arguments, each passed through `redact`, serialized and capped to
 * `maxBytes` of UTF-8. Called by the observer's span (request-span.ts); nothing here runs unless
 * `record` asks for it.
 */
import { ATTR } from './conventions.ts'
import type { Attributes } from './tracer.ts'

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

const DEFAULT_MAX_BYTES = 1024
const TRUNCATED = '…[truncated]'

/** The message's opted-in inputs, added to its span's first attributes. */
export function recordInputs(
  attributes: Attributes,
  method: string,
  params: Record<string, unknown>,
  record: RecordOptions,
): void {
  if (method === 'tools/call' && record.toolArguments)
    attributes[ATTR.toolArguments] = recorded('toolArguments', params.arguments ?? {}, record)
  if (method === 'prompts/get' && record.promptArguments)
    attributes[ATTR.promptArguments] = recorded('promptArguments', params.arguments ?? {}, record)
}

/** One opted-in value as an attribute: redacted, serialized, capped. */
export function recorded(
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
