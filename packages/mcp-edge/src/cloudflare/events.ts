/**
 * `cloudflareEventHub`: the `EventHub` of a Worker, over `McpEventHub` Durable Objects. The
 * binding is read from the Worker's env (`cloudflare:workers`), so publishing works the same from
 * a request, a task object, a `scheduled` or `queue` handler, and from another Worker that binds
 * the same namespace (`script_name`).
 *
 * Topics are spread over `shards` hub objects by a hash of the topic, so all events of one topic
 * go through one object (one order for everybody). A listener opens one WebSocket per shard its
 * topics fall in; an event routed to several shards (a resource update and its parent URIs)
 * carries an id so a listener hears it once.
 *
 * Each shard logs what it is sent (event-log.ts in both folders); a listener keeps its cursor (the
 * newest `seq` per shard) and gives each event it delivers the cursor after it as its id. Asked to
 * resume, each shard replays after the cursor's number for it; a shard the cursor does not name
 * (the shard count changed) replays nothing and reports its topics as gaps. Messages that arrive
 * while other shards still connect wait, so every id names every shard.
 *
 * Capacity: one hub object serves at most `capacity` listeners (default `HUB_CAPACITY`). A listener
 * that finds its shard's object full goes to that shard's relays (event-hub.ts), newest first,
 * opening a new one when they are full too; so listeners of one topic spread over as many objects
 * as they need, while the shard's object still numbers and logs every event (one order, one log).
 * A relay's listener gets its start and replay from the shard's object once its socket is
 * registered, and drops what it hears live at or below that start (module header of event-hub.ts).
 */
import { env as workerEnv } from 'cloudflare:workers'
import { fnv1a } from '../protocol/hash.ts'
import { encodeCursor } from '../server/events/event-log.ts'
import type { EventLogOptions } from '../server/events/event-log.ts'
import { eventTopics } from '../server/events/events.ts'
import type { Cursor, EventHub, McpEvent, Subscription } from '../server/events/events.ts'
import { positive } from '../server/limits.ts'
import { GAPS_HEADER, HEAD_HEADER, RELAYS_HEADER, SUBSCRIPTION_HEADER } from './event-hub.ts'
import type { Connect, EventHubRpc, HubMessage } from './event-hub.ts'

export interface EventHubOptions {
  /** Name of the Durable Object binding of `McpEventHub` (for example `MCP_EVENTS`). */
  binding: string
  /** How many hub objects topics are spread over (default 1). Every Worker on the hub must use the same number. */
  shards?: number
  /** The bounds of each topic's log (count and age), which make streams resumable (docs/notifications.md#resuming). */
  log?: EventLogOptions
  /** The most listener sockets one hub object serves (default `HUB_CAPACITY`); more go to relays. */
  capacity?: number
}

/**
 * Listener sockets one hub object serves by default. One object is single-threaded and sends an
 * event to its sockets one after another (about 17 µs each in a profile on the bench machine), so
 * 1,000 are about 17 ms of its time per event; 10,000 listeners of one topic are served by ten
 * objects that send at once (docs/notifications.md#capacity).
 */
export const HUB_CAPACITY = 1000
/** Relays tried past the newest one the shard's object knows, before a listen fails. */
const MAX_RELAY_PROBES = 64

/** Ids of recent multi-shard events a listener remembers, to drop their copies. */
const RECENT_IDS = 64

/** A stable, cheap spread of topics over shards (FNV-1a). */
export function shardOf(topic: string, shards: number): number {
  return fnv1a(topic) % shards
}

function byShard(topics: Iterable<string>, shards: number): Map<number, string[]> {
  const groups = new Map<number, string[]>()
  for (const topic of topics) {
    const shard = shardOf(topic, shards)
    groups.set(shard, [...(groups.get(shard) ?? []), topic])
  }
  return groups
}

/** One shard's open path: its socket, where it starts, what it cannot replay, and (on a relay only) the replay itself. */
interface ShardPath {
  socket: WebSocket
  head: number
  gaps: string[]
  replayed?: HubMessage[]
}

type Handlers = { onMessage: (data: string) => void; onClose: () => void }

/**
 * Open a socket to hub object `name`; `undefined` when it is full (with how many relays its shard
 * has). Its handlers are attached before `accept()`, so a message or a close that arrives while
 * other shards are still connecting is not lost.
 */
async function openSocket(
  namespace: DurableObjectNamespace,
  name: string,
  connect: Connect,
  { onMessage, onClose }: Handlers,
): Promise<ShardPath | { relays: number }> {
  const response = await namespace.get(namespace.idFromName(name)).fetch('http://hub', {
    headers: { upgrade: 'websocket', [SUBSCRIPTION_HEADER]: encodeURIComponent(JSON.stringify(connect)) },
  })
  if (response.status === 503) return { relays: Number(response.headers.get(RELAYS_HEADER) ?? 0) }
  const socket = response.webSocket
  if (!socket) throw new Error(`Event hub refused a listener: ${response.status}`)
  socket.addEventListener('message', (message) => onMessage(message.data as string))
  // An error is followed by a close (WHATWG WebSockets).
  socket.addEventListener('close', onClose)
  socket.accept()
  const gaps = response.headers.get(GAPS_HEADER)
  return {
    socket,
    head: Number(response.headers.get(HEAD_HEADER) ?? 0),
    gaps: gaps ? JSON.parse(decodeURIComponent(gaps)) : [],
  }
}

/**
 * Open one shard's path: on the shard's object (which replays in the same turn), or, when it is
 * full, on a relay with room, newest first, whose start and replay the shard's object then gives
 * (module header).
 */
async function openShard(
  namespace: DurableObjectNamespace,
  binding: string,
  shard: number,
  connect: Connect,
  handlers: Handlers,
): Promise<ShardPath> {
  const name = `events/${shard}`
  const own = await openSocket(namespace, name, connect, handlers)
  if ('socket' in own) return own
  const { after, ...live } = connect
  for (let relay = Math.max(1, own.relays); relay <= own.relays + MAX_RELAY_PROBES; relay++) {
    const path = await openSocket(namespace, `${name}/${relay}`, live, handlers)
    if (!('socket' in path)) continue
    const rpc = namespace.get(namespace.idFromName(name)) as unknown as EventHubRpc
    const attached = await rpc.attach(`${name}/${relay}`, binding, connect)
    return { socket: path.socket, head: attached.head, gaps: attached.gaps, replayed: attached.events }
  }
  throw new Error(`Event hub shard ${shard} and its relays are full (capacity ${connect.capacity})`)
}

/**
 * @example
 * const server = createMcpServer<Env>({ name: 'notes', version: '1.0.0', events: cloudflareEventHub({ binding: 'MCP_EVENTS' }) })
 * // in a scheduled handler, a queue consumer, a task, another Worker with the binding:
 * await server.notifyResourceUpdated('notes://all')
 */
export function cloudflareEventHub(options: EventHubOptions): EventHub {
  const shards = positive(options.shards, 1, 'cloudflareEventHub: shards')
  const capacity = positive(options.capacity, HUB_CAPACITY, 'cloudflareEventHub: capacity')
  const bindings = workerEnv as unknown as Record<string, unknown>
  if (!bindings[options.binding]) {
    throw new Error(
      `Binding ${options.binding} is missing: bind the McpEventHub class in wrangler.jsonc (docs/deploy.md#configuration)`,
    )
  }
  const namespace = bindings[options.binding] as DurableObjectNamespace
  const hub = (shard: number) => namespace.get(namespace.idFromName(`events/${shard}`))

  return {
    async publish(event: McpEvent) {
      const targets = [...byShard(eventTopics(event), shards)]
      const id = targets.length > 1 ? crypto.randomUUID() : undefined
      const reached = await Promise.all(
        targets.map(([shard, topics]) => (hub(shard) as unknown as EventHubRpc).publish(event, id, topics, options.log)),
      )
      return reached.reduce((sum, count) => sum + count, 0)
    },

    async listen(
      subscription: Subscription,
      deliver: (event: McpEvent, id?: string) => void,
      signal: AbortSignal,
      after?: Cursor | null,
    ) {
      // If one shard refuses, the listen request fails, and its end closes the sockets it opened.
      const groups = [...byShard(subscription.topics, shards)]
      const recent: string[] = []
      const cursor: Cursor = new Map()
      let waiting: Array<[number, HubMessage]> | undefined = []
      const onMessage = (shard: number, message: HubMessage) => {
        if (waiting) {
          waiting.push([shard, message])
          return
        }
        const { seq, id, event } = message
        // At or below the cursor: a relay's listener already has it from its replay (or started after it).
        if (seq <= (cursor.get(shard) ?? 0)) return
        cursor.set(shard, seq)
        if (id !== undefined) {
          if (recent.includes(id)) return
          if (recent.push(id) > RECENT_IDS) recent.shift()
        }
        deliver(event, encodeCursor(cursor))
      }
      let onClose: () => void = () => {}
      const closed = new Promise<void>((resolve) => {
        onClose = resolve
      })
      const gaps: string[] = []
      const replays: Array<[number, HubMessage[], number]> = []
      const opened = await Promise.all(
        groups.map(([shard, topics]) => {
          const from = after === undefined ? undefined : after === null ? null : (after.get(shard) ?? null)
          // A shard resumed from nowhere (an unknown id, a shard the cursor lacks) replays nothing: all its topics are gaps.
          if (from === null) gaps.push(...topics)
          const connectTo: Connect = { topics, principal: subscription.principal, log: options.log, capacity }
          if (typeof from === 'number') connectTo.after = from
          const handlers = { onMessage: (data: string) => onMessage(shard, JSON.parse(data) as HubMessage), onClose }
          return openShard(namespace, options.binding, shard, connectTo, handlers).then((path) => {
            // From the cursor, unless it is ahead of this log (a wiped log: start again at its head).
            cursor.set(shard, typeof from === 'number' && from <= path.head ? from : path.head)
            gaps.push(...path.gaps)
            if (path.replayed) replays.push([shard, path.replayed, path.head])
            return path.socket
          })
        }),
      )
      // Closing a closed socket is ignored (compatibility date 2026-04-07 and later).
      const close = () => {
        for (const socket of opened) socket.close(1000)
      }
      if (signal.aborted) close()
      else signal.addEventListener('abort', close, { once: true })
      const start = encodeCursor(cursor)
      const held = waiting
      waiting = undefined
      // A relay's replay, then its start: what it heard live up to there is in the replay.
      for (const [shard, replayed, head] of replays) {
        for (const message of replayed) onMessage(shard, message)
        cursor.set(shard, Math.max(cursor.get(shard) ?? 0, head))
      }
      for (const [shard, message] of held) onMessage(shard, message)
      return { closed, cursor: start, gaps }
    },
  }
}
