/**
 * The write side of a task's partial-result log: items are buffered and written in batches (up
 * to LOG_BATCH_SIZE rows, or after LOG_FLUSH_MS), so a chatty tool costs few storage writes. The
 * task engine flushes before every read, with every completed step and before the task settles,
 * so readers never miss an item that was emitted before they asked. Items reach live watchers
 * only after they are stored (the `write` callback does both), so a seq a reader saw is one the
 * log keeps.
 */
import { countEmitted, emptyStats } from '../outbox.ts'
import type { OutboxStats } from '../outbox.ts'
import type { LogItem } from './store.ts'

export const LOG_BATCH_SIZE = 64
export const LOG_FLUSH_MS = 20

/** A log item waiting to be written, with its params for the live watchers. */
export interface PendingLogItem extends LogItem {
  params: Record<string, unknown>
}

export class TaskLog {
  readonly #write: (items: PendingLogItem[]) => void
  readonly #onError: (error: unknown) => void
  readonly #buffer: PendingLogItem[] = []
  #timer: ReturnType<typeof setTimeout> | undefined
  readonly stats: OutboxStats = emptyStats()

  /** `write` stores one batch, in order, and may throw; a timed flush reports that to `onError`. */
  constructor(write: (items: PendingLogItem[]) => void, onError: (error: unknown) => void) {
    this.#write = write
    this.#onError = onError
  }

  append(item: PendingLogItem): void {
    countEmitted(this.stats, item.json.length)
    this.stats.sent++
    this.#buffer.push(item)
    if (this.#buffer.length >= LOG_BATCH_SIZE) this.flush()
    else
      this.#timer ??= setTimeout(() => {
        try {
          this.flush()
        } catch (error) {
          this.#onError(error)
        }
      }, LOG_FLUSH_MS)
  }

  /** Write what is buffered. If the write throws, the batch is gone (it was never stored). */
  flush(): void {
    const items = this.take()
    if (items.length > 0) this.#write(items)
  }

  /** Take what is buffered, to write it together with something else. */
  take(): PendingLogItem[] {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    return this.#buffer.splice(0)
  }
}
