/**
 * Result budgets (docs/results.md), the pure half: how big a tool result is, whether it fits its
 * budget, what is stored when it does not, and the preview a client receives instead. Called by
 * `spill.ts`; it does no I/O and decides nothing about where results are stored.
 */
import type { CallToolResult, ContentBlock } from '../../protocol/types.ts'
import { byteLength, fitsIn } from '../tasks/limits.ts'

/**
 * The default budget of a tool result, in UTF-8 bytes of its content and structured content.
 * Claude Code refuses results over 25,000 tokens (its documented `MAX_MCP_OUTPUT_TOKENS`), which
 * is about 75 KB of dense text (code, JSON) at 3 bytes a token; other hosts truncate silently
 * at similar sizes. 64 KiB stays under those, and is small enough to hold per request.
 */
export const DEFAULT_MAX_RESULT_BYTES = 64 * 1024
/** What the notice and the link of a preview take, kept free of preview text. */
const PREVIEW_RESERVE_BYTES = 1024

/** What is stored of a result over its budget: its text, or (other content) the result as JSON. */
export interface SpilledBody {
  text: string
  mimeType: 'text/plain' | 'application/json'
}

/**
 * UTF-8 length of `text`, counted without encoding it (a 2 MiB result is not copied to be
 * measured); stops counting once past `stopAfter`.
 */
export function utf8Bytes(text: string, stopAfter = Number.POSITIVE_INFINITY): number {
  let bytes = 0
  for (let i = 0; i < text.length && bytes <= stopAfter; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
      bytes += next >= 0xdc00 && next <= 0xdfff ? 4 : 3
    } else bytes += 3
  }
  return bytes
}

/**
 * Blocks a host shows as media, not as text in the model's context: images, audio and links. They
 * do not count against the budget and reach the client as they are, in a preview too (stored as
 * text, an image would reach the model as base64).
 */
export const isMedia = (block: ContentBlock): boolean =>
  block.type === 'image' || block.type === 'audio' || block.type === 'resource_link'

/** The size a host sees of `result` as text: text as UTF-8, embedded resources and structured content as JSON. */
export function resultBytes(result: CallToolResult, stopAfter = Number.POSITIVE_INFINITY): number {
  let total = result.structuredContent === undefined ? 0 : byteLength(JSON.stringify(result.structuredContent))
  for (const block of result.content) {
    if (total > stopAfter) break
    if (isMedia(block)) continue
    total += block.type === 'text' ? utf8Bytes(block.text, stopAfter - total) : byteLength(JSON.stringify(block))
  }
  return total
}

/** Whether `result` fits `budget` bytes, without encoding when its length alone decides. */
export function fitsBudget(result: CallToolResult, budget: number): boolean {
  if (!Number.isFinite(budget)) return true
  let chars = 0
  for (const block of result.content) chars += block.type === 'text' ? block.text.length : isMedia(block) ? 0 : budget
  if (result.structuredContent === undefined && chars * 3 <= budget) return true
  return resultBytes(result, budget) <= budget
}

/** The body to store: plain text when every block is text, the whole result as JSON otherwise. */
export function spilledBody(result: CallToolResult): SpilledBody {
  const allText = result.content.every((block) => block.type === 'text')
  if (allText && result.structuredContent === undefined) {
    return { text: result.content.map((block) => (block as { text: string }).text).join('\n'), mimeType: 'text/plain' }
  }
  const { content, structuredContent } = result
  return {
    text: JSON.stringify({ content, ...(structuredContent === undefined ? {} : { structuredContent }) }),
    mimeType: 'application/json',
  }
}

/** The longest prefix of `text` that takes at most `bytes` UTF-8 bytes, never splitting a surrogate pair. */
export function prefixWithin(text: string, bytes: number): string {
  if (fitsIn(text, bytes)) return text
  let low = 0
  let high = Math.min(text.length, bytes)
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    if (fitsIn(text.slice(0, mid), bytes)) low = mid
    else high = mid - 1
  }
  return text.slice(0, safeEnd(text, low))
}

/** `end`, or one less when a cut at `end` would split a surrogate pair of `text`. */
export function safeEnd(text: string, end: number): number {
  const last = text.charCodeAt(end - 1)
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end
}

/** Where the stored result is and what it holds, for the preview's notice and link. */
export interface SpillLink {
  uri: string
  bytes: number
  mimeType: string
  expiresAt: number
}

/**
 * The result a client receives for one over its budget: the first text up to the budget, the
 * structured content when it fits in half of it, a notice, and a `resource_link` to the whole.
 * Without a link (the result was over the store's cap) the notice says it was not kept.
 */
export function previewResult(
  result: CallToolResult,
  budget: number,
  link: SpillLink | undefined,
  totalBytes: number,
  structuredRequired = false,
): CallToolResult {
  const structured = result.structuredContent
  // A tool with an output schema MUST give its structured content (server/tools): it always stays.
  const keepStructured = structured !== undefined && (structuredRequired || fitsIn(JSON.stringify(structured), budget / 2))
  const room = Math.max(0, budget - PREVIEW_RESERVE_BYTES - (keepStructured ? byteLength(JSON.stringify(structured)) : 0))
  const text = result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
  const preview = prefixWithin(text, room)
  const content: ContentBlock[] = [
    { type: 'text', text: `${preview}\n\n${notice(preview, totalBytes, link)}` },
    ...result.content.filter(isMedia),
  ]
  if (link) {
    content.push({
      type: 'resource_link',
      uri: link.uri,
      name: 'full-result',
      title: 'The full result',
      mimeType: link.mimeType,
      size: link.bytes,
      description: `The whole result (${link.bytes} bytes); read it with resources/read, page by page, until ${new Date(link.expiresAt).toISOString()}`,
    })
  }
  const shaped: CallToolResult = { ...result, content }
  if (!keepStructured) delete shaped.structuredContent
  return shaped
}

function notice(preview: string, totalBytes: number, link: SpillLink | undefined): string {
  const shown = `[Result truncated: showing the first ${byteLength(preview)} of ${totalBytes} bytes.`
  if (!link) return `${shown} The full result was too large to store and was not kept.]`
  return `${shown} The full result is at ${link.uri} (resources/read; follow _meta "mcp-edge/nextUri" for the next page) until ${new Date(link.expiresAt).toISOString()}.]`
}
