/**
 * `subscriptions/listen` (basic/patterns/subscriptions): the response is a long-lived stream whose
 * first message acknowledges the honoured subset of the filter; every later notification carries
 * the listen request's id as `subscriptionId`. Only types the client asked for, and only events
 * its principal may see, are sent. The stream ends when the client closes it, gracefully with the
 * listen result after `listenTimeoutMs`, or (with an event hub) when its hub connection drops, so
 * the client knows to listen again. With the Tasks extension, `taskIds` adds
 * `notifications/tasks` and live partial results.
 *
 * List changes and resource updates are honoured only when the server delivers them (an event
 * hub or a declared single isolate; see server-capabilities.ts).
 */
import { NOTIFICATION, TASKS_EXTENSION } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isObject, notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { SubscriptionFilter } from '../../protocol/types.ts'
import { missingCapabilities, supports } from '../capabilities.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import { filterTopics, tag } from '../events.ts'
import type { EventHub } from '../events.ts'
import { Listener } from '../listen-hub.ts'
import { Relay } from '../listen-relay.ts'
import type { TaskBackend } from '../tasks.ts'

/** One listen stream watches at most this many tasks. */
export const MAX_WATCHED_TASKS = 100
/**
 * The topics of one listen stream (its resource URIs and task ids, prefixed), as JSON. They
 * travel with its hub connection, with its principal, as a WebSocket attachment (which workerd
 * caps at 16 KiB); the same bound holds on every path so a filter never works in one deployment
 * and fails in another.
 */
export const MAX_SUBSCRIPTION_BYTES = 12 * 1024

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
  if (JSON.stringify(filterTopics(filter)).length > MAX_SUBSCRIPTION_BYTES) {
    throw new McpError(
      'invalidParams',
      `Invalid params: resourceSubscriptions and taskIds exceed ${MAX_SUBSCRIPTION_BYTES} bytes`,
    )
  }
  return filter
}

function honour(call: Call, filter: SubscriptionFilter): SubscriptionFilter {
  const { server, options } = call
  const out: SubscriptionFilter = {}
  // Advertised only when delivered (server-capabilities.ts), so honoured only then.
  if (server.events === undefined) return out
  for (const list of ['tools', 'prompts', 'resources'] as const) {
    if (filter[`${list}ListChanged`] === true && server.offers(list, options)) out[`${list}ListChanged`] = true
  }
  if (filter.resourceSubscriptions && server.offers('resources', options))
    out.resourceSubscriptions = filter.resourceSubscriptions
  return out
}

/**
 * The tasks of `taskIds` this principal owns, with their live partial results (and, without a
 * hub, their status changes) forwarded to `send`. With a hub that carries status changes, a
 * listener that wants no partial results holds no stream to the task at all.
 */
async function watchTasks(
  call: Call,
  tasks: TaskBackend,
  hub: EventHub | undefined,
  send: (message: JsonRpcNotification) => void,
  signal: AbortSignal,
) {
  const { meta, options, params } = call
  const taskIds = (params.notifications as SubscriptionFilter).taskIds ?? []
  const principal = options.principal?.subject ?? null
  // Partial results go only to a listener that declared partialResults itself (SEP-2998 §1).
  const partials = supports(meta.clientCapabilities, 'partialResults')
  if (hub && !partials) {
    const found = await Promise.all(taskIds.map((taskId) => tasks.get(taskId, principal)))
    return [...new Set(taskIds.filter((_taskId, index) => found[index] !== undefined))]
  }
  const forward = (message: JsonRpcNotification) => {
    if (message.method === NOTIFICATION.partialResult ? !partials : hub !== undefined) return
    const params = message.params as Record<string, unknown>
    send(notification(message.method, { ...params, _meta: { ...(params._meta as object), ...tag(call.request.id) } }))
  }
  return tasks.watch(taskIds, principal, forward, signal)
}

export const listen: MethodEntry = {
  inputRequired: false,
  async run(call) {
    const { server, params, request, options, meta } = call
    const filter = readFilter(params.notifications)
    const outbox = options.outbox
    if (!outbox) throw new Error('subscriptions/listen needs a streaming transport')
    if (filter.taskIds !== undefined && !supports(meta.clientCapabilities, `extensions.${TASKS_EXTENSION}`)) {
      throw missingCapabilities([`extensions.${TASKS_EXTENSION}`], 'A subscription to taskIds')
    }
    const honoured = honour(call, filter)
    const hub = typeof server.events === 'object' ? server.events : undefined
    const watched = filter.taskIds !== undefined && options.tasks ? filter.taskIds : undefined
    const principal = options.principal?.subject ?? null
    // With a hub, task status changes come through it too; the hub checks who may see them.
    const listener = new Listener(request.id, hub && watched ? { ...honoured, taskIds: watched } : honoured, principal)
    const stop = new AbortController()
    options.cancel.signal.addEventListener('abort', () => stop.abort())
    let held: JsonRpcNotification[] | undefined = []
    const send = (message: JsonRpcNotification) => (held ? held.push(message) : outbox.push(message, { droppable: true }))
    try {
      // The hub path opens first: whatever reaches the hub from now on is not missed. Without a
      // hub, a listener with something to hear looks at this isolate's inbox on a timer.
      const relay = new Relay(listener, outbox, !hub && listener.topics.size > 0)
      const hubPath =
        hub && listener.topics.size > 0 ? await hub.listen(listener, (event) => relay.deliver(event), stop.signal) : undefined
      if (watched && options.tasks) honoured.taskIds = await watchTasks(call, options.tasks, hub, send, stop.signal)
      // subscriptions.mdx: the acknowledgement is the first message of the subscription.
      outbox.push(notification(NOTIFICATION.subscriptionsAcknowledged, { notifications: honoured, _meta: tag(request.id) }))
      for (const message of held) outbox.push(message, { droppable: true })
      held = undefined
      // With a hub, everything comes through it; without one, from this isolate's listeners.
      const remove = hub ? undefined : server.hub.add(listener)
      try {
        await relay.run(stop.signal, Date.now() + server.listenTimeoutMs, hubPath?.closed)
      } finally {
        remove?.()
      }
    } finally {
      stop.abort()
    }
    return { _meta: tag(request.id) }
  },
}
