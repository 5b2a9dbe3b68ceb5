/**
 * Moving a listener's notifications to its listen stream, on the listen request's own time
 * (Workers forbid one request from writing to another's response). Events reach the listener's
 * bounded inbox one of two ways, and the relay moves them on:
 *
 * - in-isolate delivery: other requests fill the inbox, so the relay looks every `LISTEN_POLL_MS`;
 * - event hub: events arrive on the listener's own hub connection, inside this request, and move
 *   at once. No timer runs while the reader keeps up, so an idle listener costs nothing.
 *
 * Either way the stream holds at most `LISTEN_BUFFER_BYTES`; past that, events wait in the inbox
 * (where old ones give way to new ones) and a timer retries until the reader has caught up.
 */
import type { McpEvent } from './events.ts'
import { LISTEN_POLL_MS } from './listen-hub.ts'
import type { Listener } from './listen-hub.ts'
import type { Outbox } from '../outbox.ts'

/** What a listen stream's outbox may hold before events wait in the (bounded) inbox. */
export const LISTEN_BUFFER_BYTES = 16 * 1024

export class Relay {
  readonly #listener: Listener
  readonly #outbox: Outbox
  readonly #poll: boolean
  #open = false
  #timer: ReturnType<typeof setTimeout> | undefined
  #end: (() => void) | undefined
  #drained: Array<(room: boolean) => void> = []
  #ended = false

  /** `poll`: other requests fill the inbox (in-isolate delivery), so look at it on a timer. */
  constructor(listener: Listener, outbox: Outbox, poll: boolean) {
    this.#listener = listener
    this.#outbox = outbox
    this.#poll = poll
  }

  /**
   * An event from the hub (runs in the listen request), with its id in the hub's log, or a re-read
   * `hint` (listen-hub.ts). Before `run`, it waits in the inbox.
   */
  deliver(event: McpEvent, id?: string, hint?: boolean): void {
    this.#listener.offer(event, id, hint)
    this.#flush()
  }

  /**
   * A hub's `pace`: resolves `true` once the inbox is empty (everything moved to the stream), or
   * `false` once the relay ended (no more batches wanted: the hub connects no more).
   */
  drained(): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.#ended) return resolve(false)
      this.#drained.push(resolve)
      this.#flush()
    })
  }

  /**
   * Send what waited (the acknowledgement is out), then relay until the end, the client or the hub
   * goes, or the listener lags (listen-hub.ts: it resumes from its last id).
   */
  async run(signal: AbortSignal, endAt: number, hubClosed: Promise<void> | undefined): Promise<void> {
    this.#open = true
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, endAt - Date.now()))
        const done = () => {
          clearTimeout(timer)
          resolve()
        }
        this.#end = done
        if (signal.aborted) done()
        signal.addEventListener('abort', done, { once: true })
        hubClosed?.then(done)
        this.#flush()
      })
    } finally {
      this.#open = false
      this.#ended = true
      if (this.#timer !== undefined) clearTimeout(this.#timer)
      this.#wake()
    }
  }

  #flush(): void {
    if (!this.#open) return
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    const listener = this.#listener
    while (listener.pending > 0 && this.#outbox.stats.bufferedBytes < LISTEN_BUFFER_BYTES) {
      // What has an id (or is a hint) is never dropped by the outbox: a later id would hide its loss.
      for (const { message, kept } of listener.takeKept(1)) this.#outbox.push(message, { droppable: !kept })
    }
    if (listener.pending === 0) this.#wake()
    if (listener.lagging && listener.pending === 0) {
      this.#end?.()
      return
    }
    if (this.#poll || listener.pending > 0) this.#timer = setTimeout(() => this.#flush(), LISTEN_POLL_MS)
  }

  #wake(): void {
    const waiting = this.#drained
    this.#drained = []
    for (const resolve of waiting) resolve(!this.#ended)
  }
}
