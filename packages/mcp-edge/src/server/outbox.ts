/**
 * The bounded queue between a running handler and its response stream. The handler pushes
 * notifications (progress, log, partial results); the transport pulls them at the reader's pace.
 * A slow or stalled reader never grows memory without bound, and a polite producer loses nothing:
 *
 * - Backpressure first. `pushPartial` returns a promise that resolves once the queue has room
 *   (under half its byte budget and under `maxQueuedChunks` entries). A producer that awaits it
 *   never has a chunk merged or dropped: its chunk boundaries arrive as sent.
 * - A chunk pushed while the same token's previous wait is still pending comes from a producer
 *   that does not wait. Only such chunks are merged (a plain-text chunk joins the pending plain-text
 *   chunk of that producer before it; SEP-2998: hosts MAY coalesce) or dropped (past
 *   `maxBufferedBytes`, the oldest of them first, with droppable log messages and listen messages
 *   that carry no event id; delivery is best-effort). The newest message is never dropped, so one larger than the budget (a task's
 *   result on a listen stream) still goes out, and a waiting reader takes a message as it is pushed.
 * - `seq` is assigned when a chunk enters the queue. A merged chunk shares the seq of the chunk it
 *   joined, since nothing of it is missing; a dropped chunk takes its seq with it, so the receiver
 *   sees the gap (SEP-2998 §2: seq lets receivers detect dropped chunks).
 * - Progress under pressure keeps only the newest pending value of a token (progress only rises).
 * - A partial result leaves as JSON text built from its parts (a prefix per token, the seq, the
 *   content, the structured content serialised once for its size): a long stream of small chunks
 *   is mostly this per-chunk work, so no params object and no second serialisation. A waiting
 *   producer's chunk is serialised at the push (it is sent as it was then, and the queue holds
 *   text, not the tool's objects); a chunk that may still be merged, when it is taken.
 *
 * - Any other message is serialised once, at the push: its JSON's length is what it counts against
 *   the budget (since 2026-12-05; before, a fixed 96-byte envelope plus its params' JSON), and a
 *   transport sends that text (`nextText`, `pollText`), as it was then. The queue keeps the text
 *   and the SSE id only, not the message's objects.
 *
 * Once closed (the reader went away), pushes are dropped quietly.
 *
 * Past 300 lines on purpose: the queue, its accounting (bytes, seq, waits) and its drop and merge
 * rules hold one invariant together (bytes within the budget, no seq lost unseen), and read best
 * side by side. The partial result's wire shape, sizes and stats are in partial-chunk.ts.
 */
import { NOTIFICATION } from '../protocol/constants.ts'
import type { JsonRpcNotification, JsonRpcOutgoingRequest, JsonRpcResponse } from '../protocol/jsonrpc.ts'
import { SSE_ID } from './events/event-log.ts'
import { chunkBytes, countEmitted, emptyStats, mergeText, partialJson, partialPrefix } from './partial-chunk.ts'
import type { OutboxStats, PartialChunk } from './partial-chunk.ts'

export { countEmitted, emptyStats, partialParams } from './partial-chunk.ts'
export type { OutboxStats, PartialChunk } from './partial-chunk.ts'

export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024
export const DEFAULT_MAX_QUEUED_CHUNKS = 256
/** Rough JSON-RPC envelope size of one notification, for accounting. */
const ENVELOPE_BYTES = 96
const RESOLVED = Promise.resolve()

export interface OutboxOptions {
  /** Upper bound on bytes held for the reader (default 1 MiB); waiting producers are held at half of it. */
  maxBufferedBytes?: number
  /** Pending messages at which producers wait for room (default 256). */
  maxQueuedChunks?: number
}

/**
 * What a stream carries before its response: notifications, 2025-era server-to-client requests,
 * and the responses of a 2025-03-26 batch's requests as each is done.
 */
export type StreamMessage = JsonRpcNotification | JsonRpcOutgoingRequest | JsonRpcResponse

/** What a transport takes (`nextText`, `pollText`): an item's JSON text, and its SSE id when it has one (`SSE_ID`). */
export interface OutboxText {
  json: string
  id?: string
}

type Entry =
  | { kind: 'message'; json: string; id: string | undefined; bytes: number; droppable: boolean; progressToken?: unknown }
  /** A chunk of a producer that waits: its notification's JSON, made at the push; never merged or dropped. */
  | { kind: 'chunk'; json: string; bytes: number; droppable: false }
  /** A chunk pushed while its producer's previous wait was pending: kept as is, to be merged into or dropped. */
  | {
      kind: 'partial'
      producer: Producer
      seq: number
      chunk: PartialChunk
      /** `chunk.structuredContent` as JSON (serialised once, at the push, for its size). */
      structured: string | undefined
      bytes: number
      droppable: true
    }

/** Per token: the next seq, the wait its producer was given while the queue was full, its JSON prefix. */
interface Producer {
  seq: number
  wait: Promise<void> | undefined
  /** The notification's JSON up to the seq's value: the same for every chunk of the token. */
  prefix: string
}

export class Outbox {
  readonly #maxBytes: number
  readonly #maxChunks: number
  readonly #queue: Entry[] = []
  /** Per token of partial results; made at the first one (most requests stream nothing). */
  #producers: Map<string | number, Producer> | undefined
  #waiters: (() => void)[] = []
  #closed = false
  /** The waiting reader (`#next`): resolved by the push that gives it a message, or by its timeout. */
  #reader: ((item: OutboxText | undefined | null) => void) | undefined
  #first: (() => void) | undefined
  /** The waiting reader's timeout (`nextText`): one timer kept across waits, see `#arm`. */
  #timer: ReturnType<typeof setTimeout> | undefined
  #deadline = 0
  /** Whether the waiting reader's wait has a deadline (`nextText(ms)`). */
  #timed = false
  readonly stats: OutboxStats = emptyStats()

  /** `onFirstMessage` runs at the first push: the moment a transport must open its stream. */
  constructor(options: OutboxOptions = {}, onFirstMessage?: () => void) {
    this.#maxBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES
    this.#maxChunks = options.maxQueuedChunks ?? DEFAULT_MAX_QUEUED_CHUNKS
    this.#first = onFirstMessage
  }

  get closed(): boolean {
    return this.#closed
  }

  /** Queue a message. Under pressure, progress replaces a pending progress of the same token. */
  push(message: StreamMessage, options: { droppable?: boolean } = {}): void {
    if (this.#closed) return
    // Serialised once, here: its size for the budget, and the text the reader sends (`nextText`).
    const json = JSON.stringify(message)
    const bytes = json.length
    const progressToken =
      'method' in message && message.method === NOTIFICATION.progress
        ? (message.params as { progressToken?: unknown }).progressToken
        : undefined
    // Only under pressure, so every value goes out, in order, whenever the reader keeps up.
    if (progressToken !== undefined && this.#queue.length >= this.#maxChunks) {
      const index = this.#queue.findIndex((entry) => entry.kind === 'message' && entry.progressToken === progressToken)
      if (index >= 0) this.#remove(index)
    }
    const id = (message as { [SSE_ID]?: string })[SSE_ID]
    this.#add({ kind: 'message', json, id, bytes, droppable: options.droppable ?? false, progressToken })
  }

  /**
   * Queue a partial result for `token`. Resolves once the queue has room: await it and nothing is
   * merged or dropped.
   */
  pushPartial(token: string | number, chunk: PartialChunk): Promise<void> {
    if (this.#closed) return RESOLVED
    const producer = this.#producer(token)
    const structured = chunk.structuredContent === undefined ? undefined : JSON.stringify(chunk.structuredContent)
    // No wait pending: the chunk is serialised now, so one JSON cannot hold (a BigInt) throws to the
    // tool here, before it is counted or takes a seq.
    const json = producer.wait === undefined ? partialJson(producer.prefix, producer.seq, chunk, structured) : undefined
    const size = chunkBytes(chunk, structured)
    countEmitted(this.stats, size)
    const bytes = ENVELOPE_BYTES + size
    if (json !== undefined) {
      producer.seq++
      this.#add({ kind: 'chunk', json, bytes, droppable: false })
    } else if (!this.#merge(producer, chunk, bytes)) {
      this.#add({ kind: 'partial', producer, seq: producer.seq++, chunk, structured, bytes, droppable: true })
    }
    if (!this.#full()) return RESOLVED
    producer.wait ??= new Promise<void>((resolve) => {
      const waiting = producer
      this.#waiters.push(() => {
        waiting.wait = undefined
        resolve()
      })
    })
    return producer.wait
  }

  /**
   * The next item for the reader as the JSON text made at the push (and its SSE id), so a
   * transport sends it without serialising it again; `undefined` once closed and empty; `null`
   * when `ms` is given and passes first (for keepalives).
   */
  nextText(ms?: number): Promise<OutboxText | undefined | null> {
    return this.#next(ms)
  }

  /**
   * A waiting reader takes its message inside the push that wakes it, so nothing pushed after it
   * in the same turn can drop it first. A wake with nothing queued (what woke it was dropped at
   * once) waits on.
   */
  #next(ms: number | undefined): Promise<OutboxText | undefined | null> {
    if (this.#queue.length > 0) return Promise.resolve(this.#take())
    if (this.#closed) return Promise.resolve(undefined)
    // The resolver is kept as it is, no closure per wait: a stream waits once per message.
    return new Promise((resolve) => {
      this.#reader = resolve
      this.#timed = ms !== undefined
      if (ms === undefined) return
      this.#deadline = Date.now() + ms
      if (this.#timer === undefined) this.#arm(ms)
    })
  }

  /**
   * The reader's timeout, armed once and kept when a message comes first: the next wait moves the
   * deadline, and a timer that fires early sets itself again for the rest. An SSE stream waits on
   * an empty outbox for nearly every message, and arming and clearing a timer each time was a
   * fifth of a listen stream's CPU per notification in workerd (bench/README.md, fan-out at scale).
   */
  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      const reader = this.#reader
      if (!reader || !this.#timed) return
      const left = this.#deadline - Date.now()
      if (left > 0) return this.#arm(left)
      this.#reader = undefined
      reader(null)
    }, ms)
  }

  /** The next item if one is queued now, without waiting, as `nextText` gives it. */
  pollText(): OutboxText | undefined {
    return this.#queue.length > 0 ? this.#take() : undefined
  }

  /** No more pushes will be accepted; pending messages can still be taken. */
  close(): void {
    this.#closed = true
    this.#wakeReader()
    this.#release()
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  /** Close and forget everything pending (the reader is gone). */
  discard(): void {
    this.#queue.length = 0
    this.stats.bufferedBytes = 0
    this.close()
  }

  #full(): boolean {
    return this.stats.bufferedBytes >= this.#maxBytes / 2 || this.#queue.length >= this.#maxChunks
  }

  /** The producer of `token`'s partial results, made at its first chunk (most requests stream nothing). */
  #producer(token: string | number): Producer {
    this.#producers ??= new Map()
    let producer = this.#producers.get(token)
    if (!producer) {
      producer = { seq: 0, wait: undefined, prefix: partialPrefix(token) }
      this.#producers.set(token, producer)
    }
    return producer
  }

  /** Merge a waiting-for-room producer's chunk into its pending chunk before it, if both are plain text. */
  #merge(producer: Producer, chunk: PartialChunk, bytes: number): boolean {
    const last = this.#queue.at(-1)
    if (last?.kind !== 'partial' || last.producer !== producer) return false
    // Only while the merged chunk stays small, so merging can never beat the byte budget.
    if (last.bytes + bytes - ENVELOPE_BYTES > this.#maxBytes / 4) return false
    const merged = mergeText(last.chunk, chunk)
    if (!merged) return false
    last.chunk = merged
    last.bytes += bytes - ENVELOPE_BYTES
    this.stats.bufferedBytes += bytes - ENVELOPE_BYTES
    this.stats.coalesced++
    this.#trim()
    this.#track()
    return true
  }

  #add(entry: Entry): void {
    this.#queue.push(entry)
    this.stats.bufferedBytes += entry.bytes
    this.#trim()
    this.#track()
    this.#first?.()
    this.#first = undefined
    this.#wakeReader()
  }

  #take(): OutboxText {
    const entry = this.#queue.shift() as Entry
    this.stats.bufferedBytes -= entry.bytes
    if (this.#waiters.length > 0 && !this.#full()) this.#release()
    if (entry.kind === 'message') return entry.id === undefined ? { json: entry.json } : { json: entry.json, id: entry.id }
    this.stats.sent++
    const json =
      entry.kind === 'chunk' ? entry.json : partialJson(entry.producer.prefix, entry.seq, entry.chunk, entry.structured)
    return { json }
  }

  /**
   * Over budget: drop the oldest droppable entries (chunks of producers that did not wait, logs,
   * listen notifications without an event id). The newest message stays, so one larger than the
   * budget (a task's result on a listen stream) still goes out; a dropped chunk leaves its seq as
   * the gap. A message with an SSE id (a 2025 GET stream's) is never dropped, nor one pushed as not
   * droppable (a listen stream's with an event id in `_meta`, or a re-read hint): a later id would
   * hide its loss from a client that resumes. What pushes those bounds them itself (the listen
   * relay pushes below its own mark, and a listener that falls behind ends its stream: listen-relay.ts).
   */
  #trim(): void {
    let index = 0
    const newest = this.#queue.at(-1)
    while (this.stats.bufferedBytes > this.#maxBytes && index < this.#queue.length) {
      const entry = this.#queue[index] as Entry
      if (!entry.droppable || (entry.kind === 'message' && (entry === newest || entry.id !== undefined))) {
        index++
        continue
      }
      this.#remove(index)
      if (entry.kind === 'partial') this.stats.dropped++
      else this.stats.droppedMessages++
    }
    // What was dropped may have made room for producers waiting on it.
    if (this.#waiters.length > 0 && !this.#full()) this.#release()
  }

  #remove(index: number): void {
    const [entry] = this.#queue.splice(index, 1)
    if (entry) this.stats.bufferedBytes -= entry.bytes
  }

  #track(): void {
    if (this.stats.bufferedBytes > this.stats.peakBufferedBytes) this.stats.peakBufferedBytes = this.stats.bufferedBytes
  }

  /** Give the waiting reader the next message, or the end once closed; a wake with nothing queued (what woke it was dropped at once) waits on. */
  #wakeReader(): void {
    const reader = this.#reader
    if (!reader || (this.#queue.length === 0 && !this.#closed)) return
    this.#reader = undefined
    reader(this.#queue.length > 0 ? this.#take() : undefined)
  }

  #release(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const resolve of waiters) resolve()
  }
}
