/**
 * The mcp-edge demo Worker (the playground's server, and the one the repository's tests drive).
 * To start your own server, use a template (`npm create mcp-edge`) instead. A Hono app with one MCP endpoint at
 * /mcp and example tools for each thing mcp-edge adds: a plain tool with structured output, a
 * tool that asks for confirmation before acting (multi-round-trip, sealed requestState), a tool
 * that streams partial results, a long-running tool that becomes a task built from resumable
 * steps and streams into the task's log, a task that asks the user mid-task, and a shared notes
 * resource whose subscribers hear every change, in every isolate (through the event hub Durable
 * Object). The endpoint serves 2026-07-28 clients and, on the same URL, 2025-era clients
 * (`initialize`); the same handlers serve both (a 2025 client's confirmation arrives through its
 * elicitation handler).
 *
 * The tools it shares with the durable template (add_note, delete_record, write_story,
 * generate_report) are the template's own (templates/durable/src/tools.ts), and so is write_story's
 * view (MCP Apps), which the playground renders (playground/build.mjs builds it into the assets).
 *
 * Configuration (see README): MCP_STATE_KEYS (secret, required; .dev.vars has a dev key; without
 * it each request says how to set it), MCP_BEARER_TOKEN (secret: when set, requests need
 * `Authorization: Bearer <token>`; without it the server fails closed and serves local requests
 * only). `src/worker-oauth.ts` serves the same tools behind its own OAuth authorization server
 * (`npm run dev:oauth`).
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono/tiny'
import * as z from 'zod/mini'
import {
  cloudflareEventHub,
  cloudflareResults,
  cloudflareServices,
  createDurableObjects,
  sharedHubSockets,
  workersTracing,
} from 'mcp-edge/cloudflare'
import { bearerToken, createMcpServer, input, mcp, otlpFromEnv, resultBudgets } from 'mcp-edge'
import type { NotesEnv } from '../../../templates/durable/src/notes.ts'
import { addNote, deleteRecord, generateReport, sleep, writeStory } from '../../../templates/durable/src/tools.ts'
import type { ViewsEnv } from '../../../templates/durable/src/tools.ts'
import { largeReport } from './large-report.ts'
import { playground } from './playground-gate.ts'

/**
 * Secrets this Worker reads that may be unset. Every binding and var is generated from
 * wrangler.jsonc into worker-configuration.d.ts (`npm run types`); a config cannot declare an
 * optional secret, so these are the only env entries typed by hand.
 */
interface OptionalSecrets {
  /** When set, requests need `Authorization: Bearer <token>`. */
  MCP_BEARER_TOKEN?: string
  /** Optional caps per caller and isolate (defaults 1,000 and 100). */
  MCP_MAX_LISTEN_STREAMS?: string
  MCP_MAX_LIVE_TASKS?: string
  /** How long a stored result can be read, in ms (default 1 hour; the tests shorten it). */
  MCP_RESULT_TTL_MS?: string
}
declare global {
  interface Env extends OptionalSecrets {}
  namespace Cloudflare {
    interface Env extends OptionalSecrets {}
  }
}

const cap = (value: string | undefined) => (value ? Number(value) : undefined)

/** The server's icon: an orange tile with a white peak, as an SVG data: URL. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCA0OCA0OCI+PHJlY3Qgd2lkdGg9IjQ4IiBoZWlnaHQ9IjQ4IiByeD0iMTAiIGZpbGw9IiNmNjgyMWYiLz48cGF0aCBkPSJNMTMgMzUgMjQgMTNsMTEgMjJ6IiBmaWxsPSIjZmZmIi8+PC9zdmc+'

// Typed by what its tools read, so the other Workers built on it (the OAuth mode, the JWT
// fixture) can serve it with their own Env; each of them binds NOTES too (and ASSETS, where
// write_story's view is read from, except the JWT fixture, whose tests do not read it).
export const server = createMcpServer<NotesEnv & ViewsEnv>({
  name: 'mcp-edge-template',
  version: '0.1.0',
  title: 'mcp-edge demo',
  websiteUrl: 'https://github.com/mcp-edge/mcp-edge',
  icons: [{ src: ICON, mimeType: 'image/svg+xml', sizes: ['any'] }],
  // What a client shows its model about this server as a whole; tools/list describes each tool.
  instructions: 'One example tool for each thing mcp-edge adds.',
  limits: { listenStreams: cap(env.MCP_MAX_LISTEN_STREAMS), liveTasks: cap(env.MCP_MAX_LIVE_TASKS) },
  // List changes and resource updates reach listen streams in every isolate through McpEventHub,
  // an isolate's streams with the same caller and subscription on one socket, as the durable template.
  events: cloudflareEventHub({ binding: 'MCP_EVENTS', shareSockets: sharedHubSockets }),
  // A log line per message; traces and metrics over OTLP once OTEL_EXPORTER_OTLP_ENDPOINT is set.
  telemetry: { tracer: otlpFromEnv, native: workersTracing() },
  // Results over 64 KiB are stored in McpResultStore objects and answered with a preview and a
  // link (docs/results.md); in the Workers built on this server that do not bind MCP_RESULTS
  // (the bench's), results pass whole.
  results:
    'MCP_RESULTS' in env
      ? resultBudgets({ store: cloudflareResults({ binding: 'MCP_RESULTS' }), ttlMs: cap(env.MCP_RESULT_TTL_MS) })
      : undefined,
})

server.tool(
  'add',
  { description: 'Add two numbers', input: z.object({ a: z.number(), b: z.number() }), annotations: { readOnlyHint: true } },
  ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

server.tool(
  'get_weather',
  {
    description: 'Current weather for a city (made up, deterministic)',
    input: z.object({ city: z.string().check(z.minLength(1)) }),
    output: z.object({ city: z.string(), tempC: z.number(), conditions: z.string() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  ({ city }) => {
    const seed = [...city].reduce((sum, char) => sum + char.charCodeAt(0), 0)
    const weather = { city, tempC: (seed % 35) - 5, conditions: ['sunny', 'cloudy', 'rainy', 'windy'][seed % 4] as string }
    return {
      content: [{ type: 'text', text: `${weather.conditions}, ${weather.tempC} °C in ${city}` }],
      structuredContent: weather,
    }
  },
)

deleteRecord(server)

writeStory(server)

generateReport(server)

// A task that asks the user mid-task: it drafts an outline (a step), asks for approval (the task
// waits in input_required; the answer is stored by tasks/update, so it survives restarts), then
// writes the article (a second step). The outline is never drafted twice.
server.tool(
  'draft_article',
  {
    description: 'Draft an article: outline, your approval, then the text (a task; asks for approval mid-task)',
    input: z.object({ topic: z.string().check(z.minLength(1)) }),
    task: 'always',
    requires: ['elicitation.form'],
  },
  async ({ topic }, ctx) => {
    const outline = await ctx.step('outline', async () => {
      await sleep(200, ctx.signal)
      return [`Why ${topic} matters`, `How ${topic} works`, `What to do next`]
    })
    const { approval } = await ctx.ask({
      approval: input.form(
        `Write the article on this outline?\n${outline.map((title, i) => `${i + 1}. ${title}`).join('\n')}`,
        z.object({ approve: z.boolean(), note: z.optional(z.string()) }),
      ),
    })
    if (approval.action !== 'accept' || !approval.content.approve) {
      return { content: [{ type: 'text', text: 'The outline was not approved; nothing was written.' }] }
    }
    const note = approval.content.note
    const article = await ctx.step('write', async () => {
      await sleep(200, ctx.signal)
      return outline.map((title) => `## ${title}\n${note ? `(${note}) ` : ''}A paragraph about ${topic}.`).join('\n\n')
    })
    return { content: [{ type: 'text', text: article }] }
  },
)

addNote(server)

largeReport(server)

server.resource('info://server', { name: 'server-info', description: 'About this server', mimeType: 'text/plain' }, (uri) => ({
  contents: [{ uri, mimeType: 'text/plain', text: 'An MCP server on Cloudflare Workers, built with mcp-edge.' }],
}))

server.prompt('summarize', { description: 'Summarize a text', args: z.object({ text: z.string() }) }, ({ text }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Summarize this:\n\n${text}` } }],
}))

export const { McpTaskObject, McpNonceLedger, McpInputRelay, McpEventHub, McpSessionLedger, McpResultStore } =
  createDurableObjects(server)
export { NotesStore } from '../../../templates/durable/src/notes.ts'

const app = new Hono<{ Bindings: Env }>()
// The playground page in local development (`PLAYGROUND=on` in .dev.vars): static assets, not this bundle.
app.get('/playground/*', playground)
app.route(
  '/mcp',
  mcp(server, {
    // Without MCP_BEARER_TOKEN no authentication is configured: mcp() then serves local requests
    // only (`npm run dev`), answers anyone else 401, and logs a warning at start-up.
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
