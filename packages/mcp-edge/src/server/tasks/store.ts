/**
 * What a task keeps in storage, and the interface of that storage. The engine (task-engine.ts)
 * writes here before it changes its own memory, so `tasks/get` always shows what is stored, and
 * after a restart everything a run needs is read back from here. mcp-edge's store is SQLite in the
 * task's Durable Object (src/cloudflare/sqlite-task-store.ts); tests use a memory store.
 *
 * Values travel as JSON text, already measured against the task's limits by the engine; a store
 * splits them as its rows require. Each method that writes is atomic: all of it or none of it.
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { InputRequest } from '../input/input.ts'
import type { TaskStatus } from './types.ts'

/** The task's own row: small and bounded (input requests are bounded by `maxInputBytes`). */
export interface TaskRecord {
  taskId: string
  principal: string | null
  status: TaskStatus
  statusMessage?: string
  createdAt: number
  updatedAt: number
  /** As reported (null: the tool asked for no ttl; `expiresAt` still applies). */
  ttlMs: number | null
  pollIntervalMs: number
  /** An unfinished task fails then; a finished one is deleted then. */
  expiresAt: number
  /** When the task and everything it stored is deleted (set once terminal). */
  purgeAt?: number
  inputRequests?: Record<string, InputRequest>
  error?: JsonRpcErrorObject
  /** Runs started. */
  runs: number
  /** A run started and has not ended: if no live instance holds it, it was lost. */
  running: boolean
  /** Runs lost in a row without progress (see `TaskStore.progress`). */
  lostRuns: number
  /** `progress()` when the last lost run was noticed. */
  progressMark: number
}

/** A completed step: matched by name and by its place in call order when the handler runs again. */
export interface StoredStep {
  name: string
  index: number
  /** The log position after the step: a replay that skips the step continues counting from here. */
  logEnd: number
  /** `{ "value": …, "content": [...] }`: what the step returned and the content it streamed. */
  json: string
}

/** One partial-result notification's params, at its seq. */
export interface LogItem {
  seq: number
  json: string
}

export interface TaskStore {
  /** The record, or undefined when this store holds no task. Never writes. */
  load(): TaskRecord | undefined
  /** The record and the stored call, together. */
  create(record: TaskRecord, call: string): void
  call(): string
  save(record: TaskRecord): void
  /** Answers (key → JSON) and the record, together. */
  saveAnswers(record: TaskRecord, answers: Record<string, string>): void
  answers(): Record<string, string>
  /** A completed step and the log items logged up to it, together. */
  completeStep(step: StoredStep, items: readonly LogItem[]): void
  steps(): StoredStep[]
  /** Append only: a seq that is already stored is an error, never a rewrite. */
  appendLog(items: readonly LogItem[]): void
  readLog(from: number, limit: number): LogItem[]
  /** The seq the next log item gets: one past the last stored. */
  logEnd(): number
  /** Steps completed + log items + answers stored: grows whenever a task gets anywhere. */
  progress(): number
  /** The terminal record and, for a completed task, its result, together. */
  settle(record: TaskRecord, result?: string): void
  result(): string | undefined
  /** Delete everything, alarm included. */
  deleteAll(): Promise<void>
  setAlarm(at: number): Promise<void>
}
