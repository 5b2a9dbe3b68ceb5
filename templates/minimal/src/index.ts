/**
 * An MCP server on Cloudflare Workers, built with mcp-edge. One endpoint, /mcp, serves clients of
 * MCP 2026-07-28 and of the 2025 revisions (`initialize`) alike, with no state between requests.
 *
 * Make it yours: give the server its title and icon, then replace `add` with your own tools (README.md).
 *
 * Authentication: with the MCP_BEARER_TOKEN secret set, a request needs
 * `Authorization: Bearer <token>`. Without it the server fails closed: it answers local requests
 * only (`npm run dev`), and anyone else gets 401 saying how to configure it.
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono/tiny'
import { bearerToken, createMcpServer, mcp, otlpFromEnv } from 'mcp-edge'
import { workersTracing } from 'mcp-edge/cloudflare'
import * as z from 'zod/mini'

/** The server's icon: an orange tile with a white peak, as an SVG data: URL. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCA0OCA0OCI+PHJlY3Qgd2lkdGg9IjQ4IiBoZWlnaHQ9IjQ4IiByeD0iMTAiIGZpbGw9IiNmNjgyMWYiLz48cGF0aCBkPSJNMTMgMzUgMjQgMTNsMTEgMjJ6IiBmaWxsPSIjZmZmIi8+PC9zdmc+'

export const server = createMcpServer({
  name: 'mcp-edge-minimal',
  version: '0.1.0',
  // How clients show the server: make these yours (an icon is an https: or data: URL).
  title: 'mcp-edge minimal',
  description: 'An MCP server on Cloudflare Workers, built with mcp-edge: one tool, no Durable Objects',
  websiteUrl: 'https://github.com/mcp-edge/mcp-edge',
  icons: [{ src: ICON, mimeType: 'image/svg+xml', sizes: ['any'] }],
  // One JSON log line per message; MCP spans among the platform's in Workers traces (and in
  // `npm run spans` locally); traces and metrics over OTLP once OTEL_EXPORTER_OTLP_ENDPOINT is set.
  telemetry: { tracer: otlpFromEnv, native: workersTracing() },
})

server.tool(
  'add',
  {
    description: 'Add two numbers',
    input: z.object({ a: z.number(), b: z.number() }),
    annotations: { readOnlyHint: true },
  },
  ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

const app = new Hono<{ Bindings: Env }>()
app.route('/mcp', mcp(server, { authenticate: bearerToken(env.MCP_BEARER_TOKEN) }))

export default app
