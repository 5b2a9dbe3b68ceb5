/**
 * The 2025-era wire, in one place (DESIGN "Two eras, one registry"): which revisions the legacy
 * lane serves, how `initialize` negotiates one, and how a result, an error or a server-to-client
 * request built by the server core (in 2026-07-28 shapes) is shaped for the negotiated revision.
 * The method table and users' handlers never branch on the era; the server calls these on the
 * way out.
 *
 * Shaping keeps exactly the fields the revision's schema defines for each object and drops the
 * 2026-only ones (`resultType`, `ttlMs`, `cacheScope`, the `serverInfo` `_meta` key, the draft
 * `streamingHint`). Fields a revision lacks are dropped, never invented: `title` becomes the
 * annotation title on 2025-03-26 tools, and a `resource_link` becomes a text block there.
 * Pure: no I/O.
 */
import { LEGACY_PROTOCOL_VERSIONS, META, TASKS_EXTENSION } from './constants.ts'
import type { LegacyVersion } from './constants.ts'
import type { JsonRpcErrorObject } from './errors.ts'
import { ERROR_KINDS } from './errors.ts'
import { isObject } from './jsonrpc.ts'
import type { ServerCapabilities } from './types.ts'

type Json = Record<string, unknown>

export function isLegacyVersion(version: unknown): version is LegacyVersion {
  return (LEGACY_PROTOCOL_VERSIONS as readonly unknown[]).includes(version)
}

/**
 * 2025 lifecycle: answer the requested revision when served, otherwise the newest one served
 * (the client decides whether it can go on).
 *
 * @example
 * negotiateLegacyVersion('2025-06-18') // '2025-06-18'
 * negotiateLegacyVersion('2024-11-05') // '2025-11-25'
 */
export function negotiateLegacyVersion(requested: unknown): LegacyVersion {
  return isLegacyVersion(requested) ? requested : LEGACY_PROTOCOL_VERSIONS[0]
}

/**
 * Fields each object kind has: those of 2025-03-26, then those 2025-06-18 added, then those
 * 2025-11-25 added (newer revisions only add).
 */
const FIELDS = {
  tool: ['name description inputSchema annotations', 'title outputSchema _meta', 'icons'],
  toolAnnotations: ['title readOnlyHint destructiveHint idempotentHint openWorldHint'],
  resource: ['uri name description mimeType size annotations', 'title _meta', 'icons'],
  template: ['uriTemplate name description mimeType annotations', 'title _meta', 'icons'],
  prompt: ['name description arguments', 'title _meta', 'icons'],
  argument: ['name description required', 'title'],
  annotations: ['audience priority', 'lastModified'],
  text: ['type text annotations', '_meta'],
  image: ['type data mimeType annotations', '_meta'],
  audio: ['type data mimeType annotations', '_meta'],
  embedded: ['type resource annotations', '_meta'],
  link: ['', 'type uri name title description mimeType size annotations _meta', 'icons'],
  contents: ['uri mimeType text blob', '_meta'],
  implementation: ['name version', 'title', 'description websiteUrl icons'],
} as const satisfies Record<string, readonly string[]>

type Kind = keyof typeof FIELDS

const allowed = new Map<string, ReadonlySet<string>>()

function fieldsOf(kind: Kind, version: LegacyVersion): ReadonlySet<string> {
  const key = `${kind}@${version}`
  let set = allowed.get(key)
  if (!set) {
    // The revisions up to `version` (LEGACY_PROTOCOL_VERSIONS lists the newest first).
    const revisions = LEGACY_PROTOCOL_VERSIONS.length - LEGACY_PROTOCOL_VERSIONS.indexOf(version)
    set = new Set(FIELDS[kind].slice(0, revisions).join(' ').split(' ').filter(Boolean))
    allowed.set(key, set)
  }
  return set
}

/** Keep the fields `kind` has in `version`; `undefined` values go too. */
function pick(value: Json, kind: Kind, version: LegacyVersion): Json {
  const keep = fieldsOf(kind, version)
  const out: Json = {}
  for (const key in value) if (keep.has(key) && value[key] !== undefined) out[key] = value[key]
  return out
}

/** `_meta` without the 2026 reserved keys the runtime adds; `undefined` when nothing is left. */
function legacyMeta(meta: unknown): Json | undefined {
  if (!isObject(meta)) return undefined
  const { [META.serverInfo]: _server, [META.subscriptionId]: _subscription, ...rest } = meta
  return Object.keys(rest).length > 0 ? rest : undefined
}

function withMeta(out: Json, meta: unknown, version: LegacyVersion): Json {
  const kept = version === '2025-03-26' ? undefined : legacyMeta(meta)
  if (kept) out._meta = kept
  else delete out._meta
  return out
}

function annotationsOf(value: unknown, version: LegacyVersion): Json | undefined {
  return isObject(value) ? pick(value, 'annotations', version) : undefined
}

const CONTENT_KIND: Record<string, Kind> = {
  text: 'text',
  image: 'image',
  audio: 'audio',
  resource: 'embedded',
  resource_link: 'link',
}

/** A content block in `version`'s shapes (prompt messages, tool results). */
export function shapeContent(block: Json, version: LegacyVersion): Json {
  const type = block.type
  if (type === 'resource_link' && version === '2025-03-26') {
    return { type: 'text', text: `${block.name ?? block.uri}: ${block.uri}` }
  }
  const kind = CONTENT_KIND[type as string] ?? 'text'
  const out = pick(block, kind, version)
  if (out.annotations !== undefined) out.annotations = annotationsOf(out.annotations, version)
  if (kind === 'embedded' && isObject(out.resource)) out.resource = pick(out.resource, 'contents', version)
  return withMeta(out, block._meta, version)
}

function shapeSchema(schema: unknown, version: LegacyVersion): unknown {
  // 2025-11-25 defaults to JSON Schema 2020-12; older revisions predate the dialect, and
  // draft-07 validators in their clients choke on an unknown `$schema` URI.
  if (version === '2025-11-25' || !isObject(schema) || !('$schema' in schema)) return schema
  const { $schema: _dialect, ...rest } = schema
  return rest
}

function shapeTool(tool: Json, version: LegacyVersion): Json {
  const out = pick(tool, 'tool', version)
  let annotations = isObject(tool.annotations) ? pick(tool.annotations, 'toolAnnotations', version) : undefined
  if (version === '2025-03-26' && typeof tool.title === 'string' && annotations?.title === undefined) {
    annotations = { ...annotations, title: tool.title }
  }
  if (annotations && Object.keys(annotations).length > 0) out.annotations = annotations
  else delete out.annotations
  out.inputSchema = shapeSchema(out.inputSchema, version)
  // 2026-07-28 takes any JSON Schema; the 2025 revisions one of an object only, and a client of
  // theirs refuses the whole list otherwise. Such a tool's structured content is left out of its
  // 2025 answers too (shapeLegacyResult).
  if (isObject(out.outputSchema) && out.outputSchema.type === 'object') out.outputSchema = shapeSchema(out.outputSchema, version)
  else delete out.outputSchema
  return withMeta(out, tool._meta, version)
}

function shapeListed(item: Json, kind: 'resource' | 'template' | 'prompt', version: LegacyVersion): Json {
  const out = pick(item, kind, version)
  if (out.annotations !== undefined) out.annotations = annotationsOf(out.annotations, version)
  if (kind === 'prompt' && Array.isArray(out.arguments)) {
    out.arguments = out.arguments.map((argument) => pick(argument as Json, 'argument', version))
  }
  return withMeta(out, item._meta, version)
}

/** `content` with `value`'s JSON as a text block at its end, unless one holds it already. */
function withJsonText(content: unknown, value: unknown): unknown {
  const text = JSON.stringify(value)
  const blocks = Array.isArray(content) ? content : []
  if (blocks.some((block) => isObject(block) && block.type === 'text' && block.text === text)) return content
  return [...blocks, { type: 'text', text }]
}

function mapArray(value: unknown, shape: (item: Json) => Json): unknown {
  return Array.isArray(value) ? value.map((item) => (isObject(item) ? shape(item) : item)) : value
}

/**
 * A result built by the server core, in `version`'s shapes. `method` says which result it is.
 *
 * @example
 * shapeLegacyResult('2025-03-26', 'tools/list', { tools, ttlMs: 0, cacheScope: 'public' })
 */
export function shapeLegacyResult(version: LegacyVersion, method: string, result: object): Json {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...rest } = result as Json
  const out: Json = rest
  switch (method) {
    case 'tools/list':
      out.tools = mapArray(out.tools, (tool) => shapeTool(tool, version))
      break
    case 'tools/call':
      out.content = mapArray(out.content, (block) => shapeContent(block, version))
      if (version === '2025-03-26') delete out.structuredContent
      else if (out.structuredContent !== undefined && !isObject(out.structuredContent)) {
        // 2026-07-28 takes any JSON value there; 2025-06-18 and 2025-11-25 an object only, and a
        // client of theirs refuses the whole result otherwise (porting round Y: an array). Its
        // JSON goes into the content instead, unless a text block already holds it.
        out.content = withJsonText(out.content, out.structuredContent)
        delete out.structuredContent
      }
      break
    case 'resources/list':
      out.resources = mapArray(out.resources, (item) => shapeListed(item, 'resource', version))
      break
    case 'resources/templates/list':
      out.resourceTemplates = mapArray(out.resourceTemplates, (item) => shapeListed(item, 'template', version))
      break
    case 'resources/read':
      out.contents = mapArray(out.contents, (item) => withMeta(pick(item, 'contents', version), item._meta, version))
      break
    case 'prompts/list':
      out.prompts = mapArray(out.prompts, (item) => shapeListed(item, 'prompt', version))
      break
    case 'prompts/get':
      out.messages = mapArray(out.messages, (message) =>
        isObject(message.content) ? { ...message, content: shapeContent(message.content, version) } : message,
      )
      break
  }
  const meta = legacyMeta(_meta)
  if (meta) out._meta = meta
  return out
}

/** `serverInfo` of an `InitializeResult` in `version`'s `Implementation` shape. */
export function legacyImplementation(info: object, version: LegacyVersion): Json {
  return pick(info as Json, 'implementation', version)
}

/**
 * An embedded input request (`elicitation/create`, `sampling/createMessage`, `roots/list`) as a
 * 2025 server-to-client request's params. `requestId` doubles as the 2025-11-25 URL-mode
 * `elicitationId`; 2025-06-18 has no `mode` (form only).
 */
export function shapeLegacyInputRequest(version: LegacyVersion, method: string, params: Json, requestId: string): Json {
  if (method !== 'elicitation/create') return params
  if (params.mode === 'url') return { ...params, elicitationId: requestId }
  if (version === '2025-11-25') return params
  const { mode: _mode, ...form } = params
  return form
}

/**
 * The HTTP status of a JSON-RPC error for a 2025 client. That transport gives JSON-RPC errors no
 * status of their own, so they ride a 200, except the ones HTTP itself defines: an insufficient
 * scope (403, with its challenge: the 2025 authorization spec asks for it too) and a rate limit
 * (429, with `Retry-After`).
 */
export function legacyStatus(status: number): number {
  return status === 403 || status === 429 ? status : 200
}

/**
 * A JSON-RPC error for a 2025 client. The 2026 gate codes do not exist there: a missing client
 * capability (-32021) becomes -32602 with the same message naming it (the 2025 revisions
 * prescribe no code), its `data` kept.
 */
export function legacyError(error: JsonRpcErrorObject): JsonRpcErrorObject {
  if (error.code !== ERROR_KINDS.missingCapability.code) return error
  return { ...error, code: ERROR_KINDS.invalidParams.code }
}

/**
 * The capabilities a 2025-era client is offered. `listChanged` and `subscribe` are advertised only
 * when `streams`: each session then has a GET stream fed by the event hub, with its subscriptions
 * kept in the session ledger; otherwise nothing could announce a list change or a resource update
 * to it (a server advertises only what it delivers). The Tasks extension belongs to 2026-07-28. Other extensions (MCP Apps, a server's own) are offered under `extensions`, where
 * 2025 hosts of those extensions read them (the 2025 schemas allow the extra key).
 */
export function legacyCapabilities(capabilities: ServerCapabilities, options: { streams?: boolean } = {}): Json {
  const out: Json = {}
  for (const key of ['logging', 'completions', 'tools', 'prompts', 'resources'] as const) {
    if (capabilities[key] !== undefined) out[key] = {}
  }
  // With a GET stream per session (a session ledger and an event hub), what it delivers.
  if (options.streams) {
    for (const key of ['tools', 'prompts'] as const) if (out[key]) out[key] = { listChanged: true }
    if (out.resources) out.resources = { subscribe: true, listChanged: true }
  }
  const { [TASKS_EXTENSION]: _tasks, ...extensions } = capabilities.extensions ?? {}
  if (Object.keys(extensions).length > 0) out.extensions = extensions
  return out
}
