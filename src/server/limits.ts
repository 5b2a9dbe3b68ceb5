/**
 * Abuse-resistant limits of one isolate: how many `subscriptions/listen` streams and live tasks
 * one principal may hold here at once, and how deeply a request body may nest. Reaching a cap is
 * 429 (the caller may retry later); nothing is created. Counts are per isolate (Cloudflare runs
 * many), so a cap bounds what one caller can pin in one place, not across the whole deployment.
 *
 * Live tasks are counted from the tasks this isolate created. At the cap, the ones it still counts
 * are asked for their status (one call each, only then), so finished tasks free their slots.
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

export class Limits {
  readonly listenStreams: number
  readonly liveTasks: number
  readonly #listens = new Map<string, number>()
  readonly #tasks = new Map<string, Set<string>>()

  constructor(options: LimitOptions = {}) {
    this.listenStreams = options.listenStreams ?? DEFAULT_MAX_LISTEN_STREAMS
    this.liveTasks = options.liveTasks ?? DEFAULT_MAX_LIVE_TASKS
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
   * Create a task if the caller has a free slot, asking `isLive` about the tasks it counts only
   * when it is at the cap; count the new one.
   *
   * @example
   * await limits.createTask(subject, () => createTask(call, tool, args, prepared), (taskId) => stillRunning(taskId))
   */
  async createTask<T extends { taskId: string }>(
    subject: string | null,
    create: () => Promise<T>,
    isLive: (taskId: string) => Promise<boolean>,
  ): Promise<T> {
    const principal = subject ?? ''
    const live = this.#tasks.get(principal) ?? new Set<string>()
    if (live.size >= this.liveTasks) {
      const counted = [...live]
      const alive = await Promise.all(counted.map(isLive))
      counted.forEach((taskId, index) => {
        if (!alive[index]) live.delete(taskId)
      })
      if (live.size >= this.liveTasks) throw tooMany('live tasks', this.liveTasks)
    }
    const task = await create()
    live.add(task.taskId)
    this.#tasks.set(principal, live)
    return task
  }
}
