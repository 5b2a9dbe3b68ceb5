/**
 * A built server at its route, as the adapter serves it: the request straight to the core's
 * handler, or, for a browser (an Origin, a CORS preflight), through `mcp()` mounted on Hono, which
 * answers CORS. Used by `createMcpHandler` (handler.ts) and `McpAgent`'s object (agent.ts).
 */
import { Hono } from 'hono/tiny'
import { createMcpHandler as createEdgeHandler } from '../http/handler.ts'
import type { McpHttpOptions } from '../http/handler.ts'
import { pathStart } from '../http/guards.ts'
import { mcp } from '../http/hono.ts'
import type { McpVariables } from '../http/hono.ts'
import { McpServer as EdgeServer } from '../server/server.ts'
import type { CreateMcpHandlerOptions } from './handler-types.ts'
import { RequestHost } from './request-store.ts'
import type { McpServer } from './server.ts'
import { conventionalServices } from './services.ts'

export const edgeOf = <Env>(server: McpServer<Env> | EdgeServer<Env>): EdgeServer<Env> =>
  server instanceof EdgeServer ? server : server.edge

/** The `mcp()` options of the adapter: conventional services unless given, agents' origin allowed. */
export function edgeOptions<Env>(options: CreateMcpHandlerOptions<Env>): McpHttpOptions<Env> {
  const { route: _route, authContext: _props, corsOptions, principal: _principal, legacy, ...rest } = options
  const origin = corsOptions ? corsOptions.origin : undefined
  const allowedOrigins = origin && origin !== '*' ? [...(rest.allowedOrigins ?? []), origin] : rest.allowedOrigins
  const lane = legacy === 'stateless' ? undefined : legacy
  return { ...rest, legacy: lane, allowedOrigins, services: rest.services ?? ((env) => conventionalServices(env, false)) }
}

type EdgeApp<Env> = Hono<{ Bindings: Env & object; Variables: McpVariables }>

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
 * new Response(notServedHere('/mcp', "MyMCP.serve's path"), { status: 404 })
 */
export const notServedHere = (route: string, setBy: string) => `404 Not Found: this MCP server is served at ${route} (${setBy})`

/**
 * `server` at `route`. The caller is the one established before (McpAgent's Worker), else the one
 * the grant's props name (an OAuth provider in front, or `authContext`), else whoever `mcp()`'s own
 * authentication finds. A request without an Origin (any non-browser client) goes straight to the
 * core's handler; a browser's (an Origin, a CORS preflight) through `mcp()`, which answers CORS.
 * Either way the core's execution context is `host`, which the handlers find again (request-store.ts).
 */
export function serving<Env>(server: EdgeServer<Env>, route: string, given: McpHttpOptions<Env>): Serving {
  // The SDKs log every level to a session that never sent logging/setLevel (their
  // isMessageIgnored); mcp-edge's own default is `info`.
  const legacy = given.legacy === 'reject' ? given.legacy : { logLevel: 'debug' as const, ...given.legacy }
  const options = { ...given, legacy }
  const direct = createEdgeHandler(server, options)
  const notHere = notServedHere(route, "createMcpHandler's route option")
  let app: EdgeApp<Env> | undefined
  return {
    async fetch(request, env, host) {
      if (pathOf(request.url) !== route) return new Response(notHere, { status: 404 })
      if (request.method === 'OPTIONS' || request.headers.has('origin')) {
        app ??= mountApp(server, route, options)
        // Hono reads waitUntil and passThroughOnException of a Workers context; the host has both.
        return app.fetch(request, env as Env & object, host as unknown as ExecutionContext)
      }
      return direct(request, env as Env, host, host.principal)
    },
  }
}

function mountApp<Env>(server: EdgeServer<Env>, route: string, options: McpHttpOptions<Env>): EdgeApp<Env> {
  const app = new Hono<{ Bindings: Env & object; Variables: McpVariables }>()
  app.use(route, async (c, next) => {
    const host = c.executionCtx as unknown
    if (host instanceof RequestHost && host.principal) c.set('principal', host.principal)
    await next()
  })
  app.route(route, mcp(server, options))
  return app
}
