/**
 * A built server at its route, as the adapter serves it: the request straight to the core's
 * handler, or, for a browser (an Origin, a CORS preflight), through `mcp()` mounted on Hono, which
 * answers CORS. Used by `createMcpHandler` (handler.ts) and `McpAgent`'s object (agent/agent.ts).
 */
import { Hono } from 'hono/tiny'
import { createMcpHandler as createEdgeHandler } from '../http/handler.ts'
import type { McpHttpOptions } from '../http/handler.ts'
import { isLoopbackOrigin, pathStart } from '../http/guards.ts'
import { SERVER_CARD_PATH } from '../http/discovery/server-card.ts'
import { mcp } from '../http/hono.ts'
import { mcpCors } from '../http/cors.ts'
import { rejection } from '../http/respond.ts'
import { McpError } from '../protocol/errors.ts'
import { checkedFeature } from '../server/limits.ts'
import { libraryLog, warnOnce } from '../server/telemetry/log.ts'
import type { McpVariables } from '../http/hono.ts'
import { McpServer as EdgeServer } from '../server/server.ts'
import type { AnyServer, CreateMcpHandlerOptions, IgnoredHandlerOptions } from './handler-types.ts'
import { RequestHost } from './request-store.ts'
import { conventionalServices, withIsolateRelay } from './services.ts'
import { hostnameOf, originAdmitted } from './web/guards.ts'

export const edgeOf = <Env>(server: AnyServer<Env>): EdgeServer<Env> => (server instanceof EdgeServer ? server : server.edge)

/**
 * What `edge` has registered now (or, `keep: 'nothing'`, nothing), as a function that removes
 * whatever is registered after it: an `init()` that fails, or runs again for other props, leaves
 * nothing behind for its next run to trip on (agents makes a new object).
 *
 * @example
 * const rollback = rollbackPoint(edge)
 * await init().catch((error) => { rollback(); throw error })
 */
export function rollbackPoint<Env>(edge: EdgeServer<Env>, keep: 'registered' | 'nothing' = 'registered'): () => void {
  const registries: Array<[Map<string, unknown>, (key: string) => boolean]> = [
    [edge.tools, (key) => edge.removeTool(key)],
    [edge.resources, (key) => edge.removeResource(key)],
    [edge.templates, (key) => edge.removeResourceTemplate(key)],
    [edge.prompts, (key) => edge.removePrompt(key)],
  ]
  const before = registries.map(([registry]) => new Set(keep === 'registered' ? registry.keys() : []))
  return () => {
    registries.forEach(([registry, remove], i) => {
      for (const key of [...registry.keys()]) if (!before[i]?.has(key)) remove(key)
    })
  }
}

/** Why each of agents' and the SDKs' options that mcp-edge does not act on does nothing here (handler-types.ts). */
const IGNORED_OPTIONS: Record<keyof IgnoredHandlerOptions, string> = {
  transport: 'mcp-edge serves without transport objects',
  storage: 'a 2025 session is a sealed id, its state in Durable Objects (docs/migrate.md)',
  sessionIdGenerator: 'a 2025 session is a sealed id, its state in Durable Objects (docs/migrate.md)',
  onsessioninitialized: 'a 2025 session is a sealed id, its state in Durable Objects (docs/migrate.md)',
  onsessionclosed: 'a 2025 session is a sealed id, its state in Durable Objects (docs/migrate.md)',
  eventStore:
    "a session's GET stream and a listen stream resume from the event hub's log; a call's own stream is not resumed (docs/legacy-clients.md)",
  retryInterval:
    "a session's GET stream and a listen stream resume from the event hub's log; a call's own stream is not resumed (docs/legacy-clients.md)",
  enableJsonResponse: 'a call is answered with JSON unless its handler sends something before the result',
  responseMode: 'a call is answered with JSON unless its handler sends something before the result',
  enableDnsRebindingProtection: 'Origin is always checked (allowedOriginHostnames, allowedOrigins)',
  maxSubscriptions: "mcp-edge's own limits apply (docs/limits.md)",
  keepAliveMs: "mcp-edge's own limits apply (docs/limits.md)",
  maxRequestBodySize: "mcp-edge's own limits apply (docs/limits.md)",
}

/**
 * The `mcp()` options of the adapter: conventional services unless given, agents' `allowedHostnames`
 * as mcp-edge's `allowedHosts`. Browsers' origins are the adapter's to check (`browserRules`), so
 * the core allows any that reaches it. Options with nothing to act on are left out (`ignoredOptions`).
 */
export function edgeOptions<Env>(options: CreateMcpHandlerOptions<Env>): McpHttpOptions<Env> {
  const { route: _route, authContext: _props, corsOptions: _cors, principal: _principal, legacy, ...rest } = options
  const { allowedHostnames, allowedOriginHostnames: _origins, onerror: _onerror, ...own } = rest
  const edge: McpHttpOptions<Env> & Record<string, unknown> = { ...own }
  for (const key of Object.keys(IGNORED_OPTIONS)) delete edge[key]
  const allowedHosts = allowedHostnames ? [...(own.allowedHosts ?? []), ...allowedHostnames] : own.allowedHosts
  const lane = legacy === 'stateless' ? undefined : legacy
  const services = own.services ? withIsolateRelay(own.services) : (env: Env) => conventionalServices(env, false)
  return { ...edge, legacy: lane, allowedHosts, allowedOrigins: ['*'], services }
}

/**
 * Says, once per isolate, why each option given that mcp-edge does not act on does nothing here.
 * Called at a request (a handler is usually made at the module's top level, where a Worker's log
 * has no clock yet), as the "local requests only" warning is.
 *
 * @example
 * const sayIgnored = ignoredOptions(options)
 * sayIgnored() // at the first request
 */
export function ignoredOptions<Env>(options: CreateMcpHandlerOptions<Env>, by = 'createMcpHandler'): () => void {
  const given = (Object.keys(IGNORED_OPTIONS) as (keyof IgnoredHandlerOptions)[]).filter((key) => options[key] !== undefined)
  const messages = given.map((key) => `${by} option ${key} does nothing on mcp-edge: ${IGNORED_OPTIONS[key]}`)
  return () => {
    for (const message of messages) warnOnce(message)
  }
}

/** How the adapter answers a browser (a request with an Origin, a CORS preflight): agents' rules. */
export interface BrowserRules {
  /** The 403 a request whose Origin is not allowed gets, or undefined. */
  refuse(request: Request): Response | undefined
  /** A response to a browser, with `corsOptions`' headers, methods and max age added. */
  decorate(response: Response): Response
}

/** Said in the log at the first refusal of an isolate (the origin it refused beside it): the 403 names no option. */
const ORIGIN_REFUSED =
  "createMcpHandler refused a browser page's request: its origin is neither a loopback one nor allowed. Allow it " +
  "with allowedOriginHostnames: ['app.example.com'] (or '*' for any page) in createMcpHandler's or serve()'s options " +
  '(docs/migrate.md)'
let originRefusalSaid = false

const list = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : []

/**
 * An Origin passes if it is a loopback origin, listed in `allowedOrigins` (mcp-edge's, whole
 * origins), or its host name is allowed (`allowedOriginHostnames`, or by default
 * `corsOptions.origin`'s and the endpoint's own on `workers.dev`, as agents allows), or the
 * code's own SDK 2.x guard (`originValidationResponse`) admitted it for this request.
 */
export function browserRules<Env>(options: CreateMcpHandlerOptions<Env>): BrowserRules {
  const { allowedOriginHostnames, corsOptions, allowedOrigins = [] } = options
  const origin = corsOptions ? (corsOptions.origin ?? '') : ''
  const configured = /^https?:\/\//.test(origin) ? hostnameOf(origin) : undefined
  const named = allowedOriginHostnames ?? (configured ? [configured] : [])
  const allowed = (origin: string, url: string) => {
    if (allowedOriginHostnames === '*' || allowedOrigins.includes('*') || allowedOrigins.includes(origin)) return true
    if (isLoopbackOrigin(origin)) return true
    const hostname = hostnameOf(origin)
    if (hostname === undefined) return false
    const scheme = origin.slice(0, origin.indexOf(':') + 1)
    if (scheme !== 'http:' && scheme !== 'https:' && named.includes(`${scheme}//*`)) return true
    if (named.includes(hostname)) return true
    return allowedOriginHostnames === undefined && hostname.endsWith('.workers.dev') && hostname === hostnameOf(url)
  }
  const off = corsOptions === false
  const extra = corsOptions ? corsOptions : {}
  const headers = list(extra.headers)
  const methods = list(extra.methods)
  const exposed = list(extra.exposeHeaders)
  const plain = headers.length === 0 && methods.length === 0 && exposed.length === 0 && extra.maxAge === undefined
  return {
    refuse(request) {
      const origin = request.headers.get('origin')
      if (origin === null || allowed(origin, request.url) || originAdmitted(request, origin)) return undefined
      if (!originRefusalSaid) {
        originRefusalSaid = true
        libraryLog.warn(ORIGIN_REFUSED, { origin: origin.slice(0, 200) })
      }
      return rejection(new McpError('forbidden', `Forbidden: origin ${origin} is not allowed`), undefined)
    },
    decorate(response) {
      if (off) return withoutCors(response)
      if (plain || !response.headers.has('access-control-allow-origin')) return response
      const decorated = new Response(response.body, response)
      const add = (name: string, items: string[]) => {
        if (items.length === 0) return
        const present = list(decorated.headers.get(name) ?? '')
        const lower = new Set(present.map((item) => item.toLowerCase()))
        decorated.headers.set(name, [...present, ...items.filter((item) => !lower.has(item.toLowerCase()))].join(', '))
      }
      if (decorated.headers.has('access-control-allow-methods')) {
        add('access-control-allow-headers', headers)
        add('access-control-allow-methods', methods)
        if (extra.maxAge !== undefined) decorated.headers.set('access-control-max-age', String(extra.maxAge))
      } else {
        add('access-control-expose-headers', exposed)
      }
      return decorated
    },
  }
}

/** `response` without its CORS headers (`corsOptions: false`: no browser page reads it, as agents leaves it). */
function withoutCors(response: Response): Response {
  const names = [...response.headers.keys()].filter((name) => name.startsWith('access-control-'))
  if (names.length === 0) return response
  const stripped = new Response(response.body, response)
  for (const name of names) stripped.headers.delete(name)
  return stripped
}

type EdgeApp<Env> = Hono<{ Bindings: Env & object; Variables: McpVariables }>

/** A browser's CORS preflight, as `mcp()` answers one (the origin was checked before: `BrowserRules.refuse`). */
const preflights = new Hono()
preflights.options('*', mcpCors(['*']), (c) => c.body(null, 204))

/**
 * Answer a browser's CORS preflight (an allowed origin's) without the server: it carries no
 * credentials, so a factory that needs them, or an agent's object, must not be reached for it, as
 * agents answers it first too.
 */
export async function answerPreflight(request: Request, browser: BrowserRules): Promise<Response> {
  return browser.decorate(await preflights.fetch(request))
}

/** What the adapter answers itself (a rejection, a misconfiguration), with `mcp()`'s CORS headers added. */
const forBrowsers = new Hono<{ Bindings: { answer: Response } }>()
forBrowsers.all('*', mcpCors(['*']), (c) => c.env.answer)

/**
 * `answer` as a browser can read it: with the CORS headers `mcp()` gives its own answers, for a
 * request with an allowed Origin (checked before: `BrowserRules.refuse`). Without them a browser
 * client sees a network error, not the 401's challenge or the 500's fix.
 */
export async function toBrowser(request: Request, answer: Response, browser: BrowserRules): Promise<Response> {
  if (!request.headers.has('origin')) return answer
  return browser.decorate(await forBrowsers.fetch(request, { answer }))
}

/** Whether `route` serves the path of `url` (`''`: every path). */
export function servesPath(route: string, url: string): boolean {
  return route === '' || pathOf(url) === route
}

/** A Worker-style fetch handler, for a request the adapter holds as `host`. */
export interface Serving {
  fetch(request: Request, env: unknown, host: RequestHost): Promise<Response>
}

/** The path of a URL, read without parsing it (the route check runs on every request). */
function pathOf(url: string): string {
  const start = pathStart(url)
  const query = url.indexOf('?', start)
  return query < 0 ? url.slice(start) : url.slice(start, query)
}

/**
 * The body of the 404 a request to another path gets: agents' handlers serve their route only, and
 * SDK 2.x's own serves any path, so the answer names the path and what set it.
 *
 * @example
 * new Response(notServedHere('/mcp', "MyMCP.serve's path", '/'), { status: 404 })
 */
export const notServedHere = (route: string, setBy: string, asked: string) =>
  `404 Not Found: this MCP server is served at ${route} (${setBy}); it was asked at ${asked}`

/**
 * `server` at `route`, or at every path when it is empty (agents' `route: ''`; an agent's object,
 * whose Worker matched the path). The caller is the one established before (McpAgent's Worker), else the one
 * the grant's props name (an OAuth provider in front, or `authContext`), else whoever `mcp()`'s own
 * authentication finds. A request without an Origin (any non-browser client) goes straight to the
 * core's handler; a browser's (an Origin, a CORS preflight) through `mcp()`, which answers CORS.
 * Either way the core's execution context is `host`, which the handlers find again (request-store.ts).
 */
export function serving<Env>(server: EdgeServer<Env>, route: string, given: McpHttpOptions<Env>, browser: BrowserRules): Serving {
  // The SDKs log every level to a session that never sent logging/setLevel (their
  // isMessageIgnored); mcp-edge's own default is `info`.
  const legacy = given.legacy === 'reject' ? given.legacy : { logLevel: 'debug' as const, ...given.legacy }
  const options = { ...given, legacy }
  const direct = createEdgeHandler(server, options)
  // The Server Card beside the endpoint (`<route>/server-card`), public as mcp() serves it.
  const checkedCard = checkedFeature(given.serverCard, ['route'], 'serverCard', 'serverCard({ name })', 'apps.md')
  const card = checkedCard?.route(server.info)
  const cardPath = `${route}${SERVER_CARD_PATH}`
  let app: EdgeApp<Env> | undefined
  return {
    async fetch(request, env, host) {
      if (card && pathOf(request.url) === cardPath) return card(request)
      const asked = route === '' ? route : pathOf(request.url)
      if (asked !== route) return new Response(notServedHere(route, "createMcpHandler's route option", asked), { status: 404 })
      if (request.method === 'OPTIONS' || request.headers.has('origin')) {
        const refused = browser.refuse(request)
        if (refused) return refused
        app ??= mountApp(server, route, options)
        // Hono reads waitUntil and passThroughOnException of a Workers context; the host has both.
        const answered = await app.fetch(request, env as Env & object, host as unknown as ExecutionContext)
        return browser.decorate(answered)
      }
      return direct(request, env as Env, host, host.principal)
    },
  }
}

function mountApp<Env>(server: EdgeServer<Env>, path: string, options: McpHttpOptions<Env>): EdgeApp<Env> {
  const route = path === '' ? '/*' : path
  const app = new Hono<{ Bindings: Env & object; Variables: McpVariables }>()
  app.use(route, async (c, next) => {
    const host = c.executionCtx as unknown
    if (host instanceof RequestHost && host.principal) c.set('principal', host.principal)
    await next()
  })
  app.route(route, mcp(server, options))
  return app
}
