/**
 * The pure parts of a task's record (server/tasks/engine.ts keeps the record; this only computes):
 * a new record from a call, the `Task` a client is shown, which answers of `tasks/update` count,
 * and why an unfinished task expired. No storage, no clock of its own.
 */
import { McpError } from '../../protocol/errors.ts'
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { InputRequest } from '../input/input.ts'
import { subjectOf } from '../principal.ts'
import type { TaskLimits } from './limits.ts'
import type { TaskRecord } from './store.ts'
import type { Task, TaskCall } from './tasks.ts'

export const internalError = (message: string): JsonRpcErrorObject => new McpError('internalError', message).toJSON()

const iso = (ms: number): string => new Date(ms).toISOString()

/** A new working task for `call`, created `now`: its life is its ttl, capped by `maxLifeMs`. */
export function newTaskRecord(taskId: string, call: TaskCall, limits: TaskLimits, now: number): TaskRecord {
  const life = Math.min(call.ttlMs ?? limits.maxLifeMs, limits.maxLifeMs)
  return {
    taskId,
    principal: subjectOf(call.principal),
    status: 'working',
    createdAt: now,
    updatedAt: now,
    ttlMs: call.ttlMs === null ? null : life,
    pollIntervalMs: call.pollIntervalMs,
    expiresAt: now + life,
    runs: 0,
    running: false,
    lostRuns: 0,
    progressMark: 0,
  }
}

/** The task as `tasks/get` and `tasks/list` show it, without its result, error or input requests. */
export function summary(record: TaskRecord): Task {
  const task: Task = {
    taskId: record.taskId,
    status: record.status,
    createdAt: iso(record.createdAt),
    lastUpdatedAt: iso(record.updatedAt),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  }
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage
  return task
}

/**
 * The answers of a `tasks/update` that count, as JSON text, and the input requests still open.
 * ext-tasks: unknown, already answered or superseded keys are ignored.
 */
export function takeAnswers(
  outstanding: Record<string, InputRequest>,
  responses: Record<string, unknown>,
): { answers: Record<string, string>; remaining: Record<string, InputRequest> } {
  const remaining = { ...outstanding }
  const answers: Record<string, string> = {}
  for (const [key, value] of Object.entries(responses)) {
    if (!Object.hasOwn(remaining, key)) continue
    answers[key] = JSON.stringify(value)
    delete remaining[key]
  }
  return { answers, remaining }
}

/** The failure of a task that did not finish within its life. */
export function expiredFailure(record: TaskRecord, limits: TaskLimits): Pick<TaskRecord, 'status' | 'statusMessage' | 'error'> {
  const life = record.ttlMs === null ? `the longest a task lives (${limits.maxLifeMs} ms)` : `its ttl (${record.ttlMs} ms)`
  return {
    status: 'failed',
    statusMessage: 'Task expired',
    error: internalError(`Task expired: it did not finish within ${life}`),
  }
}
