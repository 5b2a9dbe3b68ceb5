/**
 * A 2025-era session's standalone stream (the GET of 2025 streamable-http): the list changes the
 * server offers and updates of the resources the session subscribed to, from the event hub, in the
 * 2025 shapes (`notifications/tools/list_changed`, `notifications/resources/updated { uri }`: no
 * `_meta`). It listens to every resource update (`ALL_RESOURCES`) and keeps those of the URIs the
 * session subscribes to now, as the stream keeps the session's facts (stream-facts.ts): read from
 * the session ledger when it opens and again when the hub announces a change of them (its
 * `session:<nonce>` topic), so a `resources/subscribe` on any isolate applies to the open stream
 * once that announcement arrives (before its answer goes out, the hub has it), and survives the
 * stream's reconnects (the subscriptions are the session's, not the stream's). The ledger also
 * records the session's newest stream: an older one, on any isolate, ends when it reads that (on
 * the newer stream's announcement), and so does a stream whose session ended (DELETE anywhere,
 * or its principal's revocation, checked for each event).
 *
 * It also carries `notifications/message` from `server.notifyLog` at the session's level (its
 * `logging/setLevel`, else the lane's `logLevel`), kept the same way; a request's own logs stay on
 * the request's stream. What it does not carry: responses. It ends at `listenTimeoutMs` (the
 * client reconnects), when the client goes, when the hub connection drops, when it lags past its
 * inbox (listen-hub.ts), or when the session is found ended.
 *
 * Resumable (2025 streamable-http "Resumability and Redelivery"): each event it sends has an SSE
 * `id:`, the stream's cursor in the hub's log (event-log.ts); a GET with that `Last-Event-ID`
 * hears what was published after it, in order, as far as the log reaches. The priming event (and
 * so a 2025-11-25 client reconnecting before any event) names where the stream started, with this
 * stream's nonce (`ev:0-12~<nonce>`: no two events of a session share an id). An id the
 * log no longer reaches, or one not its own, gets a re-read hint for what may be lost: a list
 * change per list, an update per URI the session subscribes to (log messages are not hinted).
 */
import { LOG_LEVELS, NOTIFICATION } from '../../protocol/constants.ts'
import type { LogLevel } from '../../protocol/constants.ts'
import { encodeBase64Url } from '../../protocol/base64.ts'
import { McpError } from '../../protocol/errors.ts'
import { notification } from '../../protocol/jsonrpc.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { SessionStream } from '../dispatch.ts'
import { decodeCursor, gapHints, SSE_ID } from '../events/event-log.ts'
import { ALL_RESOURCES, LOG_TOPIC, sessionTopic } from '../events/events.ts'
import type { McpEvent } from '../events/events.ts'
import { Listener } from '../events/listen-hub.ts'
import { Relay } from '../events/listen-relay.ts'
import { mayRead } from '../methods/access.ts'
import { subjectOf } from '../principal.ts'
import { MAX_SESSION_SUBSCRIPTIONS } from './session-ledger.ts'
import type { SessionFacts } from './session-ledger.ts'
import { StreamFacts } from './stream-facts.ts'

/** How long a 2025 client waits before reconnecting its GET stream (the SSE `retry`). */
export const STREAM_RETRY_MS = 1000

/** Where the id of a call's (POST) stream starts; a GET stream's never does (base64url). */
export const CALL_STREAM = 'p:'

/**
 * What a session stream sends first: the `retry`, and for 2025-11-25 (SEP-1699) a priming event,
 * an id of this stream's with empty data.
 */
export function streamPrelude(version: string, id: string): string {
  return `retry: ${STREAM_RETRY_MS}\n${version === '2025-11-25' ? `id: ${id}\ndata: \n` : ''}\n`
}

/**
 * What a 2025-11-25 call's stream (its POST answered as SSE) opens with: its own priming event
 * and `retry`, as SEP-1699 asks. The call is never cut off mid-way to be polled for, so nothing
 * resumes from that id: a GET naming it gets 405 (legacy-clients.md).
 */
export function callStreamPrelude(): string {
  return streamPrelude('2025-11-25', `${CALL_STREAM}${encodeBase64Url(crypto.getRandomValues(new Uint8Array(9)))}.0`)
}

/** A subscription past the bound: -32602, and the session keeps the ones it has. */
export function subscriptionsFull(): McpError {
  return new McpError(
    'invalidParams',
    `Invalid params: a session subscribes to at most ${MAX_SESSION_SUBSCRIPTIONS} resources at once`,
  )
}

/** An event as a 2025-era client receives it on its stream (with `id`, its SSE id, when logged). */
export function legacyEventNotification(event: McpEvent, _subscriptionId?: unknown, id?: string): JsonRpcNotification {
  const message = legacyNotification(event)
  if (id !== undefined) Object.defineProperty(message, SSE_ID, { value: id })
  return message
}

function legacyNotification(event: McpEvent): JsonRpcNotification {
  if (event.type === 'listChanged') return notification(`notifications/${event.list}/list_changed`, {})
  if (event.type === 'resourceUpdated') return notification(NOTIFICATION.resourceUpdated, { uri: event.uri })
  if (event.type === 'log') {
    const params: Record<string, unknown> = { level: event.level, data: event.data }
    if (event.logger !== undefined) params.logger = event.logger
    return notification(NOTIFICATION.message, params)
  }
  throw new Error(`${event.type} events do not reach a 2025-era session stream as notifications`)
}

/**
 * Open the session's path from the hub, then relay its notifications to `outbox` until the stream
 * ends (module header). Resolves once the hub has registered the stream, so whatever is published
 * from then on reaches it; `done` settles when it ends.
 */
export async function openSessionStream<Env>({
  server,
  hub,
  options,
  meta,
  logLevel,
  ledger,
  session,
  cache,
  current,
  id,
  outbox,
  signal,
  lastEventId,
}: SessionStream<Env>): Promise<{ done: Promise<void>; cursor: string }> {
  const listener = sessionListener(server, options, meta, session.nonce)
  const stop = new AbortController()
  const end = () => stop.abort()
  if (signal.aborted) end()
  signal.addEventListener('abort', end, { once: true })
  const relay = new Relay(listener, outbox, false)
  const facts = new StreamFacts(ledger, session, cache)
  const ends = (now: SessionFacts) => now.revoked || !current() || (now.stream !== undefined && now.stream !== id)
  // The facts now (a read, when due), ending the stream if they say so.
  const check = () => {
    const now = facts.get()
    if (!(now instanceof Promise)) return ends(now) ? end() : undefined
    now.then((read) => (ends(read) ? end() : undefined), end)
  }
  const deliver = (event: McpEvent, eventId?: string, hint?: boolean) => {
    if (event.type === 'task') return
    // A change of the session's facts (stream-facts.ts): read them again now, so an end or a newer
    // stream stops this one without waiting for an event.
    if (event.type === 'session') {
      if (event.nonce !== session.nonce) return
      facts.changed()
      return check()
    }
    // Nothing goes out once the session ended or a newer stream of it opened, here or on another
    // isolate: no message goes to two streams. An update goes out if the session subscribes to its
    // URI now, a log message if the session's level admits it now.
    const decide = (now: SessionFacts) => {
      if (ends(now)) return end()
      if (wants(now, event, logLevel)) relay.deliver(event, eventId, hint)
    }
    const now = facts.get()
    if (now instanceof Promise) now.then(decide, end)
    else decide(now)
  }
  try {
    const after = lastEventId ? (decodeCursor(lastEventId) ?? null) : undefined
    // The next batch of a long replay once this one is out (events waiting for the facts included).
    const pace = async () => {
      await facts.pending?.catch(() => {})
      return relay.drained()
    }
    // A later batch's path is registered: an announcement sent between two paths reached nobody
    // (hub-listener.ts), so the facts are read again, after the registration.
    const relinked = () => {
      facts.changed()
      check()
    }
    // The hints before what the hub replays (EventHub.listen): a failed read of the facts ends the stream.
    let hinted = false
    const hintGaps = (gaps: string[]) => {
      hinted = true
      return hint(gaps, deliver, facts).catch(end)
    }
    const path = await hub.listen(listener, deliver, stop.signal, after, pace, relinked, hintGaps)
    // The first read, once the hub has the stream (stream-facts.ts): a later change is announced to it.
    check()
    if (!hinted && path.gaps?.length) void hintGaps(path.gaps)
    const done = relay.run(stop.signal, Date.now() + server.listenTimeoutMs, path.closed).finally(() => {
      end()
      signal.removeEventListener('abort', end)
    })
    // The priming id: where the stream starts, unique to this stream (event-log.ts).
    return { done, cursor: path.cursor ? `${path.cursor}~${id}` : id }
  } catch (error) {
    end()
    signal.removeEventListener('abort', end)
    throw error
  }
}

/**
 * The listener of a session's stream: the lists the server offers, every resource update, log
 * messages, and the session's own announcements. A resource this caller may not read is not
 * announced to it (scopes and visibility, as resources/read).
 */
function sessionListener<Env>(
  server: SessionStream<Env>['server'],
  options: SessionStream<Env>['options'],
  meta: SessionStream<Env>['meta'],
  nonce: string,
): Listener {
  const topics = new Set<string>()
  for (const list of ['tools', 'prompts', 'resources'] as const) if (server.offers(list, options)) topics.add(`list:${list}`)
  if (server.offers('resources', options)) topics.add(ALL_RESOURCES)
  topics.add(LOG_TOPIC)
  topics.add(sessionTopic(nonce))
  const viewer = { principal: options.principal, env: options.env, meta }
  const allows = (event: McpEvent) => event.type !== 'resourceUpdated' || mayRead(server, viewer, event.uri)
  return new Listener('session', topics, subjectOf(options.principal), allows, undefined, legacyEventNotification)
}

/**
 * Whether the session wants `event` now: a list change always, an update if it subscribes to the
 * URI, a log message if its level (else the lane's `logLevel`) admits it.
 */
function wants(now: SessionFacts, event: McpEvent, logLevel: LogLevel): boolean {
  if (event.type === 'log') return LOG_LEVELS.indexOf(event.level) >= LOG_LEVELS.indexOf(now.logLevel ?? logLevel)
  if (event.type === 'resourceUpdated') return now.subscriptions?.includes(event.uri) ?? false
  return event.type === 'listChanged'
}

/** The re-read hints for `gaps` (module header): list changes, and an update per URI subscribed now. */
async function hint(
  gaps: readonly string[],
  deliver: (event: McpEvent, eventId: undefined, hint: true) => void,
  facts: StreamFacts,
): Promise<void> {
  for (const event of gapHints(gaps)) deliver(event, undefined, true)
  if (!gaps.includes(ALL_RESOURCES)) return
  const now = await facts.get()
  for (const uri of now.subscriptions ?? []) deliver({ type: 'resourceUpdated', uri }, undefined, true)
}
