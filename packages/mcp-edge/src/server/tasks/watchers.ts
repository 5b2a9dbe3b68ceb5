/**
 * The live watchers of one task (server/tasks/engine.ts): status notifications to each, partial
 * results to those that asked for them, and the end of the stream once the task is terminal or
 * deleted. Watchers live in memory only; a restarted instance has none until clients watch again.
 */
import { NOTIFICATION } from '../../protocol/constants.ts'
import { notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { PendingLogItem } from './log.ts'

/** A live watcher of the task: status notifications, and partial results when it asked for them. */
export interface Watcher {
  partials: boolean
  send(message: JsonRpcNotification): void
  /** The task is terminal (after its last notification) or deleted: nothing more will come. */
  end(): void
}

export class TaskWatchers {
  readonly #watchers = new Set<Watcher>()

  /** Add `watcher`; returns the function that stops watching. */
  add(watcher: Watcher): () => void {
    this.#watchers.add(watcher)
    return () => this.#watchers.delete(watcher)
  }

  /** A message to every watcher; a partial result only to those that asked for partials. */
  broadcast(message: JsonRpcNotification, partial = false): void {
    for (const watcher of this.#watchers) if (!partial || watcher.partials) watcher.send(message)
  }

  /** Logged partial results, in order, as notifications. */
  broadcastLog(items: PendingLogItem[]): void {
    for (const item of items) this.broadcast(notification(NOTIFICATION.partialResult, item.params), true)
  }

  /** Nothing more will come: end every watcher and forget them. */
  endAll(): void {
    for (const watcher of this.#watchers) watcher.end()
    this.#watchers.clear()
  }
}
