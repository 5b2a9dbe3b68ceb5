/**
 * The limits a task lives within, enforced by mcp-edge's own code because the local runtime
 * (workerd under Miniflare) enforces few of the platform's. Set them per server with
 * `createMcpServer({ taskLimits })`; tests set them low. docs/tasks.md lists the Cloudflare limits
 * these defaults sit under:
 *
 * - a SQLite row, string or BLOB holds at most 2 MB (Durable Objects limits, "SQL storage"): the
 *   task store splits every value into parts of STORED_PART_BYTES, so no row comes near it;
 * - CPU per invocation is 30 s by default (up to 5 min configured); Workers cannot read their own
 *   CPU time, so a run yields, between steps, after `maxRunMs` of wall-clock time, which is never
 *   less than the CPU time it used;
 * - an alarm invocation may last 15 minutes of wall-clock time (Workers limits, "Duration");
 * - one object stores at most 10 GB; a task stores its call, answers, steps, result and log.
 */

export interface TaskLimits {
  /** Largest stored call (arguments, `prepare`'s result), JSON bytes. Larger: -32602 at creation, nothing stored. */
  maxCallBytes: number
  /** Largest result a task can store, JSON bytes. Larger: the task fails, saying so. */
  maxResultBytes: number
  /** Largest value a step may return, JSON bytes (its streamed content included). Larger: the task fails. */
  maxStepBytes: number
  /** Largest partial result a task can log, JSON bytes. Larger: `ctx.partial` throws. */
  maxLogItemBytes: number
  /** Largest set of input requests a task can wait on, JSON bytes. Larger: the task fails. */
  maxInputBytes: number
  /** A run continues in the next alarm, between steps, once it has run this long. */
  maxRunMs: number
  /** A run continues in the next alarm after this many new steps. */
  maxStepsPerRun: number
  /** Steps one task may complete in its life. */
  maxSteps: number
  /** Runs lost in a row (a restart, an eviction, a limit the platform enforced) without progress before the task fails. */
  maxLostRuns: number
  /** The longest a task lives, also when its tool asked for `ttlMs: null` (reported as null). */
  maxLifeMs: number
}

const MIB = 1024 * 1024

/** Parts a stored value is split into: far below the 2 MB row limit, few rows for big values. */
export const STORED_PART_BYTES = 512 * 1024

export const DEFAULT_TASK_LIMITS: Readonly<TaskLimits> = {
  maxCallBytes: MIB,
  maxResultBytes: 8 * MIB,
  maxStepBytes: MIB,
  maxLogItemBytes: MIB,
  maxInputBytes: 256 * 1024,
  maxRunMs: 30_000,
  maxStepsPerRun: 1000,
  maxSteps: 10_000,
  maxLostRuns: 5,
  maxLifeMs: 7 * 24 * 60 * 60 * 1000,
}

/**
 * The defaults with `overrides` applied; a limit that is not a positive number fails at start-up.
 *
 * @example
 * const limits = taskLimits({ maxStepsPerRun: 1 }) // every step in its own alarm invocation
 */
export function taskLimits(overrides: Partial<TaskLimits> = {}): TaskLimits {
  const limits = { ...DEFAULT_TASK_LIMITS, ...overrides }
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !(value > 0)) throw new Error(`taskLimits.${name} must be a positive number, not ${value}`)
  }
  return limits
}

const encoder = new TextEncoder()

/** UTF-8 length of a string: what a JSON value costs in storage. */
export function byteLength(text: string): number {
  return encoder.encode(text).byteLength
}

/** `byteLength(text) <= limit`, without encoding when the length alone decides (1–3 bytes per UTF-16 unit). */
export function fitsIn(text: string, limit: number): boolean {
  if (text.length > limit) return false
  return text.length * 3 <= limit || byteLength(text) <= limit
}
