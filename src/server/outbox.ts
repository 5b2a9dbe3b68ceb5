/**
 * The bounded queue between a running handler and its response stream. The handler pushes
 * notifications (progress, log, partial results) synchronously; the transport pulls them at the
 * reader's pace. A slow or stalled reader never grows memory without bound:
 *
 * - past `maxQueuedChunks` pending entries, progress for a token keeps only the newest pending
 *   value (progress only increases);
 * - past `maxQueuedChunks` pending partials, a text-only chunk merges into the pending text chunk
 *   before it (SEP-2998: hosts MAY coalesce; delivery is best-effort);
 * - past `maxBufferedBytes`, the oldest pending partial or log messages are dropped, and counted
 *   (one message larger than the whole budget still goes out, alone).
 *
 * Partial results get their `seq` when they leave the queue, so `seq` rises by one per chunk
 * actually sent, whatever was merged or dropped on the way. Once closed (the reader went away),
 * pushes are dropped quietly.
 */
import { NOTIFICATION } from '../protocol/constants.ts'
import { notification } from '../protocol/jsonrpc.ts'
import type { JsonRpcNotification, JsonRpcOutgoingRequest, JsonRpcResponse } from '../protocol/jsonrpc.ts'
import type { ContentBlock } from '../protocol/types.ts'

export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024
export const DEFAULT_MAX_QUEUED_CHUNKS = 256
/** Rough JSON-RPC envelope size of one notification, for accounting. */
const ENVELOPE_BYTES = 96

export interface OutboxOptions {
  /** Upper bound on bytes held for the reader (default 1 MiB). */
  maxBufferedBytes?: number
  /** Pending partial chunks before adjacent text chunks are merged (default 256). */
  maxQueuedChunks?: number
}

export interface PartialChunk {
  content: ContentBlock[]
  structuredContent?: unknown
  final?: boolean
}

export interface OutboxStats {
  /** Partial chunks handed to `pushPartial`. */
  emitted: number
  /** Partial chunks sent to the reader (what `seq` counts). */
  sent: number
  coalesced: number
  dropped: number
  bufferedBytes: number
  peakBufferedBytes: number
}

/**
 * What a stream carries before its response: notifications, 2025-era server-to-client requests,
 * and the responses of a 2025-03-26 batch's requests as each is done.
 */
export type StreamMessage = JsonRpcNotification | JsonRpcOutgoingRequest | JsonRpcResponse

type Entry =
  | { kind: 'message'; message: StreamMessage; bytes: number; droppable: boolean; progressToken?: unknown }
  | { kind: 'partial'; token: string | number; extra: Record<string, unknown>; chunk: PartialChunk; bytes: number }

export class Outbox {
  readonly #maxBytes: number
  readonly #maxChunks: number
  readonly #queue: Entry[] = []
  readonly #seq = new Map<string | number, number>()
  #partials = 0
  #closed = false
  #wake: (() => void) | undefined
  #drained: (() => void) | undefined
  #first: (() => void) | undefined
  readonly stats: OutboxStats = { emitted: 0, sent: 0, coalesced: 0, dropped: 0, bufferedBytes: 0, peakBufferedBytes: 0 }
  /** Resolves (with nothing) when the first message is pushed: the moment a transport must open its stream. */
  readonly firstMessage: Promise<undefined>

  constructor(options: OutboxOptions = {}) {
    this.#maxBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES
    this.#maxChunks = options.maxQueuedChunks ?? DEFAULT_MAX_QUEUED_CHUNKS
    this.firstMessage = new Promise((resolve) => {
      this.#first = () => resolve(undefined)
    })
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Queue a message. Progress replaces a pending progress of the same token. */
  push(message: StreamMessage, options: { droppable?: boolean } = {}): void {
    if (this.#closed) return
    const body = 'method' in message ? message.params : 'result' in message ? message.result : message.error
    const bytes = ENVELOPE_BYTES + JSON.stringify(body ?? {}).length
    const progressToken =
      'method' in message && message.method === NOTIFICATION.progress
        ? (message.params as { progressToken?: unknown }).progressToken
        : undefined
    // Under pressure only: a newer progress value replaces a pending one, so order is kept
    // whenever the reader keeps up.
    if (progressToken !== undefined && this.#queue.length >= this.#maxChunks) {
      const index = this.#queue.findIndex((entry) => entry.kind === 'message' && entry.progressToken === progressToken)
      if (index >= 0) this.#remove(index)
    }
    this.#add({ kind: 'message', message, bytes, droppable: options.droppable ?? false, progressToken })
  }

  /**
   * Queue a partial result for `token`. `extra` goes into the notification params as is
   * (`taskId` in task mode).
   */
  pushPartial(token: string | number, chunk: PartialChunk, extra: Record<string, unknown> = {}): void {
    if (this.#closed) return
    this.stats.emitted++
    const structured = chunk.structuredContent === undefined ? 0 : JSON.stringify(chunk.structuredContent).length
    const bytes = ENVELOPE_BYTES + contentBytes(chunk.content) + structured
    const last = this.#queue.at(-1)
    // Merge only while the merged chunk stays small, so merging can never beat the byte budget.
    const small = last !== undefined && last.bytes + bytes - ENVELOPE_BYTES <= this.#maxBytes / 4
    if (this.#partials >= this.#maxChunks && small && last?.kind === 'partial' && last.token === token) {
      const merged = mergeText(last.chunk, chunk)
      if (merged) {
        this.stats.bufferedBytes -= last.bytes
        last.chunk = merged
        last.bytes += bytes - ENVELOPE_BYTES
        this.stats.bufferedBytes += last.bytes
        this.stats.coalesced++
        this.#trim()
        this.#track()
        return
      }
    }
    this.#add({ kind: 'partial', token, extra, chunk, bytes })
  }

  /** Resolves once the queue holds less than half its byte budget: lossless backpressure. */
  ready(): Promise<void> {
    if (this.#closed || this.stats.bufferedBytes < this.#maxBytes / 2) return Promise.resolve()
    return new Promise((resolve) => {
      const previous = this.#drained
      this.#drained = () => {
        previous?.()
        resolve()
      }
    })
  }

  /** The next message for the reader, or `undefined` once closed and empty. */
  async next(): Promise<StreamMessage | undefined> {
    while (this.#queue.length === 0) {
      if (this.#closed) return undefined
      await new Promise<void>((resolve) => {
        this.#wake = resolve
      })
    }
    return this.#take()
  }

  /** Like `next`, but gives up after `ms` (for keepalives) and returns `null`. */
  nextWithin(ms: number): Promise<StreamMessage | undefined | null> {
    if (this.#queue.length > 0 || this.#closed) return this.next()
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#wake = undefined
        resolve(null)
      }, ms)
      this.#wake = () => {
        clearTimeout(timer)
        resolve(this.#queue.length > 0 ? this.#take() : undefined)
      }
    })
  }

  /** Take everything queued now, without waiting. */
  drain(): StreamMessage[] {
    const out: StreamMessage[] = []
    while (this.#queue.length > 0) out.push(this.#take())
    return out
  }

  /** No more pushes will be accepted; pending messages can still be taken. */
  close(): void {
    this.#closed = true
    this.#wakeReader()
    this.#release()
  }

  /** Close and forget everything pending (the reader is gone). */
  discard(): void {
    this.#queue.length = 0
    this.#partials = 0
    this.stats.bufferedBytes = 0
    this.close()
  }

  #add(entry: Entry): void {
    this.#queue.push(entry)
    if (entry.kind === 'partial') this.#partials++
    this.stats.bufferedBytes += entry.bytes
    this.#trim()
    this.#track()
    this.#first?.()
    this.#first = undefined
    this.#wakeReader()
  }

  #take(): StreamMessage {
    const entry = this.#queue.shift() as Entry
    this.stats.bufferedBytes -= entry.bytes
    if (this.stats.bufferedBytes < this.#maxBytes / 2) this.#release()
    if (entry.kind === 'message') return entry.message
    this.#partials--
    const seq = this.#seq.get(entry.token) ?? 0
    this.#seq.set(entry.token, seq + 1)
    this.stats.sent++
    return notification(NOTIFICATION.partialResult, partialParams(entry.token, seq, entry.chunk, entry.extra))
  }

  /** Over budget: drop the oldest droppable entries (partials, logs), never the newest one. */
  #trim(): void {
    let index = 0
    while (this.stats.bufferedBytes > this.#maxBytes && index < this.#queue.length - 1) {
      const entry = this.#queue[index] as Entry
      if (entry.kind === 'partial' || entry.droppable) {
        this.#remove(index)
        this.stats.dropped++
      } else index++
    }
  }

  #remove(index: number): void {
    const [entry] = this.#queue.splice(index, 1)
    if (!entry) return
    this.stats.bufferedBytes -= entry.bytes
    if (entry.kind === 'partial') this.#partials--
  }

  #track(): void {
    if (this.stats.bufferedBytes > this.stats.peakBufferedBytes) this.stats.peakBufferedBytes = this.stats.bufferedBytes
  }

  #wakeReader(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  #release(): void {
    const drained = this.#drained
    this.#drained = undefined
    drained?.()
  }
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

function contentBytes(content: readonly ContentBlock[]): number {
  let total = 0
  for (const block of content) {
    if (block.type === 'text') total += block.text.length
    else if (block.type === 'image' || block.type === 'audio') total += block.data.length
    else total += JSON.stringify(block).length
  }
  return total
}

/** Merge two text-only chunks without structured content into one, or `undefined`. */
function mergeText(a: PartialChunk, b: PartialChunk): PartialChunk | undefined {
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
