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
 * while other shards still connect wait, so every id names every shard. A replay comes in bounded
 * batches (event-log.ts): after one, the listener's `pace` says when it has room, and the shard is
 * asked again from the batch's last seq, so neither the hub nor this isolate holds a whole log.
 */
import { env as workerEnv } from 'cloudflare:workers'
import { fnv1a } from '../protocol/hash.ts'
import { encodeCursor } from '../server/events/event-log.ts'
import type { EventLogOptions } from '../server/events/event-log.ts'
import { eventTopics } from '../server/events/events.ts'
import type { Cursor, EventHub, McpEvent, Subscription } from '../server/events/events.ts'
import { positive } from '../server/limits.ts'
import { GAPS_HEADER, HEAD_HEADER, SUBSCRIPTION_HEADER } from './event-hub.ts'
import type { Connect, EventHubRpc, HubMessage } from './event-hub.ts'

export interface EventHubOptions {
  /** Name of the Durable Object binding of `McpEventHub` (for example `MCP_EVENTS`). */
  binding: string
  /** How many hub objects topics are spread over (default 1). Every Worker on the hub must use the same number. */
  shards?: number
  /** The bounds of each topic's log (count and age), which make streams resumable (docs/notifications.md#resuming). */
  log?: EventLogOptions
}

/** One socket of a listener to one shard; `dropped` once a newer one replaced it (or none will). */
interface Link {
  topics: string[]
  dropped: boolean
  socket?: WebSocket
  onMessage: (data: string) => void
  onClose: () => void
}

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

/**
 * @example
 * const server = createMcpServer<Env>({ name: 'notes', version: '1.0.0', events: cloudflareEventHub({ binding: 'MCP_EVENTS' }) })
 * // in a scheduled handler, a queue consumer, a task, another Worker with the binding:
 * await server.notifyResourceUpdated('notes://all')
 */
export function cloudflareEventHub(options: EventHubOptions): EventHub {
  const shards = positive(options.shards, 1, 'cloudflareEventHub: shards')
  const bindings = workerEnv as unknown as Record<string, unknown>
  if (!bindings[options.binding]) {
    throw new Error(
      `Binding ${options.binding} is missing: bind the McpEventHub class in wrangler.jsonc (docs/deploy.md#configuration)`,
    )
  }
  const namespace = bindings[options.binding] as DurableObjectNamespace
  const hub = (shard: number) => namespace.get(namespace.idFromName(`events/${shard}`))

  /**
   * Open one shard's socket for `link`. Its handlers are attached before `accept()`, so a message
   * or a close that arrives while other shards are still connecting is not lost.
   */
  async function connect(shard: number, subscription: Connect, link: Link): Promise<{ head: number; gaps: string[] }> {
    const response = await hub(shard).fetch('http://hub', {
      headers: { upgrade: 'websocket', [SUBSCRIPTION_HEADER]: encodeURIComponent(JSON.stringify(subscription)) },
    })
    const socket = response.webSocket
    if (!socket) throw new Error(`Event hub refused a listener: ${response.status}`)
    link.socket = socket
    socket.addEventListener('message', (message) => link.onMessage(message.data as string))
    // An error is followed by a close (WHATWG WebSockets).
    socket.addEventListener('close', () => link.onClose())
    socket.accept()
    const gaps = response.headers.get(GAPS_HEADER)
    return { head: Number(response.headers.get(HEAD_HEADER) ?? 0), gaps: gaps ? JSON.parse(decodeURIComponent(gaps)) : [] }
  }

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
      pace?: () => Promise<void>,
    ) {
      // If one shard refuses, the listen request fails, and its end closes the sockets it opened.
      const recent: string[] = []
      const cursor: Cursor = new Map()
      const links: Link[] = []
      let waiting: Array<[number, Link, string]> | undefined = []
      let ended: () => void = () => {}
      const closed = new Promise<void>((resolve) => {
        ended = resolve
      })
      const onMessage = (shard: number, link: Link, data: string) => {
        if (link.dropped) return
        if (waiting) {
          waiting.push([shard, link, data])
          return
        }
        const message = JSON.parse(data) as HubMessage
        cursor.set(shard, Math.max(cursor.get(shard) ?? 0, message.seq))
        if (message.more) {
          // Every event of this shard up to `seq` was offered (sent or skipped): drop this socket
          // (what follows on it is past the replay) and fetch the next batch once the listener has room.
          link.dropped = true
          link.socket?.close(1000)
          links.splice(links.indexOf(link), 1)
          void next(shard, link.topics)
          return
        }
        if (message.id !== undefined) {
          if (recent.includes(message.id)) return
          if (recent.push(message.id) > RECENT_IDS) recent.shift()
        }
        deliver(message.event, encodeCursor(cursor))
      }
      const open = (shard: number, topics: string[], from: number | undefined) => {
        const link: Link = {
          topics,
          dropped: false,
          onMessage: (data) => onMessage(shard, link, data),
          onClose: () => {
            if (!link.dropped) ended()
          },
        }
        links.push(link)
        const connectTo: Connect = { topics, principal: subscription.principal, log: options.log }
        if (from !== undefined) connectTo.after = from
        return connect(shard, connectTo, link)
      }
      // Closing a closed socket is ignored (compatibility date 2026-04-07 and later).
      const close = () => {
        for (const link of links) link.socket?.close(1000)
      }
      /** The rest of a replay cut at its bound; if the log moved past the cursor meanwhile, the stream ends (its resume hears the hints). */
      const next = async (shard: number, topics: string[]) => {
        try {
          await pace?.()
          if (signal.aborted) return
          const path = await open(shard, topics, cursor.get(shard))
          if (signal.aborted) close()
          else if (path.gaps.length > 0) ended()
        } catch {
          ended()
        }
      }
      const gaps: string[] = []
      await Promise.all(
        [...byShard(subscription.topics, shards)].map(([shard, topics]) => {
          const from = after === undefined ? undefined : after === null ? null : (after.get(shard) ?? null)
          // A shard resumed from nowhere (an unknown id, a shard the cursor lacks) replays nothing: all its topics are gaps.
          if (from === null) gaps.push(...topics)
          return open(shard, topics, from ?? undefined).then((path) => {
            // From the cursor, unless it is ahead of this log (a wiped log: start again at its head).
            cursor.set(shard, typeof from === 'number' && from <= path.head ? from : path.head)
            gaps.push(...path.gaps)
          })
        }),
      )
      if (signal.aborted) close()
      else signal.addEventListener('abort', close, { once: true })
      const start = encodeCursor(cursor)
      const held = waiting
      waiting = undefined
      for (const [shard, link, data] of held) onMessage(shard, link, data)
      return { closed, cursor: start, gaps }
    },
  }
}
