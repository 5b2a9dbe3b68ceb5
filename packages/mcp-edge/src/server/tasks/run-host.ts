/**
 * What one run of a task gives the replay (replay.ts): its limits and clock, whether it is still
 * the live run, where `ctx.partial` chunks go (measured, then batched in the task's log), and how
 * a finished step is stored with the log items before it, atomically, then sent to watchers. The
 * engine (engine.ts) builds one per run; a storage failure here invalidates the engine's memory.
 */
import { McpError } from '../../protocol/errors.ts'
import { partialParams } from '../outbox.ts'
import type { ObservedRun } from '../telemetry/task-run.ts'
import type { TaskLimits } from './limits.ts'
import { byteLength, fitsIn } from './limits.ts'
import type { TaskLog } from './log.ts'
import type { ReplayHost } from './replay.ts'
import type { TaskStore } from './store.ts'
import type { TaskWatchers } from './watchers.ts'

export interface RunHostParts {
  taskId: string
  /** The partial-result token chunks carry: the call's own, or the task id. */
  token: string | number
  limits: TaskLimits
  now: () => number
  /** This run is still the task's live run and the task is not terminal. */
  live: () => boolean
  log: TaskLog
  store: TaskStore
  watchers: TaskWatchers
  /** Storage failed: drop what memory holds (the engine's `#invalidate`). */
  invalidate: (error: unknown) => void
  observed: ObservedRun | undefined
}

export function createRunHost(parts: RunHostParts): ReplayHost {
  const { taskId, token, limits, log, store, watchers, observed } = parts
  return {
    limits,
    now: parts.now,
    live: parts.live,
    append: (seq, chunk) => {
      const params = partialParams(token, seq, chunk, { taskId })
      const json = JSON.stringify(params)
      if (!fitsIn(json, limits.maxLogItemBytes)) {
        const message = `ctx.partial: a partial result of ${byteLength(json)} bytes; a task logs at most ${limits.maxLogItemBytes}`
        throw new McpError('internalError', message)
      }
      log.append({ seq, json, params })
    },
    completeStep: (step) => {
      const items = log.take()
      try {
        store.completeStep(step, items)
      } catch (error) {
        parts.invalidate(error)
        throw error
      }
      watchers.broadcastLog(items)
    },
    stats: () => ({ ...log.stats }),
    startStep: observed && ((name, index) => observed.step(name, index)),
  }
}
