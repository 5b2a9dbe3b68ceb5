/**
 * `createMcpHandler` with the signatures of agents' `agents/mcp` (an SDK 1.x server) and
 * `agents/mcp/server` (an SDK v2 factory): a Worker fetch handler for the endpoint at `route`,
 * serving both eras through `mcp()`. Options are mcp-edge's (`authenticate`, `resourceServer`,
 * `services`…) plus agents' `route`, `authContext` and `corsOptions`.
 *
 * A factory without parameters that reads neither its context nor `getMcpAuthContext()` is called
 * once per isolate; any other is called per request, as the SDK does, with the era the request's
 * `MCP-Protocol-Version` names, the request itself and the caller's `authInfo` (the one the code
 * handed over with `handler.fetch(request, { authInfo })`, or the grant of an OAuth provider in
 * front; none for a caller mcp-edge authenticates, known only after the server is built). A factory
 * without parameters that reads `getMcpAuthContext()` is called per request too.
 */
import { waitUntil, WorkerEntrypoint, env as workerEnv } from 'cloudflare:workers'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import { rejection } from '../http/respond.ts'
import { Attached } from '../server/attached.ts'
import { ConfigurationError } from '../server/errors.ts'
import type { Principal } from '../server/types.ts'
import { errorFields, libraryLog } from '../server/telemetry/log.ts'
import { authInfoOf } from './context.ts'
import type {
  AnyServer,
  CreateMcpHandlerOptions,
  HandlerContext,
  McpFetchHandler,
  McpHandlerRequestOptions,
  McpRequestContext,
  McpServerFactory,
} from './handler-types.ts'
import { factoryBuilt, notifierOf, withBus } from './notifier.ts'
import type { ServerEventBus, ServerNotifier } from './notifier.ts'
import { callerFromProps, fromAuthInfo, grantOf, propsOf } from './principal.ts'
import type { AuthInfo } from './principal.ts'
import { authContextReads, currentRequest, RequestHost, withBuilding } from './request-store.ts'
import type { McpAuthContext } from './request-store.ts'
import { McpServer } from './server.ts'
import { answerPreflight, browserRules, edgeOf, edgeOptions, ignoredOptions, serving, servesPath, toBrowser } from './serving.ts'
import { LowLevelServer, report, reportsTo } from './low-level.ts'
import { prepared } from './low-level/prepare.ts'
import type { Serving } from './serving.ts'
import { conventionalEvents } from './services.ts'

/** Handlers built before, by server or factory: SDK code often calls createMcpHandler per request. */
const built = new Attached<{
  options: Record<string, unknown>
  handle: Handle
  events: HandlerEvents
  handler?: McpFetchHandler
}>('mcp-edge.builtHandler')

type Handle = (
  request: Request,
  env: unknown,
  ctx: HandlerContext | undefined,
  authContext: McpAuthContext | undefined,
  authInfo?: AuthInfo,
) => Promise<Response>

/** SDK 2.x's second argument, told from a Worker's env: no context, and only the SDK's keys. */
function isRequestOptions(value: unknown, ctx: unknown): value is McpHandlerRequestOptions {
  if (ctx !== undefined || typeof value !== 'object' || value === null) return false
  const keys = Object.keys(value)
  return keys.length > 0 && keys.every((key) => key === 'authInfo' || key === 'parsedBody')
}

/**
 * Whether two option values are the same: the same value, or JSON data alike (strings, numbers,
 * booleans, null, and arrays and plain objects of those, such as `corsOptions` or
 * `allowedHostnames` written inline per request). Anything holding a function or another kind of
 * object (a resource server's `authenticate`, a `services` function) is the same only if it is
 * the same object: two resource servers built per request for two hosts are two.
 */
function sameValue(x: unknown, y: unknown): boolean {
  if (x === y) return true
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false
  if (Array.isArray(x)) return Array.isArray(y) && x.length === y.length && x.every((item, i) => sameValue(item, y[i]))
  const plain = (value: object) => Object.getPrototypeOf(value) === Object.prototype
  return !Array.isArray(y) && plain(x) && plain(y) && sameOptions(x as Record<string, unknown>, y as Record<string, unknown>)
}

/** Two option objects with the same keys and the same values by `sameValue`. */
function sameOptions(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = Object.keys(a)
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key], b[key]))
}

/**
 * @example
 * const server = new McpServer({ name: 'demo', version: '1.0.0' })
 * export default { fetch: createMcpHandler(server) }
 */
export function createMcpHandler<Env = unknown>(
  // `any`: SDK code builds its server without an Env type (`new McpServer({...})`), while the
  // options may name one (a `services` function of the Worker's env).
  // biome-ignore lint/suspicious/noExplicitAny: see above
  serverOrFactory: AnyServer<any> | McpServerFactory<any>,
  options: CreateMcpHandlerOptions<Env> = {},
): McpFetchHandler {
  // Built once per server (or factory) and options, `authContext` aside (agents' examples give
  // it per request): the same call per request reuses the handler, so its caches (services,
  // sealed sessions, the 2025 lane) live as long as the isolate.
  const { authContext, ...rest } = options
  let cached = built.get(serverOrFactory)
  if (!cached || !sameOptions(cached.options, rest)) {
    const handle = buildHandler(serverOrFactory, rest as CreateMcpHandlerOptions<Env>)
    const served = typeof serverOrFactory === 'function' ? serverOrFactory : edgeOf(serverOrFactory)
    cached = { options: rest, handle, events: cached?.events ?? withBus(notifierOf(served, conventionalEvents)) }
    built.set(serverOrFactory, cached)
  }
  // Without `authContext`, the handler itself is made once too (code that calls this per request
  // makes no function per request).
  if (authContext === undefined) {
    cached.handler ??= handlerOf(cached.handle, cached.events, undefined)
    return cached.handler
  }
  return handlerOf(cached.handle, cached.events, authContext)
}

/** `handler.notify` and `handler.bus` (notifier.ts). */
type HandlerEvents = { notify: ServerNotifier; bus: ServerEventBus }

function handlerOf(serve: Handle, events: HandlerEvents, authContext: McpAuthContext | undefined): McpFetchHandler {
  // SDK 2.x code hands its handler the request alone (`handler.fetch(request)`): the Worker's env,
  // where MCP_STATE_KEYS and the Durable Object bindings are, is then the module-level one.
  const fetch = (request: Request, env?: unknown, ctx?: HandlerContext) =>
    isRequestOptions(env, ctx)
      ? serve(withBody(request, env.parsedBody), workerEnv, RUNTIME_CONTEXT, authContext, env.authInfo)
      : serve(request, env ?? workerEnv, ctx ?? RUNTIME_CONTEXT, authContext)
  return asEntrypoint(fetch, events)
}

/**
 * The handler in every form code uses it: a function (agents: `{ fetch: createMcpHandler(server) }`,
 * or called), with `fetch` and `notify` (SDK 2.x: `handler.fetch(request)`), that is also a Worker's
 * default export as SDK 2.x code writes it (`export default createMcpHandler(factory)`). The runtime
 * takes a function there for an entrypoint class, so it is one: constructed, it is a
 * `WorkerEntrypoint` whose `fetch` serves. (An arrow function there failed the Worker's start.)
 */
function asEntrypoint(fetch: McpFetchHandler['fetch'], events: HandlerEvents): McpFetchHandler {
  function McpHandler(this: unknown, first: Request | ExecutionContext, env: unknown, ctx: HandlerContext) {
    if (new.target) return Reflect.construct(WorkerEntrypoint, [first, env], new.target)
    return fetch(first as Request, env, ctx)
  }
  Object.setPrototypeOf(McpHandler, WorkerEntrypoint)
  McpHandler.prototype = Object.create(WorkerEntrypoint.prototype, {
    constructor: { value: McpHandler, writable: true, configurable: true },
    fetch: {
      value(this: { env: unknown; ctx: HandlerContext }, request: Request) {
        return fetch(request, this.env, this.ctx)
      },
      writable: true,
      configurable: true,
    },
  })
  return Object.assign(McpHandler, { fetch, notify: events.notify, bus: events.bus }) as unknown as McpFetchHandler
}

/**
 * The request with the body SDK 2.x code parsed already (`parsedBody`), used in place of its own
 * as the SDK does (a middleware may have read it); its signal kept.
 */
function withBody(request: Request, parsedBody: unknown): Request {
  if (parsedBody === undefined) return request
  const { method, headers, signal } = request
  return new Request(request.url, { method, headers, signal, body: JSON.stringify(parsedBody) })
}

/**
 * A build that threw: a JSON-RPC 500 (-32603) rather than the runtime's error page, which no MCP
 * client reads; logged. A factory's own error may hold anything, so the client is told only that
 * it threw, unless it is a `ConfigurationError` (which names the fix and holds no secret, as the
 * core answers one: http/handler.ts).
 * Another server's build runs mcp-edge's code alone, whose refusal of the options names the fix.
 */
function buildFailed(error: unknown, userCode: string | undefined): Response {
  libraryLog.error('createMcpHandler could not build the server', errorFields(error))
  const own = error instanceof ConfigurationError || userCode === undefined
  const detail = own ? String(error instanceof Error ? error.message : error) : `${userCode} threw; see the server logs`
  return rejection(new McpError('misconfigured', `Server misconfigured: ${detail}`), undefined)
}

/** Whose code a failed build of `served` ran, if user code (a factory): what it threw is for the log only. */
function userCodeOf(served: unknown): string | undefined {
  return typeof served === 'function' ? 'the server factory given to createMcpHandler' : undefined
}

/** SDK 2.x code passes no execution context: the runtime's own `waitUntil` keeps publishes and spans alive. */
const RUNTIME_CONTEXT: HandlerContext = { waitUntil: (promise) => waitUntil(promise) }

function buildHandler<Env>(
  // biome-ignore lint/suspicious/noExplicitAny: as createMcpHandler's
  serverOrFactory: AnyServer<any> | McpServerFactory<any>,
  options: CreateMcpHandlerOptions<Env>,
): Handle {
  const route = options.route ?? '/mcp'
  const mounted = edgeOptions(options)
  const browser = browserRules(options)
  const sayIgnored = ignoredOptions(options)
  const appOf = (server: AnyServer<Env>) => {
    if (options.onerror && server instanceof McpServer) reportsTo(server.server, options.onerror)
    // The low-level `Server` is one (importing it here would bundle it into every Worker).
    if (options.onerror && server instanceof LowLevelServer) reportsTo(server, options.onerror)
    const edge = edgeOf(server)
    if (typeof serverOrFactory === 'function') factoryBuilt(serverOrFactory, edge)
    return serving(edge, route, mounted, browser)
  }
  // The era is the request's own header's (a 2026-07-28 client names its revision on every request).
  const eraOf = (request: Request): 'legacy' | 'modern' =>
    (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(request.headers.get('mcp-protocol-version') ?? '')
      ? 'modern'
      : 'legacy'
  // A factory runs as part of the request it is built for, so it may read getMcpAuthContext() as
  // under agents (which builds it in the same async context), and is given the caller's authInfo.
  // Whether it read either is noted: a server built from them is that caller's own. Read later (a
  // tool of a server kept for the isolate, whose factory took its context without naming it, as
  // `(ctx = {}) =>` does), the context is the request being served then, never the build's; read
  // outside any request, it names no caller.
  let personal = false
  const contextFor = (host: RequestHost): McpRequestContext => ({
    get era() {
      personal = true
      return eraOf((currentRequest() ?? host).request)
    },
    get requestInfo() {
      personal = true
      return currentRequest()?.request
    },
    get authInfo() {
      personal = true
      const store = currentRequest()
      return store && authInfoOf(store.principal, store)
    },
  })
  const factory = typeof serverOrFactory === 'function' ? serverOrFactory : undefined
  const make = (host: RequestHost) =>
    factory
      ? Promise.resolve(withBuilding(host, () => factory(contextFor(host))))
          .then(prepared)
          .then(appOf)
      : Promise.resolve(prepared(serverOrFactory as AnyServer<Env>)).then(appOf)
  // What a build throws (the factory, or the options) is `onerror`'s to hear, once per attempt:
  // the requests waiting on a shared build are answered from the same failure.
  const build = (host: RequestHost): Promise<Serving> =>
    new Promise<Serving>((resolve) => resolve(make(host))).catch((error: unknown) => {
      report(options.onerror, error)
      throw error
    })
  // A server, or a factory that reads nothing of its request: one app per isolate (a failed build
  // is tried again). A factory that names a parameter, or read its context or the caller's props
  // (getMcpAuthContext) while building, builds per request, as the SDK does.
  let perRequest = factory !== undefined && factory.length > 0
  let shared: Promise<Serving> | undefined
  let ready: Serving | undefined
  const appFor = (host: RequestHost): Promise<Serving> => {
    if (perRequest) return build(host)
    // Others waiting for the first build take its app only if it is not that caller's own.
    if (shared) return shared.then((app) => (perRequest ? build(host) : app))
    // A call during the build from anything else (another request's tool) only costs the cache.
    const reads = authContextReads()
    shared = build(host).then(
      (app) => {
        if (factory && (personal || authContextReads() !== reads)) perRequest = true
        else ready = app
        return app
      },
      (error: unknown) => {
        shared = undefined
        throw error
      },
    )
    return shared
  }
  // Without a services option the adapter binds MCP_STATE_KEYS by its name, and can say it is missing.
  const conventional = options.services === undefined
  const hostFor = (
    request: Request,
    env: unknown,
    ctx: HandlerContext | undefined,
    authContext: McpAuthContext | undefined,
    authInfo: AuthInfo | undefined,
  ) => {
    // agents' order: the props given as authContext, else the OAuth provider's (with what it says
    // of the token, ctx.auth), or those of the authInfo SDK 2.x code handed over.
    const given = authInfo ? fromAuthInfo(authInfo) : undefined
    const props = propsOf(authContext) ?? given?.props ?? propsOf(ctx)
    const grant = given?.grant ?? grantOf(ctx)
    let principal: Principal | undefined
    try {
      principal = callerFromProps(props, grant, options, 'createMcpHandler', 'createMcpHandler()')
    } catch (error) {
      // Said at the route only: another path is 404, and a preflight carries no caller.
      if (request.method !== 'OPTIONS' && servesPath(route, request.url)) {
        const refused = browser.refuse(request)
        if (refused) return Promise.resolve(refused)
        return toBrowser(request, rejection(error as McpError, undefined), browser)
      }
    }
    // Most requests carry neither: no object made for them.
    const credentials = grant || authInfo ? { grant, authInfo } : undefined
    return new RequestHost(request, props, principal, ctx, env, conventional, credentials)
  }
  const first: Handle = async (request, env, ctx, authContext, authInfo) => {
    // A foreign page's request is refused before a factory runs for it (as agents checks first).
    const refused = browser.refuse(request)
    if (refused) return refused
    // Nor for a preflight, which carries no credentials: a factory may need them (agents answers it first too).
    if (factory && request.method === 'OPTIONS' && servesPath(route, request.url)) return answerPreflight(request, browser)
    sayIgnored()
    const host = hostFor(request, env, ctx, authContext, authInfo)
    if (!(host instanceof RequestHost)) return host
    let app: Serving
    try {
      app = await appFor(host)
    } catch (error) {
      return toBrowser(request, buildFailed(error, userCodeOf(serverOrFactory)), browser)
    }
    return app.fetch(request, env, host)
  }
  // Not an async function once the app is ready (one promise less a call), but as one to its caller.
  return (request, env, ctx, authContext, authInfo) => {
    if (!ready) return first(request, env, ctx, authContext, authInfo)
    try {
      const host = hostFor(request, env, ctx, authContext, authInfo)
      return host instanceof RequestHost ? ready.fetch(request, env, host) : host
    } catch (error) {
      return Promise.reject(error)
    }
  }
}
