/**
 * `subscriptions/listen` fan-out inside one isolate (basic/patterns/subscriptions): open listen
 * streams register here with their filter; `notify*` on the server pushes to the streams whose
 * filter asked for that notification type, tagged with the stream's subscription id. Nothing is
 * kept once a stream closes ("No subscription state survives reconnection").
 */
import { META, NOTIFICATION } from '../protocol/constants.ts'
import { notification } from '../protocol/jsonrpc.ts'
import type { RequestId, SubscriptionFilter } from '../protocol/types.ts'
import type { Outbox } from './outbox.ts'

export interface Listener {
  readonly subscriptionId: RequestId
  readonly filter: SubscriptionFilter
  readonly outbox: Outbox
}

export type ListChange = 'tools' | 'prompts' | 'resources'

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

export class ListenHub {
  readonly #listeners = new Set<Listener>()

  get size(): number {
    return this.#listeners.size
  }

  add(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  listChanged(kind: ListChange): void {
    for (const listener of this.#listeners) {
      if (listener.filter[FILTER_KEY[kind]] === true) {
        listener.outbox.push(notification(METHOD[kind], { _meta: tag(listener) }))
      }
    }
  }

  /** `uri` changed; streams subscribed to it or to a parent of it hear about it. */
  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners) {
      const subscriptions = listener.filter.resourceSubscriptions
      if (subscriptions?.some((subscribed) => uri === subscribed || uri.startsWith(`${subscribed}/`))) {
        listener.outbox.push(notification(NOTIFICATION.resourceUpdated, { uri, _meta: tag(listener) }))
      }
    }
  }
}

export function tag(listener: { subscriptionId: RequestId }): Record<string, unknown> {
  return { [META.subscriptionId]: listener.subscriptionId }
}
