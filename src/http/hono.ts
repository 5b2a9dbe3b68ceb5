/**
 * The Hono adapter: `mcp(server, options)` is a sub-app to mount at the endpoint path. POST is
 * served; every other method gets 405 from the handler.
 *
 * @example
 * const app = new Hono<{ Bindings: Env }>()
 * app.route('/mcp', mcp(server, { allowedOrigins: ['https://app.example.com'] }))
 * export default app
 */
import { Hono } from 'hono/tiny'
import type { McpServer } from '../server/server.ts'
import { createMcpHandler } from './handler.ts'
import type { McpHttpOptions } from './handler.ts'

export function mcp<Bindings extends object>(
  server: McpServer<Bindings>,
  options: McpHttpOptions<Bindings> = {},
): Hono<{ Bindings: Bindings }> {
  const handle = createMcpHandler(server, options)
  const app = new Hono<{ Bindings: Bindings }>()
  app.all('/', (c) => handle(c.req.raw, c.env))
  return app
}
