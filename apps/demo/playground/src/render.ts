/**
 * How the playground shows what a server sends: content blocks (text, images, audio, resource
 * links, embedded resources), tool results (content, formatted `structuredContent`, `isError`),
 * resource contents, prompt messages, partial results and gaps, and the hints a server gives
 * (annotations) as badges.
 * Everything a server sends is set as text or as a `data:` URL built here; links only for http(s).
 */
import { APP_MIME_TYPE } from 'mcp-edge'
import type { GapEvent, PartialChunkEvent } from 'mcp-edge/client'
import { h, pretty } from './dom.ts'

type JsonObject = Record<string, unknown>

const MEDIA = /^(image|audio)\/[\w.+-]+$/
const safeHref = (uri: string) => (/^https?:\/\//i.test(uri) ? uri : undefined)

function blob(mimeType: unknown, data: unknown, alt: string): HTMLElement {
  const type = typeof mimeType === 'string' && MEDIA.test(mimeType) ? mimeType : undefined
  if (!type || typeof data !== 'string')
    return h('p', { class: 'muted' }, `${alt}: binary (${String(mimeType ?? 'unknown type')})`)
  const src = `data:${type};base64,${data}`
  return type.startsWith('image/') ? h('img', { src, alt }) : h('audio', { src, controls: true, 'aria-label': alt })
}

function resourceContents(contents: JsonObject): HTMLElement {
  const uri = String(contents.uri ?? '')
  const body =
    contents.mimeType === APP_MIME_TYPE && typeof contents.text === 'string'
      ? h(
          'p',
          { class: 'muted' },
          `A view (MCP Apps): ${Math.ceil(contents.text.length / 1024)} KiB of HTML, rendered under each call of a tool that names it.`,
        )
      : typeof contents.text === 'string'
        ? h('pre', { class: 'text' }, formatText(contents.text, contents.mimeType))
        : blob(contents.mimeType, contents.blob, uri)
  return h('div', { class: 'resource' }, h('p', { class: 'uri' }, uri, contents.mimeType ? ` (${contents.mimeType})` : ''), body)
}

/** JSON text is shown indented. */
function formatText(text: string, mimeType: unknown): string {
  if (mimeType !== 'application/json') return text
  try {
    return pretty(JSON.parse(text))
  } catch {
    return text
  }
}

/** One content block. */
export function contentBlock(block: JsonObject): HTMLElement {
  switch (block.type) {
    case 'text':
      return h('p', { class: 'text' }, String(block.text ?? ''))
    case 'image':
    case 'audio':
      return blob(block.mimeType, block.data, `${block.type} (${String(block.mimeType)})`)
    case 'resource_link': {
      const name = String(block.title ?? block.name ?? block.uri)
      const href = safeHref(String(block.uri ?? ''))
      return h(
        'p',
        { class: 'link' },
        'Resource link: ',
        href ? h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, name) : h('code', {}, String(block.uri)),
        block.description ? ` — ${block.description}` : '',
      )
    }
    case 'resource':
      return resourceContents((block.resource ?? {}) as JsonObject)
    default:
      return h('pre', { class: 'json' }, pretty(block))
  }
}

export function contentBlocks(blocks: unknown): HTMLElement {
  const list = Array.isArray(blocks) ? blocks : []
  return h('div', { class: 'content' }, ...list.map((block) => contentBlock(block as JsonObject)))
}

/** A `CallToolResult`. */
export function toolResult(result: JsonObject): HTMLElement {
  const failed = result.isError === true
  return h(
    'div',
    { class: failed ? 'result error' : 'result', 'data-result': 'complete' },
    h('h4', {}, failed ? 'Result (tool error)' : 'Result'),
    contentBlocks(result.content),
    result.structuredContent === undefined
      ? null
      : h(
          'details',
          { open: true },
          h('summary', {}, 'Structured content'),
          h('pre', { class: 'json' }, pretty(result.structuredContent)),
        ),
  )
}

export function readResult(result: JsonObject): HTMLElement {
  const contents = Array.isArray(result.contents) ? (result.contents as JsonObject[]) : []
  return h('div', { class: 'result', 'data-result': 'complete' }, ...contents.map(resourceContents))
}

export function promptResult(result: JsonObject): HTMLElement {
  const messages = Array.isArray(result.messages) ? (result.messages as JsonObject[]) : []
  return h(
    'div',
    { class: 'result', 'data-result': 'complete' },
    result.description ? h('p', {}, String(result.description)) : null,
    ...messages.map((message) =>
      h(
        'div',
        { class: 'message' },
        h('strong', {}, `${String(message.role)}: `),
        contentBlock((message.content ?? {}) as JsonObject),
      ),
    ),
  )
}

/** A server's hints (tool or resource annotations) as badges; `true` flags by name, others as `name: value`. */
export function badges(annotations: unknown, extra: string[] = []): HTMLElement | null {
  const entries = annotations && typeof annotations === 'object' ? Object.entries(annotations) : []
  const labels = [
    ...extra,
    ...entries
      .filter(([name]) => name !== 'title')
      .map(([name, value]) => (value === true ? name : `${name}: ${typeof value === 'object' ? JSON.stringify(value) : value}`)),
  ]
  if (labels.length === 0) return null
  return h('ul', { class: 'badges', 'aria-label': 'Annotations' }, ...labels.map((label) => h('li', {}, label)))
}

/** A JSON-RPC error (or an HTTP failure) shown in place of a result. */
export function errorBox(error: unknown): HTMLElement {
  const details = error as { message?: string; code?: number; status?: number; data?: unknown }
  const code = details.code === undefined ? '' : ` (${details.code}${details.status ? `, HTTP ${details.status}` : ''})`
  return h(
    'div',
    { class: 'result error', role: 'alert', 'data-result': 'error' },
    h('p', {}, `Error${code}: ${details.message ?? String(error)}`),
    details.data === undefined ? null : h('pre', { class: 'json' }, pretty(details.data)),
  )
}

/** A chunk or a gap as a list item of a run's (or a task's) partial results. */
export function chunkItem(event: PartialChunkEvent | GapEvent, origin?: string): HTMLLIElement {
  if (event.type === 'gap') {
    const span = event.from === event.to ? `seq ${event.from}` : `seq ${event.from}–${event.to}`
    return h('li', { class: 'gap', 'data-gap': `${event.from}-${event.to}` }, `${span} did not arrive (best-effort delivery)`)
  }
  return h(
    'li',
    { class: 'chunk', 'data-seq': event.seq, 'data-origin': origin },
    h('span', { class: 'seq' }, `seq ${event.seq}${origin ? ` (${origin})` : ''}${event.final ? ', final' : ''}`),
    contentBlocks(event.content),
    event.structuredContent === undefined ? null : h('pre', { class: 'json' }, JSON.stringify(event.structuredContent)),
  )
}
