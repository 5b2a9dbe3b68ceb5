/**
 * The per-request handler context. One object per request, methods on the prototype, so a plain
 * call allocates almost nothing. Notifications go to the request's outbox (its own SSE stream)
 * and only when this request asked for them: progress needs a `progressToken`, logs need a
 * `logLevel`, partial results need the `partialResults` capability and a `partialResultToken`.
 */
import { LOG_LEVELS, NOTIFICATION } from '../protocol/constants.ts'
import type { LogLevel } from '../protocol/constants.ts'
import { findInvalidContent } from '../protocol/content.ts'
import { notification } from '../protocol/jsonrpc.ts'
import type { RequestId } from '../protocol/jsonrpc.ts'
import type { ContentBlock, RequestMeta } from '../protocol/types.ts'
import { supports } from './capabilities.ts'
import type { InputResponses, InputSpecs } from './input/input.ts'
import type { InputRound } from './input/input-round.ts'
import { emptyStats } from './outbox.ts'
import type { Outbox, OutboxStats, PartialChunk } from './outbox.ts'
import type { CapabilityPath, Principal, ToolContext, UpstreamAccess } from './types.ts'
import { errorFields, libraryLog } from './telemetry/log.ts'

/** How `ctx.step` runs: directly in a plain call; checkpointed in a task (task-replay.ts). */
export interface StepRunner {
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>
}

const DIRECT_STEPS: StepRunner = { step: async (_name, fn) => fn() }

/** Where `ctx.partial` chunks go: the request's stream, a task's log, or nowhere. */
export interface PartialSink {
  push(chunk: PartialChunk): Promise<void>
  stats(): OutboxStats
}

const NO_PARTIALS: PartialSink = { push: () => Promise.resolve(), stats: emptyStats }

export interface ScopeInit<Env> {
  requestId: RequestId
  method: string
  meta: RequestMeta
  env: Env
  principal: Principal | undefined
  upstream?: UpstreamAccess | undefined
  /**
   * `aborted`, when given (a `LazyAbort`), says what `signal.aborted` does without making the
   * signal; `watch()` makes it a read of a field from then on (cancellation.ts).
   */
  cancel: { readonly signal: AbortSignal; readonly aborted?: boolean; watch?(): void }
  /** The request's stream (none in a task: progress and logs are not sent there). */
  outbox?: Outbox | undefined
  logLevel?: LogLevel | undefined
  input: InputRound
  state: Record<string, unknown>
  round: number
  task?: { id: string }
  partials?: PartialSink
  steps?: StepRunner
  /** The host's `waitUntil`; without one a promise simply runs on (its failure is logged). */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
}

/** A partial-result sink on the request's own stream (SEP-2998 §1 gate applied by the caller). */
export function streamPartials(outbox: Outbox, token: string | number): PartialSink {
  return {
    push: (chunk) => outbox.pushPartial(token, chunk),
    stats: () => ({ ...outbox.stats }),
  }
}

export class RequestScope<Env = unknown> implements ToolContext<Env> {
  readonly requestId: RequestId
  readonly method: string
  readonly meta: RequestMeta
  readonly env: Env
  readonly principal: Principal | undefined
  readonly upstream: UpstreamAccess | undefined
  readonly state: Record<string, unknown>
  readonly round: number
  readonly task: { readonly id: string } | undefined
  prepared: unknown = undefined
  /** Content streamed so far, when the tool asked the runtime to assemble its final text. */
  assembled: ContentBlock[] | undefined
  readonly #outbox: Outbox | undefined
  readonly #cancel: ScopeInit<Env>['cancel']
  readonly #logLevel: number
  readonly #input: InputRound
  readonly #waitUntil: ((promise: Promise<unknown>) => void) | undefined
  #partials: PartialSink
  readonly #steps: StepRunner
  #stepNames: Set<string> | undefined
  #lastProgress = Number.NEGATIVE_INFINITY

  constructor(init: ScopeInit<Env>) {
    this.requestId = init.requestId
    this.method = init.method
    this.meta = init.meta
    this.env = init.env
    this.principal = init.principal
    this.upstream = init.upstream
    this.#cancel = init.cancel
    this.state = init.state
    this.round = init.round
    this.task = init.task
    this.#outbox = init.outbox
    this.#logLevel = init.logLevel === undefined ? Number.POSITIVE_INFINITY : LOG_LEVELS.indexOf(init.logLevel)
    this.#input = init.input
    this.#partials = init.partials ?? NO_PARTIALS
    this.#steps = init.steps ?? DIRECT_STEPS
    this.#waitUntil = init.waitUntil
  }

  waitUntil(promise: Promise<unknown>): void {
    const settled = promise.catch((error) => libraryLog.error('ctx.waitUntil work failed', errorFields(error)))
    this.#waitUntil?.(settled)
  }

  get signal(): AbortSignal {
    return this.#cancel.signal
  }

  get input(): InputRound {
    return this.#input
  }

  supports(path: CapabilityPath): boolean {
    return supports(this.meta.clientCapabilities, path)
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = this.meta.progressToken
    // progress.mdx: values MUST increase, and progress is not sent on tasks.
    if (token === undefined || this.task !== undefined || !this.#outbox || progress <= this.#lastProgress) return
    this.#lastProgress = progress
    const params: Record<string, unknown> = { progressToken: token, progress }
    if (total !== undefined) params.total = total
    if (message !== undefined) params.message = message
    this.#outbox.push(notification(NOTIFICATION.progress, params))
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    if (this.task === undefined) logTo(this.#outbox, this.#logLevel, level, data, logger)
  }

  ask<const Specs extends InputSpecs>(requests: Specs): Promise<InputResponses<Specs>> {
    return this.#input.ask(requests)
  }

  partial(chunk: PartialChunk | string): Promise<void> {
    const normalized: PartialChunk = typeof chunk === 'string' ? { content: [{ type: 'text', text: chunk }] } : chunk
    if (findInvalidContent(normalized.content) >= 0) {
      throw new TypeError('ctx.partial: content must be an array of ContentBlock (text, image, audio, resource_link, resource)')
    }
    if (this.assembled) this.assembled.push(...normalized.content)
    // Per chunk: the LazyAbort's own flag, not a read of the parent signal (a call into the runtime).
    this.#cancel.watch?.()
    if (this.#cancel.aborted ?? this.#cancel.signal.aborted) return Promise.resolve()
    return this.#partials.push(normalized)
  }

  step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    if (typeof name !== 'string' || name === '') throw new TypeError('ctx.step: the name must be a non-empty string')
    this.#stepNames ??= new Set()
    // A task matches stored steps by name: a second step of the same name would read the first's value.
    if (this.#stepNames.has(name)) throw new Error(`ctx.step("${name}") was called twice: step names must be unique in a call`)
    this.#stepNames.add(name)
    return this.#steps.step(name, fn)
  }

  /** Route `partial` somewhere (the request's stream, a task's log). */
  setPartials(sink: PartialSink): void {
    this.#partials = sink
  }

  partialStats(): OutboxStats {
    return this.#partials.stats()
  }
}

/**
 * `notifications/message` on a request's own stream, when `level` is at least the caller's
 * `threshold` (an index of LOG_LEVELS; infinite when the request asked for no level: logging.mdx,
 * "MUST NOT emit notifications/message for a request that does not include" one). Droppable: a
 * slow reader loses log lines before anything else.
 */
export function logTo(outbox: Outbox | undefined, threshold: number, level: LogLevel, data: unknown, logger?: string): void {
  if (!outbox || LOG_LEVELS.indexOf(level) < threshold) return
  const params: Record<string, unknown> = { level, data }
  if (logger !== undefined) params.logger = logger
  outbox.push(notification(NOTIFICATION.message, params), { droppable: true })
}
