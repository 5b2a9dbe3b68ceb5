/**
 * A task's status changes through the event hub, kept trying. The task engine reports a change
 * once (`McpServer.taskChanged`) and moves on; a listen stream that watches the task through the
 * hub hears of it only from this publish (nothing appends it to the log otherwise), and waits
 * for its timeout if the publish is lost. So a failed publish is tried again after `RETRY_MS`,
 * unless a newer status of the same task was reported meanwhile (which says more, and is on its
 * own way). A status heard twice changes nothing: listeners keep only what is newer
 * (listen-tasks.ts).
 */
import { errorFields, libraryLog } from '../telemetry/log.ts'
import type { McpEvent } from './events.ts'

/** The waits before each further attempt: four attempts over about six seconds. */
export const RETRY_MS = [100, 1_000, 5_000] as const

export class TaskEvents {
  readonly #publish: (event: McpEvent) => Promise<void>
  /** The newest status reported of each task whose publish is under way (its `lastUpdatedAt`). */
  readonly #latest = new Map<string, unknown>()

  constructor(publish: (event: McpEvent) => Promise<void>) {
    this.#publish = publish
  }

  /** Publish `event`, the status of `taskId` as of `at`, until it is sent, superseded or given up. */
  changed(taskId: string, event: McpEvent, at: unknown): Promise<void> {
    this.#latest.set(taskId, at)
    return this.#send(taskId, event, at, 0)
  }

  async #send(taskId: string, event: McpEvent, at: unknown, attempt: number): Promise<void> {
    const current = () => this.#latest.get(taskId) === at
    try {
      await this.#publish(event)
      if (current()) this.#latest.delete(taskId)
    } catch (error) {
      if (!current()) return
      const wait = RETRY_MS[attempt]
      if (wait === undefined) {
        this.#latest.delete(taskId)
        libraryLog.error('task event lost', { taskId, attempts: attempt + 1, ...errorFields(error) })
        return
      }
      libraryLog.warn('task event not published, trying again', { taskId, inMs: wait, ...errorFields(error) })
      await new Promise((resolve) => setTimeout(resolve, wait))
      if (current()) return this.#send(taskId, event, at, attempt + 1)
    }
  }
}
