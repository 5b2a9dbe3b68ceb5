/**
 * Abuse-resistant limits of one isolate: how many `subscriptions/listen` streams and live tasks
 * one principal may hold here at once, and how deeply a request body may nest. Reaching a cap is
 * 429 (the caller may retry later); nothing is created. Counts are per isolate (Cloudflare runs
 * many), so a cap bounds what one caller can pin in one place, not across the whole deployment.
 *
 * Live tasks are counted from the tasks this isolate created, until their expiry. At the cap, the
 * ones it still counts are asked for their status (one call each, only then), so finished tasks
 * free their slots. A slot is reserved before a task is created (or a single-use state redeemed).
 */
import { McpError } from '../protocol/errors.ts'
import type { LimitOptions } from './types.ts'

export const DEFAULT_MAX_LISTEN_STREAMS = 1000
export const DEFAULT_MAX_LIVE_TASKS = 100
export const DEFAULT_MAX_JSON_DEPTH = 64

/**
 * Parse a request body, refusing nesting deeper than `maxDepth` before `JSON.parse` recurses
 * into it (a deep body would otherwise cost stack in the parser, the digest and the schema).
 *
 * @example
 * parseJsonBody('{"a":[1]}', 64) // { a: [1] }
 */
export function parseJsonBody(text: string, maxDepth = DEFAULT_MAX_JSON_DEPTH): unknown {
  if (jsonDepth(text, maxDepth) > maxDepth) {
    throw new McpError('invalidRequest', `Invalid Request: JSON nested deeper than ${maxDepth} levels`)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new McpError('parseError')
  }
}

/** Nesting depth of JSON text (strings skipped), scanning no further than `stopAbove`. */
function jsonDepth(text: string, stopAbove: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i)
    if (inString) {
      if (char === 92)
        i++ // backslash: skip the escaped character
      else if (char === 34) inString = false
    } else if (char === 34) inString = true
    else if (char === 123 || char === 91) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > stopAbove) return deepest
    } else if (char === 125 || char === 93) depth--
  }
  return deepest
}

function tooMany(what: string, cap: number): McpError {
  return new McpError('tooManyRequests', `Too many requests: at most ${cap} ${what} per caller`, { limit: cap })
}

/** A live-task slot held while a task is being created: `commit` counts the task, `release` frees the slot. */
export interface TaskSlot {
  /** The task exists and stays counted until `expiresAt` (or until it is seen finished). */
  commit(taskId: string, expiresAt: number): void
  release(): void
}

interface TaskCount {
  /** Created tasks still counted, with the time they can no longer be live. */
  live: Map<string, number>
  /** Slots reserved for tasks being created right now. */
  pending: number
}

/**
 * An option that must be a positive integer up to `max`, or unset for its default: anything else
 * fails at start-up, naming it.
 */
export function positive(value: number | undefined, fallback: number, name: string, max = Infinity): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1 || value > max) {
    const upTo = max < Infinity ? ` up to ${max}` : ''
    throw new Error(`${name} must be a positive integer${upTo}, or unset (got ${value})`)
  }
  return value
}

export class Limits {
  readonly listenStreams: number
  readonly liveTasks: number
  readonly #listens = new Map<string, number>()
  readonly #tasks = new Map<string, TaskCount>()
  readonly #now: () => number

  constructor(options: LimitOptions = {}, now: () => number = Date.now) {
    this.listenStreams = positive(options.listenStreams, DEFAULT_MAX_LISTEN_STREAMS, 'limits.listenStreams')
    this.liveTasks = positive(options.liveTasks, DEFAULT_MAX_LIVE_TASKS, 'limits.liveTasks')
    this.#now = now
  }

  /**
   * Hold a listen stream slot for `principal`; call the returned function when the stream ends.
   *
   * @example
   * const release = limits.openListen(subject)
   * try { await relay() } finally { release() }
   */
  openListen(subject: string | null): () => void {
    const principal = subject ?? ''
    const open = this.#listens.get(principal) ?? 0
    if (open >= this.listenStreams) throw tooMany('open subscriptions/listen streams', this.listenStreams)
    this.#listens.set(principal, open + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.#listens.get(principal) ?? 1) - 1
      if (left <= 0) this.#listens.delete(principal)
      else this.#listens.set(principal, left)
    }
  }

  /**
   * Reserve a live-task slot for `principal` before anything is created or redeemed (429 at the
   * cap). At the cap, the tasks it counts are asked for their status (`isLive`, one call each,
   * only then); the check and the reservation that follows it are one synchronous step, so
   * concurrent calls cannot all pass. Tasks past their expiry stop counting without a call.
   *
   * @example
   * const slot = await limits.reserveTask(subject, isLive)
   * try { const task = await create(); slot.commit(task.taskId, expiresAt) } finally { slot.release() }
   */
  async reserveTask(subject: string | null, isLive: (taskId: string) => Promise<boolean>): Promise<TaskSlot> {
    const principal = subject ?? ''
    const count = this.#tasks.get(principal) ?? { live: new Map<string, number>(), pending: 0 }
    this.#tasks.set(principal, count)
    this.#expire(count)
    if (count.live.size + count.pending >= this.liveTasks) {
      const counted = [...count.live.keys()]
      const alive = await Promise.all(counted.map(isLive))
      counted.forEach((taskId, index) => {
        if (!alive[index]) count.live.delete(taskId)
      })
    }
    if (count.live.size + count.pending >= this.liveTasks) {
      this.#forget(principal, count)
      throw tooMany('live tasks', this.liveTasks)
    }
    count.pending++
    let open = true
    const settle = () => {
      if (!open) return false
      open = false
      count.pending--
      return true
    }
    return {
      commit: (taskId, expiresAt) => {
        if (settle()) count.live.set(taskId, expiresAt)
      },
      release: () => {
        if (settle()) this.#forget(principal, count)
      },
    }
  }

  #expire(count: TaskCount): void {
    const now = this.#now()
    for (const [taskId, expiresAt] of count.live) if (expiresAt <= now) count.live.delete(taskId)
  }

  /** A principal with nothing counted takes no memory. */
  #forget(principal: string, count: TaskCount): void {
    if (count.live.size === 0 && count.pending === 0) this.#tasks.delete(principal)
  }
}

/**
 * An opt-in feature's option as its function builds it (so a server without the feature bundles
 * none of its code); the options object itself, as written before, fails at start-up saying so.
 */
export function checkedFeature<T>(
  value: T | undefined,
  methods: string[],
  option: string,
  call: string,
  doc: string,
): T | undefined {
  if (value !== undefined && methods.some((method) => typeof (value as Record<string, unknown>)[method] !== 'function')) {
    throw new Error(`The ${option} option must be built by ${call} (docs/${doc})`)
  }
  return value
}
