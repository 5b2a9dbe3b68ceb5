/**
 * A listen stream's tasks when their statuses come through the event hub (the stream asked for no
 * partial results, which only a task's own stream carries). It keeps the Tasks semantics a task's
 * own stream has: the owned tasks' current state first, then every later change once, and the
 * watch ends when each task is terminal.
 *
 * - Events that reach the hub while the current state is being read wait, and only those newer
 *   than what was read go on, so a stream never shows `working` after `completed`.
 * - Hub events leave the result out (it may be megabytes; a WebSocket message is at most 1 MiB):
 *   a `completed` status is read back whole, with `tasks/get`, in the listen request itself.
 * - The stream's other events pass through `inOrder` too, so they wait behind that read and
 *   behind the held events: event ids only grow along a stream.
 */
import { NOTIFICATION } from '../../protocol/constants.ts'
import { notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification, RequestId } from '../../protocol/jsonrpc.ts'
import { tag } from './events.ts'
import type { McpEvent } from './events.ts'
import { isTerminal } from '../tasks/tasks.ts'
import { errorFields, libraryLog } from '../telemetry/log.ts'
import type { TaskBackend, TaskStatus, TaskWatch } from '../tasks/tasks.ts'

type TaskEvent = Extract<McpEvent, { type: 'task' }>

interface Seen {
  status: unknown
  lastUpdatedAt: unknown
}

/** Whether `event` says something newer than `seen` (same instant and status: nothing new). */
function newer(event: TaskEvent, seen: Seen | undefined): boolean {
  if (!seen) return true
  const at = String(event.params.lastUpdatedAt)
  const before = String(seen.lastUpdatedAt)
  return at > before || (at === before && event.params.status !== seen.status)
}

export class HubTasks {
  readonly #tasks: TaskBackend
  readonly #principal: string | null
  readonly #forward: (event: McpEvent, id?: string) => void
  /** The stream's events (task and other) held while the current state is read; `undefined` once it was. */
  #held: Array<() => Promise<void> | undefined> | undefined = []
  /** The forwarding under way while a completed result is read back: later events wait for it. */
  #busy: Promise<void> | undefined
  readonly #seen = new Map<string, Seen>()
  readonly #open = new Set<string>()
  #ended: (() => void) | undefined

  /** `forward` takes each event on to the listener's stream, with its id. */
  constructor(tasks: TaskBackend, principal: string | null, forward: (event: McpEvent, id?: string) => void) {
    this.#tasks = tasks
    this.#principal = principal
    this.#forward = forward
  }

  /**
   * A task event from the hub, with its id. A resumed stream's replayed events wait here too, and
   * pass only if newer than the state `start` read (so a resume never moves a task backwards).
   */
  see(event: TaskEvent, id?: string): void {
    this.inOrder(() => this.#pass(event, id))
  }

  /**
   * Forward in the order the hub sent: `step` now, unless the current state is still being read
   * or a completed result read back (then after them). `step` returns a promise only when it reads.
   */
  inOrder(step: () => Promise<void> | undefined): void {
    if (this.#held) {
      this.#held.push(step)
      return
    }
    const running = this.#busy ? this.#busy.then(step) : step()
    if (running === undefined) return
    const busy: Promise<void> = running.then(
      () => {
        if (this.#busy === busy) this.#busy = undefined
      },
      (error: unknown) => {
        libraryLog.error('listen event lost', errorFields(error))
        if (this.#busy === busy) this.#busy = undefined
      },
    )
    this.#busy = busy
  }

  /**
   * Resolves once no read-back holds events back: the hub's pace waits for it, so a long replay
   * sends its next batch only when this one is past `inOrder` (events held here are not in the
   * listener's inbox, which the relay's pace measures).
   */
  async idle(): Promise<void> {
    while (this.#busy) await this.#busy
  }

  /** Whether a read-back holds events back now. */
  get busy(): boolean {
    return this.#busy !== undefined
  }

  /**
   * Read the current state of `taskIds`, send that of each owned task (`send`), then let the
   * waiting events through. Resolves with the owned ids and when they have all ended.
   */
  async start(
    taskIds: readonly string[],
    subscriptionId: RequestId,
    send: (message: JsonRpcNotification) => void,
  ): Promise<TaskWatch> {
    const unique = [...new Set(taskIds)]
    const found = await Promise.all(unique.map((taskId) => this.#tasks.get(taskId, this.#principal)))
    const owned: string[] = []
    found.forEach((entry, index) => {
      if (!entry) return
      const taskId = unique[index] as string
      owned.push(taskId)
      this.#seen.set(taskId, { status: entry.task.status, lastUpdatedAt: entry.task.lastUpdatedAt })
      if (!isTerminal(entry.task.status)) this.#open.add(taskId)
      send(notification(NOTIFICATION.tasks, { ...entry.task, _meta: tag(subscriptionId) }))
    })
    const ended = new Promise<void>((resolve) => {
      this.#ended = resolve
    })
    const held = this.#held ?? []
    this.#held = undefined
    for (const step of held) this.inOrder(step)
    this.#check()
    return { taskIds: owned, ended }
  }

  /** A promise only while a completed result is read back (`inOrder` makes later events wait). */
  #pass(event: TaskEvent, id: string | undefined): Promise<void> | undefined {
    if (!this.#open.has(event.taskId) || !newer(event, this.#seen.get(event.taskId))) return
    this.#seen.set(event.taskId, { status: event.params.status, lastUpdatedAt: event.params.lastUpdatedAt })
    const status = event.params.status as TaskStatus
    if (status !== 'completed' || 'result' in event.params) return this.#send(event, event.params, id)
    return this.#tasks
      .get(event.taskId, this.#principal)
      .catch(() => undefined)
      .then((found) => this.#send(event, found ? { ...found.task, _meta: event.params._meta } : event.params, id))
  }

  #send(event: TaskEvent, params: TaskEvent['params'], id: string | undefined): undefined {
    this.#forward({ ...event, params }, id)
    // Only now: the stream may end once the last task's terminal status is on it.
    if (isTerminal(params.status as TaskStatus)) this.#open.delete(event.taskId)
    this.#check()
    return undefined
  }

  #check(): void {
    if (this.#open.size === 0) this.#ended?.()
  }
}
