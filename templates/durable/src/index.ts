/**
 * An MCP server on Cloudflare Workers with what mcp-edge adds beyond plain tools (src/tools.ts): a
 * confirmation before a destructive act (multi-round-trip, sealed state), a tool that streams
 * partial results, a long task built from steps that survive restarts (a Durable Object per
 * task), and notes whose changes reach listening clients on every isolate (an event hub Durable
 * Object). One endpoint, /mcp, serves MCP 2026-07-28 clients and 2025-era ones alike.
 *
 * Secrets (README.md): MCP_STATE_KEYS seals multi-round-trip state and 2025 session ids (`npm
 * create` wrote a development key into .dev.vars; without one, each request says how to set it).
 * MCP_BEARER_TOKEN: with it a request needs `Authorization: Bearer <token>`; without it the
 * server fails closed and answers local requests only.
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono/tiny'
import { bearerToken, createMcpServer, mcp, otlpFromEnv } from 'mcp-edge'
import {
  cloudflareEventHub,
  cloudflareServices,
  createTaskObjectClass,
  sharedHubSockets,
  workersTracing,
} from 'mcp-edge/cloudflare'
import { addNote, deleteRecord, generateReport, writeStory } from './tools'

/** The server's icon: an orange tile with a white peak, as an SVG data: URL. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCA0OCA0OCI+PHJlY3Qgd2lkdGg9IjQ4IiBoZWlnaHQ9IjQ4IiByeD0iMTAiIGZpbGw9IiNmNjgyMWYiLz48cGF0aCBkPSJNMTMgMzUgMjQgMTNsMTEgMjJ6IiBmaWxsPSIjZmZmIi8+PC9zdmc+'

export const server = createMcpServer<Env>({
  name: 'mcp-edge-durable',
  version: '0.1.0',
  // How clients show the server: make these yours (an icon is an https: or data: URL).
  title: 'mcp-edge durable',
  description: 'An MCP server on Cloudflare Workers: a confirmation, a streaming tool, a durable task, shared notes',
  websiteUrl: 'https://github.com/mcp-edge/mcp-edge',
  icons: [{ src: ICON, mimeType: 'image/svg+xml', sizes: ['any'] }],
  // Notifications (list changes, resource updates) reach listeners on every isolate through McpEventHub;
  // an isolate's streams with the same caller and subscription share one socket to it (about a
  // third less CPU a delivery; drop `shareSockets` for a socket per stream).
  events: cloudflareEventHub({ binding: 'MCP_EVENTS', shareSockets: sharedHubSockets }),
  // One JSON log line per message; MCP spans among the platform's in Workers traces (and in
  // `npm run spans` locally); traces and metrics over OTLP once OTEL_EXPORTER_OTLP_ENDPOINT is set.
  telemetry: { tracer: otlpFromEnv, native: workersTracing() },
})

addNote(server) // first: a plain tool any client can call
deleteRecord(server)
writeStory(server)
generateReport(server)

// The Durable Object classes wrangler.jsonc binds: tasks (running this server's tools), single-use
// confirmations, 2025-era sessions and clients' answers, the event hub, and the notes. Named one by
// one (not `createDurableObjects(server)`, which returns every class), so the Worker carries only these.
export const McpTaskObject = createTaskObjectClass(server)
export { McpEventHub, McpInputRelay, McpNonceLedger, McpSessionLedger } from 'mcp-edge/cloudflare'
export { NotesStore } from './notes'

const app = new Hono<{ Bindings: Env }>()
app.route(
  '/mcp',
  mcp(server, {
    authenticate: bearerToken(env.MCP_BEARER_TOKEN),
    services: cloudflareServices({
      stateKeys: 'MCP_STATE_KEYS',
      tasks: 'MCP_TASKS',
      nonces: 'MCP_NONCES',
      inputRelay: 'MCP_INPUT_RELAY',
      sessions: 'MCP_SESSIONS',
    }),
  }),
)

export default app
