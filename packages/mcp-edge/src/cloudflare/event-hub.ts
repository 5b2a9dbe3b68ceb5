/**
 * The event hub Durable Object: every open `subscriptions/listen` stream, in every isolate, holds
 * one WebSocket to it (one per shard its topics fall in), and whoever has the binding publishes to
 * it by RPC. The hub sends each event to the sockets whose topics match and whose principal may see
 * it (src/server/events/events.ts decides both; a socket found by a topic's tag matches by that
 * tag), once per socket, numbered in its log (but a session's announcement, sent live only:
 * `LIVE_ONLY`): one message, serialised once, for every socket.
 *
 * Cheap when idle: sockets are accepted with the WebSocket Hibernation API, so a hub with no
 * events to send can be evicted from memory while its listeners stay connected (no duration
 * charge); a listener sends nothing but, on a relay, one message when it attaches (the head its
 * replay reached, `webSocketMessage`), so listening wakes it no more than connecting does.
 *
 * Storage layout: the event log's tables (event-log.ts: `event_log`, `event_floor`, `event_count`,
 * `event_meta`), so a listener that reconnects with a cursor hears what it missed, and the numbering survives a
 * restart or a deploy. The runtime keeps, across hibernation, each socket's tags and attachment:
 * its topics are its tags (`getWebSockets(topic)` finds the listeners of a topic without an index
 * of our own), and `{ topics, principal }` is its attachment (on a relay, with the listener's
 * `head` once it sends it). A socket with more than
 * `MAX_TAGS` topics, or one longer than `MAX_TAG_LENGTH` (the runtime's limits), is tagged `*` and
 * matched by its attachment instead (workerd caps an attachment at 16 KiB; the listen method caps
 * a filter at 12 KiB). No alarm.
 *
 * Limits it lives within (Durable Objects): one object is single-threaded, with a soft limit of
 * about 1,000 requests per second; a publish is one request and costs one `send` per matching
 * listener, plus a few SQLite rows per topic of the event (the log; docs/notifications.md has
 * the counts). Spread topics over several
 * objects with `cloudflareEventHub({ shards })` when one object would be too busy. A restart or
 * deploy closes every socket; listeners then end their streams, and clients resume from their
 * cursor (docs/notifications.md#resuming).
 *
 * Relays: one object serves at most `capacity` listener sockets (the listener says how many; it
 * is refused with 503 and `x-relays`, the count of relays, beyond). The listeners of a full shard
 * go to relay objects of the same class, `<shard's name>/<k>`, which keep no log: the shard's
 * object numbers and logs each event, sends it to its own sockets and forwards it, in order
 * (calls on one stub arrive in the order made), to every relay it has been told of (`attach`,
 * kept in `hub_relays (name, binding)`), which sends it to theirs. A relay's listener asks the
 * shard's object for its start and replay (`attach`) after its socket is registered, and drops
 * what it hears live at or below the `head` that answer names, so it hears each event once, in order.
 * A forward that fails (the relay restarting, overloaded) is logged and does not fail the publish:
 * the relay, seeing at the next forward that the `seq` before it never came (`#missed`), closes
 * its listeners' sockets, and each resumes from its cursor through the log, as after a restart;
 * a listener whose replay reached past the missed events (it sends the relay its `head` after
 * `attach`) keeps its socket.
 * A socket shared by streams (shared-sockets.ts) connects without a cursor; each of its streams asks
 * for its start and replay the same way (`catchUp`; `attach` on a relay). `capacity` counts sockets.
 */
import { DurableObject } from 'cloudflare:workers'
import type { EventLogOptions } from '../server/events/event-log.ts'
import { eventTopics, matches, visibleTo } from '../server/events/events.ts'
import type { McpEvent, Subscription } from '../server/events/events.ts'
import { libraryLog } from '../server/telemetry/log.ts'
import { MAX_REPLAY_BYTES, MAX_REPLAY_EVENTS, SqlEventLog } from './event-log.ts'

/** The request header carrying a listener's subscription (URI-encoded JSON `Connect`). */
export const SUBSCRIPTION_HEADER = 'x-subscription'
/** Response headers of a connect: the log's newest `seq`, and the topics (URI-encoded JSON) it cannot replay. */
export const HEAD_HEADER = 'x-head'
export const GAPS_HEADER = 'x-gaps'
/** Response header of a connect with gaps: each gap's floor (JSON numbers, in the order of `x-gaps`; event-log.ts). */
export const FLOORS_HEADER = 'x-gap-floors'
/** Response header of a refused connect (the object is full): how many relays the shard's object knows. */
export const RELAYS_HEADER = 'x-relays'

/** What a listener sends to connect: its subscription, and where it resumes (`after`, a `seq` of this hub's). */
export interface Connect {
  topics: string[]
  principal: string | null
  after?: number
  log?: EventLogOptions
  /** The most listener sockets this object may hold; a connect beyond is refused (503). */
  capacity?: number
  /** The most events one replay batch sends (default and upper bound `MAX_REPLAY_EVENTS`; event-log.ts). */
  batch?: number
}

/** What a relay's listener gets from the shard's object (`attach`): where it starts, and what it missed. */
export interface Attached {
  head: number
  gaps: string[]
  floors: number[]
  events: HubMessage[]
}

/**
 * What a hub sends a listener, per event: its `seq` in this hub's log, and `id` (see `publish`);
 * no `seq` for an event sent live only (`LIVE_ONLY`). After a replay cut at its bound, one message
 * without an event: `more`, with the `seq` of the last event the replay read (sent or not); the
 * listener connects again after it for the rest.
 */
export type HubMessage =
  | { seq?: number; event: McpEvent; id?: string; more?: undefined }
  | { seq: number; more: true; event?: undefined; id?: undefined }

/**
 * Events sent to the listeners connected now and never logged: no `seq`, no row, no replay. A
 * session's announcement (server/legacy/stream-facts.ts) concerns only the streams open when it
 * is made (one that opens later reads the ledger itself), and one is made per subscribe, level,
 * GET and DELETE of a 2025 session: logged, they would fill the log and a long replay's gaps.
 * Their publish does not wait on the relays (`publish`), and one sent while a listener is between
 * two replay batches reaches none of its sockets (its listener says so: hub-listener.ts).
 */
const LIVE_ONLY: ReadonlySet<McpEvent['type']> = new Set(['session'])

const relayFailed = (error: unknown) => {
  libraryLog.error('event hub relay failed', { error: error instanceof Error ? error.message : String(error) })
  return 0
}
/** A relay's storage key: the `seq` of the last event its shard's object forwarded it (`#missed`). */
const FORWARDED = 'hub_forwarded'
/** The close code of a relay's sockets when events were missed: the listeners resume from the log. */
const MISSED_CLOSE = 1012

/** The runtime's limits on a hibernatable WebSocket's tags. */
export const MAX_TAGS = 10
export const MAX_TAG_LENGTH = 256
/** The tag of sockets matched by their attachment. */
const ANY = '*'

interface Attachment {
  topics: string[]
  principal: string | null
  /**
   * On a relay: the `seq` its listener's replay reached (`attach`'s `head`), which the listener
   * sends over the socket once it has it (`webSocketMessage`): a missed forward at or below it was in the
   * replay, so the socket stays open (`#missed`).
   */
  head?: number
}

/** The subscription of a listener; only Workers holding the binding can connect, so a bad one is a bug. */
function readConnect(header: string | null): Connect | undefined {
  try {
    const connect = JSON.parse(decodeURIComponent(header ?? '')) as Connect
    return Array.isArray(connect.topics) ? { ...connect, principal: connect.principal ?? null } : undefined
  } catch {
    return undefined
  }
}

/** The RPC surface of a hub, as publishers call it. */
export interface EventHubRpc {
  /**
   * Log `event` under `topics` (default: all of its topics; the publisher names those of this
   * shard) within `log`'s bounds, and send it to matching listeners; `id` (when the event went to
   * several hubs) lets a listener drop copies. Returns how many sockets got it.
   */
  publish(event: McpEvent, id?: string, topics?: string[], log?: EventLogOptions): number | Promise<number>
  /**
   * On a relay (module header): send a shard's message to the matching sockets here; how many got
   * it. `seq`, the event's in the shard's log, lets the relay see that it missed one (`#missed`).
   */
  relay(message: string, event: McpEvent, topics: string[], seq?: number): number
  /**
   * On a shard's object: forward every later event to the relay `relay` (bound as `binding`), and
   * tell its new listener where it starts (`head`) and, from `after`, what it missed.
   */
  attach(relay: string, binding: string, connect: Connect): Attached
  /** On a shard's object: `attach` for a listener on a shared socket (shared-sockets.ts), registering nothing. */
  catchUp(connect: Connect): Attached
  /** On a relay: the events its shard's object forwards start after `seq` (`attach`). */
  forwardsAfter(seq: number): void
  /** Listener sockets held here, and the relays this object forwards to. */
  stats(): { sockets: number; relays: string[] }
}

export class McpEventHub extends DurableObject<Record<string, unknown>> implements EventHubRpc {
  /** Attachments already read since the last wake-up. */
  readonly #subscriptions = new WeakMap<WebSocket, Subscription>()
  readonly #log: SqlEventLog
  /** The relays this object forwards to (`hub_relays`), with their stubs once made. */
  readonly #relays = new Map<string, { binding: string; stub?: EventHubRpc }>()

  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env)
    this.#log = new SqlEventLog(ctx.storage.sql)
    ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS hub_relays (name TEXT PRIMARY KEY, binding TEXT NOT NULL)')
    for (const { name, binding } of ctx.storage.sql.exec<{ name: string; binding: string }>('SELECT * FROM hub_relays')) {
      this.#relays.set(name, { binding })
    }
  }

  override async fetch(request: Request): Promise<Response> {
    const connect = readConnect(request.headers.get(SUBSCRIPTION_HEADER))
    if (!connect || request.headers.get('upgrade') !== 'websocket') return new Response(null, { status: 400 })
    if (connect.capacity !== undefined && this.ctx.getWebSockets().length >= connect.capacity) {
      return new Response(null, { status: 503, headers: { [RELAYS_HEADER]: String(this.#relays.size) } })
    }
    const { topics } = connect
    const attachment: Attachment = { topics, principal: connect.principal }
    const tagged = topics.length <= MAX_TAGS && topics.every((topic) => topic.length <= MAX_TAG_LENGTH)
    const { 0: client, 1: socket } = new WebSocketPair()
    try {
      socket.serializeAttachment(attachment)
    } catch {
      return new Response(null, { status: 400 }) // over the runtime's 16 KiB: a principal of kilobytes
    }
    this.ctx.acceptWebSocket(socket, tagged ? topics : [ANY])
    // Registered and replayed in one turn (storage is synchronous): no publish falls in between,
    // so what the listener hears is the replay, then every later event, in order, once. A replay
    // cut at its bound ends with `more`: what follows it on this socket is not for the listener
    // (it drops this socket and connects again after the replay's last seq).
    const headers = new Headers({ [HEAD_HEADER]: String(this.#log.head) })
    if (typeof connect.after === 'number') {
      const replay = this.#replay(connect, this.#subscription(socket))
      for (const message of replay.events) socket.send(JSON.stringify(message))
      headers.set(HEAD_HEADER, String(replay.head))
      if (replay.gaps.length > 0) {
        headers.set(GAPS_HEADER, encodeURIComponent(JSON.stringify(replay.gaps)))
        headers.set(FLOORS_HEADER, JSON.stringify(replay.floors))
      }
    }
    return new Response(null, { status: 101, webSocket: client, headers })
  }

  async publish(event: McpEvent, id?: string, topics = eventTopics(event), log?: EventLogOptions): Promise<number> {
    const seq = LIVE_ONLY.has(event.type) ? undefined : this.#log.append(event, topics, log, id)
    const message = JSON.stringify(id === undefined ? { seq, event } : { seq, id, event })
    const sent = this.relay(message, event, topics)
    if (this.#relays.size === 0) return sent
    // Made in seq order before any await, so each relay gets the events in that order.
    const relayed = [...this.#relays].map(([name, relay]) => {
      const stub = this.#stub(name, relay)
      return Promise.resolve(stub.relay(message, event, topics, seq)).catch((error: unknown) => {
        // A stub that threw may be broken for good (Durable Objects): the next forward makes another.
        if (relay.stub === stub) relay.stub = undefined
        return relayFailed(error)
      })
    })
    // Live only (a session's announcement): its publisher waits on it before answering, so one
    // slow relay must not hold every session change; this object's own sockets have it (a relay's
    // streams read again within STREAM_FACTS_TTL_MS).
    if (seq === undefined) return sent
    return (await Promise.all(relayed)).reduce((sum, count) => sum + count, sent)
  }

  /**
   * Per socket, only what differs by socket (this runs once per listener per event, the hub's
   * share of a fan-out): a socket found by a topic's tag asked for that topic, so it is checked for
   * the event's audience only (and not at all when the event has none); one tagged `*` is matched
   * by its attachment. Only when sockets come from more than one tag can one be found twice, and
   * only then are they deduplicated.
   */
  relay(message: string, event: McpEvent, topics: string[], seq?: number): number {
    const missed = seq === undefined ? undefined : this.#missed(seq)
    const found: WebSocket[][] = []
    for (const tag of topics) {
      const sockets = this.ctx.getWebSockets(tag)
      if (sockets.length > 0) found.push(sockets)
    }
    const any = this.ctx.getWebSockets(ANY).filter((socket) => matches(this.#subscription(socket), event, topics))
    if (any.length > 0) found.push(any)
    const open = event.audience === undefined
    const sent = found.length > 1 ? new Set<WebSocket>() : undefined
    let count = 0
    for (const sockets of found) {
      for (const socket of sockets) {
        if (sent?.has(socket) || missed?.has(socket) || !(open || visibleTo(event, this.#subscription(socket).principal)))
          continue
        sent?.add(socket)
        count++
        try {
          socket.send(message)
        } catch {
          // closing: the runtime drops it
        }
      }
    }
    return count
  }

  attach(relay: string, binding: string, connect: Connect): Attached {
    if (!this.#relays.has(relay)) {
      this.ctx.storage.sql.exec('INSERT OR IGNORE INTO hub_relays VALUES (?, ?)', relay, binding)
      const known = { binding }
      this.#relays.set(relay, known)
      // Before any forward (calls on one stub arrive in the order made): the first forward a new
      // relay gets is checked too (`#missed`), not taken as where its count starts.
      Promise.resolve(this.#stub(relay, known).forwardsAfter(this.#log.head)).catch(relayFailed)
    }
    return this.catchUp(connect)
  }

  /**
   * On a relay, told by its shard's object when it first forwards to it: the events it forwards
   * start after `seq` (`#missed` checks the first one too). A relay that already has a count keeps it.
   */
  forwardsAfter(seq: number): void {
    if (this.ctx.storage.kv.get(FORWARDED) === undefined) this.ctx.storage.kv.put(FORWARDED, seq)
  }
  catchUp(connect: Connect): Attached {
    if (typeof connect.after !== 'number') return { head: this.#log.head, gaps: [], floors: [], events: [] }
    return this.#replay(connect, { topics: new Set(connect.topics), principal: connect.principal ?? null })
  }

  stats(): { sockets: number; relays: string[] } {
    return { sockets: this.ctx.getWebSockets().length, relays: [...this.#relays.keys()] }
  }

  /** A relay's listener tells it where its replay reached (`{ "head": seq }`); anything else is ignored. */
  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    if (typeof message !== 'string' || message.length > 64) return
    let head: unknown
    try {
      head = (JSON.parse(message) as { head?: unknown }).head
    } catch {
      return
    }
    if (typeof head !== 'number' || !Number.isSafeInteger(head)) return
    const attachment = socket.deserializeAttachment() as Attachment
    if (attachment.head !== undefined) return
    try {
      socket.serializeAttachment({ ...attachment, head })
    } catch {
      // Past the runtime's 16 KiB with it (a principal of kilobytes): the socket is closed at a gap, as before.
    }
  }

  override webSocketClose(): void {
    // workerd requires the handler; the close is answered by the runtime itself
    // (web_socket_auto_reply_to_close, on from compatibility date 2026-04-07).
  }

  /**
   * What a listener resuming after `connect.after` missed, of what its subscription matches, in
   * one bounded batch; a cut batch ends with the `more` message (its `seq` the last event read).
   * A socket's subscription is the one publishes match it by (`#subscription`).
   */
  #replay(connect: Connect, subscription: Subscription): Attached {
    const { batch } = connect
    const most =
      typeof batch === 'number' && Number.isInteger(batch) && batch >= 1 ? Math.min(batch, MAX_REPLAY_EVENTS) : MAX_REPLAY_EVENTS
    const replay = this.#log.replay(connect.topics, connect.after ?? 0, connect.log, { events: most, bytes: MAX_REPLAY_BYTES })
    const events: HubMessage[] = replay.events.filter(({ event }) => matches(subscription, event))
    const last = replay.events.at(-1)
    if (replay.more && last) events.push({ seq: last.seq, more: true })
    return { head: replay.head, gaps: replay.gaps, floors: replay.floors, events }
  }

  /**
   * On a relay, given the `seq` of a forwarded event: whether one before it never came (its forward
   * failed; a shard's log numbers its events one by one, and forwards each to every relay, in
   * order). Then every socket whose listener may lack one is closed (returned, so this event is not
   * sent to it): each of those ends its stream, and its client resumes from its last id through
   * the log (`attach`), this event included. A socket whose listener's replay reached `seq - 1` (the head
   * it sent, `webSocketMessage`) had every missed event from it, and stays, hearing this one: after
   * a relay restarts, the listeners that came back to it are not sent away a second time. One
   * that has not said yet is closed. The count is kept in storage, so a relay that hibernated
   * between two forwards still sees the gap, and one that restarted with no socket here takes no
   * forward unchecked.
   */
  #missed(seq: number): Set<WebSocket> | undefined {
    const kv = this.ctx.storage.kv
    const last = kv.get<number>(FORWARDED)
    // Never back: a forward that arrives late (on a stub made before another) is a gap too.
    if (last === undefined || seq > last) kv.put(FORWARDED, seq)
    if (last === undefined || seq === last + 1) return undefined
    libraryLog.warn('event hub relay missed events: its listeners resume from the log', { after: last, seq })
    const closed = new Set<WebSocket>()
    for (const socket of this.ctx.getWebSockets()) {
      const { head } = socket.deserializeAttachment() as Attachment
      if (head !== undefined && head >= seq - 1) continue
      closed.add(socket)
      try {
        socket.close(MISSED_CLOSE, 'events missed: resume from the log')
      } catch {
        // closing already
      }
    }
    return closed
  }

  #stub(name: string, relay: { binding: string; stub?: EventHubRpc }): EventHubRpc {
    if (!relay.stub) {
      const namespace = this.env[relay.binding] as DurableObjectNamespace
      relay.stub = namespace.get(namespace.idFromName(name)) as unknown as EventHubRpc
    }
    return relay.stub
  }

  #subscription(socket: WebSocket): Subscription {
    let subscription = this.#subscriptions.get(socket)
    if (!subscription) {
      const { topics, principal } = socket.deserializeAttachment() as Attachment
      subscription = { topics: new Set(topics), principal }
      this.#subscriptions.set(socket, subscription)
    }
    return subscription
  }
}
