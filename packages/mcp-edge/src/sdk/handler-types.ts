/**
 * The types of the adapter's `createMcpHandler` (handler.ts) and of what serves a built server
 * (serving.ts): agents' and SDK 2.x's option and context shapes.
 */
import type { McpHttpOptions } from '../http/handler.ts'
import type { Principal } from '../server/types.ts'
import type { ServerEventBus, ServerNotifier } from './notifier.ts'
import type { AuthInfo } from './principal.ts'
import type { McpAuthContext } from './request-store.ts'
import type { McpServer as EdgeServer } from '../server/server.ts'
import type { Server } from './low-level/server.ts'
import type { McpServer } from './server.ts'

/** What the adapter serves: an SDK-style server (`McpServer`, the low-level `Server`) or mcp-edge's own. */
export type AnyServer<Env> = McpServer<Env> | Server<Env> | EdgeServer<Env>

/**
 * agents' CORS options. `origin`: allowed besides loopback origins (its host name, as agents
 * allows it); `headers`, `methods` and `exposeHeaders` (comma-separated) are added to what MCP
 * clients need, which mcp-edge always allows; `maxAge` replaces mcp-edge's 600 s.
 */
export interface CorsOptions {
  origin?: string
  methods?: string
  headers?: string
  maxAge?: number
  exposeHeaders?: string
}

/**
 * Options of agents' and the SDKs' handlers and transports that have nothing to act on in
 * mcp-edge: accepted, so ported code compiles, and each named in a warning (once per isolate)
 * with why (`IGNORED_OPTIONS`, serving.ts).
 */
export interface IgnoredHandlerOptions {
  /** agents' SDK 1.x transport (`WorkerTransport`): mcp-edge serves without transport objects. */
  transport?: unknown
  storage?: unknown
  sessionIdGenerator?: unknown
  onsessioninitialized?: unknown
  onsessionclosed?: unknown
  eventStore?: unknown
  retryInterval?: number
  enableJsonResponse?: boolean
  enableDnsRebindingProtection?: boolean
  /** SDK 2.x: how a 2026-07-28 answer is shaped. */
  responseMode?: 'auto' | 'sse' | 'json'
  maxSubscriptions?: number
  keepAliveMs?: number
  maxRequestBodySize?: number
}

/** What a factory is given (SDK v2 `McpRequestContext`). */
export interface McpRequestContext {
  era: 'legacy' | 'modern'
  /** The caller's `AuthInfo`, when the code handed it over (`handler.fetch(request, { authInfo })`). */
  authInfo?: AuthInfo
  requestInfo?: Request
}

/** SDK 2.x `handler.fetch(request, options)`: a caller verified in front (`requireBearerAuth`). */
export interface McpHandlerRequestOptions {
  authInfo?: AuthInfo
  /** A body the code read already (a middleware's): served in place of the request's, which is used. */
  parsedBody?: unknown
}

export type McpServerFactory<Env = unknown> = (ctx: McpRequestContext) => AnyServer<Env> | Promise<AnyServer<Env>>

export interface CreateMcpHandlerOptions<Env = unknown> extends Omit<McpHttpOptions<Env>, 'legacy'>, IgnoredHandlerOptions {
  /**
   * 2025-era clients: mcp-edge's lane options, `'reject'` (none served), or agents' and SDK 2.x's
   * `'stateless'` (their default), which is mcp-edge's lane as it is.
   */
  legacy?: McpHttpOptions<Env>['legacy'] | 'stateless'
  /** The endpoint's path (default `/mcp`); other paths are 404. Empty (`''`): every path, as in agents. */
  route?: string
  /** Props for `getMcpAuthContext()`, taking precedence over an OAuth provider's in front (agents' order). */
  authContext?: McpAuthContext
  /** agents' CORS options; `origin` is allowed besides loopback origins. `false`: no CORS answers. */
  corsOptions?: CorsOptions | false
  /**
   * Who the grant's props name (an OAuth provider in front, or `authContext`). Default: the first of
   * `sub`, `userId`, `user_id`, `login`, `email`, `username`, `id`, at the top of the props or under `claims`, `user` or `account`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the props as the server types them (agents' Props), whatever their shape
  principal?: (props: any) => Principal | undefined
  /** agents: the `Host` names served (besides loopback ones); another is refused with 403. */
  allowedHostnames?: string[]
  /**
   * agents: the host names of browser origins allowed (besides loopback ones), `'*'` for any. An
   * item `<scheme>://*` allows every origin of a scheme other than http(s) (a browser
   * extension's). Default: `corsOptions.origin`'s host name, and the endpoint's own where it is
   * on `workers.dev`. Requests without an Origin (non-browser clients) pass.
   */
  allowedOriginHostnames?: string[] | '*'
  /**
   * SDK 2.x: reporting only, never the response. Hears what building the server threw (the
   * factory, or options `mcp()` refuses), and what a handler of the SDK-style servers served here
   * threw unexpectedly (as `server.server.onerror` does, where a server sets none of its own).
   */
  onerror?: (error: Error) => void
}

/**
 * What the handler takes of a Worker's (or Hono's `c.executionCtx`) execution context: `waitUntil`,
 * and the `props` an OAuth provider in front puts there.
 */
export interface HandlerContext {
  waitUntil(promise: Promise<unknown>): void
  readonly props?: unknown
}

export type McpFetchHandler = ((request: Request, env: unknown, ctx: HandlerContext) => Promise<Response>) & {
  /** A Worker's `(request, env, ctx)`, or SDK 2.x's `(request, { authInfo })`. */
  fetch(request: Request, env?: unknown, ctx?: HandlerContext): Promise<Response>
  /**
   * SDK 2.x's notifier: publishes list changes and resource updates through the served server's
   * event hub (`MCP_EVENTS`, or its `events` option), heard in every isolate (notifier.ts).
   */
  notify: ServerNotifier
  /**
   * SDK 2.x's event bus: `publish` publishes as `notify` does; `subscribe` hears what this isolate
   * publishes on it or through `notify` (notifier.ts).
   */
  bus: ServerEventBus
}
