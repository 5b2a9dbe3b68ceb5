/**
 * A partial result as the outbox holds, counts and sends it: the chunk, the stream's stats, and the
 * wire shape of `notifications/tools/partial_result` (SEP-2998 §2) built as text from its parts,
 * with the size a chunk counts against a stream's budget and the merge of two plain-text chunks.
 * Split from outbox.ts, whose queue uses them; outbox.ts re-exports what other modules import.
 */
import { NOTIFICATION } from '../protocol/constants.ts'
import type { ContentBlock } from '../protocol/types.ts'

export interface PartialChunk {
  content: ContentBlock[]
  structuredContent?: unknown
  final?: boolean
}

export interface OutboxStats {
  /** Partial chunks handed to `pushPartial`. */
  emitted: number
  /** Their size: text and data characters of their content, JSON of the rest (`chunkBytes`). */
  emittedBytes: number
  /** The longest time between two emitted chunks, in ms (on Workers the clock moves on I/O). */
  maxGapMs: number
  /** When the last chunk was emitted (`Date.now()`), 0 before the first. */
  lastEmittedAt: number
  /** Partial-result notifications sent to the reader. */
  sent: number
  /** Chunks merged into a pending chunk (they share its seq). */
  coalesced: number
  /** Partial-result notifications dropped unsent, each with its own seq (the receiver sees the gap). */
  dropped: number
  /** Droppable log and listen messages dropped unsent. */
  droppedMessages: number
  bufferedBytes: number
  peakBufferedBytes: number
}

/** Stats of a stream that carried nothing. */
export function emptyStats(): OutboxStats {
  return {
    emitted: 0,
    emittedBytes: 0,
    maxGapMs: 0,
    lastEmittedAt: 0,
    sent: 0,
    coalesced: 0,
    dropped: 0,
    droppedMessages: 0,
    bufferedBytes: 0,
    peakBufferedBytes: 0,
  }
}

/** Count one emitted chunk of `bytes`: its number, size and the time since the one before. */
export function countEmitted(stats: OutboxStats, bytes: number): void {
  const now = Date.now()
  if (stats.emitted > 0) stats.maxGapMs = Math.max(stats.maxGapMs, now - stats.lastEmittedAt)
  stats.lastEmittedAt = now
  stats.emitted++
  stats.emittedBytes += bytes
}

/** Build the params of `notifications/tools/partial_result` (SEP-2998 §2). */
export function partialParams(
  token: string | number,
  seq: number,
  chunk: PartialChunk,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const params: Record<string, unknown> = { partialResultToken: token, seq, content: chunk.content, ...extra }
  if (chunk.structuredContent !== undefined) params.structuredContent = chunk.structuredContent
  if (chunk.final !== undefined) params.final = chunk.final
  return params
}

/**
 * The JSON of `notifications/tools/partial_result` up to its seq's value, for `token`. With
 * `partialJson`, the same text as `JSON.stringify(notification(…, partialParams(…)))`.
 */
export function partialPrefix(token: string | number): string {
  return `{"jsonrpc":"2.0","method":${JSON.stringify(NOTIFICATION.partialResult)},"params":{"partialResultToken":${JSON.stringify(token)},"seq":`
}

/** A partial result's notification as JSON text: its token's prefix, then seq, content, structured content, final. */
export function partialJson(prefix: string, seq: number, chunk: PartialChunk, structured: string | undefined): string {
  let json = `${prefix}${seq},"content":${JSON.stringify(chunk.content)}`
  // A value JSON cannot hold (a function) serialises to undefined: left out, as JSON.stringify leaves such a key.
  if (structured !== undefined) json += `,"structuredContent":${structured}`
  const final = chunk.final === undefined ? undefined : JSON.stringify(chunk.final)
  if (final !== undefined) json += `,"final":${final}`
  return `${json}}}`
}

/** A chunk's size for the budget and the stats: text and data characters, JSON of the rest (`structured` given). */
export function chunkBytes(chunk: PartialChunk, structured: string | undefined): number {
  let total = structured === undefined ? 0 : structured.length
  for (const block of chunk.content) {
    if (block.type === 'text') total += block.text.length
    else if (block.type === 'image' || block.type === 'audio') total += block.data.length
    else total += JSON.stringify(block).length
  }
  return total
}

/** Merge two text-only chunks without structured content into one, or `undefined`. */
export function mergeText(a: PartialChunk, b: PartialChunk): PartialChunk | undefined {
  const plainText = (chunk: PartialChunk) =>
    chunk.structuredContent === undefined &&
    chunk.content.length === 1 &&
    chunk.content[0]?.type === 'text' &&
    chunk.content[0].annotations === undefined &&
    chunk.content[0]._meta === undefined
  if (!plainText(a) || a.final === true || !plainText(b)) return undefined
  const text = `${(a.content[0] as { text: string }).text}${(b.content[0] as { text: string }).text}`
  return b.final === undefined ? { content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }], final: b.final }
}
