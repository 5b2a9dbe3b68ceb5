/**
 * Listeners: each open `subscriptions/listen` stream (basic/patterns/subscriptions) is a
 * `Listener` with its subscription (topics and principal) and a bounded inbox. Events are offered
 * to it from one of two places:
 *
 * - the in-isolate `ListenHub` (servers declared single-isolate, and this isolate's own registry
 *   changes): the change happens while serving some other request, and Workers forbid one request
 *   from touching another's I/O (its response stream), so the hub only appends to the inbox and
 *   each listen request drains its own inbox on its own timer (`LISTEN_POLL_MS`);
 * - the listener's own path from an `EventHub` (cross-isolate): events arrive in the listen
 *   request itself, which moves them to its stream at once.
 *
 * Inboxes are bounded: an event equal to one still pending (same list, same URI) is not queued
 * twice, and past `MAX_INBOX` the oldest entries go (a slow listener loses old notifications,
 * never the isolate's memory). Nothing is kept once a stream closes ("No subscription state
 * survives reconnection"). An event with an id (from a hub's log) is never dropped that way: at
 * `MAX_INBOX` entries other than re-read hints (with ids or not) the listener is `lagging`, takes no more
 * events with ids, and its stream ends once
 * the inbox is sent, so the client resumes from the last id it got and the log replays the rest;
 * entries without an id (in-isolate events) give way only to each other, past `MAX_INBOX` of them.
 * A re-read hint (`offer(…, hint)`: what a resume past the log may have missed) never gives way:
 * there is at most one per topic of the subscription, which its filter's size bounds.
 */
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { RequestId, SubscriptionFilter } from '../../protocol/types.ts'
import { eventKey, eventNotification, filterTopics, matches } from './events.ts'
import type { McpEvent, Subscription } from './events.ts'

export const LISTEN_POLL_MS = 50
export const MAX_INBOX = 256

/** The notification an event becomes on a stream; `id`: its place in a hub's log, when it has one. */
export type Shape = (event: McpEvent, subscriptionId: RequestId, id?: string) => JsonRpcNotification

export class Listener implements Subscription {
  readonly subscriptionId: RequestId
  readonly topics: ReadonlySet<string>
  readonly principal: string | null
  /** Notifications waiting for the listen request to pick them up, with their dedupe keys and events. */
  readonly #inbox: Array<{
    key: string | undefined
    id: string | undefined
    message: JsonRpcNotification
    event: McpEvent
    at: number
    hint: boolean
  }> = []
  /** How many of the inbox's entries are re-read hints. */
  #hints = 0
  #lagging = false

  readonly #allows: (event: McpEvent) => boolean
  readonly #sent: ((event: McpEvent, queuedAt: number) => void) | undefined
  readonly #shape: Shape

  /**
   * `filter`: what it asked for, or its topics themselves. `allows`: a last word on each event for
   * this listener (the resource scopes its principal holds). `sent`: told of each event taken to
   * be sent, with when it was queued (its span). `shape`: the notification an event becomes, with
   * its id when it has one (default: a listen stream's, tagged with its subscription id).
   */
  constructor(
    subscriptionId: RequestId,
    filter: SubscriptionFilter | ReadonlySet<string>,
    principal: string | null,
    allows: (event: McpEvent) => boolean = () => true,
    sent?: (event: McpEvent, queuedAt: number) => void,
    shape: Shape = eventNotification,
  ) {
    this.subscriptionId = subscriptionId
    this.topics = filter instanceof Set ? filter : new Set(filterTopics(filter as SubscriptionFilter))
    this.principal = principal
    this.#allows = allows
    this.#sent = sent
    this.#shape = shape
  }

  get pending(): number {
    return this.#inbox.length
  }

  /** Whether an event with an id found the inbox full (module header): the stream should end once drained. */
  get lagging(): boolean {
    return this.#lagging
  }

  /**
   * Queue `event` (with `id`, its place in a hub's log; or as a re-read `hint`, which is never
   * dropped) if this listener asked for it and may see it; whether it did (or had it pending, or lags).
   */
  offer(event: McpEvent, id?: string, hint = false): boolean {
    if (!matches(this, event) || !this.#allows(event)) return false
    // Lagging, it takes no more events with ids (the log replays them); re-read hints still go out.
    if (this.#lagging && id !== undefined) return true
    const key = eventKey(event)
    const pending = key === undefined ? -1 : this.#inbox.findIndex((entry) => entry.key === key)
    // An equal event pending covers this one. With ids, the pending one moves here and takes this
    // id, so ids only grow along the stream and its last id covers both.
    if (pending >= 0 && id === undefined) return true
    if (pending >= 0) {
      if (this.#inbox[pending]?.hint) this.#hints--
      this.#inbox.splice(pending, 1)
    } else if (id !== undefined && this.#inbox.length - this.#hints >= MAX_INBOX) {
      this.#lagging = true
      return true
    }
    const message = this.#shape(event, this.subscriptionId, id)
    this.#inbox.push({ key, id, message, event, at: this.#sent ? Date.now() : 0, hint })
    if (hint) this.#hints++
    // An event with an id is never dropped (module header): one is taken only while the inbox
    // holds fewer than MAX_INBOX entries other than hints, else the listener lags; entries without
    // an id give way to each other past MAX_INBOX of them, hints never. So the inbox holds at most
    // MAX_INBOX with ids (more by one for each hint an event with an id took the place of), MAX_INBOX
    // others, and one hint per topic: bounded by the filter either way. Hints do not count toward the
    // lag: a resume's hints come before its replay, and with 256 of them (a filter of some 300
    // URIs, within the 12 KiB cap) its first replayed event lagged, ended the stream, and the
    // resume from the same id did the same again.
    if (id === undefined && !hint && this.#inbox.length > MAX_INBOX) {
      const without = this.#inbox.filter((entry) => entry.id === undefined && !entry.hint)
      if (without.length > MAX_INBOX) this.#inbox.splice(this.#inbox.indexOf(without[0]!), 1)
    }
    return true
  }

  /** Take up to `limit` pending notifications, oldest first. */
  take(limit = MAX_INBOX): JsonRpcNotification[] {
    return this.takeKept(limit).map((taken) => taken.message)
  }

  /**
   * `take`, with whether each must reach the stream (`kept`: it has an event id, or is a re-read
   * hint), which the relay tells the stream's outbox: those it never drops (outbox.ts).
   */
  takeKept(limit = MAX_INBOX): { message: JsonRpcNotification; kept: boolean }[] {
    return this.#inbox.splice(0, limit).map((entry) => {
      this.#sent?.(entry.event, entry.at)
      if (entry.hint) this.#hints--
      return { message: entry.message, kept: entry.id !== undefined || entry.hint }
    })
  }
}

/** The listeners of this isolate. */
export class ListenHub {
  readonly #listeners = new Set<Listener>()

  /** Register `listener` until the returned function is called. */
  add(listener: Listener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /** Whether any listener is registered. */
  get listening(): boolean {
    return this.#listeners.size > 0
  }

  /** Offer `event` to every listener of this isolate; returns how many took it. */
  publish(event: McpEvent): number {
    let reached = 0
    for (const listener of this.#listeners) if (listener.offer(event)) reached++
    return reached
  }
}
