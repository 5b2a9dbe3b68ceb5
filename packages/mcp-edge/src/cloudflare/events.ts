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
 */
import { env as workerEnv } from 'cloudflare:workers'
import { fnv1a } from '../protocol/hash.ts'
import { eventTopics } from '../server/events/events.ts'
import type { EventHub, McpEvent, Subscription } from '../server/events/events.ts'
import { positive } from '../server/limits.ts'
import { SUBSCRIPTION_HEADER } from './event-hub.ts'
import type { EventHubRpc } from './event-hub.ts'

export interface EventHubOptions {
  /** Name of the Durable Object binding of `McpEventHub` (for example `MCP_EVENTS`). */
  binding: string
  /** How many hub objects topics are spread over (default 1). Every Worker on the hub must use the same number. */
  shards?: number
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
   * Open one shard's socket for a listener. Its handlers are attached before `accept()`, so a
   * message or a close that arrives while other shards are still connecting is not lost.
   */
  async function connect(
    shard: number,
    topics: string[],
    principal: string | null,
    onMessage: (data: string) => void,
    onClose: () => void,
  ): Promise<WebSocket> {
    const subscription = encodeURIComponent(JSON.stringify({ topics, principal }))
    const response = await hub(shard).fetch('http://hub', {
      headers: { upgrade: 'websocket', [SUBSCRIPTION_HEADER]: subscription },
    })
    const socket = response.webSocket
    if (!socket) throw new Error(`Event hub refused a listener: ${response.status}`)
    socket.addEventListener('message', (message) => onMessage(message.data as string))
    // An error is followed by a close (WHATWG WebSockets).
    socket.addEventListener('close', onClose)
    socket.accept()
    return socket
  }

  return {
    async publish(event: McpEvent) {
      const targets = [...byShard(eventTopics(event), shards).keys()]
      const id = targets.length > 1 ? crypto.randomUUID() : undefined
      const reached = await Promise.all(targets.map((shard) => (hub(shard) as unknown as EventHubRpc).publish(event, id)))
      return reached.reduce((sum, count) => sum + count, 0)
    },

    async listen(subscription: Subscription, deliver: (event: McpEvent) => void, signal: AbortSignal) {
      // If one shard refuses, the listen request fails, and its end closes the sockets it opened.
      const groups = [...byShard(subscription.topics, shards)]
      const recent: string[] = []
      const onMessage = (data: string) => {
        const { id, event } = JSON.parse(data) as { id?: string; event: McpEvent }
        if (id !== undefined) {
          if (recent.includes(id)) return
          if (recent.push(id) > RECENT_IDS) recent.shift()
        }
        deliver(event)
      }
      let onClose: () => void = () => {}
      const closed = new Promise<void>((resolve) => {
        onClose = resolve
      })
      const sockets = await Promise.all(
        groups.map(([shard, topics]) => connect(shard, topics, subscription.principal, onMessage, onClose)),
      )
      // Closing a closed socket is ignored (compatibility date 2026-04-07 and later).
      const close = () => {
        for (const socket of sockets) socket.close(1000)
      }
      if (signal.aborted) close()
      else signal.addEventListener('abort', close, { once: true })
      return { closed }
    },
  }
}
