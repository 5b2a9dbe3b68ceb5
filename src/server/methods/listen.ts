/**
 * `subscriptions/listen` (basic/patterns/subscriptions): the response is a long-lived stream whose
 * first message acknowledges the honoured subset of the filter; every later notification carries
 * the listen request's id as `subscriptionId`. Only types the client asked for are sent. The stream
 * ends when the client closes it, or gracefully with the listen result after `listenTimeoutMs`, or
 * as soon as nothing is left on its filter (no list changes or resources asked for, and every
 * watched task terminal or deleted). With the Tasks extension, `taskIds` adds `notifications/tasks`
 * (each task's current state first), and mcp-edge's `dev.mcp-edge/partialResults: true` the tasks'
 * partial results, for a listener that declared `partialResults`.
 */
import { META, NOTIFICATION, TASK_PARTIALS_FILTER, TASKS_EXTENSION } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isObject, notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { SubscriptionFilter } from '../../protocol/types.ts'
import { missingCapabilities, supports } from '../capabilities.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import { LISTEN_POLL_MS, tag } from '../listen-hub.ts'
import type { Listener } from '../listen-hub.ts'
import type { Outbox } from '../outbox.ts'

/** One listen stream watches at most this many tasks. */
export const MAX_WATCHED_TASKS = 100

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
  return value as SubscriptionFilter
}

function honour(call: Call, filter: SubscriptionFilter): SubscriptionFilter {
  const { server, options } = call
  const out: SubscriptionFilter = {}
  if (filter.toolsListChanged === true && server.offers('tools', options)) out.toolsListChanged = true
  if (filter.promptsListChanged === true && server.offers('prompts', options)) out.promptsListChanged = true
  if (filter.resourcesListChanged === true && server.offers('resources', options)) out.resourcesListChanged = true
  if (filter.resourceSubscriptions && server.offers('resources', options))
    out.resourceSubscriptions = filter.resourceSubscriptions
  return out
}

/**
 * Move the listener's inbox to its stream, on this request's own timer, until the client goes
 * away or the stream's time is up.
 */
async function relay(listener: Listener, outbox: Outbox, signal: AbortSignal, endAt: number): Promise<void> {
  let wake: (() => void) | undefined
  const onAbort = () => wake?.()
  signal.addEventListener('abort', onAbort)
  try {
    while (!signal.aborted && Date.now() < endAt) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(LISTEN_POLL_MS, Math.max(0, endAt - Date.now())))
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      for (const message of listener.inbox.splice(0)) outbox.push(message, { droppable: true })
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

export const listen: MethodEntry = {
  era: 'modern',
  inputRequired: false,
  async run(call) {
    const { server, params, request, options, meta } = call
    const filter = readFilter(params.notifications)
    const outbox = options.outbox
    if (!outbox) throw new Error('subscriptions/listen needs a streaming transport')
    if (filter.taskIds !== undefined && !supports(meta.clientCapabilities, `extensions.${TASKS_EXTENSION}`)) {
      throw missingCapabilities([`extensions.${TASKS_EXTENSION}`], 'A subscription to taskIds')
    }
    const subscription = { subscriptionId: request.id }
    const honoured = honour(call, filter)
    // Per-principal cap on open listen streams in this isolate (issue 11): 429 at the cap.
    const release = server.limits.openListen(options.principal?.subject ?? null)
    const stop = new AbortController()
    options.cancel.signal.addEventListener('abort', () => stop.abort())
    let held: JsonRpcNotification[] | undefined = []
    let tasksEnded: Promise<void> | undefined
    if (filter.taskIds !== undefined && options.tasks) {
      // Only types the filter asked for; partial results also need the listener's own
      // partialResults capability (SEP-2998 §1).
      const partials = filter[TASK_PARTIALS_FILTER] === true && supports(meta.clientCapabilities, 'partialResults')
      const forward = (message: JsonRpcNotification) => {
        const params = message.params as Record<string, unknown>
        const tagged = notification(message.method, { ...params, _meta: { ...(params._meta as object), ...tag(subscription) } })
        if (held) held.push(tagged)
        else outbox.push(tagged, { droppable: true })
      }
      const principal = options.principal?.subject ?? null
      const watch = await options.tasks
        .watch(filter.taskIds, principal, { partials, signal: stop.signal }, forward)
        .catch((error) => {
          release()
          throw error
        })
      honoured.taskIds = watch.taskIds
      if (partials) honoured[TASK_PARTIALS_FILTER] = true
      if (watch.taskIds.length > 0) tasksEnded = watch.ended
    }
    // subscriptions.mdx: the acknowledgement is the first message of the subscription.
    outbox.push(notification(NOTIFICATION.subscriptionsAcknowledged, { notifications: honoured, _meta: tag(subscription) }))
    for (const message of held) outbox.push(message, { droppable: true })
    held = undefined
    const { listener, remove } = server.hub.add(request.id, honoured)
    // Nothing is left on the filter once no list or resource is asked for and the tasks ended.
    const others = honoured.toolsListChanged || honoured.promptsListChanged || honoured.resourcesListChanged
    if (!others && !honoured.resourceSubscriptions?.length) {
      if (tasksEnded) void tasksEnded.then(() => stop.abort())
      else stop.abort()
    }
    try {
      await relay(listener, outbox, stop.signal, Date.now() + server.listenTimeoutMs)
    } finally {
      remove()
      stop.abort()
      release()
    }
    return { _meta: { [META.subscriptionId]: request.id } }
  },
}
