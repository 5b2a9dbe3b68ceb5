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
 *
 * Capacity: one hub object serves at most `capacity` listeners (default `HUB_CAPACITY`). A listener
 * that finds its shard's object full goes to that shard's relays (event-hub.ts), newest first,
 * opening a new one when they are full too; so listeners of one topic spread over as many objects
 * as they need, while the shard's object still numbers and logs every event (one order, one log).
 * A relay's listener gets its start and replay from the shard's object once its socket is
 * registered, and drops what it hears live at or below that start (module header of event-hub.ts).
 * The paths of one listener, its cursor and its batches are hub-listener.ts.
 */
import { env as workerEnv } from 'cloudflare:workers'
import { fnv1a } from '../protocol/hash.ts'
import { MAX_SHARDS } from '../server/events/event-log.ts'
import type { EventLogOptions } from '../server/events/event-log.ts'
import { eventTopics } from '../server/events/events.ts'
import type { EventHub, McpEvent } from '../server/events/events.ts'
import { positive } from '../server/limits.ts'
import type { EventHubRpc } from './event-hub.ts'
import { HubListener, shardName } from './hub-listener.ts'
import type { HubSocketSharing } from './hub-listener.ts'

export interface EventHubOptions {
  /** Name of the Durable Object binding of `McpEventHub` (for example `MCP_EVENTS`). */
  binding: string
  /** How many hub objects topics are spread over (default 1, at most 128). Every Worker on the hub must use the same number. */
  shards?: number
  /** The bounds of each topic's log (count and age), which make streams resumable (docs/notifications.md#resuming). */
  log?: EventLogOptions
  /** The most listener sockets one hub object serves (default `HUB_CAPACITY`); more go to relays. */
  capacity?: number
  /**
   * `sharedHubSockets`: one hub socket per isolate, shard and subscription (same topics, same
   * principal), shared by the isolate's streams, instead of one per stream (the default): a hub
   * then sends an event once per such socket, and the isolate hands it to each stream
   * (shared-sockets.ts, docs/notifications.md#capacity). Given by import, so a Worker that does not
   * share carries none of its code; the durable template shares. For a Worker's own listen streams,
   * not streams served inside Durable Objects. A socket lasts as long as the stream that opened
   * it, and the others on it then move to a new one; `publish` counts hub sockets; shards with a
   * `session:` topic are not shared. Deploy the hub's Worker first (this asks it for `catchUp`).
   * Needs `handle_cross_request_promise_resolution` (a compatibility date from 2024-10-14, without
   * `no_handle_cross_request_promise_resolution`), since a stream woken from another request's
   * socket would fail without it: there (the Workers test pool is such a place) each stream keeps
   * a socket of its own, and the hub logs once, when made, what to change to share.
   */
  shareSockets?: HubSocketSharing
}

/**
 * Listener sockets one hub object serves by default. One object is single-threaded and sends an
 * event to its sockets one after another (about 17 µs each in a profile on the bench machine), so
 * 1,000 are about 17 ms of its time per event; 10,000 listeners of one topic are served by ten
 * objects that send at once (docs/notifications.md#capacity).
 */
export const HUB_CAPACITY = 1000

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
  const shards = positive(options.shards, 1, 'cloudflareEventHub: shards', MAX_SHARDS)
  const capacity = positive(options.capacity, HUB_CAPACITY, 'cloudflareEventHub: capacity')
  const bindings = workerEnv as unknown as Record<string, unknown>
  if (!bindings[options.binding]) {
    throw new Error(
      `Binding ${options.binding} is missing: bind the McpEventHub class in wrangler.jsonc (docs/deploy.md#configuration)`,
    )
  }
  const namespace = bindings[options.binding] as DurableObjectNamespace
  const hub = (shard: number) => namespace.get(namespace.idFromName(shardName(shard)))
  const open = options.shareSockets?.(namespace, options.binding)

  return {
    async publish(event: McpEvent) {
      const targets = [...byShard(eventTopics(event), shards)]
      const id = targets.length > 1 ? crypto.randomUUID() : undefined
      const reached = await Promise.all(
        targets.map(([shard, topics]) => (hub(shard) as unknown as EventHubRpc).publish(event, id, topics, options.log)),
      )
      return reached.reduce((sum, count) => sum + count, 0)
    },

    async listen(subscription, deliver, signal, after, pace, relinked, hint) {
      const { principal } = subscription
      const listener = new HubListener({
        namespace,
        binding: options.binding,
        principal,
        log: options.log,
        capacity,
        deliver,
        signal,
        pace,
        relinked,
        hint,
        open,
        shards,
      })
      // An id from another spread of topics (`shards` changed since): the shards it names logged
      // other topics, so it resumes as an unknown id does, every topic hinted (event-log.ts). One
      // that says no spread is a one-shard hub's (the shards a stream now lacks are hinted) or
      // was given before ids said it: taken as it is.
      const spread = after?.shards ?? shards
      const from = after && spread !== shards ? null : after
      return listener.start(byShard(subscription.topics, shards), from)
    },
  }
}
