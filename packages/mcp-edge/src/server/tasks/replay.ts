/**
 * One run of a task's handler over what the task stored (the replay model): the handler runs
 * from the top every time; `ctx.step` returns a completed step's stored value instead of running
 * it again, and `ctx.partial` does not log again a chunk whose position is already in the log.
 *
 * Guarantees (README "Tasks", docs/tasks.md):
 * - a completed step never runs again, in this Worker version or a later one with the same step
 *   names; a step that was running when its run was lost runs again (at least once per step);
 * - log positions are counted in call order from the handler's start, and a completed step skips
 *   to the position it ended at, so each chunk is logged once: seq n is written once and never
 *   rewritten. This holds as long as the handler emits the same number of chunks before each
 *   point on every run (true for chunks emitted inside steps, and for deterministic code outside).
 *
 * The run stops at a step boundary (`TaskSuspended`) to continue in the next alarm, when the task
 * stopped being live (cancelled, expired), or when the stored steps no longer match the code.
 */
import { McpError } from '../../protocol/errors.ts'
import type { ContentBlock } from '../../protocol/types.ts'
import type { PartialChunk } from '../outbox.ts'
import type { OutboxStats } from '../outbox.ts'
import type { PartialSink, StepRunner } from '../scope.ts'
import type { TaskLimits } from './limits.ts'
import { byteLength, fitsIn } from './limits.ts'
import type { StoredStep } from './store.ts'

export type StopReason = 'yield' | 'stopped' | 'changed'

/** Thrown out of `ctx.step` when the run must end early. Let it propagate, like `InputRequired`. */
export class TaskSuspended extends Error {
  readonly reason: StopReason

  constructor(reason: StopReason, message: string) {
    super(message)
    this.name = 'TaskSuspended'
    this.reason = reason
  }
}

export interface ReplayHost {
  readonly limits: TaskLimits
  now(): number
  /** The task is still running this run (not terminal, not superseded). */
  live(): boolean
  /** Log a partial result at a new position `seq`. */
  append(seq: number, chunk: PartialChunk): void
  /** Store a completed step, with the log up to it. */
  completeStep(step: StoredStep): void
  stats(): OutboxStats
  /** A step starts running (not when replayed); what it returns is called when the step ends, with what it threw. */
  startStep?: ((name: string, index: number) => (thrown?: unknown) => void) | undefined
}

export class TaskReplay implements StepRunner {
  readonly #host: ReplayHost
  readonly #byName = new Map<string, StoredStep>()
  readonly #byIndex = new Map<number, StoredStep>()
  /** Log end when the run started: positions below it are logged already. */
  readonly #logged: number
  readonly #startedAt: number
  #cursor = 0
  #calls = 0
  #newSteps = 0
  #storedSteps: number
  /** Why the run stopped early, once it did (the handler may have caught the error). */
  stop: TaskSuspended | undefined
  /** The content the tool streams, when the runtime assembles its final result from it. */
  assembled: ContentBlock[] | undefined

  constructor(host: ReplayHost, steps: readonly StoredStep[], logged: number) {
    this.#host = host
    for (const step of steps) {
      this.#byName.set(step.name, step)
      this.#byIndex.set(step.index, step)
    }
    this.#storedSteps = steps.length
    this.#logged = logged
    this.#startedAt = host.now()
  }

  readonly partials: PartialSink = {
    push: (chunk) => {
      const seq = this.#cursor++
      // Logged by an earlier run of this handler: the log keeps what it has.
      if (seq >= this.#logged && this.#host.live()) this.#host.append(seq, chunk)
      return Promise.resolve()
    },
    stats: () => this.#host.stats(),
  }

  async step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    const index = this.#calls++
    const stored = this.#byName.get(name)
    const there = this.#byIndex.get(index)
    if (stored ? stored.index !== index : there !== undefined) {
      const before = there ? `"${there.name}" ran there` : `"${name}" ran as step ${(stored?.index ?? 0) + 1}`
      this.#halt('changed', `The task's code changed while it ran: step ${index + 1} is "${name}" now, but ${before}`)
    }
    if (stored) return this.#replayed(stored)
    if (!this.#host.live()) this.#halt('stopped', 'The task is no longer running')
    const { limits } = this.#host
    // Continue in the next alarm between steps, but only after this run got somewhere.
    if (
      this.#newSteps > 0 &&
      (this.#newSteps >= limits.maxStepsPerRun || this.#host.now() - this.#startedAt >= limits.maxRunMs)
    ) {
      this.#halt('yield', 'The run continues in the next alarm')
    }
    if (this.#storedSteps >= limits.maxSteps)
      throw new McpError('internalError', `A task may complete at most ${limits.maxSteps} steps`)
    this.#newSteps++
    const from = this.assembled?.length ?? 0
    const ended = this.#host.startStep?.(name, index)
    let value: T
    try {
      value = await fn()
    } catch (error) {
      ended?.(error)
      throw error
    }
    ended?.()
    const content = this.assembled?.slice(from) ?? []
    const json = serialize(name, content.length > 0 ? { value, content } : { value })
    if (!fitsIn(json, limits.maxStepBytes)) {
      throw new McpError(
        'internalError',
        `ctx.step("${name}") returned ${byteLength(json)} bytes of JSON; a step stores at most ${limits.maxStepBytes}`,
      )
    }
    if (!this.#host.live()) this.#halt('stopped', 'The task is no longer running')
    this.#host.completeStep({ name, index, logEnd: this.#cursor, json })
    this.#storedSteps++
    // The same JSON copy a replay would return, so both runs see the same value.
    return (JSON.parse(json) as { value: T }).value
  }

  #replayed<T>(stored: StoredStep): T {
    this.#cursor = Math.max(this.#cursor, stored.logEnd)
    const { value, content } = JSON.parse(stored.json) as { value: T; content?: ContentBlock[] }
    if (content && this.assembled) this.assembled.push(...content)
    return value
  }

  #halt(reason: StopReason, message: string): never {
    const error = new TaskSuspended(reason, message)
    this.stop ??= error
    throw error
  }
}

function serialize(name: string, value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (error) {
    throw new McpError(
      'internalError',
      `ctx.step("${name}") returned a value that cannot be stored as JSON: ${(error as Error).message}`,
    )
  }
}
