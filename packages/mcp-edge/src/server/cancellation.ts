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

  /** `parent` (for example `request.signal`) aborts this one too. */
  constructor(parent?: AbortSignal) {
    this.#parent = parent
  }

  /**
   * Without a call into the runtime once the signal is made (`ctx.partial` looks per chunk): the
   * parent's abort then reaches this through the signal's listener, which notes it.
   */
  get aborted(): boolean {
    return this.#aborted || (this.#signal === undefined && this.#parent?.aborted === true)
  }

  get signal(): AbortSignal {
    if (this.#signal) return this.#signal
    const controller = new AbortController()
    this.#controller = controller
    if (this.aborted) {
      this.#aborted = true
      controller.abort()
    } else {
      this.#parent?.addEventListener('abort', () => this.abort(), { once: true })
    }
    this.#signal = controller.signal
    return this.#signal
  }

  abort(): void {
    this.#aborted = true
    this.#controller?.abort()
  }
}
