/**
 * `subscriptions/listen` (basic/patterns/subscriptions): the response is a long-lived stream whose
 * first message acknowledges the honoured subset of the filter; every later notification carries
 * the listen request's id as `subscriptionId`. Only types the client asked for, and only events
 * its principal may see, are sent. The stream ends when the client closes it, gracefully with the
 * listen result after `listenTimeoutMs`, as soon as nothing is left on its filter (no list changes
 * or resources asked for, and every watched task terminal or deleted), or (with an event hub)
 * when its hub connection drops, so the client knows to listen again.
 *
 * List changes and resource updates are honoured only when the server delivers them (an event
 * hub or a declared single isolate; see server-capabilities.ts). With the Tasks extension,
 * `taskIds` adds `notifications/tasks` (each task's current state first), and mcp-edge's
 * `dev.mcp-edge/partialResults: true` the tasks' partial results, for a listener that declared
 * `partialResults`. Task statuses ride the event hub when there is one; partial results come on
 * the task's own stream, which then carries its statuses too.
 *
 * Resuming (mcp-edge's, not the protocol's: 2026-07-28 has no SSE ids and ignores `Last-Event-ID`):
 * with an event hub, each notification from the hub's log carries `_meta["dev.mcp-edge/eventId"]`
 * and the acknowledgement the stream's starting one; a listen request whose `_meta` has
 * `"dev.mcp-edge/lastEventId"` hears what it missed after that id first (event-log.ts), or, for
 * topics the log no longer reaches, a re-read hint (a list change, a resource update).
 */
import { NOTIFICATION, TASK_PARTIALS_FILTER, TASKS_EXTENSION } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isObject, notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { SubscriptionFilter } from '../../protocol/types.ts'
import { missingCapabilities, supports } from '../capabilities.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import { decodeCursor, gapHints, RESUME_META } from '../events/event-log.ts'
import { EVENT_ID_META, filterTopics, tag } from '../events/events.ts'
import type { Cursor, McpEvent } from '../events/events.ts'
import { Listener } from '../events/listen-hub.ts'
import { Relay } from '../events/listen-relay.ts'
import { HubTasks } from '../events/listen-tasks.ts'
import { traceDeliveries } from '../telemetry/events.ts'
import { listenedTo } from '../kept-requests.ts'
import { mayRead, viewerOf } from './access.ts'
import { subjectOf } from '../principal.ts'

/** One listen stream watches at most this many tasks. */
export const MAX_WATCHED_TASKS = 100
/**
 * The topics of one listen stream (its resource URIs and task ids, prefixed), as JSON. They
 * travel with its hub connection, with its principal, as a WebSocket attachment (which workerd
 * caps at 16 KiB); the same bound holds on every path so a filter never works in one deployment
 * and fails in another.
 */
export const MAX_SUBSCRIPTION_BYTES = 12 * 1024

/**
 * What `topics` take as JSON, counted as the attachment keeps them: a string with any character
 * past Latin-1 at two bytes a character (V8's serializer), others at one. Counted as characters
 * only, 26 URIs of 290 CJK characters passed the cap and the hub refused the stream (-32603).
 */
function storedBytes(topics: string[]): number {
  let bytes = 2
  for (const topic of topics) bytes += JSON.stringify(topic).length * (WIDE.test(topic) ? 2 : 1) + 1
  return bytes
}

const WIDE = /[\u0100-\uffff]/

function readFilter(value: unknown): SubscriptionFilter {
  if (!isObject(value)) throw new McpError('invalidParams', 'Invalid params: notifications (a subscription filter) is required')
  if (Array.isArray(value.taskIds) && value.taskIds.length > MAX_WATCHED_TASKS) {
    throw new McpError('invalidParams', `Invalid params: at most ${MAX_WATCHED_TASKS} taskIds per subscription`)
  }
  for (const key of ['resourceSubscriptions', 'taskIds'] as const) {
    const list = value[key]
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string'))) {
      throw new McpError('invalidParams', `Invalid params: notifications.${key} must be an array of strings`)
    }
  }
  const filter = value as SubscriptionFilter
  if (storedBytes(filterTopics(filter)) > MAX_SUBSCRIPTION_BYTES) {
    throw new McpError(
      'invalidParams',
      `Invalid params: resourceSubscriptions and taskIds exceed ${MAX_SUBSCRIPTION_BYTES} bytes`,
    )
  }
  return filter
}

/** Where a listen request resumes (`_meta[RESUME_META]`), if it does; -32602 for an id that is not a cursor. */
function readResume(meta: Record<string, unknown>): Cursor | undefined {
  const given = meta[RESUME_META]
  if (given === undefined) return undefined
  const cursor = typeof given === 'string' ? decodeCursor(given) : undefined
  if (!cursor) throw new McpError('invalidParams', `Invalid params: _meta["${RESUME_META}"] must be an event id this server sent`)
  return cursor
}

function honour(call: Call, filter: SubscriptionFilter): SubscriptionFilter {
  const { server, options } = call
  const out: SubscriptionFilter = {}
  // Advertised only when delivered (server-capabilities.ts), so honoured only then.
  if (server.events === undefined) return out
  for (const list of ['tools', 'prompts', 'resources'] as const) {
    if (filter[`${list}ListChanged`] === true && server.offers(list, options)) out[`${list}ListChanged`] = true
  }
  if (filter.resourceSubscriptions && server.offers('resources', options)) {
    // A resource the principal may not read is not subscribed either (its scopes, as resources/read).
    const viewer = viewerOf(call)
    out.resourceSubscriptions = filter.resourceSubscriptions.filter((uri) => mayRead(server, viewer, uri))
  }
  return out
}

export const listen: MethodEntry = {
  era: 'modern',
  inputRequired: false,
  async run(call) {
    const { server, params, request, options, meta } = call
    const filter = readFilter(params.notifications)
    const resume = readResume(meta.raw)
    const outbox = options.outbox
    if (!outbox) throw new Error('subscriptions/listen needs a streaming transport')
    if (filter.taskIds !== undefined && !supports(meta.clientCapabilities, `extensions.${TASKS_EXTENSION}`)) {
      throw missingCapabilities([`extensions.${TASKS_EXTENSION}`], 'A subscription to taskIds')
    }
    const honoured = honour(call, filter)
    // The server's own subscribe handler (mcp-edge/sdk) takes or refuses each resource, as for a 2025 session.
    const subscribed = honoured.resourceSubscriptions?.length
      ? await listenedTo(server, request, options, honoured.resourceSubscriptions)
      : undefined
    if (subscribed) honoured.resourceSubscriptions = subscribed.uris
    const hub = typeof server.events === 'object' ? server.events : undefined
    const principal = subjectOf(options.principal)
    const watched = filter.taskIds !== undefined && options.tasks ? filter.taskIds : undefined
    // Partial results: asked for in the filter, and declared by the listener itself (SEP-2998 §1).
    const partials = filter[TASK_PARTIALS_FILTER] === true && supports(meta.clientCapabilities, 'partialResults')
    const statusesViaHub = hub !== undefined && watched !== undefined && !partials
    // Updates below a subscribed prefix are checked one by one: only resources this principal may read.
    const viewer = viewerOf(call)
    const allows = (event: McpEvent) => event.type !== 'resourceUpdated' || mayRead(server, viewer, event.uri)
    const sent = traceDeliveries(server.observers.telemetry(options.env), call.span, request.id, server.observers.log)
    const topics = statusesViaHub ? { ...honoured, taskIds: watched } : honoured
    const listener = new Listener(request.id, topics, principal, allows, sent)
    // Per-principal cap on open listen streams in this isolate: 429 at the cap.
    let release: () => void
    try {
      release = server.limits.openListen(principal)
    } catch (error) {
      await subscribed?.release()
      throw error
    }
    const stop = new AbortController()
    options.cancel.signal.addEventListener('abort', () => stop.abort())
    let held: JsonRpcNotification[] | undefined = []
    const send = (message: JsonRpcNotification) => (held ? held.push(message) : outbox.push(message, { droppable: true }))
    const tagged = (message: JsonRpcNotification) => {
      const given = message.params as Record<string, unknown>
      send(notification(message.method, { ...given, _meta: { ...(given._meta as object), ...tag(request.id) } }))
    }
    try {
      // The hub path opens first: whatever reaches the hub from now on is not missed. Without a
      // hub, a listener with something to hear looks at this isolate's inbox on a timer.
      const relay = new Relay(listener, outbox, !hub && listener.topics.size > 0)
      const hubTasks =
        statusesViaHub && options.tasks
          ? new HubTasks(options.tasks, principal, (event, id) => relay.deliver(event, id))
          : undefined
      const deliver = (event: McpEvent, id?: string) => {
        if (!hubTasks) return relay.deliver(event, id)
        if (event.type === 'task') return hubTasks.see(event, id)
        // Behind the tasks' reads, so that ids only grow along the stream (listen-tasks.ts).
        hubTasks.inOrder(() => {
          relay.deliver(event, id)
          return undefined
        })
      }
      // The next batch of a long replay once this one is on the stream, past any task's read-back
      // (one may start while the stream drains: the first batch comes before the tasks' state is read).
      const pace = async (): Promise<boolean> => {
        if (!hubTasks) return relay.drained()
        for (;;) {
          await hubTasks.idle()
          if (!(await relay.drained())) return false
          if (!hubTasks.busy) return true
        }
      }
      // Resumed past what the log holds (or with no log at all): what may be lost, to re-read,
      // before anything the hub replays (EventHub.listen's `hint`).
      let hinted = false
      const hint = (gaps: Iterable<string>) => {
        hinted = true
        for (const event of gapHints(gaps)) relay.deliver(event, undefined, true)
      }
      const hubPath =
        hub && listener.topics.size > 0
          ? await hub.listen(listener, deliver, stop.signal, resume, pace, undefined, hint)
          : undefined
      if (!hinted) hint((hubPath ? hubPath.gaps : resume ? [...listener.topics] : undefined) ?? [])
      let tasksEnded: Promise<void> | undefined
      if (watched && options.tasks) {
        const watch = hubTasks
          ? await hubTasks.start(watched, request.id, send)
          : await options.tasks.watch(watched, principal, { partials, signal: stop.signal }, tagged)
        honoured.taskIds = watch.taskIds
        if (partials) honoured[TASK_PARTIALS_FILTER] = true
        if (watch.taskIds.length > 0) tasksEnded = watch.ended
      }
      // subscriptions.mdx: the acknowledgement is the first message of the subscription.
      const _meta = hubPath?.cursor ? { ...tag(request.id), [EVENT_ID_META]: hubPath.cursor } : tag(request.id)
      outbox.push(notification(NOTIFICATION.subscriptionsAcknowledged, { notifications: honoured, _meta }))
      for (const message of held) outbox.push(message, { droppable: true })
      held = undefined
      // Nothing is left on the filter once no list or resource is asked for and the tasks ended.
      const others = honoured.toolsListChanged || honoured.promptsListChanged || honoured.resourcesListChanged
      if (!others && !honoured.resourceSubscriptions?.length) {
        // The last statuses may still wait in the relay's inbox: the stream ends once they are on it.
        if (tasksEnded) void tasksEnded.then(() => relay.drained()).then(() => stop.abort())
        else stop.abort()
      }
      // With a hub, everything comes through it; without one, from this isolate's listeners.
      const remove = hub ? undefined : server.hub.add(listener)
      try {
        await relay.run(stop.signal, Date.now() + server.listenTimeoutMs, hubPath?.closed)
      } finally {
        remove?.()
      }
    } finally {
      stop.abort()
      release()
      await subscribed?.release()
    }
    return { _meta: tag(request.id) }
  },
}
