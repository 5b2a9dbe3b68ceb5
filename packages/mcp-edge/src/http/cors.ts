/**
 * CORS for browser MCP clients, through `hono/cors`: a preflight from an allowed origin (a
 * loopback origin or one in `allowedOrigins`, the same rule as the POST's Origin check) may send
 * the MCP headers, the dynamic `Mcp-Param-*` ones and `Authorization`, and may read what clients
 * read (`WWW-Authenticate` for the OAuth challenges, the protocol and session headers). The
 * Origin check on the POST itself still refuses foreign origins with 403; this only answers the
 * browser's question.
 */
import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { isLoopbackOrigin } from './guards.ts'

/** Request headers an MCP client sends (besides `Mcp-Param-*`, which are allowed by pattern). */
export const MCP_REQUEST_HEADERS = [
  'Content-Type',
  'Accept',
  'Authorization',
  'MCP-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Mcp-Session-Id',
  'Last-Event-ID',
] as const

/** Response headers a browser client may read. */
export const MCP_EXPOSED_HEADERS = ['WWW-Authenticate', 'MCP-Protocol-Version', 'Mcp-Session-Id', 'Retry-After'] as const

const PARAM_HEADER = /^mcp-param-[a-z0-9-]{1,64}$/i

/**
 * @example
 * app.use('/mcp/*', mcpCors(['https://app.example.com']))
 */
export function mcpCors(allowedOrigins: readonly string[] = []): MiddlewareHandler {
  const any = allowedOrigins.includes('*')
  const base = {
    origin: (origin: string) => (any || isLoopbackOrigin(origin) || allowedOrigins.includes(origin) ? origin : null),
    allowMethods: ['POST', 'GET', 'DELETE', 'OPTIONS'],
    exposeHeaders: [...MCP_EXPOSED_HEADERS],
    maxAge: 600,
  }
  // Built at the first request that names an Origin (or a preflight), not at start-up: a server
  // that only API clients call (no Origin) never builds it.
  let built: MiddlewareHandler | undefined
  const plain: MiddlewareHandler = (c, next) => {
    built ??= cors({ ...base, allowHeaders: [...MCP_REQUEST_HEADERS] })
    return built(c, next)
  }
  return (c, next) => {
    if (c.req.method !== 'OPTIONS') {
      // CORS answers a browser, which always names its Origin: without one there is nothing to add.
      return c.req.header('origin') === undefined ? next() : plain(c, next)
    }
    // Mcp-Param-* names depend on the tool; allow exactly the well-formed ones asked for.
    const asked = (c.req.header('access-control-request-headers') ?? '').split(',').map((name) => name.trim())
    const params = asked.filter((name) => PARAM_HEADER.test(name))
    if (params.length === 0) return plain(c, next)
    return cors({ ...base, allowHeaders: [...MCP_REQUEST_HEADERS, ...params] })(c, next)
  }
}
