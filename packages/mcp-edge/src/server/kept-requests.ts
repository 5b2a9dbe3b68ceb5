/**
 * Code that hears the 2025-era requests the core answers itself (`logging/setLevel`,
 * `resources/subscribe`, `resources/unsubscribe`: methods/legacy.ts) before the core keeps what
 * they ask: mcp-edge/sdk hands them to an SDK server's own handlers for them, which keep
 * bookkeeping of their own (a set of subscribed URIs that a tool sends updates for) or refuse
 * some. What a watcher throws is the request's answer, and nothing is kept; a subscription the
 * session ledger refuses after it (past its cap) the watcher has seen, and is delivered nothing.
 * Internal to the package.
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
      await watcher(as('resources/subscribe', uri), options)
      taken.push(uri)
    } catch {
      // Refused by the server's handler: not honoured (the acknowledgement leaves it out).
    }
  }
  const release = async () => {
    for (const uri of taken) await watcher(as('resources/unsubscribe', uri), options).catch(() => {})
  }
  return { uris: taken, release }
}
