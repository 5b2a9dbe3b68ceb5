/**
 * One listen stream's paths from the event hub (cloudflareEventHub's `listen`, events.ts): a
 * socket per shard its topics fall in, on the shard's object or, when that is full, on one of its
 * relays (event-hub.ts), and the stream's cursor (the newest `seq` per shard) that gives each
 * delivered event its id.
 *
 * Every socket's messages wait until its start is known: the first connects wait for every shard
 * (so every id names every shard), and a relay's socket waits for its replay from the shard's
 * object (`attach`), whose events come first; what the relay sent live at or below the cursor is
 * dropped. A replay is cut into bounded batches (event-log.ts); at a batch's `more` marker the
 * socket is dropped (what follows on it is past the replay), and once the listener has room
 * (`pace`) the shard is asked again after the marker's `seq`, on whichever object has room then.
 * A message sent live only (no `seq`: a session's announcement, event-hub.ts) between the marker
 * and the new socket's registration, or held on a relay's socket whose replay ended with one,
 * reaches nobody and is never replayed: once the new path is registered the listener says so
 * (`relinked`), and its owner reads again what such messages would have told it.
 * A path shared with other streams (shared-sockets.ts) is handled as a relay's; when its socket goes
 * with the stream that opened it, the listener opens a new path from its cursor, as after a batch,
 * and its own stream goes on. It does not decide who may see an event (the hub does) nor what a
 * stream sends (listen-relay.ts).
 */
import { encodeCursor } from '../server/events/event-log.ts'
import { MAX_REPLAY_EVENTS, replayBatch } from './event-log.ts'
import type { EventLogOptions } from '../server/events/event-log.ts'
import type { Cursor, ListenPath, McpEvent } from '../server/events/events.ts'
import { MAX_INBOX } from '../server/events/listen-hub.ts'
import { FLOORS_HEADER, GAPS_HEADER, HEAD_HEADER, RELAYS_HEADER, SUBSCRIPTION_HEADER } from './event-hub.ts'
import type { Connect, EventHubRpc, HubMessage } from './event-hub.ts'

/** Relays tried past the newest one the shard's object knows, before a listen fails. */
const MAX_RELAY_PROBES = 64
/**
 * Ids of recent multi-shard events a listener remembers, to drop their copies, live or replayed
 * (the log keeps each event's id). Shards replay side by side, a batch each at the listener's
 * pace, so a copy comes within a few batches of the first; past this many ids it is heard twice
 * (at least once, never lost).
 */
const RECENT_IDS = 4 * MAX_INBOX

/**
 * The last hub message this isolate parsed, and its text. A hub sends one event's message, the same
 * text, to every listener socket, so an isolate holding many streams hears it many times in a row:
 * it is parsed once, and the streams share the result (read, never changed: a listener makes its
 * notification anew from it).
 */
let lastText: string | undefined
let lastMessage: HubMessage | undefined

function parseMessage(text: string): HubMessage {
  if (text !== lastText || lastMessage === undefined) {
    lastMessage = JSON.parse(text) as HubMessage
    lastText = text
  }
  return lastMessage
}

/** One shard's path: its start, what it cannot replay (each gap's floor), the replay (relay, shared socket), how to leave it. */
export interface ShardPath {
  head: number
  gaps: string[]
  floors: number[]
  replayed?: HubMessage[]
  leave: () => void
}

/** A socket's own path (`openShard`): its socket and the hub object it is on. */
export interface SocketPath extends ShardPath {
  socket: WebSocket
  object: string
}
export interface Handlers {
  onMessage: (message: HubMessage) => void
  /** The path dropped: the stream ends, and its client resumes from its last id. */
  onClose: () => void
  /**
   * A shared socket closed because the stream that opened it ended (shared-sockets.ts): the
   * stream is not at fault, so it opens a new path from its cursor instead of ending.
   */
  onMoved?: () => void
  /** The stream's place in the isolate's order of streams (a larger one is younger), kept across moves. */
  order?: number
}

/** How a listener opens a shard's path: its own socket (`openShard`), or a shared one (shared-sockets.ts). */
export type OpenPath = (shard: number, connect: Connect, handlers: Handlers) => Promise<ShardPath>

/** What `cloudflareEventHub`'s `shareSockets` takes: `sharedHubSockets` (shared-sockets.ts), made once per hub. */
export type HubSocketSharing = (namespace: DurableObjectNamespace, binding: string) => OpenPath

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
): Promise<Omit<SocketPath, 'object' | 'leave'> | { relays: number }> {
  const response = await namespace.get(namespace.idFromName(name)).fetch('http://hub', {
    headers: { upgrade: 'websocket', [SUBSCRIPTION_HEADER]: encodeURIComponent(JSON.stringify(connect)) },
  })
  if (response.status === 503) return { relays: Number(response.headers.get(RELAYS_HEADER) ?? 0) }
  const socket = response.webSocket
  if (!socket) throw new Error(`Event hub refused a listener: ${response.status}`)
  socket.addEventListener('message', (message) => onMessage(parseMessage(message.data as string)))
  // An error is followed by a close (WHATWG WebSockets).
  socket.addEventListener('close', onClose)
  socket.accept()
  const gaps = response.headers.get(GAPS_HEADER)
  const floors = response.headers.get(FLOORS_HEADER)
  return {
    socket,
    head: Number(response.headers.get(HEAD_HEADER) ?? 0),
    gaps: gaps ? JSON.parse(decodeURIComponent(gaps)) : [],
    floors: floors ? JSON.parse(floors) : [],
  }
}

/** How a stream leaves a socket of its own: a normal close (a closed socket's close is ignored, `#close`). */
const leaving = (socket: WebSocket) => () => socket.close(1000)

/** The name of a shard's own object; its relays are `<name>/<n>`, from 1 (module header). */
export const shardName = (shard: number): string => `events/${shard}`

/**
 * Open one shard's path: on the shard's object (which replays in the same turn), or, when it is
 * full, on a relay with room, newest first, whose start and replay the shard's object then gives
 * (module header).
 */
export async function openShard(
  namespace: DurableObjectNamespace,
  binding: string,
  shard: number,
  connect: Connect,
  handlers: Handlers,
): Promise<SocketPath> {
  const name = shardName(shard)
  const own = await openSocket(namespace, name, connect, handlers)
  if ('socket' in own) return { ...own, object: name, leave: leaving(own.socket) }
  const { after, ...live } = connect
  for (let relay = Math.max(1, own.relays); relay <= own.relays + MAX_RELAY_PROBES; relay++) {
    const path = await openSocket(namespace, `${name}/${relay}`, live, handlers)
    if (!('socket' in path)) continue
    const rpc = namespace.get(namespace.idFromName(name)) as unknown as EventHubRpc
    const { socket } = path
    // A relay socket the shard's object could not attach is left at once, not held until the request ends.
    let attached: Awaited<ReturnType<EventHubRpc['attach']>>
    try {
      attached = await rpc.attach(`${name}/${relay}`, binding, connect)
    } catch (error) {
      socket.close(1000)
      throw error
    }
    const { head, gaps, floors, events } = attached
    // The relay keeps this socket open past a forward it missed at or below `head` (event-hub.ts `#missed`).
    try {
      socket.send(JSON.stringify({ head }))
    } catch {
      // closing: its close handler ends the path
    }
    return { socket, object: `${name}/${relay}`, head, gaps, floors, replayed: events, leave: leaving(socket) }
  }
  throw new Error(`Event hub shard ${shard} and its relays are full (capacity ${connect.capacity})`)
}

/**
 * One path of a listener to one shard; `held` until its start is known; `dropped` once a newer one
 * replaced it (or none will); `moved` when its shared socket went before its start was known.
 */
interface Link {
  shard: number
  topics: string[]
  dropped: boolean
  held?: HubMessage[]
  moved?: boolean
  leave?: () => void
}

/** Streams this isolate has started, for `Handlers.order`. */
let started = 0

export interface HubListenerOptions {
  namespace: DurableObjectNamespace
  binding: string
  principal: string | null
  log?: EventLogOptions
  capacity: number
  deliver: (event: McpEvent, id?: string) => void
  signal: AbortSignal
  pace?: () => Promise<boolean>
  /** Called once each later batch's path is registered (module header): live-only messages of the gap before it are lost. */
  relinked?: () => void
  /** The caller's re-read hints of the topics the log no longer holds, before the replay (EventHub.listen). */
  hint?: ((gaps: string[]) => void | Promise<void>) | undefined
  /** How each shard's path is opened (default: a socket of its own, `openShard`; shared-sockets.ts shares one). */
  open?: OpenPath
  /** Over how many shards the hub spreads topics, as ids say (event-log.ts; default 1). */
  shards?: number
}

export class HubListener {
  readonly #options: HubListenerOptions
  /** Over how many shards the hub spreads topics, said in every id (`encodeCursor`). */
  readonly #shards: number
  readonly #order = ++started
  readonly #cursor: Cursor = new Map()
  readonly #links = new Set<Link>()
  readonly #recent = new Set<string>()
  /** Each shard's head when the stream started, and the topics it was told to re-read then (`#lost`). */
  readonly #startHead = new Map<number, number>()
  readonly #hinted = new Set<string>()
  /** Events per replay batch: the listener's inbox shared among its shards (`replayBatch`). */
  #batch = MAX_REPLAY_EVENTS
  readonly #closed: Promise<void>
  #ended: () => void = () => {}

  constructor(options: HubListenerOptions) {
    this.#options = options
    this.#shards = options.shards ?? 1
    this.#closed = new Promise<void>((resolve) => {
      this.#ended = resolve
    })
  }

  /** Open a path to each shard of `groups`, resuming after `after` (module header); if one refuses, this throws. */
  async start(groups: Iterable<[number, string[]]>, after: Cursor | null | undefined): Promise<ListenPath> {
    const { signal } = this.#options
    const gaps: string[] = []
    const shards = [...groups]
    this.#batch = replayBatch(shards.length)
    // Before any path opens, so a stream that ends while they open leaves every one (`#open` adds each link first).
    signal.addEventListener('abort', () => this.#close(), { once: true })
    // Where the acknowledgement says the stream starts: the cursor, but for the shards resumed from
    // nowhere or from past a wiped log's head (every topic a gap), left out, so that a client gone
    // before their hints reached it is hinted again.
    const acked: Cursor = new Map()
    const settled = await Promise.allSettled(
      shards.map(async ([shard, topics]) => {
        const from = after === undefined ? undefined : after === null ? null : (after.get(shard) ?? null)
        // A shard resumed from nowhere (an unknown id, a shard the cursor lacks) replays nothing: all its topics are gaps.
        if (from === null) gaps.push(...topics)
        const opening = await this.#open(shard, topics, from ?? undefined)
        // From the cursor, unless it is ahead of this log (a wiped log: start again at its head).
        const ahead = typeof from === 'number' && from > opening.path.head
        const start = typeof from === 'number' && !ahead ? from : opening.path.head
        this.#cursor.set(shard, start)
        if (from !== null && !ahead) acked.set(shard, start)
        gaps.push(...opening.path.gaps)
        this.#startHead.set(shard, opening.path.head)
        return opening
      }),
    )
    const failed = settled.find((result) => result.status === 'rejected')
    // One shard refused: leave the paths the others opened (a shared socket's streams stay on it otherwise).
    if (failed || signal.aborted) this.#close()
    if (failed) throw failed.reason
    const opened = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []))
    const cursor = encodeCursor(acked, this.#shards)
    for (const topic of gaps) this.#hinted.add(topic)
    // The replays (and what each socket held meanwhile) after the caller's hints of the gaps (EventHub.listen).
    if (gaps.length > 0) await this.#options.hint?.(gaps)
    for (const { link, path } of opened) this.#begin(link, path)
    return { closed: this.#closed, cursor, gaps }
  }

  async #open(shard: number, topics: string[], after: number | undefined): Promise<{ link: Link; path: ShardPath }> {
    const { namespace, binding, principal, log, capacity, open } = this.#options
    const link: Link = { shard, topics, dropped: false, held: [] }
    this.#links.add(link)
    const connect: Connect = { topics, principal, log, capacity, batch: this.#batch }
    if (after !== undefined) connect.after = after
    const handlers: Handlers = {
      onMessage: (message) => this.#message(link, message),
      onClose: () => {
        if (!link.dropped) this.#ended()
      },
      onMoved: () => {
        if (link.dropped) return
        // Before its start (and the stream's cursor) is known, it moves once they are (`#begin`).
        if (link.held) link.moved = true
        else this.#move(link)
      },
      order: this.#order,
    }
    // A shard with a session topic keeps a socket of its own (shared-sockets.ts, module header).
    const share = open && !topics.some((topic) => topic.startsWith('session:'))
    const path = await (share ? open(shard, connect, handlers) : openShard(namespace, binding, shard, connect, handlers))
    link.leave = path.leave
    // The stream ended while this path opened (`#close` ran before it had `leave`).
    if (this.#options.signal.aborted) path.leave()
    return { link, path }
  }

  /** A relay's replay, then its start (what it heard live up to there is in the replay), then what the socket held. */
  #begin(link: Link, path: ShardPath): void {
    const held = link.held ?? []
    link.held = undefined
    if (path.replayed) {
      for (const message of path.replayed) this.#message(link, message)
      if (!link.dropped) this.#cursor.set(link.shard, Math.max(this.#cursor.get(link.shard) ?? 0, path.head))
    }
    for (const message of held) this.#message(link, message)
    if (link.moved && !link.dropped) this.#move(link)
  }

  /** Its shared socket went with the stream that opened it: a new path from the cursor. */
  #move(link: Link): void {
    this.#drop(link)
    void this.#next(link, true)
  }

  #message(link: Link, message: HubMessage): void {
    if (link.dropped) return
    if (link.held) {
      link.held.push(message)
      return
    }
    const { shard } = link
    if (message.more) {
      // Every event of this shard up to `seq` was offered (sent or skipped): drop this socket (what
      // follows on it is past the replay) and fetch the next batch once the listener has room.
      this.#cursor.set(shard, Math.max(this.#cursor.get(shard) ?? 0, message.seq))
      this.#drop(link)
      void this.#next(link)
      return
    }
    if (message.seq !== undefined) {
      // At or below the cursor: a relay's listener already has it from its replay (or started after it).
      if (message.seq <= (this.#cursor.get(shard) ?? 0)) return
      this.#cursor.set(shard, message.seq)
    } // else sent live only (event-hub.ts): never replayed, so never heard twice; the cursor stays.
    if (message.id !== undefined) {
      if (this.#recent.has(message.id)) return
      this.#recent.add(message.id)
      if (this.#recent.size > RECENT_IDS) this.#recent.delete(this.#recent.values().next().value as string)
    }
    this.#options.deliver(message.event, encodeCursor(this.#cursor, this.#shards))
  }

  /**
   * A new path from the cursor: the rest of a replay cut at its bound, or a shared socket that went
   * with its opener (`onMoved`). If the log lost events the stream was not told of meanwhile, it
   * ends (its resume hears the hints).
   */
  async #next(link: Link, moved = false): Promise<void> {
    const { signal, pace } = this.#options
    try {
      // The listener ended while this batch waited (`false`): no connect for a stream that is gone.
      if ((await pace?.()) === false || signal.aborted) return
      const { link: next, path } = await this.#open(link.shard, link.topics, this.#cursor.get(link.shard))
      if (signal.aborted) return this.#close()
      if (this.#lost(link.shard, path)) return this.#ended()
      // A shared shard has no session topic, so no live-only message was lost in a move (module header).
      if (!moved) this.#options.relinked?.()
      this.#begin(next, path)
    } catch {
      this.#ended()
    }
  }

  /**
   * Whether a later batch's gaps hold events the stream was not told to re-read: a topic not hinted
   * at the start (pruned past the cursor since), or a hinted one pruned past the head the stream
   * started at (the hint covered only what came before). A hinted topic's floor stays above the
   * cursor while older rows of other topics replay; that alone is not a loss.
   */
  #lost(shard: number, path: ShardPath): boolean {
    const start = this.#startHead.get(shard) ?? 0
    return path.gaps.some((topic, i) => !this.#hinted.has(topic) || (path.floors[i] ?? Number.MAX_SAFE_INTEGER) > start)
  }

  #drop(link: Link): void {
    link.dropped = true
    link.leave?.()
    this.#links.delete(link)
  }

  /** Closing a closed socket is ignored (compatibility date 2026-04-07 and later), and so is leaving a shared one twice. */
  #close(): void {
    for (const link of this.#links) link.leave?.()
  }
}
