/**
 * One hub socket per isolate, shard and subscription, shared by every stream of the isolate that
 * listens with that subscription (`cloudflareEventHub({ shareSockets: true })`, events.ts). A hub
 * object sends an event once per socket and each socket's message is one event in the isolate, so
 * N such streams cost the hub one send instead of N, and the isolate one WebSocket message; the
 * isolate hands the message to each stream in JavaScript (bench/README.md, "Fan-out at scale").
 *
 * Who may see what does not move: streams share a socket only when their principal and their
 * shard's topics are the same, so the hub's check of the socket (its topics, its principal, an
 * event's audience) is exactly the check it made of each stream's own socket, and each stream's
 * listener checks every event again (listen-hub.ts `offer`).
 *
 * workerd's rules, checked in workerd (bench/README.md): a socket belongs to the request that
 * opened it, and its message events run in that request, also after that request's response
 * ended; from another request, calling the socket (even `close`) throws "Cannot perform I/O on
 * behalf of a different request". So a message is not delivered from the opener's request: each
 * stream's `Member` waits on a promise made in its own request, which the message resolves; workerd
 * runs what follows in the stream's request, where its deliver, its response and any I/O it does
 * belong. The socket is closed by the last stream to leave when that stream opened it, and
 * otherwise by its next message (which runs in the opener's request); a dropped socket ends every
 * stream on it, and each resumes from its own cursor.
 *
 * What the hub sends on a shared socket is live only: the socket connects without a cursor, and
 * each stream gets its start and its replay from the shard's object by RPC (`catchUp`; on a relay,
 * `attach`) once it is on the socket, as a relay's listener does (hub-listener.ts); what it hears
 * at or below its start is dropped, the rest held until the replay is in. Replay batches, relays,
 * `relinked` and de-duplication across shards stay per stream (hub-listener.ts).
 *
 * Capacity counts sockets: a shared socket takes one of its object's `capacity`, whatever the
 * number of streams on it (docs/limits.md).
 *
 * Experimental: over HTTP in workerd, streams outlive the request that opened their socket and end
 * when it drops; in the Workers test pool (`SELF.fetch`) a stream failed in both cases ("Promise
 * will never complete"), cause not found (bench/README.md); hence off by default.
 */
import type { Connect, EventHubRpc, HubMessage } from './event-hub.ts'
import { openShard, shardName } from './hub-listener.ts'
import type { Handlers, ShardPath, SocketPath } from './hub-listener.ts'

/** Messages a stream may have waiting for its request before it is cut off (its stream ends; the client resumes). */
const MAX_WAITING = 1024

/** One stream on a shared socket: its messages, taken in its own request (module header). */
class Member {
  readonly #handlers: Handlers
  #queue: HubMessage[] = []
  #wake: (() => void) | undefined
  #state: 'open' | 'closed' | 'left' = 'open'

  /** Made in the stream's request, so `#run` waits there. */
  constructor(handlers: Handlers) {
    this.#handlers = handlers
    void this.#run()
  }

  push(message: HubMessage): void {
    if (this.#state !== 'open') return
    if (this.#queue.length >= MAX_WAITING) this.close()
    else {
      this.#queue.push(message)
      this.#poke()
    }
  }

  /** The socket dropped: the stream hears what waits, then ends. */
  close(): void {
    if (this.#state !== 'open') return
    this.#state = 'closed'
    this.#poke()
  }

  /** The stream left: nothing more reaches it. */
  leave(): void {
    this.#state = 'left'
    this.#queue = []
    this.#poke()
  }

  #poke(): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  async #run(): Promise<void> {
    for (;;) {
      while (this.#queue.length === 0 && this.#state === 'open') {
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
      }
      const batch = this.#queue
      this.#queue = []
      for (const message of batch) {
        if (this.#state === 'left') return
        this.#handlers.onMessage(message)
      }
      if (this.#state === 'left') return
      if (this.#state === 'closed' && this.#queue.length === 0) return this.#handlers.onClose()
    }
  }
}

/** A shared socket: its path once open, its streams, and whether it is closed or waits to be (`idle`). */
interface Shared {
  ready: Promise<SocketPath>
  path?: SocketPath
  members: Set<Member>
  closed: boolean
  idle: boolean
}

export class SharedSockets {
  readonly #namespace: DurableObjectNamespace
  readonly #binding: string
  readonly #sockets = new Map<string, Shared>()

  constructor(namespace: DurableObjectNamespace, binding: string) {
    this.#namespace = namespace
    this.#binding = binding
  }

  /** A stream's path to `shard` (hub-listener.ts `OpenPath`): on the isolate's socket for its subscription, opened if none is. */
  readonly open = async (shard: number, connect: Connect, handlers: Handlers): Promise<ShardPath> => {
    const key = JSON.stringify([shard, connect.principal, [...connect.topics].sort()])
    const shared = this.#sockets.get(key) ?? this.#connect(key, shard, connect)
    const path = await shared.ready
    // Dropped while this stream waited for it: a new one.
    if (shared.closed) return this.open(shard, connect, handlers)
    const member = new Member(handlers)
    shared.members.add(member)
    shared.idle = false
    const leave = () => {
      member.leave()
      if (shared.members.delete(member) && shared.members.size === 0) this.#release(key, shared)
    }
    try {
      const name = shardName(shard)
      const rpc = this.#namespace.get(this.#namespace.idFromName(name)) as unknown as EventHubRpc
      const start = path.object === name ? await rpc.catchUp(connect) : await rpc.attach(path.object, this.#binding, connect)
      return { head: start.head, gaps: start.gaps, floors: start.floors, replayed: start.events, leave }
    } catch (error) {
      leave()
      throw error
    }
  }

  /** Open the socket of `key`, without a cursor (it carries live messages only), on the shard's object or a relay. */
  #connect(key: string, shard: number, connect: Connect): Shared {
    const { after: _after, batch: _batch, ...live } = connect
    const members = new Set<Member>()
    const shared: Shared = {
      members,
      closed: false,
      idle: false,
      ready: openShard(this.#namespace, this.#binding, shard, live, {
        onMessage: (message) => {
          // Runs in the request that opened the socket, the one place it can be closed (module header).
          if (shared.idle) return this.#close(key, shared)
          for (const member of members) member.push(message)
        },
        onClose: () => {
          this.#forget(key, shared)
          for (const member of members) member.close()
        },
      }),
    }
    shared.ready.then(
      (path) => {
        shared.path = path
      },
      () => this.#forget(key, shared),
    )
    this.#sockets.set(key, shared)
    return shared
  }

  /** The last stream left: close the socket if this request opened it, else at its next message. */
  #release(key: string, shared: Shared): void {
    try {
      this.#close(key, shared)
    } catch {
      shared.idle = true
    }
  }

  #close(key: string, shared: Shared): void {
    shared.path?.socket.close(1000)
    this.#forget(key, shared)
  }

  #forget(key: string, shared: Shared): void {
    shared.closed = true
    if (this.#sockets.get(key) === shared) this.#sockets.delete(key)
  }
}
