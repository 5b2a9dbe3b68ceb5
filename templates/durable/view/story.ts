/**
 * The story view (MCP Apps): what a host that renders views shows for `write_story`. Built with
 * `App` from @modelcontextprotocol/ext-apps and bundled into view/story.html by view/build.mjs.
 * It shows the topic as soon as the host sends the tool's input, each sentence as it streams
 * (when the host forwards partial results as `ui/notifications/tool-result-partial`; a host that
 * does not just shows the whole story when the result arrives), and saves the story as a note
 * by calling the server's `add_note` tool from inside the view.
 */
import { App } from '@modelcontextprotocol/ext-apps/app-with-deps'

/** The notification a host may send for each partial result (SEP-2998) of the tool's call. */
const PARTIAL_RESULT = 'ui/notifications/tool-result-partial'

type Block = { type: string; text?: string }

const byId = (id: string) => document.getElementById(id) as HTMLElement
const title = byId('title')
const status = byId('status')
const story = byId('story')
const save = byId('save') as HTMLButtonElement

const textOf = (content: unknown) =>
  Array.isArray(content) ? (content as Block[]).map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join('') : ''

let streamed = 0

const app = new App({ name: 'mcp-edge story view', version: '0.1.0' })

app.ontoolinput = ({ arguments: args }) => {
  if (typeof args?.topic === 'string') title.textContent = `A story about ${args.topic}`
  status.textContent = 'Writing…'
}

// Hosts that stream partial results send one notification per chunk, in order.
app.fallbackNotificationHandler = async ({ method, params }) => {
  if (method !== PARTIAL_RESULT) return
  const sentence = document.createElement('span')
  sentence.className = 'sentence'
  sentence.textContent = textOf((params as { content?: unknown } | undefined)?.content)
  story.append(sentence)
  status.textContent = `Writing… ${++streamed} sentence${streamed === 1 ? '' : 's'} so far`
}

app.ontoolresult = (result) => {
  if (result.isError) {
    status.textContent = `The story failed: ${textOf(result.content)}`
    return
  }
  // The final result carries the whole story: what streamed stays when it matches, else the result wins.
  const whole = textOf(result.content)
  if (story.textContent !== whole) story.textContent = whole
  status.textContent = streamed ? `Done: ${streamed} sentences streamed.` : 'Done.'
  save.disabled = false
}

app.ontoolcancelled = ({ reason }) => {
  status.textContent = `Cancelled${reason ? `: ${reason}` : ''}.`
}

// The host is about to remove the view: nothing is left to save or stop.
app.onteardown = async () => ({})

save.addEventListener('click', async () => {
  save.disabled = true
  status.textContent = 'Saving…'
  try {
    const result = await app.callServerTool({ name: 'add_note', arguments: { text: story.textContent ?? '' } })
    status.textContent = result.isError ? `Not saved: ${textOf(result.content)}` : textOf(result.content)
  } catch (error) {
    status.textContent = `Not saved: ${error instanceof Error ? error.message : String(error)}`
    save.disabled = false
  }
})

await app.connect()
