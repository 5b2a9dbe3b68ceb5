/**
 * The Hono adapter: `mcp(server, options)` is a sub-app to mount at the endpoint path. POST is
 * served; OPTIONS is the CORS preflight (`hono/cors`); every other method gets 405 from the
 * handler. It composes with Hono middleware: a principal that middleware set on the context
 * (`c.set('principal', …)`, for example in `bearerAuth`'s `verifyToken`, or the claims `hono/jwk`
 * leaves in `jwtPayload`) is the caller, and handlers get `ctx.waitUntil` from `executionCtx`.
 *
 * @example
 * const app = new Hono<{ Bindings: Env }>()
 * app.route('/mcp', mcp(server, { allowedOrigins: ['https://app.example.com'] }))
 * export default app
 */
import { Hono } from 'hono/tiny'
import type { Context } from 'hono'
import { checkedFeature } from '../server/limits.ts'
import type { McpServer } from '../server/server.ts'
import type { Principal, UpstreamAccess } from '../server/types.ts'
import { principalFromClaims } from './auth.ts'
import { mcpCors } from './cors.ts'
import { createMcpHandler } from './handler.ts'
import type { McpHttpOptions } from './handler.ts'
import { SERVER_CARD_PATH } from './discovery/server-card.ts'

/** Context variables `mcp()` reads: set one of them in your auth middleware. */
export interface McpVariables {
  /** The caller, as your middleware established it. */
  principal?: Principal
  /** Verified JWT claims (`hono/jwt`, `hono/jwk`): `sub` and `scope` become the principal. */
  jwtPayload?: unknown
  /** The caller's identity provider, for tools calling its API as them (`ctx.upstream`). */
  upstream?: UpstreamAccess
}

function principalOf(c: Context<{ Variables: McpVariables }>): Principal | undefined {
  return c.get('principal') ?? principalFromClaims(c.get('jwtPayload'))
}

function executionContextOf(c: Context): { waitUntil(promise: Promise<unknown>): void } | undefined {
  try {
    return c.executionCtx
  } catch {
    return undefined // app.request() in tests has none
  }
}

export function mcp<Bindings, Variables extends object = McpVariables>(
  server: McpServer<Bindings>,
  options: McpHttpOptions<Bindings> = {},
): Hono<{ Bindings: Bindings & object; Variables: Variables }> {
  const handle = createMcpHandler(server, options)
  const cors = mcpCors(options.allowedOrigins)
  const serve = (c: Context) => {
    const variables = c as unknown as Context<{ Variables: McpVariables }>
    return handle(c.req.raw, c.env, executionContextOf(c), principalOf(variables), variables.get('upstream'))
  }
  // `& object`: Hono's bindings are an object; a server created without a type argument
  // (`createMcpServer({...})`, env `unknown`) mounts as it is.
  const app = new Hono<{ Bindings: Bindings & object; Variables: Variables }>()
  // The Server Card, public like any discovery document: before the endpoint's own checks.
  const serverCard = checkedFeature(options.serverCard, ['route'], 'serverCard', 'serverCard({ name })', 'apps.md')
  if (serverCard) {
    const card = serverCard.route(server.info)
    app.all(SERVER_CARD_PATH, (c) => card(c.req.raw))
  }
  // One handler, not middleware plus handler: Hono then skips composing a chain per request. A
  // request that names no Origin is no browser's, so it needs no CORS headers at all.
  const withCors = async (c: Context) => {
    const preflight = await cors(c, async () => {
      c.res = await serve(c)
    })
    return preflight ?? c.res
  }
  // Not async: the common answer is the handler's own promise, without one more around it.
  app.all('/', (c) => (c.req.method !== 'OPTIONS' && c.req.header('origin') === undefined ? serve(c) : withCors(c)))
  return app
}
