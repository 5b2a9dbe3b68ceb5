/**
 * The mcp-edge template Worker: copy it, keep what you need. A Hono app with one MCP endpoint at
 * /mcp and example tools for each thing mcp-edge adds: a plain tool with structured output, a
 * tool that asks for confirmation before acting (multi-round-trip, sealed requestState), a tool
 * that streams partial results, a long-running tool that becomes a task built from resumable
 * steps and streams into the task's log, a task that asks the user mid-task, and a shared notes
 * resource whose subscribers hear every change, in every isolate (through the event hub Durable
 * Object). The endpoint serves 2026-07-28 clients and, on the same URL, 2025-era clients
 * (`initialize`); the same handlers serve both (a 2025 client's confirmation arrives through its
 * elicitation handler).
 *
 * Configuration (see README): MCP_STATE_KEYS (secret, required; .dev.vars has a dev key),
 * MCP_BEARER_TOKEN (secret: when set, requests need `Authorization: Bearer <token>`; without it the
 * server fails closed and serves local requests only). `src/worker-oauth.ts` serves the same tools
 * behind its own OAuth authorization server (`npm run dev:oauth`).
 */
import { env } from 'cloudflare:workers'
import { Hono } from 'hono/tiny'
import * as z from 'zod/mini'
import { cloudflareEventHub, cloudflareServices, createDurableObjects } from './cloudflare/index.ts'
import { createKeyRing, createMcpServer, input, mcp, ToolError } from './index.ts'
import type { Principal } from './index.ts'
import { MAX_NOTE_LENGTH, notesOf } from './notes-store.ts'
import type { NotesEnv } from './notes-store.ts'
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
}
declare global {
  interface Env extends OptionalSecrets {}
  namespace Cloudflare {
    interface Env extends OptionalSecrets {}
  }
}

// Fail at start-up, with instructions, when the requestState keys are missing or too short.
createKeyRing(env.MCP_STATE_KEYS)
const cap = (value: string | undefined) => (value ? Number(value) : undefined)

// Typed by what its tools read, so the other Workers built on it (the OAuth mode, the JWT
// fixture) can serve it with their own Env; each of them binds NOTES too.
export const server = createMcpServer<NotesEnv>({
  name: 'mcp-edge-template',
  version: '0.1.0',
  // What a client shows its model about this server as a whole; tools/list describes each tool.
  instructions: 'One example tool for each thing mcp-edge adds.',
  limits: { listenStreams: cap(env.MCP_MAX_LISTEN_STREAMS), liveTasks: cap(env.MCP_MAX_LIVE_TASKS) },
  // List changes and resource updates reach listen streams in every isolate through McpEventHub.
  events: cloudflareEventHub({ binding: 'MCP_EVENTS' }),
})

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
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

// Multi-round-trip: ask before acting. The first call answers `input_required` with a form; the
// client retries with the answer and the sealed requestState, and the handler runs again from the top.
server.tool(
  'delete_record',
  {
    description: 'Delete a record, after the user confirms',
    input: z.object({ id: z.string() }),
    // destructiveHint makes each confirmation single-use (a replayed requestState runs nothing).
    annotations: { destructiveHint: true },
    // With OAuth, only callers granted records:write see and call it (others get a 403 step-up).
    scopes: ['records:write'],
  },
  async ({ id }, ctx) => {
    const { confirm } = await ctx.ask({
      confirm: input.form(
        `Delete record ${id}? This cannot be undone.`,
        z.object({ confirm: z.boolean(), reason: z.optional(z.string()) }),
      ),
    })
    if (confirm.action !== 'accept' || !confirm.content.confirm) {
      return { content: [{ type: 'text', text: `Record ${id} was kept.` }] }
    }
    const reason = confirm.content.reason ? ` (${confirm.content.reason})` : ''
    return { content: [{ type: 'text', text: `Record ${id} deleted${reason}.` }] }
  },
)

// Partial results (SEP-2998): chunks stream to clients that declared `partialResults`; the final
// result always carries the whole text, assembled by the runtime from what was streamed.
server.tool(
  'write_story',
  {
    description: 'Write a short story, streaming it sentence by sentence',
    input: z.object({ topic: z.string(), sentences: z._default(z.int().check(z.minimum(1), z.maximum(200)), 8) }),
    streaming: { assemble: true },
  },
  async ({ topic, sentences }, ctx) => {
    for (let i = 1; i <= sentences && !ctx.signal.aborted; i++) {
      ctx.progress(i, sentences) // with a progressToken: the playground's progress bar
      await ctx.partial(`Sentence ${i} of a story about ${topic}. `)
      await sleep(50, ctx.signal)
    }
    return { content: [] }
  },
)

// A task (Tasks extension): clients that declare io.modelcontextprotocol/tasks get a task handle
// at once; the report is written by the task's Durable Object, one step per section. A completed
// step is stored, so after a restart or a deploy the task resumes where it was and no section is
// written twice; each section lands in the task's partial-result log (readable through tasks/get)
// and on listen streams watching the task.
server.tool(
  'generate_report',
  {
    description: 'Generate a report section by section (runs as a task when the client supports tasks)',
    input: z.object({ subject: z.string(), sections: z._default(z.int().check(z.minimum(1), z.maximum(50)), 5) }),
    streaming: { assemble: true },
    task: { mode: 'optional', pollIntervalMs: 500 },
  },
  async ({ subject, sections }, ctx) => {
    for (let i = 1; i <= sections; i++) {
      await ctx.step(`section-${i}`, async () => {
        await sleep(400, ctx.signal)
        await ctx.partial({
          content: [{ type: 'text', text: `## Section ${i}\nFindings about ${subject}, part ${i}.\n` }],
          final: i === sections,
        })
      })
    }
    return { content: [] }
  },
)

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

// Notes shared by every isolate: kept in one Durable Object; each change is published to the event
// hub, so a client listening on any isolate with resourceSubscriptions ["notes://all"] hears it.
server.tool(
  'add_note',
  { description: 'Append a note to notes://all', input: z.object({ text: z.string().check(z.minLength(1)) }) },
  async ({ text }, ctx) => {
    if (text.length > MAX_NOTE_LENGTH) throw new ToolError(`A note has at most ${MAX_NOTE_LENGTH} characters`)
    const id = await notesOf(ctx.env.NOTES).add(text, ctx.principal?.subject ?? null)
    await server.notifyResourceUpdated('notes://all')
    return { content: [{ type: 'text', text: `Note ${id} added to notes://all.` }] }
  },
)

server.resource(
  'notes://all',
  { name: 'notes', description: 'Notes from add_note, oldest first', mimeType: 'application/json' },
  async (uri, ctx) => ({
    contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(await notesOf(ctx.env.NOTES).list()) }],
  }),
)

server.resource('info://server', { name: 'server-info', description: 'About this server', mimeType: 'text/plain' }, (uri) => ({
  contents: [{ uri, mimeType: 'text/plain', text: 'An MCP server on Cloudflare Workers, built with mcp-edge.' }],
}))

server.prompt('summarize', { description: 'Summarize a text', args: z.object({ text: z.string() }) }, ({ text }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Summarize this:\n\n${text}` } }],
}))

const encoder = new TextEncoder()

/** Bearer authentication with MCP_BEARER_TOKEN (a shared secret: one principal, no scopes). */
async function authenticate(request: Request): Promise<Principal | undefined> {
  if (!env.MCP_BEARER_TOKEN) return undefined
  const presented = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1] ?? ''
  const [a, b] = await Promise.all(
    [presented, env.MCP_BEARER_TOKEN].map((token) => crypto.subtle.digest('SHA-256', encoder.encode(token))),
  )
  return crypto.subtle.timingSafeEqual(a as ArrayBuffer, b as ArrayBuffer) ? { subject: 'bearer' } : undefined
}

export const { McpTaskObject, McpNonceLedger, McpInputRelay, McpEventHub } = createDurableObjects(server)
export { NotesStore } from './notes-store.ts'

const app = new Hono<{ Bindings: Env }>()
// The playground page in local development (`PLAYGROUND=on` in .dev.vars): static assets, not this bundle.
app.get('/playground/*', playground)
app.route(
  '/mcp',
  mcp(server, {
    // Without MCP_BEARER_TOKEN no authentication is configured: mcp() then serves local requests
    // only (`npm run dev`), answers anyone else 401, and logs a warning at start-up.
    authenticate: env.MCP_BEARER_TOKEN ? authenticate : undefined,
    services: cloudflareServices({
      stateKeys: 'MCP_STATE_KEYS',
      tasks: 'MCP_TASKS',
      nonces: 'MCP_NONCES',
      inputRelay: 'MCP_INPUT_RELAY',
    }),
  }),
)

export default app
