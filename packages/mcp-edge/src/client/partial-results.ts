/**
 * Client side of SEP-2998 partial tool results. `PartialResultReader` applies chunks in `seq`
 * order for one `partialResultToken`: it buffers out-of-order chunks, drops duplicates and chunks
 * of tokens it did not issue ("clients MUST ignore partial-result notifications carrying a token
 * they did not issue"), and reports gaps instead of waiting forever (delivery is best-effort).
 * `readToolCall` drives it over a `tools/call` response, JSON or SSE, and returns the final
 * response, which is the sole source of truth.
 */
import { readSse } from './sse.ts'

export interface PartialChunkEvent {
  type: 'partial'
  seq: number
  content: unknown[]
  structuredContent?: unknown
  final?: boolean
  taskId?: string
}

/** Chunks `from`..`to` (inclusive) never arrived. */
export interface GapEvent {
  type: 'gap'
  from: number
  to: number
}

/** Any other notification on the stream (progress, log). */
export interface NotificationEvent {
  type: 'notification'
  method: string
  params: Record<string, unknown>
}

export type ToolCallEvent = PartialChunkEvent | GapEvent | NotificationEvent

export interface PartialResultReaderOptions {
  /** Out-of-order chunks held before the missing ones are declared a gap (default 64). */
  maxBuffered?: number
}

export class PartialResultReader {
  readonly token: string | number
  readonly #maxBuffered: number
  readonly #pending = new Map<number, PartialChunkEvent>()
  #next = 0
  /** Chunks ignored: duplicates, stale ones and foreign tokens. */
  dropped = 0

  constructor(token: string | number, options: PartialResultReaderOptions = {}) {
    this.token = token
    this.#maxBuffered = options.maxBuffered ?? 64
  }

  /** The next `seq` expected. */
  get nextSeq(): number {
    return this.#next
  }

  /** Offer the params of a `notifications/tools/partial_result`; returns what can be applied now. */
  accept(params: Record<string, unknown>): Array<PartialChunkEvent | GapEvent> {
    const seq = params.seq
    if (params.partialResultToken !== this.token || !Number.isInteger(seq) || !Array.isArray(params.content)) {
      this.dropped++
      return []
    }
    if ((seq as number) < this.#next || this.#pending.has(seq as number)) {
      this.dropped++
      return []
    }
    const chunk: PartialChunkEvent = { type: 'partial', seq: seq as number, content: params.content }
    if (params.structuredContent !== undefined) chunk.structuredContent = params.structuredContent
    if (typeof params.final === 'boolean') chunk.final = params.final
    if (typeof params.taskId === 'string') chunk.taskId = params.taskId
    this.#pending.set(chunk.seq, chunk)
    const out: Array<PartialChunkEvent | GapEvent> = this.#release()
    if (this.#pending.size > this.#maxBuffered) out.push(...this.#skipGap(), ...this.#release())
    return out
  }

  /** The call ended: whatever is still buffered is applied, with the gaps before it reported. */
  finish(): Array<PartialChunkEvent | GapEvent> {
    const out: Array<PartialChunkEvent | GapEvent> = []
    while (this.#pending.size > 0) out.push(...this.#skipGap(), ...this.#release())
    return out
  }

  #release(): PartialChunkEvent[] {
    const out: PartialChunkEvent[] = []
    let chunk = this.#pending.get(this.#next)
    while (chunk) {
      this.#pending.delete(this.#next)
      out.push(chunk)
      this.#next++
      chunk = this.#pending.get(this.#next)
    }
    return out
  }

  #skipGap(): GapEvent[] {
    const lowest = Math.min(...this.#pending.keys())
    const gap: GapEvent = { type: 'gap', from: this.#next, to: lowest - 1 }
    this.#next = lowest
    return [gap]
  }
}

/**
 * Read a `tools/call` HTTP response. Yields partial chunks in order (and gaps, and other
 * notifications); returns the final JSON-RPC response message.
 *
 * @example
 * const call = readToolCall(response, { partialResultToken: 'prt-1' })
 * for (let step = await call.next(); !step.done; step = await call.next()) render(step.value)
 */
export async function* readToolCall(
  response: Response,
  options: { partialResultToken: string | number; requestId?: string | number } & PartialResultReaderOptions,
): AsyncGenerator<ToolCallEvent, Record<string, unknown> | undefined> {
  const type = response.headers.get('content-type') ?? ''
  if (!type.includes('text/event-stream')) return (await response.json()) as Record<string, unknown>
  if (!response.body) return undefined
  const reader = new PartialResultReader(options.partialResultToken, options)
  for await (const event of readSse(response.body)) {
    const message = JSON.parse(event.data) as Record<string, unknown>
    if (typeof message.method !== 'string') {
      if (options.requestId !== undefined && message.id !== options.requestId) continue
      yield* reader.finish()
      return message
    }
    const params = (message.params ?? {}) as Record<string, unknown>
    if (message.method === 'notifications/tools/partial_result') yield* reader.accept(params)
    else yield { type: 'notification', method: message.method, params }
  }
  yield* reader.finish()
  return undefined
}
