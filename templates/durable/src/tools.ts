/**
 * The durable template's tools, one for each thing mcp-edge adds beyond a plain tool; the repository's
 * demo Worker registers them too. Each is a function that registers its tool on a server, so you
 * can keep the ones you want and delete the rest (and the bindings only they use: README.md).
 */
import type { McpServer } from 'mcp-edge'
import { input, ToolError } from 'mcp-edge'
import * as z from 'zod/mini'
import { MAX_NOTE_LENGTH, notesOf } from './notes'
import type { NotesEnv } from './notes'

/** Wait `ms`, or less if the call is cancelled. */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => {
      clearTimeout(timer)
      resolve()
    })
  })

/**
 * Notes shared by every isolate: kept in one Durable Object; each change is published to the event
 * hub, so a client listening on any isolate with resourceSubscriptions ["notes://all"] hears it.
 */
export function addNote<E extends NotesEnv>(server: McpServer<E>): void {
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
}

/**
 * Multi-round-trip: ask before acting. The first call answers `input_required` with a form; the
 * client retries with the answer and the sealed requestState, and the handler runs again from the top.
 */
export function deleteRecord<E>(server: McpServer<E>): void {
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
}

/** The story view's URI: view/story.ts, built into assets/views/story.html (`npm run build:view`). */
export const STORY_VIEW = 'ui://stories/story.html'

/** The static assets binding (wrangler.jsonc `assets`) the story view is read from. */
export interface ViewsEnv {
  ASSETS?: Fetcher
}

/**
 * Partial results (SEP-2998): chunks stream to clients that declared `partialResults`; the final
 * result always carries the whole text, assembled by the runtime from what was streamed.
 *
 * With a view (MCP Apps): a host that renders views shows the story in view/story.ts, sentence
 * by sentence when it forwards partial results, with a button that saves it through `add_note`.
 * Other clients get the same text as content. The view's HTML is a static asset (130 KiB
 * gzipped, mostly ext-apps' `App`), outside the Worker's bundle, read when a host asks for it.
 */
export function writeStory<E extends ViewsEnv>(server: McpServer<E>): void {
  server.view(STORY_VIEW, {
    name: 'story',
    title: 'Story',
    description: 'The story as it is written, with a button that saves it as a note',
    html: async (ctx) => {
      const response = await ctx.env.ASSETS?.fetch('https://assets.local/views/story.html')
      if (!response?.ok) throw new Error('The story view is not built or not bound: run `npm run build:view`')
      return response.text()
    },
    prefersBorder: true,
  })

  server.tool(
    'write_story',
    {
      description: 'Write a short story, streaming it sentence by sentence',
      input: z.object({ topic: z.string(), sentences: z._default(z.int().check(z.minimum(1), z.maximum(200)), 8) }),
      streaming: { assemble: true },
      view: STORY_VIEW,
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
}

/**
 * A task (Tasks extension): clients that declare io.modelcontextprotocol/tasks get a task handle
 * at once; the report is written by the task's Durable Object, one step per section. A completed
 * step is stored, so after a restart or a deploy the task resumes where it was and no section is
 * written twice; each section lands in the task's partial-result log (readable through tasks/get)
 * and on listen streams watching the task.
 */
export function generateReport<E>(server: McpServer<E>): void {
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
}
