/**
 * What serving needs of a low-level `Server` (server.ts), without importing it: its lists read
 * before it is served, and how its list handlers' failures are told apart. A Worker serving an
 * `McpServer` bundles none of the low-level server's code.
 */
import { LowLevelServer } from '../low-level.ts'

/**
 * What a list handler threw, as it threw it (`cause`): user code, whose message may hold anything,
 * so a client is told only that the list handlers threw (handler.ts, agent/agent.ts).
 */
export class ListHandlerFailed extends Error {
  constructor(
    readonly method: string,
    cause: unknown,
  ) {
    super(`the ${method} handler threw: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'ListHandlerFailed'
  }
}

/**
 * `server`, once its lists are read: a low-level `Server` (a `LowLevelServer` with `prepared`, the
 * base an `McpServer`'s `server.server` is too, which has none); any other server is ready as it is.
 */
export function prepared<S>(server: S): Promise<S> | S {
  if (!(server instanceof LowLevelServer)) return server
  const preparable = server as LowLevelServer & { prepared?: () => Promise<void> }
  return typeof preparable.prepared === 'function' ? preparable.prepared().then(() => server) : server
}
