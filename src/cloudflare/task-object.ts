/**
 * The task Durable Object: one object per task (named by its id), a thin shell that gives
 * `TaskEngine` SQLite storage and the object's alarm. The Worker exports the class built from the
 * same server definition, so tasks run the very same tool handlers.
 *
 * Storage layout (SQLite-backed object):
 *   task(id = 0, record TEXT)          the task record as one JSON document (TaskRecord)
 *   partial_log(seq INTEGER PRIMARY KEY, params TEXT)
 *                                      one row per partial result, in seq order, written in
 *                                      batches together with the record's nextSeq
 * Each row stays far below the 2 MB per-row limit because a partial result is one row; a tool
 * result larger than that cannot be stored (the task then fails).
 * Alarm: first at creation (starts the run), then at the task's expiry (fails an unfinished task,
 * or deletes a finished one), then at purge time. A wake-up that finds the task `working` without
 * a live run settles it `failed`: the run was lost to a restart.
 */
import { DurableObject } from 'cloudflare:workers'
import type { McpServer } from '../server/server.ts'
import { TaskEngine } from '../server/task-engine.ts'
import type { TaskRecord, TaskStore } from '../server/task-engine.ts'
import type { LogItem } from '../server/task-log.ts'
import type { DetailedTask, PartialLogPage, PartialLogQuery, Task, TaskCall } from '../server/tasks.ts'

const encoder = new TextEncoder()

class SqliteTaskStore implements TaskStore {
  readonly #storage: DurableObjectStorage
  #tables = false

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage
  }

  /**
   * Whether this object holds a task. Tables are made on the first write only, so a lookup of a
   * made-up task id writes nothing.
   */
  #exists(): boolean {
    this.#tables ||=
      this.#storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'task'").toArray().length > 0
    return this.#tables
  }

  #ensureTables(): void {
    if (this.#exists()) return
    this.#storage.sql.exec(`CREATE TABLE IF NOT EXISTS task (id INTEGER PRIMARY KEY CHECK (id = 0), record TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS partial_log (seq INTEGER PRIMARY KEY, params TEXT NOT NULL);`)
    this.#tables = true
  }

  load(): TaskRecord | undefined {
    if (!this.#exists()) return undefined
    const row = this.#storage.sql.exec<{ record: string }>('SELECT record FROM task WHERE id = 0').toArray()[0]
    return row ? (JSON.parse(row.record) as TaskRecord) : undefined
  }

  save(record: TaskRecord): void {
    this.#ensureTables()
    this.#storage.sql.exec('INSERT OR REPLACE INTO task (id, record) VALUES (0, ?)', JSON.stringify(record))
  }

  appendLog(items: readonly LogItem[], record: TaskRecord): void {
    this.#storage.transactionSync(() => {
      for (const item of items) {
        this.#storage.sql.exec(
          'INSERT OR REPLACE INTO partial_log (seq, params) VALUES (?, ?)',
          item.seq,
          JSON.stringify(item.params),
        )
      }
      this.save(record)
    })
  }

  readLog(from: number, limit: number): LogItem[] {
    if (!this.#exists()) return []
    return this.#storage.sql
      .exec<{ seq: number; params: string }>(
        'SELECT seq, params FROM partial_log WHERE seq >= ? ORDER BY seq LIMIT ?',
        from,
        limit,
      )
      .toArray()
      .map((row) => ({ seq: row.seq, params: JSON.parse(row.params) as Record<string, unknown> }))
  }

  async deleteAll(): Promise<void> {
    await this.#storage.deleteAlarm()
    await this.#storage.deleteAll()
    this.#tables = false
  }

  async setAlarm(at: number): Promise<void> {
    await this.#storage.setAlarm(at)
  }
}

/** The RPC surface of a task object, as the Worker's task backend calls it. */
export interface TaskObjectRpc {
  create(taskId: string, call: TaskCall): Promise<Task>
  get(principal: string | null, log?: PartialLogQuery): Promise<{ task: DetailedTask; log?: PartialLogPage } | undefined>
  update(principal: string | null, responses: Record<string, unknown>): Promise<boolean>
  cancel(principal: string | null): Promise<boolean>
  watch(principal: string | null): Promise<ReadableStream<Uint8Array> | null>
}

/**
 * Build the task Durable Object class for a server. Export it from the Worker under the
 * `class_name` of the binding.
 *
 * @example
 * export const McpTaskObject = createTaskObjectClass(server)
 */
export function createTaskObjectClass<Env>(server: McpServer<Env>) {
  return class McpTaskObject extends DurableObject<Env> implements TaskObjectRpc {
    readonly #engine: TaskEngine<Env>

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env)
      this.#engine = new TaskEngine(server, env, new SqliteTaskStore(ctx.storage))
    }

    create(taskId: string, call: TaskCall): Promise<Task> {
      return this.#engine.create(taskId, call)
    }

    get(principal: string | null, log?: PartialLogQuery) {
      return this.#engine.get(principal, log)
    }

    async update(principal: string | null, responses: Record<string, unknown>): Promise<boolean> {
      return this.#engine.update(principal, responses)
    }

    async cancel(principal: string | null): Promise<boolean> {
      return this.#engine.cancel(principal)
    }

    /** Newline-delimited JSON notifications of this task until the reader goes away. */
    async watch(principal: string | null): Promise<ReadableStream<Uint8Array> | null> {
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
      const writer = writable.getWriter()
      const stop = this.#engine.watch(principal, (message) => {
        writer.write(encoder.encode(`${JSON.stringify(message)}\n`)).catch(() => stop?.())
      })
      if (!stop) {
        await writer.close()
        return null
      }
      writer.closed.catch(() => stop())
      return readable
    }

    override async alarm(): Promise<void> {
      await this.#engine.alarm()
    }
  }
}
