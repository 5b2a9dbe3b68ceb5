/**
 * The life of one task, independent of where it is stored: creation, the run, input during the
 * run, cancellation, expiry, the partial-result log and live watchers. The Cloudflare Durable
 * Object (`src/cloudflare/task-object.ts`) is a thin shell that gives it SQLite storage and an
 * alarm; tests can give it a memory store.
 *
 * Rules kept here (ext-tasks): terminal states never change; `tasks/get` returns the variant for
 * the current status; input keys are unique over the task's lifetime; `ttlMs` counts from
 * creation, after which an unfinished task fails and the task is later deleted; a task belongs
 * to the principal that created it. A run that the runtime lost (restart, eviction) is detected
 * when the engine wakes without it, and the task settles `failed` instead of staying `working`.
 *
 * Longer than most files on purpose: it is one state machine, and its transitions share the
 * record, the live run and the input waiter; split apart, the invariants above would be spread
 * over files. The log's batching lives in task-log.ts.
 */
import { NOTIFICATION } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import type { JsonRpcErrorObject } from '../protocol/errors.ts'
import { notification } from '../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { InputRequest } from './input.ts'
import { partialParams } from './outbox.ts'
import type { PartialSink } from './scope.ts'
import { TaskLog } from './task-log.ts'
import type { LogItem } from './task-log.ts'
import type { McpServer } from './server.ts'
import { isTerminal, runTaskCall } from './tasks.ts'
import type { DetailedTask, PartialLogPage, PartialLogQuery, Task, TaskCall, TaskOutcome, TaskStatus } from './tasks.ts'

/** After an unfinished task expires and fails, it stays readable this long, then is deleted. */
export const EXPIRED_RETENTION_MS = 60_000

export interface TaskRecord {
  taskId: string
  principal: string | null
  status: TaskStatus
  statusMessage?: string
  createdAt: number
  updatedAt: number
  ttlMs: number | null
  pollIntervalMs: number
  call: TaskCall
  inputRequests?: Record<string, InputRequest>
  askedKeys: string[]
  result?: object
  error?: JsonRpcErrorObject
  /** Runs started; a second wake-up without a live run means the run was lost. */
  attempts: number
  nextSeq: number
  /** When the task (and its log) is deleted: its expiry once terminal. */
  purgeAt?: number
}

const LOST_RUN: TaskOutcome = {
  status: 'failed',
  error: new McpError('internalError', 'Task run was lost').toJSON(),
  statusMessage: 'The task was interrupted by a runtime restart',
}

/** Storage for one task: a record, an append-only log and a single alarm. */
export interface TaskStore {
  load(): TaskRecord | undefined
  save(record: TaskRecord): void
  appendLog(items: readonly LogItem[], record: TaskRecord): void
  readLog(from: number, limit: number): LogItem[]
  deleteAll(): Promise<void>
  setAlarm(at: number): Promise<void>
}

export type Watcher = (message: JsonRpcNotification) => void

interface Waiter {
  keys: string[]
  resolve: (answers: Record<string, unknown>) => void
  reject: (error: unknown) => void
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

export class TaskEngine<Env> {
  readonly #server: McpServer<Env>
  readonly #env: Env
  readonly #store: TaskStore
  readonly #now: () => number
  #record: TaskRecord | undefined
  #loaded = false
  #running: Promise<void> | undefined
  #abort: AbortController | undefined
  /** Handlers suspended in `ctx.ask`, each waiting for its own keys (parallel asks are allowed). */
  readonly #waiters = new Set<Waiter>()
  readonly #answers: Record<string, unknown> = {}
  readonly #log = new TaskLog((items) => {
    if (this.#record) this.#store.appendLog(items, this.#record)
  })
  readonly #watchers = new Set<{ principal: string | null; send: Watcher }>()

  constructor(server: McpServer<Env>, env: Env, store: TaskStore, now: () => number = Date.now) {
    this.#server = server
    this.#env = env
    this.#store = store
    this.#now = now
  }

  #load(): TaskRecord | undefined {
    if (!this.#loaded) {
      this.#record = this.#store.load()
      this.#loaded = true
    }
    return this.#record
  }

  /**
   * The record, if it exists, belongs to `principal` and has not been purged. Reading it also
   * settles what time or a restart decided: an overdue task fails, and a started run that this
   * instance does not hold was lost (an object has one live instance, so nobody else holds it).
   */
  #owned(principal: string | null): TaskRecord | undefined {
    const record = this.#load()
    if (!record || record.principal !== principal) return undefined
    this.#expireIfDue(record)
    if (!isTerminal(record.status) && record.attempts > 0 && !this.#running) this.#settle(LOST_RUN)
    return record
  }

  /** Create the task (idempotent) and wake the engine to start it. */
  async create(taskId: string, call: TaskCall): Promise<Task> {
    const existing = this.#load()
    if (existing) return this.#summary(existing)
    const now = this.#now()
    const record: TaskRecord = {
      taskId,
      principal: call.principal?.subject ?? null,
      status: 'working',
      createdAt: now,
      updatedAt: now,
      ttlMs: call.ttlMs,
      pollIntervalMs: call.pollIntervalMs,
      call,
      askedKeys: [],
      attempts: 0,
      nextSeq: 0,
    }
    this.#record = record
    this.#loaded = true
    this.#store.save(record)
    await this.#store.setAlarm(now)
    return this.#summary(record)
  }

  async get(principal: string | null, log?: PartialLogQuery): Promise<{ task: DetailedTask; log?: PartialLogPage } | undefined> {
    const record = this.#owned(principal)
    if (!record) return undefined
    this.#log.flush()
    const task = this.#detailed(record)
    if (!log) return { task }
    const items = this.#store.readLog(log.from, log.limit)
    const nextSeq = items.length > 0 ? (items.at(-1) as LogItem).seq + 1 : Math.max(log.from, 0)
    return {
      task,
      log: { items: items.map((item) => item.params), nextSeq, complete: isTerminal(record.status) && nextSeq >= record.nextSeq },
    }
  }

  update(principal: string | null, responses: Record<string, unknown>): boolean {
    const record = this.#owned(principal)
    if (!record) return false
    if (record.status !== 'input_required' || !record.inputRequests) return true
    const outstanding = record.inputRequests
    for (const [key, value] of Object.entries(responses)) {
      // ext-tasks: unknown, already answered or superseded keys are ignored.
      if (!Object.hasOwn(outstanding, key)) continue
      this.#answers[key] = value
      delete outstanding[key]
    }
    if (this.#waiters.size === 0) {
      // Answers arrived but no handler is waiting here: the run was lost to a restart.
      this.#settle(LOST_RUN)
      return true
    }
    const done = Object.keys(outstanding).length === 0
    if (done) record.inputRequests = undefined
    this.#change(record, done ? { status: 'working' } : {})
    for (const waiter of this.#waiters) {
      if (!waiter.keys.every((key) => Object.hasOwn(this.#answers, key))) continue
      this.#waiters.delete(waiter)
      waiter.resolve(Object.fromEntries(waiter.keys.map((key) => [key, this.#answers[key]])))
    }
    return true
  }

  cancel(principal: string | null): boolean {
    const record = this.#owned(principal)
    if (!record) return false
    if (!isTerminal(record.status)) this.#finish(record, { status: 'cancelled', statusMessage: 'Cancelled by the client' })
    return true
  }

  /** Register a live watcher; `undefined` when the task is unknown to `principal`. */
  watch(principal: string | null, send: Watcher): (() => void) | undefined {
    if (!this.#owned(principal)) return undefined
    const watcher = { principal, send }
    this.#watchers.add(watcher)
    return () => this.#watchers.delete(watcher)
  }

  /** The alarm: purge when due, expire an overdue task, start the run or notice a lost one. */
  async alarm(): Promise<void> {
    const record = this.#load()
    if (!record) return
    if (record.purgeAt !== undefined && this.#now() >= record.purgeAt) {
      await this.#purge()
      return
    }
    this.#expireIfDue(record)
    if (!isTerminal(record.status) && !this.#running) {
      if (record.attempts === 0) {
        record.attempts = 1
        this.#store.save(record)
        this.#running = this.#run(record)
        await this.#running
      } else {
        this.#settle(LOST_RUN)
      }
    }
    const next = this.#load()
    const wake = next?.purgeAt ?? (next && next.ttlMs !== null ? next.createdAt + next.ttlMs : undefined)
    if (wake !== undefined) await this.#store.setAlarm(Math.max(wake, this.#now()))
  }

  async #purge(): Promise<void> {
    this.#abort?.abort()
    this.#record = undefined
    this.#watchers.clear()
    await this.#store.deleteAll()
  }

  /** ttlMs counts from creation: an unfinished task past it fails, and is purged a little later. */
  #expireIfDue(record: TaskRecord): void {
    if (record.ttlMs === null || isTerminal(record.status) || this.#now() < record.createdAt + record.ttlMs) return
    this.#finish(record, {
      status: 'failed',
      statusMessage: 'Task expired',
      error: new McpError('internalError', 'Task expired before it finished').toJSON(),
      purgeAt: this.#now() + EXPIRED_RETENTION_MS,
    })
  }

  async #run(record: TaskRecord): Promise<void> {
    const abort = new AbortController()
    this.#abort = abort
    // The alarm is busy with this run, so the ttl is kept by a timer while it lasts.
    const expiry =
      record.ttlMs === null
        ? undefined
        : setTimeout(() => this.#expireIfDue(record), Math.max(0, record.createdAt + record.ttlMs - this.#now()))
    const host = {
      taskId: record.taskId,
      signal: abort.signal,
      waitForInput: (requests: Record<string, InputRequest>) => this.#waitForInput(requests),
      ...(record.call.partialLog ? { partials: this.#logSink(record) } : {}),
    }
    let outcome: TaskOutcome
    try {
      outcome = await runTaskCall(this.#server, record.call, this.#env, host)
    } catch (error) {
      outcome = { status: 'failed', error: new McpError('internalError').toJSON(), statusMessage: String(error) }
    }
    if (expiry !== undefined) clearTimeout(expiry)
    this.#running = undefined
    this.#settle(outcome)
  }

  #waitForInput(requests: Record<string, InputRequest>): Promise<Record<string, unknown>> {
    const record = this.#load()
    if (!record || isTerminal(record.status)) return Promise.reject(new Error('Task is no longer running'))
    const keys = Object.keys(requests)
    const reused = keys.find((key) => record.askedKeys.includes(key))
    // ext-tasks: inputRequests keys MUST be unique over the task's lifetime.
    if (reused) return Promise.reject(new Error(`Input key "${reused}" was already used in this task`))
    record.askedKeys.push(...keys)
    record.inputRequests = { ...record.inputRequests, ...requests }
    this.#change(record, { status: 'input_required' })
    return new Promise((resolve, reject) => {
      this.#waiters.add({ keys, resolve, reject })
    })
  }

  #logSink(record: TaskRecord): PartialSink {
    const token = record.call.partialResultToken ?? record.taskId
    return {
      push: (chunk) => {
        const current = this.#load()
        if (!current || isTerminal(current.status)) return Promise.resolve()
        const params = partialParams(token, current.nextSeq++, chunk, { taskId: record.taskId })
        this.#log.append({ seq: params.seq as number, params })
        this.#broadcast(notification(NOTIFICATION.partialResult, params))
        return Promise.resolve()
      },
      stats: () => ({ ...this.#log.stats }),
    }
  }

  #settle(outcome: TaskOutcome): void {
    const record = this.#load()
    if (!record || isTerminal(record.status)) return
    if (outcome.status === 'completed') this.#finish(record, { status: 'completed', result: outcome.result })
    else this.#finish(record, { status: 'failed', error: outcome.error, statusMessage: outcome.statusMessage })
  }

  /** Move to a terminal state: stop the run, flush the log, tell watchers. */
  #finish(record: TaskRecord, patch: Partial<TaskRecord>): void {
    this.#log.flush()
    record.inputRequests = undefined
    if (record.ttlMs !== null) record.purgeAt ??= record.createdAt + record.ttlMs
    this.#change(record, patch)
    this.#abort?.abort()
    for (const waiter of this.#waiters) waiter.reject(new Error(`Task ${patch.status}`))
    this.#waiters.clear()
  }

  #change(record: TaskRecord, patch: Partial<TaskRecord>): void {
    Object.assign(record, patch, { updatedAt: this.#now() })
    this.#store.save(record)
    const detailed = { ...this.#detailed(record) }
    this.#broadcast(notification(NOTIFICATION.tasks, detailed))
    this.#server.taskChanged(record.taskId, record.principal, detailed) // to the event hub, when there is one
  }

  #broadcast(message: JsonRpcNotification): void {
    for (const watcher of this.#watchers) watcher.send(message)
  }

  #summary(record: TaskRecord): Task {
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

  #detailed(record: TaskRecord): DetailedTask {
    const task: DetailedTask = this.#summary(record)
    if (record.status === 'input_required' && record.inputRequests) task.inputRequests = record.inputRequests
    if (record.status === 'completed' && record.result) task.result = record.result
    if (record.status === 'failed' && record.error) task.error = record.error
    return task
  }
}
