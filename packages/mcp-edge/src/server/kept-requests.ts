/**
 * Code that hears the 2025-era requests the core answers itself (`logging/setLevel`,
 * `resources/subscribe`, `resources/unsubscribe`: methods/legacy.ts), once the core has kept what
 * they ask (so a request the session ledger refuses is never heard): mcp-edge/sdk hands them to
 * an SDK server's own handlers for them, which keep bookkeeping of their own (a set of subscribed
 * URIs that a tool sends updates for). What a watcher throws is the request's answer, and a
 * subscription is taken back (a level stays set). Internal to the package.
 */
import type { JsonRpcRequest } from '../protocol/jsonrpc.ts'
import type { HandleOptions } from './dispatch.ts'

export type RequestWatcher = (request: JsonRpcRequest, options: HandleOptions<unknown>) => Promise<void>

const watchers = new WeakMap<object, RequestWatcher>()

/**
 * `watcher` hears `server`'s kept requests from now on (one watcher a server).
 *
 * @example
 * watchKeptRequests(server.edge, async (request) => handlers.get(request.method)?.(request))
 */
export function watchKeptRequests(server: object, watcher: RequestWatcher): void {
  watchers.set(server, watcher)
}

/** Hand `request` to `server`'s watcher, if it has one. */
export function heard(server: object, request: JsonRpcRequest, options: HandleOptions<unknown>): Promise<void> | undefined {
  return watchers.get(server)?.(request, options)
}
