/**
 * What the server offers, as cards: tools (description, annotations, a form built from the input
 * schema, and their calls), resources (read), resource templates (a field per URI variable, then
 * read) and prompts (a field per argument, then get). Lists are read page by page to the end.
 * A tool whose `x-mcp-header` annotations are invalid is left out, as SEP-2243 asks of clients.
 */
import { findHeaderParams } from 'mcp-edge/client'
import { resolveInput } from 'mcp-edge/client'
import { ask } from './ask.ts'
import { h } from './dom.ts'
import { badges, errorBox, promptResult, readResult } from './render.ts'
import { runTool } from './run.ts'
import { schemaForm } from './schema-form.ts'
import type { JsonObject, SchemaForm } from './schema-form.ts'
import type { Session } from './session.ts'

export async function listAll(session: Session, method: string, key: string): Promise<JsonObject[]> {
  const items: JsonObject[] = []
  for (let cursor: string | undefined, page = 0; page < 100; page++) {
    const result = await session.client.request(method, cursor === undefined ? {} : { cursor }, {
      capabilities: session.capabilities(),
    })
    items.push(...((result[key] ?? []) as JsonObject[]))
    cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined
    if (cursor === undefined) break
  }
  return items
}

const slug = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`

/** A card: heading, description, badges, a form whose submit runs `act`, and where the outcomes go. */
function card(kind: string, name: string, title: unknown, item: JsonObject, form: SchemaForm | undefined, label: string) {
  const id = slug(kind, name)
  const outputs = h('div', { class: 'runs', 'aria-live': 'polite' })
  const element = h('form', { novalidate: true, 'data-form': id }, form?.element, h('button', { type: 'submit' }, label))
  const article = h(
    'article',
    { class: `card ${kind}`, id, 'aria-labelledby': `${id}-title` },
    h('h3', { id: `${id}-title` }, name, title && title !== name ? h('span', { class: 'title' }, ` ${String(title)}`) : null),
    item.description ? h('p', { class: 'description' }, String(item.description)) : null,
    badges(item.annotations, item.mimeType ? [String(item.mimeType)] : []),
    element,
    outputs,
  )
  const onSubmit = (act: (args: JsonObject) => void) =>
    element.addEventListener('submit', (event) => {
      event.preventDefault()
      const read = form?.read() ?? { ok: true, value: {} }
      if (read.ok) act(read.value)
    })
  return { article, outputs, onSubmit }
}

/** Read a resource (or get a prompt), answering any questions it asks, into `outputs`. */
async function fetchInto(session: Session, outputs: HTMLElement, method: string, params: JsonObject, render: typeof readResult) {
  const box = h('section', { class: 'run', 'aria-label': `${method} ${String(params.uri ?? params.name)}` })
  outputs.prepend(box)
  try {
    const result = await resolveInput(
      (retry) => session.client.request(method, { ...params, ...retry }, { capabilities: session.capabilities() }),
      (requests) => ask(box, requests),
    )
    box.appendChild(render(result))
  } catch (error) {
    box.appendChild(errorBox(error))
    session.onError(error)
  }
}

export function toolCard(session: Session, tool: JsonObject): HTMLElement | undefined {
  const name = String(tool.name)
  try {
    findHeaderParams(name, (tool.inputSchema ?? {}) as JsonObject)
  } catch {
    return undefined
  }
  const form = schemaForm((tool.inputSchema ?? {}) as JsonObject, `tool-${name}`)
  const display = tool.title ?? (tool.annotations as JsonObject | undefined)?.title
  const { article, outputs, onSubmit } = card('tool', name, display, tool, form, `Call ${name}`)
  onSubmit((args) => void runTool(session, tool, args, outputs))
  return article
}

export function resourceCard(session: Session, resource: JsonObject): HTMLElement {
  const uri = String(resource.uri)
  const { article, outputs, onSubmit } = card(
    'resource',
    String(resource.name),
    resource.title,
    resource,
    undefined,
    `Read ${uri}`,
  )
  article.querySelector('.description')?.before(h('p', { class: 'uri' }, h('code', {}, uri)))
  onSubmit(() => void fetchInto(session, outputs, 'resources/read', { uri }, readResult))
  return article
}

const VARIABLE = /\{([+#./;?&]?)([^}]+)\}/g

/** Expand an RFC 6570 template for the common operators (simple, reserved, fragment, path, label, query). */
function expand(template: string, values: JsonObject): string {
  return template.replace(VARIABLE, (_, operator: string, names: string) =>
    names
      .split(',')
      .map((raw, i) => {
        const name = raw.replace(/\*$|:\d+$/, '')
        const value = String(values[name] ?? '')
        const encoded = operator === '+' || operator === '#' ? encodeURI(value) : encodeURIComponent(value)
        if (operator === '?' || operator === '&') return `${i === 0 ? operator : '&'}${name}=${encoded}`
        const prefix = operator === '+' ? '' : operator
        return i === 0 ? `${prefix}${encoded}` : `${prefix === '' || prefix === '#' ? ',' : prefix}${encoded}`
      })
      .join(''),
  )
}

export function templateCard(session: Session, template: JsonObject): HTMLElement {
  const uriTemplate = String(template.uriTemplate)
  const names = [...uriTemplate.matchAll(VARIABLE)].flatMap((match) =>
    (match[2] as string).split(',').map((n) => n.replace(/\*$|:\d+$/, '')),
  )
  const schema = { type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])), required: names }
  const { article, outputs, onSubmit } = card(
    'template',
    String(template.name),
    template.title,
    template,
    schemaForm(schema, 't'),
    'Read',
  )
  article.querySelector('h3')?.after(h('p', { class: 'uri' }, h('code', {}, uriTemplate)))
  onSubmit((values) => void fetchInto(session, outputs, 'resources/read', { uri: expand(uriTemplate, values) }, readResult))
  return article
}

export function promptCard(session: Session, prompt: JsonObject): HTMLElement {
  const args = Array.isArray(prompt.arguments) ? (prompt.arguments as JsonObject[]) : []
  const schema = {
    type: 'object',
    properties: Object.fromEntries(
      args.map((a) => [String(a.name), { type: 'string', title: a.title, description: a.description }]),
    ),
    required: args.filter((a) => a.required).map((a) => String(a.name)),
  }
  const name = String(prompt.name)
  const { article, outputs, onSubmit } = card(
    'prompt',
    name,
    prompt.title,
    prompt,
    schemaForm(schema, `prompt-${name}`),
    `Get ${name}`,
  )
  onSubmit((values) => void fetchInto(session, outputs, 'prompts/get', { name, arguments: values }, promptResult))
  return article
}
