/**
 * One hub socket per isolate, shard and subscription, shared by every stream of the isolate that
 * listens with that subscription (`cloudflareEventHub({ shareSockets: sharedHubSockets })`,
 * events.ts). A hub object sends an event once per socket and each socket's message is one event
 * in the isolate, so N such streams cost the hub one send instead of N, and the isolate one
 * WebSocket message; the isolate hands the message to each stream in JavaScript (bench/README.md,
 * "Fan-out at scale").
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
 * belong. A socket never outlives the stream that opened it: once the opener's response ends,
 * workerd cancels that request's remaining work after a short grace, which would kill the socket's
 * read loop with no `close` event. So when the opener's stream ends, for any reason (client gone,
 * timeout, DELETE, lag, a replay batch left, an exception), its `Member` — resumed in the opener's
 * request — removes the socket from the map, closes it, and moves every other stream on it: each,
 * in its own request, opens a new path from its own cursor (hub-listener.ts `onMoved`), the first
 * a new socket that the others join, and gets what was published meanwhile by `catchUp`; its
 * response goes on. (A move that fails — the new connect, a `catchUp`, a log pruned past the
 * cursor — ends the stream, and its client resumes from its last id.) The youngest stream is woken
 * first, and workerd runs the wake-ups in that order, so it normally opens the new socket (unless
 * its `pace` waits, on a full inbox or a 2025 stream's facts): it would time out last, and streams
 * that end before it leave without moving anyone. Had the oldest opened it, every
 * stream's end would move all the others. A socket that drops (the hub restarted or was
 * redeployed) ends its streams instead, and their clients resume from their own ids. The opener is
 * always a member while the socket is open, so no socket stays open without members. A stream
 * waiting for the opener's connect gives up after `READY_WAIT_MS` (the opener's request may be gone
 * mid-connect) and opens a socket of its own; a failed connect fails it; an opener whose connect
 * was given up on closes the socket it got and starts again. Known costs, not losses: each opener
 * that leaves costs the streams left on its socket one connect in all and a `catchUp` each, as
 * does an opener that resumes from a cursor more than one replay batch behind (it leaves its path
 * at the batch's end); and a joiner whose stream ends while it waits still waits out
 * `READY_WAIT_MS`.
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
 * Shards whose topics include a `session:` topic are not shared (hub-listener.ts `#open` keeps a
 * socket of their own): a 2025 GET stream's session topic is its own, so sharing there only
 * adds a `catchUp` per connect and per replay batch.
 *
 * Relies on `handle_cross_request_promise_resolution` (workerd's default since compatibility date
 * 2024-10-14): a promise resolved from another request resumes its waiter in the waiter's request.
 * Where a Worker turns it off, `sharedHubSockets` shares nothing (below). Given by import, not by
 * default; the durable template shares (docs/notifications.md#capacity). Streams served inside a
 * Durable Object are not provided for: the map is the isolate's, so they could join a socket that
 * a plain request or another object opened (mcp-edge/sdk's hub for McpAgent does not share).
 */
import type { Connect, EventHubRpc, HubMessage } from './event-hub.ts'
import { openShard, shardName } from './hub-listener.ts'
import type { Handlers, HubSocketSharing, ShardPath, SocketPath } from './hub-listener.ts'

/** Messages a stream may have waiting for its request before it is cut off (its stream ends; the client resumes). */
const MAX_WAITING = 1024

/** How long a stream waits for another stream's connect before opening a socket of its own (module header). */
const READY_WAIT_MS = 10_000

/**
 * One stream on a shared socket: its messages, taken in its own request (module header). `onEnd`
 * runs once, in the stream's request, whichever way it ends.
 */
class Member {
  readonly #handlers: Handlers
  /** Its stream's place in the isolate's order (`Handlers.order`): the youngest moves first. */
  readonly order: number
  #queue: HubMessage[] = []
  #wake: (() => void) | undefined
  #state: 'open' | 'closed' | 'left' = 'open'
  /** Closed because the opener's stream ended, not because the socket dropped: the stream moves to a new path. */
  #moved = false

  /** Made in the stream's request, so `#run` waits there. */
  constructor(handlers: Handlers, onEnd: () => void) {
    this.#handlers = handlers
    this.order = handlers.order ?? 0
    void this.#run().finally(onEnd)
  }

  push(message: HubMessage): void {
    if (this.#state !== 'open') return
    if (this.#queue.length >= MAX_WAITING) this.close()
    else {
      this.#queue.push(message)
      this.#poke()
    }
  }

  /**
   * The socket dropped: the stream hears what waits, then ends. `moved`: its opener left; the
   * stream hears what waits, then opens a new path from its cursor (hub-listener.ts `onMoved`).
   */
  close(moved = false): void {
    if (this.#state !== 'open') return
    this.#state = 'closed'
    this.#moved = moved
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
        try {
          this.#handlers.onMessage(message)
        } catch (error) {
          // A stream that cannot take a message ends as a dropped socket ends it: its client resumes.
          console.error('mcp-edge: a stream on a shared hub socket failed; it ends', error)
          this.#state = 'closed'
          this.#moved = false
          this.#queue = []
          break
        }
      }
      if (this.#state === 'left') return
      if (this.#state === 'closed' && this.#queue.length === 0) {
        const { onClose, onMoved = onClose } = this.#handlers
        return this.#moved ? onMoved() : onClose()
      }
    }
  }
}

/** A shared socket: its path once open, its streams, the one that opened it, and whether it is closed. */
interface Shared {
  ready: Promise<SocketPath>
  path?: SocketPath
  members: Set<Member>
  opener?: Member
  closed: boolean
}

export class SharedSockets {
  readonly #namespace: DurableObjectNamespace
  readonly #binding: string
  readonly #sockets = new Map<string, Shared>()
  readonly #readyWaitMs: number

  /** `readyWaitMs`: how long a stream waits for another's connect (a test shortens it). */
  constructor(namespace: DurableObjectNamespace, binding: string, readyWaitMs = READY_WAIT_MS) {
    this.#namespace = namespace
    this.#binding = binding
    this.#readyWaitMs = readyWaitMs
  }

  /** Open sockets (a test's view, test/workers/shared-sockets.test.ts). */
  get size(): number {
    return this.#sockets.size
  }

  /** A stream's path to `shard` (hub-listener.ts `OpenPath`): on the isolate's socket for its subscription, opened if none is. */
  readonly open = async (shard: number, connect: Connect, handlers: Handlers): Promise<ShardPath> => {
    const key = JSON.stringify([shard, connect.principal, [...connect.topics].sort()])
    const existing = this.#sockets.get(key)
    const shared = existing ?? this.#connect(key, shard, connect)
    const path = existing ? await this.#wait(key, existing) : await shared.ready
    // Dropped (or given up on) while this stream waited for it: a new one. A socket this stream
    // opened, given up on by a joiner meanwhile (READY_WAIT_MS), is closed here, in its request.
    if (!path || shared.closed) {
      if (!existing && path) {
        closeSocket(path.socket)
        // A stream may have joined it between its connect and the give-up: it moves.
        this.#drop(key, shared, true)
      }
      return this.open(shard, connect, handlers)
    }
    const opener = !existing
    const member: Member = new Member(handlers, () => this.#ended(key, shared, member))
    shared.members.add(member)
    if (opener) shared.opener = member
    const leave = () => member.leave()
    try {
      // The socket is registered (on a relay, `openShard` attached it): only the stream's start and replay are asked for.
      const rpc = this.#namespace.get(this.#namespace.idFromName(shardName(shard))) as unknown as EventHubRpc
      const start = await rpc.catchUp(connect)
      return { head: start.head, gaps: start.gaps, floors: start.floors, replayed: start.events, leave }
    } catch (error) {
      leave()
      throw error
    }
  }

  /** Another stream's connect: its path, or `undefined` once it was given up on (module header); a failed connect throws. */
  async #wait(key: string, shared: Shared): Promise<SocketPath | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, this.#readyWaitMs)
    })
    try {
      const path = await Promise.race([shared.ready, late])
      if (!path) this.#forget(key, shared)
      return path
    } finally {
      if (timer !== undefined) clearTimeout(timer)
    }
  }

  /** Open the socket of `key`, without a cursor (it carries live messages only), on the shard's object or a relay. */
  #connect(key: string, shard: number, connect: Connect): Shared {
    const { after: _after, batch: _batch, ...live } = connect
    const members = new Set<Member>()
    const shared: Shared = {
      members,
      closed: false,
      ready: openShard(this.#namespace, this.#binding, shard, live, {
        // Runs in the request that opened the socket (module header).
        onMessage: (message) => {
          for (const member of members) member.push(message)
        },
        onClose: () => this.#drop(key, shared),
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

  /** A stream ended, in its own request: the opener takes the socket down with it, and the others move (module header). */
  #ended(key: string, shared: Shared, member: Member): void {
    shared.members.delete(member)
    if (shared.opener !== member) return
    if (shared.path) closeSocket(shared.path.socket)
    this.#drop(key, shared, true)
  }

  /**
   * The socket is gone: no new stream joins it; every stream on it ends as on a drop, or moves to a
   * new path when its opener left, the youngest first (module header).
   */
  #drop(key: string, shared: Shared, moved = false): void {
    this.#forget(key, shared)
    const members = moved ? [...shared.members].sort((a, b) => b.order - a.order) : shared.members
    for (const member of members) member.close(moved)
  }

  #forget(key: string, shared: Shared): void {
    shared.closed = true
    if (this.#sockets.get(key) === shared) this.#sockets.delete(key)
  }
}

/**
 * Shared hub sockets, for `cloudflareEventHub`'s `shareSockets` (module header). Imported by name,
 * so a Worker that does not share carries none of this. In a Worker whose compatibility settings
 * turn `handle_cross_request_promise_resolution` off (the Workers test pool does, for the Worker
 * under test), a stream woken from another request's socket would resume in that request and fail:
 * there each stream keeps a socket of its own, as without `shareSockets`, and the hub says so once
 * when it is made, naming what to change to share.
 *
 * @example
 * events: cloudflareEventHub({ binding: 'MCP_EVENTS', shareSockets: sharedHubSockets })
 */
export const sharedHubSockets: HubSocketSharing = (namespace, binding) => {
  if (crossRequestPromises()) return new SharedSockets(namespace, binding).open
  console.warn(NOT_SHAREABLE)
  return (shard, connect, handlers) => openShard(namespace, binding, shard, connect, handlers)
}

/**
 * Whether workerd resumes a promise resolved from another request in its waiter's request (module
 * header), from `Cloudflare.compatibilityFlags`. A runtime without that object (Node, a workerd
 * older than it) is assumed to have the flag on: on such a workerd with a date before 2024-10-14,
 * sharing fails at a woken stream's first event.
 */
function crossRequestPromises(): boolean {
  const runtime = (globalThis as { Cloudflare?: { compatibilityFlags?: Record<string, boolean | undefined> } }).Cloudflare
  return runtime?.compatibilityFlags?.handle_cross_request_promise_resolution !== false
}

const NOT_SHAREABLE =
  'mcp-edge: shared hub sockets (shareSockets: sharedHubSockets) are off in this Worker: they need ' +
  'handle_cross_request_promise_resolution, which is off here, so each listen stream keeps a socket of its own. ' +
  'Under the Workers test pool (@cloudflare/vitest-pool-workers) that is expected: the pool turns it off for the ' +
  'Worker under test, and nothing needs changing. Elsewhere, to share, set compatibility_date to 2024-10-14 or later ' +
  'and remove no_handle_cross_request_promise_resolution from compatibility_flags (wrangler.jsonc). ' +
  'See docs/notifications.md#capacity.'

/** Close a socket from the request that opened it; a failure is logged (the streams on it end anyway). */
function closeSocket(socket: WebSocket): void {
  try {
    socket.close(1000)
  } catch (error) {
    console.error('mcp-edge: a shared hub socket could not be closed', error)
  }
}
