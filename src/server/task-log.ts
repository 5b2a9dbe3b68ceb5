/**
 * The write side of a task's partial-result log: items are buffered and written in batches (up
 * to LOG_BATCH_SIZE rows, or after LOG_FLUSH_MS), so a chatty tool costs few storage writes. The
 * task engine flushes before every read and before the task settles, so readers never miss an
 * item that was emitted before they asked.
 */
import type { OutboxStats } from './outbox.ts'

export const LOG_BATCH_SIZE = 64
export const LOG_FLUSH_MS = 20

export interface LogItem {
  seq: number
  params: Record<string, unknown>
}

export class TaskLog {
  readonly #write: (items: LogItem[]) => void
  readonly #buffer: LogItem[] = []
  #timer: ReturnType<typeof setTimeout> | undefined
  readonly stats: OutboxStats = { emitted: 0, sent: 0, coalesced: 0, dropped: 0, bufferedBytes: 0, peakBufferedBytes: 0 }

  /** `write` stores one batch, in order. */
  constructor(write: (items: LogItem[]) => void) {
    this.#write = write
  }

  append(item: LogItem): void {
    this.stats.emitted++
    this.stats.sent++
    this.#buffer.push(item)
    if (this.#buffer.length >= LOG_BATCH_SIZE) this.flush()
    else this.#timer ??= setTimeout(() => this.flush(), LOG_FLUSH_MS)
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#buffer.length > 0) this.#write(this.#buffer.splice(0))
  }
}
