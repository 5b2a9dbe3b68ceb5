/**
 * The life of one task, independent of where it is stored: creation, runs, input during the
 * task, cancellation, expiry, the partial-result log and live watchers. The Cloudflare Durable
 * Object (`src/cloudflare/task-object.ts`) is a thin shell that gives it SQLite storage and an
 * alarm; tests give it a memory store.
 *
 * Rules kept here (ext-tasks, and this project's own): storage is written before memory changes,
 * so `tasks/get` shows what is stored, and on any storage failure memory is dropped and read
 * again; terminal states never change; `ttlMs` counts from creation (a task without one still
 * ends after `maxLifeMs`); a task belongs to the principal that created it.
 *
 * Runs follow the replay model (replay.ts): each alarm runs the handler from the top over
 * the stored answers and steps. A run ends by settling the task, by waiting for input (answers
 * are stored by `tasks/update`, which wakes the alarm), or between steps, to continue in the next
 * alarm. A run that no live instance holds any more (restart, eviction, deploy) is noticed by the
 * next alarm (Cloudflare re-delivers an interrupted alarm) or access, and runs again; the task
 * fails only after `maxLostRuns` lost runs in a row without progress, saying so. A task between
 * runs whose alarm is overdue (ALARM_GRACE_MS) is woken again by the next read.
 *
 * Past 400 lines on purpose: the transitions stay here, in one class, because they share the
 * record, the live run and the watchers, and the invariants above hold across them (split, each
 * part would need the others' private state). What each needs but does not decide lives
 * beside it: the record's pure parts (a new record, the `Task` shown, which answers count, why a
 * task expired) in record.ts, the watchers in watchers.ts, the run itself in tasks.ts
 * (`runTaskCall`) and replay.ts, the log's batching in log.ts.
 */
import { NOTIFICATION } from '../../protocol/constants.ts'
import { notification } from '../../protocol/jsonrpc.ts'
import type { InputRequest } from '../input/input.ts'
import type { ServerCore } from '../dispatch.ts'
import type { TaskLimits } from './limits.ts'
import { byteLength, fitsIn } from './limits.ts'
import { TaskLog } from './log.ts'
import type { PendingLogItem } from './log.ts'
import { TaskReplay } from './replay.ts'
import type { TaskRecord, TaskStore } from './store.ts'
import { isTerminal, runTaskCall } from './tasks.ts'
import type { DetailedTask, PartialLogPage, PartialLogQuery, RunEnd, Task, TaskCall } from './tasks.ts'
import { expiredFailure, internalError, newTaskRecord, summary, takeAnswers } from './record.ts'
import { TaskWatchers } from './watchers.ts'
import { createRunHost } from './run-host.ts'
import type { Watcher } from './watchers.ts'
import { errorFields, libraryLog } from '../telemetry/log.ts'
import { observeTaskRun } from '../telemetry/task-run.ts'
import type { ObservedRun } from '../telemetry/task-run.ts'

/** After an unfinished task expires and fails, it stays readable this long, then is deleted. */
export const EXPIRED_RETENTION_MS = 60_000
/**
 * How long a working task between runs may wait for its alarm, set to fire at once, before a read
 * of the task sets it again (deliveries were seen lost under `wrangler dev` after a restart).
 */
export const ALARM_GRACE_MS = 3_000

export type { Watcher } from './watchers.ts'

export type CreateOutcome = { task: Task } | { refused: string }

interface LiveRun {
  abort: AbortController
  /** Storage failed while the run was live: the run is abandoned and the alarm fails (and is retried). */
  failure?: unknown
}

export class TaskEngine<Env> {
  readonly #server: ServerCore<Env>
  readonly #env: Env
  readonly #store: TaskStore
  readonly #now: () => number
  readonly #limits: TaskLimits
  #record: TaskRecord | undefined
  #loaded = false
  /** The completed task's result, parsed from storage once. */
  #result: object | undefined
  #run: LiveRun | undefined
  /** When this instance last set the alarm to run the task at once (never, since it started). */
  #wokenAt = Number.NEGATIVE_INFINITY
  readonly #log = new TaskLog(
    (items) => this.#writeLog(items),
    (error) => this.#invalidate(error),
  )
  readonly #watchers = new TaskWatchers()

  constructor(server: ServerCore<Env>, env: Env, store: TaskStore, now: () => number = Date.now) {
    this.#server = server
    this.#env = env
    this.#store = store
    this.#now = now
    this.#limits = server.taskLimits
  }

  /** Create the task (idempotent) and wake the engine to start it; refuse a call too large to store. */
  create(taskId: string, call: TaskCall): Promise<CreateOutcome> {
    return this.#guarded(async () => {
      const existing = this.#load()
      if (existing) return { task: summary(existing) }
      const json = JSON.stringify(call)
      if (!fitsIn(json, this.#limits.maxCallBytes)) {
        return {
          refused: `Invalid params: the call takes ${byteLength(json)} bytes; a task stores at most ${this.#limits.maxCallBytes}`,
        }
      }
      const record = newTaskRecord(taskId, call, this.#limits, this.#now())
      this.#store.create(record, json)
      this.#record = record
      this.#loaded = true
      await this.#wake()
      return { task: summary(record) }
    })
  }

  get(principal: string | null, query?: PartialLogQuery): Promise<{ task: DetailedTask; log?: PartialLogPage } | undefined> {
    return this.#guarded(async () => {
      const record = await this.#owned(principal)
      if (!record) return undefined
      this.#log.flush()
      const task = this.#detailed(record)
      if (!query) return { task }
      const items = this.#store.readLog(query.from, query.limit)
      const nextSeq = items.length > 0 ? (items.at(-1)?.seq as number) + 1 : query.from
      const complete = isTerminal(record.status) && nextSeq >= this.#store.logEnd()
      return { task, log: { items: items.map((item) => JSON.parse(item.json) as Record<string, unknown>), nextSeq, complete } }
    })
  }

  /** Store answers to outstanding input (others are ignored) before returning; wake the run once all are in. */
  update(principal: string | null, responses: Record<string, unknown>): Promise<boolean> {
    return this.#guarded(async () => {
      const record = await this.#owned(principal)
      if (!record) return false
      if (record.status !== 'input_required' || !record.inputRequests) return true
      const { answers, remaining } = takeAnswers(record.inputRequests, responses)
      if (Object.keys(answers).length === 0) return true
      const done = Object.keys(remaining).length === 0
      const patch = done ? { status: 'working' as const, inputRequests: undefined } : { inputRequests: remaining }
      this.#commit(patch, true, (next) => this.#store.saveAnswers(next, answers))
      if (done) await this.#wake()
      return true
    })
  }

  cancel(principal: string | null): Promise<boolean> {
    return this.#guarded(async () => {
      const record = await this.#owned(principal)
      if (!record) return false
      if (!isTerminal(record.status)) this.#finish({ status: 'cancelled', statusMessage: 'Cancelled by the client' })
      return true
    })
  }

  /**
   * Watch the task: its current state now, then every change; `undefined` when the task is
   * unknown to `principal`. Returns the function that stops watching.
   */
  watch(principal: string | null, watcher: Watcher): Promise<(() => void) | undefined> {
    return this.#guarded(async () => {
      const record = await this.#owned(principal)
      if (!record) return undefined
      watcher.send(notification(NOTIFICATION.tasks, { ...this.#detailed(record) }))
      if (isTerminal(record.status)) {
        watcher.end()
        return () => {}
      }
      return this.#watchers.add(watcher)
    })
  }

  /** The alarm: purge when due, expire, notice a lost run, run (one slice), then aim the next alarm. */
  alarm(): Promise<void> {
    return this.#guarded(async () => {
      const record = this.#load()
      if (!record) return
      if (record.purgeAt !== undefined && this.#now() >= record.purgeAt) return this.#purge()
      this.#expireIfDue()
      if (this.#idle()?.running) this.#lost()
      if (this.#idle() && (await this.#runOnce()) === 'yield') {
        return this.#wake()
      }
      const next = this.#record
      if (next) await this.#store.setAlarm(Math.max(next.purgeAt ?? next.expiresAt, this.#now()))
    })
  }

  #load(): TaskRecord | undefined {
    if (!this.#loaded) {
      this.#record = this.#store.load()
      this.#loaded = true
    }
    return this.#record
  }

  /** Any failure may have left storage and memory apart: memory is dropped and read again. */
  async #guarded<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body()
    } catch (error) {
      this.#invalidate(error)
      throw error
    }
  }

  #invalidate(error: unknown): void {
    this.#loaded = false
    this.#record = undefined
    this.#result = undefined
    this.#log.take()
    const run = this.#run
    this.#run = undefined
    if (run) {
      run.failure ??= error
      run.abort.abort()
    }
  }

  /**
   * The record, if it exists and belongs to `principal`. Reading it also settles what time or a
   * restart decided: an overdue task fails, and a lost run is counted and its task woken. A task
   * between runs whose alarm has not come within ALARM_GRACE_MS of this instance setting it (or
   * at all since the instance started) is woken again: a delivery the runtime lost then costs a
   * polling client that long, not the task.
   */
  async #owned(principal: string | null): Promise<TaskRecord | undefined> {
    const record = this.#load()
    if (!record || record.principal !== principal) return undefined
    this.#expireIfDue()
    const idle = this.#idle()
    if (idle && (idle.running ? this.#lost() : this.#now() - this.#wokenAt > ALARM_GRACE_MS)) await this.#wake()
    return this.#record
  }

  /** Set the alarm to run the task at once (and, once that is stored, remember when). */
  async #wake(): Promise<void> {
    const at = this.#now()
    await this.#store.setAlarm(at)
    this.#wokenAt = at
  }

  /**
   * A working task that no run of this instance holds: between runs, or, when it is marked
   * running, its run was lost (an object has one live instance; only a working task runs).
   */
  #idle(): TaskRecord | undefined {
    const record = this.#record
    return record?.status === 'working' && !this.#run ? record : undefined
  }

  /** Count a lost run; true when the task may run again, false when it failed for good. */
  #lost(): boolean {
    const record = this.#record as TaskRecord
    const progress = this.#store.progress()
    const lostRuns = progress > record.progressMark ? 1 : record.lostRuns + 1
    if (lostRuns > this.#limits.maxLostRuns) {
      this.#finish({
        status: 'failed',
        error: internalError('Task run was lost'),
        statusMessage: `The task's run was interrupted ${lostRuns} times in a row without progress (restarts, evictions or platform limits)`,
      })
      return false
    }
    this.#commit({ running: false, lostRuns, progressMark: progress }, false)
    return true
  }

  /** ttlMs counts from creation: an unfinished task past it fails, and is purged a little later. */
  #expireIfDue(): void {
    const record = this.#record
    if (!record || isTerminal(record.status) || this.#now() < record.expiresAt) return
    this.#finish({ ...expiredFailure(record, this.#limits), purgeAt: this.#now() + EXPIRED_RETENTION_MS })
  }

  /** One run, inside the alarm: marked running in storage first, so a lost run is noticed. */
  async #runOnce(): Promise<RunEnd['kind']> {
    const record = this.#record as TaskRecord
    this.#commit({ running: true, runs: record.runs + 1 }, false)
    const call = JSON.parse(this.#store.call()) as TaskCall
    const observed = observeTaskRun(this.#server.observers, this.#env, {
      taskId: record.taskId,
      tool: call.tool,
      run: record.runs + 1,
      traceparent: call.traceparent,
    })
    const { emitted, emittedBytes } = this.#log.stats
    const partials = () => ({ chunks: this.#log.stats.emitted - emitted, bytes: this.#log.stats.emittedBytes - emittedBytes })
    try {
      const kind = await this.#runTraced(call, observed)
      const now = this.#record
      observed?.end(kind === 'yield' || !now ? 'working' : now.status, now?.error, partials())
      return kind
    } catch (error) {
      observed?.end('error', undefined, partials())
      throw error
    }
  }

  async #runTraced(call: TaskCall, observed: ObservedRun | undefined): Promise<RunEnd['kind']> {
    const record = this.#record as TaskRecord
    const run: LiveRun = { abort: new AbortController() }
    this.#run = run
    // The alarm is busy with this run, so the ttl is kept by a timer while it lasts. A timer may
    // fire a millisecond before the clock reaches expiresAt (Node's does), so it is set again then.
    let expiry: ReturnType<typeof setTimeout>
    const keepTtl = () => {
      const left = record.expiresAt - this.#now()
      if (left > 0) {
        expiry = setTimeout(keepTtl, left)
        return
      }
      try {
        this.#expireIfDue()
      } catch (error) {
        this.#invalidate(error)
      }
    }
    expiry = setTimeout(keepTtl, Math.max(0, record.expiresAt - this.#now()))
    let end: RunEnd
    try {
      end = await this.#execute(run, call, observed)
    } finally {
      clearTimeout(expiry)
      if (this.#run === run) this.#run = undefined
      run.abort.abort()
    }
    if (run.failure !== undefined) throw run.failure
    this.#log.flush()
    if (!this.#record || isTerminal(this.#record.status)) return 'stopped'
    if (end.kind === 'completed') this.#complete(end.result)
    else if (end.kind === 'failed') this.#finish({ status: 'failed', error: end.error, statusMessage: end.statusMessage })
    else if (end.kind === 'input') this.#waitForInput(end.requests)
    else {
      this.#commit({ running: false }, false)
      return 'yield'
    }
    return end.kind
  }

  #execute(run: LiveRun, call: TaskCall, observed: ObservedRun | undefined): Promise<RunEnd> {
    const record = this.#record as TaskRecord
    const answers = Object.fromEntries(Object.entries(this.#store.answers()).map(([key, json]) => [key, JSON.parse(json)]))
    const token = call.partialResultToken ?? record.taskId
    const host = createRunHost({
      taskId: record.taskId,
      token,
      limits: this.#limits,
      now: this.#now,
      live: () => this.#run === run && this.#record !== undefined && !isTerminal(this.#record.status),
      log: this.#log,
      store: this.#store,
      watchers: this.#watchers,
      invalidate: (error) => this.#invalidate(error),
      observed,
    })
    const replay = new TaskReplay(host, this.#store.steps(), this.#store.logEnd())
    return runTaskCall(this.#server, call, this.#env, { taskId: record.taskId, signal: run.abort.signal, answers, replay })
  }

  #complete(result: object): void {
    let problem: string
    try {
      const json = JSON.stringify(result)
      if (fitsIn(json, this.#limits.maxResultBytes)) {
        this.#finish({ status: 'completed' }, json, result)
        return
      }
      problem = `The task's result takes ${byteLength(json)} bytes; a task stores at most ${this.#limits.maxResultBytes}`
    } catch (error) {
      // Not JSON, or the store refused it; nothing changed (storage first), so say so instead. The
      // runtime's own message stays in the logs (STYLE: errors never leak internals).
      libraryLog.error('task result not stored', { task_id: this.#record?.taskId, ...errorFields(error) })
      problem = "The task's result could not be stored"
    }
    this.#fail(problem)
  }

  #waitForInput(requests: Record<string, InputRequest>): void {
    const json = JSON.stringify(requests)
    if (fitsIn(json, this.#limits.maxInputBytes)) {
      this.#commit({ status: 'input_required', inputRequests: requests, running: false }, true)
    } else {
      this.#fail(
        `The task asked for ${byteLength(json)} bytes of input requests; a task stores at most ${this.#limits.maxInputBytes}`,
      )
    }
  }

  #fail(statusMessage: string): void {
    this.#finish({ status: 'failed', error: internalError(statusMessage), statusMessage })
  }

  /** Move to a terminal state (once): log first, then the record (and result), then memory and watchers. */
  #finish(patch: Partial<TaskRecord>, resultJson?: string, result?: object): void {
    const record = this.#record
    if (!record || isTerminal(record.status)) return
    this.#log.flush()
    const now = this.#now()
    const next: TaskRecord = { ...record, ...patch, running: false, updatedAt: now }
    delete next.inputRequests
    next.purgeAt ??= Math.max(record.expiresAt, now)
    this.#store.settle(next, resultJson)
    this.#record = next
    this.#result = result
    this.#run?.abort.abort()
    this.#announce(next)
    this.#watchers.endAll()
  }

  /** Store a change of the record, then take it into memory; `visible` changes are timestamped and announced. */
  #commit(patch: Partial<TaskRecord>, visible: boolean, write = (next: TaskRecord) => this.#store.save(next)): void {
    const next: TaskRecord = { ...(this.#record as TaskRecord), ...patch }
    if (visible) next.updatedAt = this.#now()
    write(next)
    this.#record = next
    if (visible) this.#announce(next)
  }

  /** A status change: to this task's watchers, and to the event hub when the server has one. */
  #announce(record: TaskRecord): void {
    const detailed = { ...this.#detailed(record) }
    this.#watchers.broadcast(notification(NOTIFICATION.tasks, detailed))
    this.#server.taskChanged(record.taskId, record.principal, detailed)
  }

  async #purge(): Promise<void> {
    await this.#store.deleteAll()
    this.#record = undefined
    this.#result = undefined
    this.#run?.abort.abort()
    this.#watchers.endAll()
  }

  #writeLog(items: PendingLogItem[]): void {
    this.#store.appendLog(items)
    this.#watchers.broadcastLog(items)
  }

  #detailed(record: TaskRecord): DetailedTask {
    const task: DetailedTask = summary(record)
    if (record.status === 'input_required' && record.inputRequests) task.inputRequests = record.inputRequests
    if (record.status === 'completed') {
      this.#result ??= JSON.parse(this.#store.result() ?? '{}') as object
      task.result = this.#result
    }
    if (record.status === 'failed' && record.error) task.error = record.error
    return task
  }
}
