/**
 * An abort signal made on first use. Most calls never look at `ctx.signal`, and an
 * AbortController per request is a measurable share of a small call's CPU on Workers, so the
 * transport hands the handler this instead; aborting before anyone looked still counts.
 */
export class LazyAbort {
  readonly #parent: AbortSignal | undefined
  #controller: AbortController | undefined
  /** The controller's signal, kept: a tool that streams reads `ctx.signal` per chunk, and each read of `controller.signal` is a call into the runtime. */
  #signal: AbortSignal | undefined
  #aborted = false
  /** Whether a listener on the parent notes its abort (`watch`), so `aborted` need not read it. */
  #watching = false

  /** `parent` (for example `request.signal`) aborts this one too. */
  constructor(parent?: AbortSignal) {
    this.#parent = parent
  }

  /**
   * Note the parent's abort through a listener of its own from now on (no controller made), so
   * `aborted` is a read of a field, not a call into the runtime: for a caller that looks per chunk
   * (`ctx.partial`). Making the signal does the same.
   */
  watch(): void {
    if (this.#watching) return
    this.#watching = true
    if (this.#parent?.aborted) this.#aborted = true
    else this.#parent?.addEventListener('abort', () => this.abort(), { once: true })
  }

  get aborted(): boolean {
    return this.#aborted || (!this.#watching && this.#parent?.aborted === true)
  }

  get signal(): AbortSignal {
    if (this.#signal) return this.#signal
    this.watch()
    const controller = new AbortController()
    this.#controller = controller
    if (this.#aborted) controller.abort()
    this.#signal = controller.signal
    return this.#signal
  }

  abort(): void {
    this.#aborted = true
    this.#controller?.abort()
  }
}
