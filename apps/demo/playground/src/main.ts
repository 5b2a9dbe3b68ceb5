/**
 * The playground page's entry (built into app.js by playground/build.mjs): finishes a
 * sign-in when the consent page sent the browser back, then "connects" (2026-07-28 is stateless:
 * `server/discover`, then every list the server advertises) and renders the cards. A 401 or 403
 * opens the help that fits: the bearer token field, or signing in (again, with more scope) when
 * the server names its OAuth metadata.
 */
import { McpClientError } from 'mcp-edge/client'
import { challengeOf, finishSignIn, signIn, token } from './auth.ts'
import { listAll, promptCard, resourceCard, templateCard, toolCard } from './catalog.ts'
import { append, h } from './dom.ts'
import type { JsonObject } from './schema-form.ts'
import { createSession } from './session.ts'
import { followTask } from './task.ts'
import type { Session } from './session.ts'

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const endpoint = byId<HTMLInputElement>('endpoint')
const tokenInput = byId<HTMLInputElement>('token')
const tasks = byId<HTMLInputElement>('tasks')
const status = byId<HTMLParagraphElement>('status')
const authStatus = byId<HTMLParagraphElement>('auth-status')
const signInBox = byId<HTMLDivElement>('sign-in')
const scope = byId<HTMLInputElement>('scope')
let resourceMetadata = ''
let current: Session | undefined

const ENDPOINT_KEY = 'mcp-edge-playground:endpoint'

/** An error for the status line; OAuth errors (RFC 6749 §4.1.2.1) with their code and description. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const { error: code, error_description: text } = error as Error & { error?: string; error_description?: string }
  return code ? `${error.message} (${code}${text ? `: ${text}` : ''})` : error.message
}

function onError(error: unknown): void {
  if (!(error instanceof McpClientError) || (error.status !== 401 && error.status !== 403)) return
  const challenge = challengeOf(error.challenge)
  if (challenge.resource_metadata) {
    resourceMetadata = challenge.resource_metadata
    scope.value = challenge.scope ?? scope.value
    byId('sign-in-text').textContent =
      error.status === 403
        ? `This needs more access (${challenge.scope ?? 'more scope'}): sign in again and allow it.`
        : 'This server uses OAuth: sign in to get a token.'
    signInBox.hidden = false
  } else if (error.status === 401) {
    status.textContent = 'Unauthorized: this server needs a bearer token. Enter it above and connect again.'
    tokenInput.focus()
  }
}

async function connect(): Promise<void> {
  sessionStorage.setItem(ENDPOINT_KEY, endpoint.value)
  token.set(tokenInput.value.trim())
  const session = createSession(endpoint.value, () => tasks.checked, onError)
  current = session
  document.body.dataset.ready = 'false'
  for (const id of ['tools', 'resources', 'templates', 'prompts']) byId(id).querySelector('.cards')?.replaceChildren()
  byId('contents').replaceChildren()
  byId('server').textContent = ''
  status.textContent = `Connecting to ${endpoint.value}…`
  // A newer connect (the user pressed Connect while this one was under way) owns the page: this
  // one, when it answers late, must not write over it.
  const superseded = () => current !== session
  try {
    const discover = await session.client.request('server/discover', {}, { capabilities: session.capabilities() })
    if (superseded()) return
    const info = ((discover._meta ?? {}) as JsonObject)['io.modelcontextprotocol/serverInfo'] as JsonObject | undefined
    byId('server').textContent = `Server: ${info?.name ?? 'unknown'} ${info?.version ?? ''}. ${discover.instructions ?? ''}`
    signInBox.hidden = true
    const counts = await render(session, (discover.capabilities ?? {}) as JsonObject)
    if (superseded()) return
    status.textContent = `Connected: ${counts}.`
    document.body.dataset.ready = 'true'
  } catch (error) {
    if (superseded()) return
    status.textContent = `Could not connect: ${describe(error)}`
    onError(error)
  }
}

async function render(session: Session, capabilities: JsonObject): Promise<string> {
  const sections: Array<[string, string, string, (item: JsonObject) => HTMLElement | undefined]> = [
    ['tools', 'tools/list', 'tools', (tool) => toolCard(session, tool)],
    ['resources', 'resources/list', 'resources', (resource) => resourceCard(session, resource)],
    ['templates', 'resources/templates/list', 'resourceTemplates', (template) => templateCard(session, template)],
    ['prompts', 'prompts/list', 'prompts', (prompt) => promptCard(session, prompt)],
  ]
  const nav = h('ul', {})
  const counts: string[] = []
  for (const [id, method, key, build] of sections) {
    const capability = id === 'templates' ? 'resources' : id
    const cards = byId(id).querySelector('.cards') as HTMLElement
    if (!(capability in capabilities)) {
      cards.replaceChildren(h('p', { class: 'muted' }, 'Not offered by this server.'))
      continue
    }
    const items = await listAll(session, method, key)
    if (current !== session) return '' // a newer connect owns the page
    if (id === 'tools') for (const tool of items) session.tools.set(String(tool.name), tool)
    const built = items.map(build).filter((card): card is HTMLElement => card !== undefined)
    cards.replaceChildren(...(built.length ? built : [h('p', { class: 'muted' }, 'None.')]))
    counts.push(`${built.length} ${byId(id).querySelector('h2')?.textContent?.toLowerCase()}`)
    for (const card of built)
      append(nav, h('li', {}, h('a', { href: `#${card.id}` }, card.querySelector('h3')?.textContent ?? card.id)))
  }
  byId('contents').replaceChildren(h('h2', {}, 'Contents'), nav)
  return counts.join(', ')
}

byId('connect').addEventListener('submit', (event) => {
  event.preventDefault()
  void connect()
})
byId('follow-form').addEventListener('submit', (event) => {
  event.preventDefault()
  const taskId = byId<HTMLInputElement>('task-id').value.trim()
  if (!taskId || !current) return
  const box = h('section', { class: 'run', 'aria-label': `Task ${taskId}` })
  byId('followed').prepend(box)
  void followTask(current, { taskId, status: 'unknown' }, box)
})
byId('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault()
  authStatus.textContent = 'Signing in…'
  signIn(endpoint.value, resourceMetadata, scope.value.trim()).catch((error) => {
    authStatus.textContent = `Sign-in failed: ${describe(error)}`
  })
})

endpoint.value = sessionStorage.getItem(ENDPOINT_KEY) ?? new URL('/mcp', location.origin).href
try {
  const signedIn = await finishSignIn()
  if (signedIn) authStatus.textContent = signedIn
} catch (error) {
  authStatus.textContent = `Sign-in failed: ${describe(error)}`
}
tokenInput.value = token.get() ?? ''
await connect()
