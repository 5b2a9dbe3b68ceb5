/**
 * `subscriptions/listen` fan-out inside one isolate (basic/patterns/subscriptions): open listen
 * streams register here with their filter; `notify*` on the server queues a notification for the
 * streams whose filter asked for that type, tagged with the stream's subscription id. Nothing is
 * kept once a stream closes ("No subscription state survives reconnection").
 *
 * Delivery is pulled, not pushed: the change happens while serving some other request, and
 * Workers forbid one request from touching another's I/O (its response stream). So the hub only
 * appends to a plain per-listener inbox, and each listen request drains its own inbox on its own
 * timer (`LISTEN_POLL_MS`). Inboxes are bounded: a repeated list change or resource update that
 * is still pending is not queued twice, and past `MAX_INBOX` the oldest entries go.
 */
import { META, NOTIFICATION } from '../protocol/constants.ts'
import { notification } from '../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { RequestId, SubscriptionFilter } from '../protocol/types.ts'

export const LISTEN_POLL_MS = 50
export const MAX_INBOX = 256

export type ListChange = 'tools' | 'prompts' | 'resources'

export interface Listener {
  readonly subscriptionId: RequestId
  readonly filter: SubscriptionFilter
  /** Notifications waiting for the listen request to pick them up. */
  readonly inbox: JsonRpcNotification[]
}

const FILTER_KEY = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
} as const

const METHOD = {
  tools: NOTIFICATION.toolsListChanged,
  prompts: NOTIFICATION.promptsListChanged,
  resources: NOTIFICATION.resourcesListChanged,
} as const

export function tag(listener: { subscriptionId: RequestId }): Record<string, unknown> {
  return { [META.subscriptionId]: listener.subscriptionId }
}

function enqueue(listener: Listener, message: JsonRpcNotification, same: (pending: JsonRpcNotification) => boolean): void {
  if (listener.inbox.some(same)) return
  listener.inbox.push(message)
  if (listener.inbox.length > MAX_INBOX) listener.inbox.shift()
}

export class ListenHub {
  readonly #listeners = new Set<Listener>()

  add(subscriptionId: RequestId, filter: SubscriptionFilter): { listener: Listener; remove: () => void } {
    const listener: Listener = { subscriptionId, filter, inbox: [] }
    this.#listeners.add(listener)
    return { listener, remove: () => this.#listeners.delete(listener) }
  }

  listChanged(kind: ListChange): void {
    const method = METHOD[kind]
    for (const listener of this.#listeners) {
      if (listener.filter[FILTER_KEY[kind]] !== true) continue
      enqueue(listener, notification(method, { _meta: tag(listener) }), (pending) => pending.method === method)
    }
  }

  /** `uri` changed; streams subscribed to it or to a parent of it hear about it. */
  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners) {
      const subscriptions = listener.filter.resourceSubscriptions
      if (!subscriptions?.some((subscribed) => uri === subscribed || uri.startsWith(`${subscribed}/`))) continue
      enqueue(
        listener,
        notification(NOTIFICATION.resourceUpdated, { uri, _meta: tag(listener) }),
        (pending) => pending.method === NOTIFICATION.resourceUpdated && (pending.params as { uri?: string }).uri === uri,
      )
    }
  }
}
