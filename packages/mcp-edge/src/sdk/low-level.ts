/**
 * The part of the SDKs' low-level `Server` (`mcpServer.server`) that tools call: questions to the
 * client from inside a handler (`elicitInput`, `createMessage`, `listRoots`), what the client
 * declared, logging and list changes. The questions are the running handler's (`extra`): outside
 * a handler there is no request to ask on, and they say so.
 */
import { isObject } from '../protocol/jsonrpc.ts'
import { Attached } from '../server/attached.ts'
import type { ListKind } from '../server/events/events.ts'
import type { LogLevel } from '../protocol/constants.ts'
import { McpError as EdgeError } from '../protocol/errors.ts'
import { ToolError } from '../server/errors.ts'
import { InputRequired } from '../server/input/input-round.ts'
import { TaskSuspended } from '../server/tasks/replay.ts'
import { ConfigurationError } from '../server/errors.ts'
import { errorFields, libraryLog, warnOnce } from '../server/telemetry/log.ts'
import type { ClientCapabilities, Implementation, JsonObject } from '../protocol/types.ts'
import type { RequestHandlerExtra, RequestOf, SdkNotification, SdkRequest } from './context.ts'
import type { CreateMessageResult, CreateMessageResultWithTools, ElicitParams, ElicitResult, ListRootsResult } from './input.ts'
import type { NotificationWatcher, RequestWatcher } from '../server/kept-requests.ts'
import { authInfoOf, isLogLevel } from './context.ts'
import { announced } from './notifier.ts'
import { currentClient, currentHandler, currentRequest, hostOf, withHandler } from './request-store.ts'
import type { Frame } from './request-store.ts'
import { refuseCompletionNotifier, refuseRequestHandler } from './unsupported.ts'

export interface LowLevelHooks {
  /**
   * What `registerCapabilities` declares: extensions, added to the server's own, and the lists
   * declared (`capabilities`), offered while empty too.
   */
  extensions(given: Record<string, JsonObject>, capabilities?: Record<string, unknown>): void
  listChanged(kind: ListKind): void
  resourceUpdated(uri: string): void
  log(params: { level: LogLevel; data: unknown; logger?: string }): Promise<void>
}

/**
 * What a handler of a request mcp-edge answers itself is called with beside the request: the
 * request's signal, id, `_meta`, the session id and the caller's `authInfo` (no `sendRequest`:
 * these requests ask the client nothing).
 */
export type KeptRequestExtra = Pick<RequestHandlerExtra, 'signal' | 'requestId' | '_meta' | 'sessionId' | 'authInfo'>

/** SDK 2.x's handler of `resources/subscribe` and `resources/unsubscribe`, as code writes it. */
export type SubscribeHandler = (
  request: { method: string; params: { uri: string; _meta?: Record<string, unknown> } },
  ctx: KeptRequestExtra,
) => unknown

/** SDK 2.x's handler of `logging/setLevel`, as code writes it. */
export type SetLevelHandler = (
  request: { method: string; params: { level: LogLevel; _meta?: Record<string, unknown> } },
  ctx: KeptRequestExtra,
) => unknown

/** The handlers code set for the requests mcp-edge answers itself (`KEPT_BY_MCP_EDGE`), by server and method. */
const keptHandlers = new Attached<Map<string, (request: unknown, extra: KeptRequestExtra) => unknown>>('mcp-edge.keptHandlers')

/**
 * What hears `server`'s kept requests for the core (server/kept-requests.ts): the handler its code
 * set for the method, called before mcp-edge keeps the subscription or level itself, so that code
 * keeping its own (a set of subscribed URIs it sends updates for) sees them as under the SDKs.
 */
export function keptRequestWatcher(server: LowLevelServer): RequestWatcher {
  return async (request, options, log) => {
    const handler = keptHandlers.get(server)?.get(request.method)
    if (!handler) return
    const params = (request.params ?? {}) as Record<string, unknown>
    // As a tool's handler finds its request (rounds.ts): the adapter's host, else McpAgent's own frame.
    const store = (options.waitUntil ? hostOf({ waitUntil: options.waitUntil }) : undefined) ?? currentRequest()
    const signal = options.cancel.signal
    const extra: KeptRequestExtra = {
      signal,
      requestId: request.id,
      _meta: params._meta as RequestHandlerExtra['_meta'],
      sessionId: store?.request.headers.get('mcp-session-id') ?? undefined,
      authInfo: authInfoOf(options.principal, store),
    }
    // In the request's frame, as a handler runs: getMcpAuthContext() and publishes' waitUntil find
    // it, and sendLoggingMessage the request's own stream.
    const frame: Frame = { store, handler: undefined, log }
    await withHandler(frame, async () => {
      try {
        await handler({ method: request.method, params }, extra)
      } catch (error) {
        reportUnexpected(server, error, signal)
        throw error
      } finally {
        // Work the handler left running (a poller it started) logs as outside any handler.
        frame.log = undefined
      }
    })
  }
}

/**
 * What hears `server`'s clients' notifications for the core (server/kept-requests.ts): a 2025-era
 * client's `notifications/initialized` calls its `oninitialized`, in the request's frame with the
 * client (an async hook is kept alive by the request's `waitUntil`).
 */
export function clientNotificationWatcher(server: LowLevelServer): NotificationWatcher {
  return (method, _params, client, waitUntil) => {
    const hook = server.oninitialized
    if (method !== 'notifications/initialized' || !hook) return
    const store = (waitUntil ? hostOf({ waitUntil }) : undefined) ?? currentRequest()
    const failed = (error: unknown) => report(server.onerror ?? handlerReporters.get(server), error)
    try {
      const returned: unknown = withHandler({ store, handler: undefined, client }, () => hook.call(server))
      if (returned instanceof Promise) waitUntil?.(returned.catch(failed))
    } catch (error) {
      failed(error)
    }
  }
}

/** An SDK request schema, as far as its method is read (`SubscribeRequestSchema.shape.method.value`). */
export type RequestSchema = { shape?: { method?: unknown } }

/**
 * The method a request schema names (or the name itself, as SDK 2.x gives it): zod 3's and classic
 * zod 4's literal say it as `value`, zod/mini's (mcp-edge/sdk's own schemas) in its definition.
 */
export function methodOf(methodOrSchema: string | RequestSchema): string | undefined {
  if (typeof methodOrSchema === 'string') return methodOrSchema
  const literal = methodOrSchema?.shape?.method as { value?: unknown; _zod?: { def?: { values?: unknown[] } } } | undefined
  const method = literal?.value ?? literal?._zod?.def?.values?.[0]
  return typeof method === 'string' ? method : undefined
}

/** The methods whose bookkeeping mcp-edge keeps itself: a handler set for them is called first (`keptRequestWatcher`). */
const KEPT_BY_MCP_EDGE = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel'])

/**
 * The requests mcp-edge answers without asking code, each with how: `initialize` (and the protocol
 * revision it negotiates) and `ping`. A handler for them is taken and never called, logged once,
 * so a server that sets one (a custom `serverInfo`, say) runs as it is.
 */
const ANSWERED_BY_MCP_EDGE = new Map([
  ['initialize', " (with the server's name, version, instructions and capabilities as it was given them)"],
  ['ping', ''],
])

/**
 * The handler running now, or an error saying where the call works (the methods are async, so it
 * rejects their promise, as the SDKs' do). Logged too (once per isolate): work a handler left
 * running after it returned (`void server.server.createMessage(...)`) rejects where nothing awaits
 * it, and agents would have sent it on the session's stream.
 */
function running(what: string): RequestHandlerExtra {
  const extra = currentHandler() as RequestHandlerExtra | undefined
  if (!extra) {
    const message = `server.${what} works inside a tool, prompt or resource handler only, while it runs (mcp-edge keeps no connection to ask on)`
    warnOnce(message)
    // A ConfigurationError: a list handler that asks can never be read (low-level/reading.ts).
    throw new ConfigurationError(message)
  }
  return extra
}

export class LowLevelServer {
  readonly #hooks: LowLevelHooks
  /**
   * An error tracker's hook (`server.server.onerror = report`): called with what a tool, resource
   * or prompt handler threw that was not meant for the client (not an `McpError`, a question or a
   * task's suspension), before it is answered (a tool's `isError` result, else -32603). The SDKs
   * call it for their transport's errors, which mcp-edge's handlers have none of.
   */
  onerror?: ((error: Error) => void) | undefined

  /**
   * Called when a 2025-era client's `notifications/initialized` arrives (once a session, in the
   * request that carries it), as the SDKs call it, with `getClientVersion()` and
   * `getClientCapabilities()` answering for that client; what it throws goes to `onerror`. A
   * 2026-07-28 client initializes nothing, so it is never called for one: code that reads the
   * client there reads it in a handler too (docs/migrate.md).
   */
  oninitialized?: (() => void | Promise<void>) | undefined

  /** Taken, and never called: the SDKs call it when their transport closes, and mcp-edge keeps none. */
  onclose?: (() => void) | undefined

  /** The SDKs' connected transport: none here (a Worker serves the server per request), so code that reads it compiles. */
  get transport(): undefined {
    return undefined
  }

  constructor(hooks: LowLevelHooks) {
    this.#hooks = hooks
  }

  /** Ask the user (form or URL): a 2026-07-28 client through a multi-round trip, a 2025 one on the call's stream. */
  async elicitInput(params: ElicitParams, options?: unknown): Promise<ElicitResult> {
    return running('elicitInput').mcpReq.elicitInput(params, options)
  }

  /** Sampling (deprecated in 2026-07-28; still served to clients that declare it). */
  createMessage(params: { tools: unknown[] } & Record<string, unknown>, options?: unknown): Promise<CreateMessageResultWithTools>
  createMessage(params: Record<string, unknown>, options?: unknown): Promise<CreateMessageResult>
  async createMessage(
    params: Record<string, unknown>,
    options?: unknown,
  ): Promise<CreateMessageResult | CreateMessageResultWithTools> {
    return running('createMessage').mcpReq.requestSampling(params, options)
  }

  /** SDK 1.x `request({ method, params }, resultSchema)`: the running handler's `sendRequest`. */
  request<S extends object>(request: SdkRequest, resultSchema: S, options?: unknown): Promise<RequestOf<S>>
  // biome-ignore lint/suspicious/noExplicitAny: without a schema, as the SDKs
  request(request: SdkRequest, resultSchema?: unknown, options?: unknown): Promise<any>
  async request(request: SdkRequest, resultSchema?: unknown, options?: unknown): Promise<unknown> {
    return running('request').sendRequest(request, resultSchema, options)
  }

  /** Nothing to close: mcp-edge serves each request on its own, with no transport to end. */
  async close(): Promise<void> {}

  /** Roots (deprecated in 2026-07-28; still served to clients that declare it). */
  async listRoots(_params?: unknown, options?: unknown): Promise<ListRootsResult> {
    return running('listRoots').sendRequest({ method: 'roots/list' }, undefined, options)
  }

  /** Refused, naming why: mcp-edge sends no `notifications/elicitation/complete` (unsupported.ts). */
  createElicitationCompletionNotifier(elicitationId: string, _options?: unknown): () => Promise<void> {
    return refuseCompletionNotifier(elicitationId)
  }

  /**
   * SDK 2.x's way to declare what `capabilities` holds beside what is registered: its `extensions`
   * are offered in `initialize` and `server/discover` from then on, and the lists it names (tools,
   * resources, prompts) are offered while empty too. The rest (logging, completions, and whether
   * lists announce changes) follows what mcp-edge serves.
   */
  registerCapabilities(capabilities: { extensions?: Record<string, JsonObject> } & Record<string, unknown>): void {
    this.#hooks.extensions(capabilities.extensions ?? {}, capabilities)
  }

  /** As SDK 1.x reads them: an empty `elicitation` declares form elicitation (`{ form: {} }`). */
  getClientCapabilities(): ClientCapabilities | undefined {
    const declared =
      (currentHandler() as RequestHandlerExtra | undefined)?.edge.meta.clientCapabilities ?? currentClient()?.capabilities
    const elicitation = declared?.elicitation
    const empty = isObject(elicitation) && Object.keys(elicitation).length === 0
    return empty ? { ...declared, elicitation: { form: {} } } : declared
  }

  getClientVersion(): Implementation | undefined {
    return (currentHandler() as RequestHandlerExtra | undefined)?.edge.meta.clientInfo ?? currentClient()?.info
  }

  /**
   * `options` (SDK 1.x's `relatedRequestId`…) is taken: a notification goes to the running handler's
   * request. Outside a handler (a timer an `McpAgent` started), what the SDKs' own `send*` methods
   * send goes where those go here: a resource update and a list change to their listeners, a log
   * message as `sendLoggingMessage`; anything else has no request to go on, and throws.
   */
  async notification(notification: SdkNotification, _options?: unknown): Promise<void> {
    if (currentHandler() === undefined) {
      if (announced(this.#hooks, notification)) return
      const params = (notification.params ?? {}) as Record<string, unknown>
      if (notification.method === 'notifications/message' && isLogLevel(params.level)) {
        const { data, logger } = params
        return this.#hooks.log({ level: params.level, data, ...(typeof logger === 'string' && { logger }) })
      }
    }
    return running('notification').sendNotification(notification)
  }

  sendLoggingMessage(params: { level: LogLevel; data: unknown; logger?: string }, _sessionId?: string): Promise<void> {
    return this.#hooks.log(params)
  }

  /** `notifications/resources/updated` to the resource's subscribers and listeners (`edge.notifyResourceUpdated`). */
  async sendResourceUpdated(params: { uri: string }): Promise<void> {
    this.#hooks.resourceUpdated(params.uri)
  }

  /**
   * `resources/subscribe`, `resources/unsubscribe` and `logging/setLevel`, which mcp-edge answers
   * and keeps itself (a 2025 session's subscriptions and level, in its session ledger), call the
   * handler first, in the isolate the request reaches, with what it says (`KeptRequestExtra`); what
   * it throws is the answer, and nothing is kept. A 2026-07-28 listen stream's resources are heard
   * as one `resources/subscribe` each, and `resources/unsubscribe` when it ends (2026-07-28
   * clients send none of these requests). `initialize` and `ping` are taken and never called
   * (`ANSWERED_BY_MCP_EDGE`); any other method is refused, naming why.
   */
  setRequestHandler(method: 'resources/subscribe' | 'resources/unsubscribe', handler: SubscribeHandler): void
  setRequestHandler(method: 'logging/setLevel', handler: SetLevelHandler): void
  setRequestHandler<S extends RequestSchema>(
    schema: S,
    handler: (request: RequestOf<S>, extra: KeptRequestExtra) => unknown,
  ): void
  setRequestHandler(methodOrSchema: string | RequestSchema, handler: unknown): void
  setRequestHandler(methodOrSchema: string | RequestSchema, handler: unknown): void {
    // SDK 2.x names the method; SDK 1.x passes the request's schema (`SubscribeRequestSchema`).
    const method = methodOf(methodOrSchema)
    const answered = method === undefined ? undefined : ANSWERED_BY_MCP_EDGE.get(method)
    if (method === undefined || (answered === undefined && !KEPT_BY_MCP_EDGE.has(method)))
      refuseRequestHandler(method ?? String(methodOrSchema))
    if (typeof handler !== 'function') throw new TypeError(`setRequestHandler(${method}): the handler must be a function`)
    if (answered !== undefined) {
      warnOnce(
        `setRequestHandler("${method}") is accepted and never called: mcp-edge answers ${method} itself${answered}; docs/migrate.md`,
      )
      return
    }
    let handlers = keptHandlers.get(this)
    if (!handlers) {
      handlers = new Map()
      keptHandlers.set(this, handlers)
    }
    handlers.set(method, handler as (request: unknown, extra: KeptRequestExtra) => unknown)
  }

  /** No handler for `method` from now on (one of the three above). */
  removeRequestHandler(method: string): void {
    keptHandlers.get(this)?.delete(method)
  }

  /**
   * Taken, and never called (logged once, naming the method): the SDKs call it for a client's
   * notification on their session object, and mcp-edge answers a client's notifications itself
   * (`notifications/initialized`, `notifications/cancelled`, which aborts the call's `signal`) and
   * keeps no session object to hand the others to (`notifications/roots/list_changed`: read the
   * roots in the handler that needs them, with `listRoots()`).
   */
  setNotificationHandler(methodOrSchema: string | RequestSchema, _handler: unknown): void {
    const method = methodOf(methodOrSchema) ?? String(methodOrSchema)
    warnOnce(
      `setNotificationHandler("${method}") is accepted and never called: mcp-edge hands no client notifications to handlers (docs/migrate.md)`,
    )
  }

  removeNotificationHandler(_method: string): void {}

  sendToolListChanged(): Promise<void> {
    this.#hooks.listChanged('tools')
    return Promise.resolve()
  }

  sendResourceListChanged(): Promise<void> {
    this.#hooks.listChanged('resources')
    return Promise.resolve()
  }

  sendPromptListChanged(): Promise<void> {
    this.#hooks.listChanged('prompts')
    return Promise.resolve()
  }
}

/** The `onerror` option of the handler serving a server, heard where the server sets no `onerror` of its own. */
const handlerReporters = new Attached<(error: Error) => void>('mcp-edge.handlerReporter')

/** `createMcpHandler`'s `onerror` hears what `server`'s handlers throw unexpectedly (unless the server has its own). */
export function reportsTo(server: LowLevelServer, onerror: (error: Error) => void): void {
  handlerReporters.set(server, onerror)
}

/** `onerror(error)`, as an Error, if there is a hook; a hook that throws (or rejects) is logged, never the response's concern. */
export function report(onerror: ((error: Error) => void) | undefined, error: unknown): void {
  if (!onerror) return
  const threw = (failure: unknown) => libraryLog.error('an onerror hook threw', errorFields(failure))
  try {
    // An async hook's rejection too: typed void, a hook may still return a promise.
    const returned: unknown = onerror(error instanceof Error ? error : new Error(String(error)))
    if (returned instanceof Promise) returned.catch(threw)
  } catch (failure) {
    threw(failure)
  }
}

/**
 * `server.onerror` (else its handler's) with what a handler threw, if it is unexpected: not an
 * error meant for the client (an `McpError`, a `ToolError`), a question or a task's suspension,
 * nor what a call the client abandoned threw.
 */
export function reportUnexpected(server: LowLevelServer, error: unknown, signal: AbortSignal): void {
  if (signal.aborted) return
  const meant =
    error instanceof EdgeError || error instanceof ToolError || error instanceof InputRequired || error instanceof TaskSuspended
  if (!meant) report(server.onerror ?? handlerReporters.get(server), error)
}
