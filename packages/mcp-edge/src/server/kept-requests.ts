/**
 * Code that hears the 2025-era requests the core answers itself (`logging/setLevel`,
 * `resources/subscribe`, `resources/unsubscribe`: methods/legacy.ts) before the core keeps what
 * they ask: mcp-edge/sdk hands them to an SDK server's own handlers for them, which keep
 * bookkeeping of their own (a set of subscribed URIs that a tool sends updates for) or refuse
 * some. What a watcher throws is the request's answer, and nothing is kept; a subscription the
 * session ledger refuses after it (past its cap) the watcher has seen, and is delivered nothing.
 * And code that hears a 2025-era client's notifications (`notifications/initialized`: an SDK
 * server's `oninitialized`). And code that reads a server's lists in the request that needs them
 * (`readListsWith`). Internal to the package.
 */
import { LOG_LEVELS } from '../protocol/constants.ts'
import type { LogLevel } from '../protocol/constants.ts'
import type { JsonRpcRequest } from '../protocol/jsonrpc.ts'
import type { ClientCapabilities, Implementation, RequestMeta } from '../protocol/types.ts'
import type { Call, HandleOptions } from './dispatch.ts'
import { logTo } from './scope.ts'
import { Attached } from './attached.ts'

/**
 * Where a watcher's log lines go: the kept request's own stream, at its caller's level, as a
 * handler's `ctx.log` (a 2025 subscribe's POST answer then streams them before its result).
 */
export type KeptRequestLog = (level: LogLevel, data: unknown, logger?: string) => void

export type RequestWatcher = (request: JsonRpcRequest, options: HandleOptions<unknown>, log: KeptRequestLog) => Promise<void>

/** A listen stream's subscriptions log nowhere: the stream's first message is its acknowledgement. */
const NO_LOG: KeptRequestLog = () => {}

const watchers = new Attached<RequestWatcher>('mcp-edge.keptRequestWatcher')

/**
 * `watcher` hears `server`'s kept requests from now on (one watcher a server).
 *
 * @example
 * watchKeptRequests(server.edge, async (request) => handlers.get(request.method)?.(request))
 */
export function watchKeptRequests(server: object, watcher: RequestWatcher): void {
  watchers.set(server, watcher)
}

/** Hand the request of `call` to its server's watcher, if it has one. */
export function heard(call: Call): Promise<void> | undefined {
  const watcher = watchers.get(call.server)
  if (!watcher) return undefined
  const threshold = call.logLevel === undefined ? Number.POSITIVE_INFINITY : LOG_LEVELS.indexOf(call.logLevel)
  return watcher(call.request, call.options as HandleOptions<unknown>, (level, data, logger) =>
    logTo(call.options.outbox, threshold, level, data, logger),
  )
}

/**
 * The URIs of a 2026-07-28 listen stream's `resourceSubscriptions` that `server`'s watcher takes,
 * each heard as a `resources/subscribe` of the stream's request (so a handler that authorizes or
 * refuses a subscription does so for listen streams too, and one that keeps the subscribed URIs
 * sees them); all of them when nothing watches. `release` hears their `resources/unsubscribe`
 * once the stream ends.
 */
export async function listenedTo(
  server: object,
  request: JsonRpcRequest,
  options: HandleOptions<unknown>,
  uris: readonly string[],
): Promise<{ uris: string[]; release(): Promise<void> }> {
  const watcher = watchers.get(server)
  if (!watcher) return { uris: [...uris], release: async () => {} }
  const as = (method: string, uri: string): JsonRpcRequest => ({ jsonrpc: '2.0', id: request.id, method, params: { uri } })
  const taken: string[] = []
  for (const uri of uris) {
    try {
      await watcher(as('resources/subscribe', uri), options, NO_LOG)
      taken.push(uri)
    } catch {
      // Refused by the server's handler: not honoured (the acknowledgement leaves it out).
    }
  }
  const release = async () => {
    for (const uri of taken) await watcher(as('resources/unsubscribe', uri), options, NO_LOG).catch(() => {})
  }
  return { uris: taken, release }
}

/** The client a notification came from, as its session says. */
export interface NotifyingClient {
  protocolVersion: string
  capabilities: ClientCapabilities
  info: Implementation | undefined
}

/** Hears a client notification, in the request that carries it (`waitUntil`: that request's). */
export type NotificationWatcher = (
  method: string,
  params: Record<string, unknown>,
  client: NotifyingClient,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
) => void

const notificationWatchers = new Attached<NotificationWatcher>('mcp-edge.notificationWatcher')

/**
 * `watcher` hears the notifications 2025-era clients send `server` from now on (one watcher a server).
 *
 * @example
 * watchClientNotifications(server.edge, (method) => { if (method === 'notifications/initialized') onReady() })
 */
export function watchClientNotifications(server: object, watcher: NotificationWatcher): void {
  notificationWatchers.set(server, watcher)
}

/** Hand a client notification to its server's watcher, if it has one. */
export function heardNotification(
  server: object,
  method: string,
  params: Record<string, unknown>,
  client: NotifyingClient,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): void {
  notificationWatchers.get(server)?.(method, params, client, waitUntil)
}

/**
 * Reads what a request's lists need before the request is served, in the request, for the client
 * `meta` describes (`capability`: the method's, `tools`, `resources`, `prompts` or `completions`;
 * `params`: the request's, whose `ref` says which list a completion needs). mcp-edge/sdk's
 * low-level `Server` reads a list again there while its handler throws (one that reads the
 * client, which no first read outside a request has). Undefined: nothing to wait for. What it
 * rejects with is the request's answer.
 */
export type ListReader = (capability: string, meta: RequestMeta, params: Record<string, unknown>) => Promise<void> | undefined

const listReaders = new Attached<ListReader>('mcp-edge.listReader')

/** `reader` runs before each request to `server` whose method serves a list from now on (one a server). */
export function readListsWith(server: object, reader: ListReader): void {
  listReaders.set(server, reader)
}

/** What `server`'s list reader waits for before a request of `capability`, if it has a reader. */
export function listsRead(
  server: object,
  capability: string,
  meta: RequestMeta,
  params: Record<string, unknown>,
): Promise<void> | undefined {
  return listReaders.get(server)?.(capability, meta, params)
}
