/**
 * Notifications as events that can travel between isolates: the list changes, resource updates
 * and task status changes a `subscriptions/listen` stream may hear, the log messages only a
 * 2025-era session's stream hears, who may see each one, and the topics that route them. The in-isolate `ListenHub`, the Cloudflare `McpEventHub` Durable
 * Object and each listener all match with the same functions here, so a filter means the same
 * thing on every path.
 *
 * Topics: `list:tools`, `list:prompts`, `list:resources`, `resource:<uri>`, `task:<taskId>`, `log`
 * (no filter yields it: the 2026 revision sends no `notifications/message` on listen streams),
 * `session:<nonce>` (a 2025-era session's facts changed in its ledger: its open GET stream reads
 * them again, server/legacy/stream-facts.ts; never sent to a client, and no filter yields it). A
 * listener subscribed to `resource:<uri>` hears updates of that URI and of every URI below it
 * (`<uri>/…`), so an update is routed under its own URI and each of its `/`-prefixes, and under
 * `resources:all`, which a 2025-era session's stream takes to filter by the session's own
 * subscriptions as they change (no filter yields that topic: `resource:` prefixes every URI).
 *
 * Not here: transport (the hub's WebSockets live in src/cloudflare) and delivery (listen-hub.ts).
 */
import { LOG_LEVELS, NOTIFICATION, META } from '../../protocol/constants.ts'
import { notification } from '../../protocol/jsonrpc.ts'
import type { LogLevel } from '../../protocol/constants.ts'
import type { JsonRpcNotification, RequestId } from '../../protocol/jsonrpc.ts'
import type { SubscriptionFilter } from '../../protocol/types.ts'
import { MAX_SUBSCRIBED_URI } from '../legacy/session-ledger.ts'

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
  | { type: 'log'; level: LogLevel; data: unknown; logger?: string | undefined }
  | { type: 'session'; nonce: string }
) & { audience?: readonly string[] | undefined; traceparent?: string | undefined }

/** Options of `server.notifyListChanged` and `server.notifyResourceUpdated`. */
export interface NotifyOptions {
  /** Only listeners authenticated as these principal subjects hear it (default: every listener). */
  audience?: readonly string[]
}

/** Options of `server.notifyLog`. */
export interface NotifyLogOptions extends NotifyOptions {
  /** The `logger` field of the message: which part of the server speaks. */
  logger?: string
}

/** The most JSON a log message's `data` may be: it goes to every session's stream that admits it. */
export const MAX_LOG_EVENT_BYTES = 64 * 1024

/**
 * The `/`-prefixes of its URI a resource update is routed under, the shortest first: a subscription
 * with fewer `/` than this hears the URIs below it; a deeper one, its own URI only. The hub's log
 * keeps a row per topic, so a URI of many segments (one a client chose, `file:///${path}`) would
 * otherwise cost a row per segment, each holding the event.
 */
export const MAX_PREFIX_TOPICS = 32

/** The event of `server.notifyResourceUpdated`; a TypeError for a URI that is not a non-empty string, a RangeError for one longer than a subscription may be. */
export function resourceEvent(uri: string, options?: NotifyOptions): McpEvent {
  if (typeof uri !== 'string' || uri === '') throw new TypeError('notifyResourceUpdated: uri must be a non-empty string')
  if (uri.length > MAX_SUBSCRIBED_URI)
    throw new RangeError(`notifyResourceUpdated: uri is ${uri.length} characters, more than ${MAX_SUBSCRIBED_URI}`)
  return { type: 'resourceUpdated', uri, audience: options?.audience }
}

/** The event of `server.notifyLog`; a TypeError for an unknown level or no data, a RangeError past `MAX_LOG_EVENT_BYTES`. */
export function logEvent(level: LogLevel, data: unknown, options?: NotifyLogOptions): McpEvent {
  if (!(LOG_LEVELS as readonly unknown[]).includes(level)) throw new TypeError(`notifyLog: unknown level ${String(level)}`)
  if (data === undefined) throw new TypeError('notifyLog: data is required (notifications/message carries it)')
  const size = new TextEncoder().encode(JSON.stringify(data) ?? '').byteLength
  if (size > MAX_LOG_EVENT_BYTES)
    throw new RangeError(`notifyLog: data is ${size} bytes of JSON, more than ${MAX_LOG_EVENT_BYTES}`)
  return { type: 'log', level, data, logger: options?.logger, audience: options?.audience }
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
   * the number of listeners it reached, when the hub can tell (a span records a number); with
   * shared hub sockets (`sharedHubSockets`), the hub sockets it reached (a shared one counts once).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: hubs written as Promise<void> still fit
  publish(event: McpEvent): Promise<number | undefined | void>
  /**
   * Open this listener's own path from the hub (workerd forbids a request from reading I/O
   * another request opened). Resolves once the hub has registered the listener; `deliver` runs
   * in the caller's request. `closed` resolves if the path drops before `signal` aborts. `pace`:
   * resolves `true` when the listener has room for the next batch of a long replay (a hub with a
   * log replays in bounded batches), `false` once it ended (the hub asks for no more).
   * `relinked`: called each time such a hub has registered the listener on a new path during a
   * replay; what it sent live only (no `seq`, never replayed) between two paths reached nobody, so
   * a listener that keeps state from such events (a session's facts) reads it again.
   * `hint`: called with the resumed listener's `gaps`, if it has any, before the replay, which
   * waits for what it returns: the caller's re-read hints go out first, since a replayed event's
   * id moves the client's cursor past the gap (a client gone after one, before the hints, would
   * resume without them). A hub that does not call it leaves the caller to hint once it resolves.
   */
  listen(
    subscription: Subscription,
    deliver: (event: McpEvent, id?: string) => void,
    signal: AbortSignal,
    after?: Cursor | null,
    pace?: () => Promise<boolean>,
    relinked?: () => void,
    hint?: (gaps: string[]) => void | Promise<void>,
  ): Promise<ListenPath>
}

/**
 * Where a stream stands in the hubs' logs: the newest `seq` it was given, per shard (event-log.ts),
 * and, as its id said, over how many shards the hub spread topics then (`shards`).
 */
export interface Cursor extends Map<number, number> {
  shards?: number
}

/**
 * A listener's open path from a hub. A hub with a log (event-log.ts) gives each event an `id`
 * (the listener's cursor after it), says where the listener starts (`cursor`), and, when it was
 * asked to resume (`after`: a cursor, or `null` for an id it cannot read), which topics had
 * events it can no longer replay (`gaps`); replayed events come first, through `deliver`.
 */
export interface ListenPath {
  closed: Promise<void>
  cursor?: string
  gaps?: string[]
}

export type EventDelivery = EventHub | 'isolate'

/** The topic every resource update is routed under, besides its URI's (module header). */
export const ALL_RESOURCES = 'resources:all'
/** The topic of log messages (module header). */
export const LOG_TOPIC = 'log'

/** The topic announcing changes of a 2025-era session's facts (module header). */
export const sessionTopic = (nonce: string): string => `session:${nonce}`
/** The announcement that a session's facts changed in the ledger (module header). */
export const sessionChanged = (nonce: string): McpEvent => ({ type: 'session', nonce })

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
 * Each event's topics, made once: an event is matched once per listener (an isolate's listeners
 * of one hub message share its event, cloudflare/hub-listener.ts), so a fan-out to N streams would
 * otherwise build the same strings N times. Events are never changed once made.
 */
const topicsOf = new WeakMap<McpEvent, readonly string[]>()

/**
 * The topics an event is routed under: a resource update also goes to each `/`-prefix of its URI
 * (a subscription to `file:///data` covers `file:///data/a.txt`).
 *
 * @example
 * eventTopics({ type: 'resourceUpdated', uri: 'notes://all/1' })
 * // ['resource:notes://all/1', 'resource:notes:', 'resource:notes:/', 'resource:notes://all', 'resources:all']
 */
export function eventTopics(event: McpEvent): string[] {
  return [...routedTopics(event)]
}

/** `eventTopics`, made once per event and shared (`matches` and `eventKey` read it, never change it). */
function routedTopics(event: McpEvent): readonly string[] {
  let topics = topicsOf.get(event)
  if (!topics) {
    topics = routeTopics(event)
    topicsOf.set(event, topics)
  }
  return topics
}

function routeTopics(event: McpEvent): string[] {
  if (event.type === 'listChanged') return [`list:${event.list}`]
  if (event.type === 'task') return [`task:${event.taskId}`]
  if (event.type === 'log') return [LOG_TOPIC]
  if (event.type === 'session') return [sessionTopic(event.nonce)]
  const topics = [`resource:${event.uri}`]
  let slash = event.uri.indexOf('/')
  for (let prefixes = 0; slash >= 0 && prefixes < MAX_PREFIX_TOPICS; prefixes++) {
    topics.push(`resource:${event.uri.slice(0, slash)}`)
    slash = event.uri.indexOf('/', slash + 1)
  }
  topics.push(ALL_RESOURCES)
  return topics
}

/** Whether a listener authenticated as `principal` may see `event`. */
export function visibleTo(event: McpEvent, principal: string | null): boolean {
  return event.audience === undefined || (principal !== null && event.audience.includes(principal))
}

/** Whether `subscription` asked for `event` and may see it (`topics`: the event's, when known). */
export function matches(subscription: Subscription, event: McpEvent, topics?: string[]): boolean {
  const routed = topics ?? routedTopics(event)
  return visibleTo(event, subscription.principal) && routed.some((topic) => subscription.topics.has(topic))
}

/**
 * A key shared by events that say the same thing (a pending one makes a new one redundant), or
 * `undefined` when each event matters (task status changes, log messages).
 */
export function eventKey(event: McpEvent): string | undefined {
  return event.type === 'task' || event.type === 'log' ? undefined : routedTopics(event)[0]
}

/** The `_meta` that ties a notification to its listen request (subscriptions.mdx). */
export function tag(subscriptionId: RequestId): Record<string, unknown> {
  return { [META.subscriptionId]: subscriptionId }
}

/** `_meta` key of a listen-stream notification's place in the hub's log (event-log.ts says how to resume). */
export const EVENT_ID_META = 'dev.mcp-edge/eventId'

/** The notification a listener sends for `event`, tagged with its subscription id (and `id`, when logged). */
export function eventNotification(event: McpEvent, subscriptionId: RequestId, id?: string): JsonRpcNotification {
  // One object (this runs once per stream per event).
  const _meta = id === undefined ? tag(subscriptionId) : { [META.subscriptionId]: subscriptionId, [EVENT_ID_META]: id }
  if (event.type === 'listChanged') return notification(`notifications/${event.list}/list_changed`, { _meta })
  if (event.type === 'resourceUpdated') return notification(NOTIFICATION.resourceUpdated, { uri: event.uri, _meta })
  if (event.type === 'log' || event.type === 'session') throw new Error(`${event.type} events do not reach a listen stream`)
  const meta = event.params._meta as Record<string, unknown> | undefined
  return notification(NOTIFICATION.tasks, { ...event.params, _meta: { ...meta, ..._meta } })
}
