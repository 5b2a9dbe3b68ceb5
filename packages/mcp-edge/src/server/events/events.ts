/**
 * Notifications as events that can travel between isolates: the list changes, resource updates
 * and task status changes a `subscriptions/listen` stream may hear, who may see each one, and
 * the topics that route them. The in-isolate `ListenHub`, the Cloudflare `McpEventHub` Durable
 * Object and each listener all match with the same functions here, so a filter means the same
 * thing on every path.
 *
 * Topics: `list:tools`, `list:prompts`, `list:resources`, `resource:<uri>`, `task:<taskId>`. A
 * listener subscribed to `resource:<uri>` hears updates of that URI and of every URI below it
 * (`<uri>/…`), so an update is routed under its own URI and each of its `/`-prefixes, and under
 * `resources:all`, which a 2025-era session's stream takes to filter by the session's own
 * subscriptions as they change (no filter yields that topic: `resource:` prefixes every URI).
 *
 * Not here: transport (the hub's WebSockets live in src/cloudflare) and delivery (listen-hub.ts).
 */
import { NOTIFICATION, META } from '../../protocol/constants.ts'
import { notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification, RequestId } from '../../protocol/jsonrpc.ts'
import type { SubscriptionFilter } from '../../protocol/types.ts'

export type ListKind = 'tools' | 'prompts' | 'resources'

/**
 * One notification for every listener it concerns. `audience`, when present, lists the principal
 * subjects that may see it; a listener without a principal never does. `traceparent`: the span
 * that published it, when traced (telemetry/events.ts); never sent to clients.
 */
export type McpEvent = (
  | { type: 'listChanged'; list: ListKind }
  | { type: 'resourceUpdated'; uri: string }
  | { type: 'task'; taskId: string; params: Record<string, unknown> }
) & { audience?: readonly string[] | undefined; traceparent?: string | undefined }

/** Options of `server.notifyListChanged` and `server.notifyResourceUpdated`. */
export interface NotifyOptions {
  /** Only listeners authenticated as these principal subjects hear it (default: every listener). */
  audience?: readonly string[]
}

/** What a listener asked for, in topics, and who it is. */
export interface Subscription {
  readonly topics: ReadonlySet<string>
  readonly principal: string | null
}

/**
 * Where events go. `'isolate'` is the in-isolate hub (the server declared it runs in one
 * isolate); an `EventHub` reaches listeners in every isolate (see `cloudflareEventHub`).
 */
export interface EventHub {
  /**
   * Deliver `event` to every matching listener, wherever it is. Resolves once the hub has it; to
   * the number of listeners it reached, when the hub can tell (a span records a number).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: hubs written as Promise<void> still fit
  publish(event: McpEvent): Promise<number | undefined | void>
  /**
   * Open this listener's own path from the hub (workerd forbids a request from reading I/O
   * another request opened). Resolves once the hub has registered the listener; `deliver` runs
   * in the caller's request. `closed` resolves if the path drops before `signal` aborts.
   */
  listen(subscription: Subscription, deliver: (event: McpEvent) => void, signal: AbortSignal): Promise<{ closed: Promise<void> }>
}

export type EventDelivery = EventHub | 'isolate'

/** The topic every resource update is routed under, besides its URI's (module header). */
export const ALL_RESOURCES = 'resources:all'

/** The topics a (honoured) filter subscribes to. */
export function filterTopics(filter: SubscriptionFilter): string[] {
  const topics: string[] = []
  for (const list of ['tools', 'prompts', 'resources'] as const)
    if (filter[`${list}ListChanged`] === true) topics.push(`list:${list}`)
  for (const uri of filter.resourceSubscriptions ?? []) topics.push(`resource:${uri}`)
  for (const taskId of filter.taskIds ?? []) topics.push(`task:${taskId}`)
  return topics
}

/**
 * The topics an event is routed under: a resource update also goes to each `/`-prefix of its URI
 * (a subscription to `file:///data` covers `file:///data/a.txt`).
 *
 * @example
 * eventTopics({ type: 'resourceUpdated', uri: 'notes://all/1' })
 * // ['resource:notes://all/1', 'resource:notes:', 'resource:notes:/', 'resource:notes://all', 'resources:all']
 */
export function eventTopics(event: McpEvent): string[] {
  if (event.type === 'listChanged') return [`list:${event.list}`]
  if (event.type === 'task') return [`task:${event.taskId}`]
  const topics = [`resource:${event.uri}`]
  for (let slash = event.uri.indexOf('/'); slash >= 0; slash = event.uri.indexOf('/', slash + 1)) {
    topics.push(`resource:${event.uri.slice(0, slash)}`)
  }
  topics.push(ALL_RESOURCES)
  return topics
}

/** Whether a listener authenticated as `principal` may see `event`. */
export function visibleTo(event: McpEvent, principal: string | null): boolean {
  return event.audience === undefined || (principal !== null && event.audience.includes(principal))
}

/** Whether `subscription` asked for `event` and may see it (`topics`: the event's, when known). */
export function matches(subscription: Subscription, event: McpEvent, topics = eventTopics(event)): boolean {
  return visibleTo(event, subscription.principal) && topics.some((topic) => subscription.topics.has(topic))
}

/**
 * A key shared by events that say the same thing (a pending one makes a new one redundant), or
 * `undefined` when each event matters (task status changes).
 */
export function eventKey(event: McpEvent): string | undefined {
  return event.type === 'task' ? undefined : eventTopics(event)[0]
}

/** The `_meta` that ties a notification to its listen request (subscriptions.mdx). */
export function tag(subscriptionId: RequestId): Record<string, unknown> {
  return { [META.subscriptionId]: subscriptionId }
}

/** The notification a listener sends for `event`, tagged with its subscription id. */
export function eventNotification(event: McpEvent, subscriptionId: RequestId): JsonRpcNotification {
  const _meta = tag(subscriptionId)
  if (event.type === 'listChanged') return notification(`notifications/${event.list}/list_changed`, { _meta })
  if (event.type === 'resourceUpdated') return notification(NOTIFICATION.resourceUpdated, { uri: event.uri, _meta })
  const meta = event.params._meta as Record<string, unknown> | undefined
  return notification(NOTIFICATION.tasks, { ...event.params, _meta: { ...meta, ..._meta } })
}
