/**
 * The task Durable Object: one object per task (named by its id), a thin shell that gives
 * `TaskEngine` SQLite storage (sqlite-task-store.ts has the layout) and the object's alarm. The
 * Worker exports the class built from the same server definition, so tasks run the very same
 * tool handlers.
 *
 * Alarm: set at creation (starts the first run), after `tasks/update` brings the last answer,
 * and right after a run that paused between steps; otherwise at the task's expiry (fails an
 * unfinished task, deletes a finished one) and then at purge time. Cloudflare delivers alarms at
 * least once and re-delivers one whose invocation was lost, so a run lost to a restart is picked
 * up by the next alarm (or by the next request to the object) and runs again over what is stored.
 * A read of a task between runs whose alarm is overdue (task-engine.ts, ALARM_GRACE_MS) sets it again.
 */
import { DurableObject } from 'cloudflare:workers'
import { NOTIFICATION } from '../protocol/constants.ts'
import type { McpServer } from '../server/server.ts'
import { TaskEngine } from '../server/tasks/engine.ts'
import type { CreateOutcome } from '../server/tasks/engine.ts'
import type { DetailedTask, PartialLogPage, PartialLogQuery, TaskCall } from '../server/tasks/tasks.ts'
import { SqliteTaskStore } from './sqlite-task-store.ts'

const encoder = new TextEncoder()
/** What one watch stream holds for a slow reader before it drops partial results. */
export const WATCH_BUFFER_BYTES = 1024 * 1024

/** The RPC surface of a task object, as the Worker's task backend calls it. */
export interface TaskObjectRpc {
  create(taskId: string, call: TaskCall): Promise<CreateOutcome>
  get(principal: string | null, log?: PartialLogQuery): Promise<{ task: DetailedTask; log?: PartialLogPage } | undefined>
  update(principal: string | null, responses: Record<string, unknown>): Promise<boolean>
  cancel(principal: string | null): Promise<boolean>
  /** Newline-delimited notifications: the task's state now, then its changes; ends when the task does. */
  watch(principal: string | null, partials: boolean): Promise<ReadableStream<Uint8Array> | null>
}

/** The class `createTaskObjectClass` builds: a Durable Object with the task RPC surface and an alarm. */
export type McpTaskObjectClass<Env> = new (
  ctx: DurableObjectState,
  env: Env,
) => DurableObject<Env> & TaskObjectRpc & { alarm(): Promise<void> }

/**
 * Build the task Durable Object class for a server. Export it from the Worker under the
 * `class_name` of the binding.
 *
 * @example
 * export const McpTaskObject = createTaskObjectClass(server)
 */
export function createTaskObjectClass<Env>(server: McpServer<Env>): McpTaskObjectClass<Env> {
  return class McpTaskObject extends DurableObject<Env> implements TaskObjectRpc {
    readonly #engine: TaskEngine<Env>

    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env)
      this.#engine = new TaskEngine(server, env, new SqliteTaskStore(ctx.storage))
    }

    create(taskId: string, call: TaskCall): Promise<CreateOutcome> {
      return this.#engine.create(taskId, call)
    }

    get(principal: string | null, log?: PartialLogQuery) {
      return this.#engine.get(principal, log)
    }

    update(principal: string | null, responses: Record<string, unknown>): Promise<boolean> {
      return this.#engine.update(principal, responses)
    }

    cancel(principal: string | null): Promise<boolean> {
      return this.#engine.cancel(principal)
    }

    async watch(principal: string | null, partials: boolean): Promise<ReadableStream<Uint8Array> | null> {
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(
        undefined,
        new ByteLengthQueuingStrategy({ highWaterMark: WATCH_BUFFER_BYTES }),
      )
      const writer = writable.getWriter()
      let stop: (() => void) | undefined
      const closed = () => stop?.()
      const found = await this.#engine.watch(principal, {
        partials,
        send: (message) => {
          // A slow reader gets no more partial results once its budget is full (their delivery is
          // best-effort, SEP-2998); status changes always go, and they are few.
          if (message.method === NOTIFICATION.partialResult && (writer.desiredSize ?? 0) <= 0) return
          void writer.write(encoder.encode(`${JSON.stringify(message)}\n`)).catch(closed)
        },
        end: () => void writer.close().catch(() => {}),
      })
      if (!found) {
        await writer.close()
        return null
      }
      stop = found
      // The reader went away: stop writing to it.
      writer.closed.catch(closed)
      return readable
    }

    override async alarm(): Promise<void> {
      await this.#engine.alarm()
    }
  }
}
