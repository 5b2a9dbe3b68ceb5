/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): a tool names a view, a `ui://`
 * resource holding HTML (MIME type `text/html;profile=mcp-app`) that a host renders in a sandboxed
 * iframe and talks to over `postMessage`. A host without the extension shows the tool's ordinary
 * content, so a tool answers every client with content (and `structuredContent` for its view).
 *
 * The server side is small: the view is a resource whose listing and read carry `_meta.ui` (its
 * CSP domains, permissions, dedicated domain, border preference); the tool carries
 * `_meta.ui.resourceUri` and the flat `ui/resourceUri` key older hosts still read; and the server
 * declares the extension once it has a view. Whether this request's client renders views is
 * `ctx.supports('extensions.io.modelcontextprotocol/ui')`, read per request like any capability
 * (a 2025 session's from its `initialize`).
 */
import type { ClientCapabilities, Icon, MetaObject, ReadResourceResult } from '../protocol/types.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import type { CacheHint, RequestContext, ResourceHandler, ResourceOptions, ToolView } from './types.ts'

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui'
/** The MIME type of a view (exactly this, on the listing and on the read). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app'
/** The flat `_meta` key of a tool's view that hosts from before `_meta.ui` read. */
export const LEGACY_VIEW_KEY = 'ui/resourceUri'

type Awaitable<T> = T | Promise<T>

/** Origins a view may reach, as the host turns them into its CSP (`_meta.ui.csp`). */
export interface ViewCsp {
  /** fetch, XHR, WebSocket (`connect-src`). */
  connectDomains?: string[]
  /** Scripts, styles, images, fonts, media. */
  resourceDomains?: string[]
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[]
  /** `base-uri`. */
  baseUriDomains?: string[]
}

/** Browser features a view asks the host for (its iframe's Permission Policy). */
export interface ViewPermissions {
  camera?: Record<string, never>
  microphone?: Record<string, never>
  geolocation?: Record<string, never>
  clipboardWrite?: Record<string, never>
}

export interface ViewOptions<Env> {
  name: string
  title?: string
  description?: string
  icons?: Icon[]
  /**
   * The view's HTML, one self-contained document: inline, or read per request, for example from
   * Workers Static Assets (`(ctx) => ctx.env.ASSETS.fetch(...).then((r) => r.text())`).
   */
  html: string | ((ctx: RequestContext<Env>) => Awaitable<string>)
  /** What the view may load or reach; without it, nothing beyond itself (the host's default). */
  csp?: ViewCsp
  permissions?: ViewPermissions
  /** A dedicated sandbox origin, in the format the host documents. */
  domain?: string
  /** Whether the host should draw a border around the view. */
  prefersBorder?: boolean
  cache?: CacheHint
  /** OAuth scopes a caller needs to list and read it, as for any resource. */
  scopes?: string[]
}

/** A view URI is a `ui://` URI. */
export function checkViewUri(uri: string, what: string): void {
  if (!uri.startsWith('ui://') || uri.length === 'ui://'.length) {
    throw new Error(`${what}: a view's URI is a ui:// URI (such as ui://notes/board.html), not "${uri}"`)
  }
}

/** The resource a view is: its listing's options and the handler that reads it. */
export function viewResource<Env>(
  uri: string,
  options: ViewOptions<Env>,
): { options: ResourceOptions; handler: ResourceHandler<Env> } {
  checkViewUri(uri, `View "${uri}"`)
  const { html, csp, permissions, domain, prefersBorder, ...listing } = options
  const ui: MetaObject = {}
  if (csp !== undefined) ui.csp = csp as MetaObject
  if (permissions !== undefined) ui.permissions = permissions as MetaObject
  if (domain !== undefined) ui.domain = domain
  if (prefersBorder !== undefined) ui.prefersBorder = prefersBorder
  const meta = Object.keys(ui).length > 0 ? { ui } : undefined
  return {
    options: { ...listing, mimeType: APP_MIME_TYPE, ...(meta ? { _meta: meta } : {}) },
    handler: async (_uri, ctx): Promise<ReadResourceResult> => {
      const text = typeof html === 'string' ? html : await html(ctx)
      return { contents: [{ uri, mimeType: APP_MIME_TYPE, text, ...(meta ? { _meta: meta } : {}) }] }
    },
  }
}

/** A tool's `_meta` naming its view, in the nested and the flat form. */
export function toolViewMeta(view: ToolView, meta: MetaObject | undefined, tool: string): MetaObject {
  const { uri, visibility } = typeof view === 'string' ? { uri: view, visibility: undefined } : view
  checkViewUri(uri, `Tool "${tool}"`)
  const given = isObject(meta?.ui) ? (meta.ui as MetaObject) : {}
  const ui: MetaObject = { ...given, resourceUri: uri }
  if (visibility !== undefined) ui.visibility = visibility
  return { ...meta, ui, [LEGACY_VIEW_KEY]: uri }
}

/**
 * Whether `capabilities` say the client renders views: the extension declared, and its
 * `mimeTypes`, when listed, include the app MIME type.
 */
export function rendersViews(capabilities: ClientCapabilities): boolean {
  const declared = capabilities.extensions?.[APPS_EXTENSION]
  if (!isObject(declared)) return false
  const types = (declared as { mimeTypes?: unknown }).mimeTypes
  return !Array.isArray(types) || types.includes(APP_MIME_TYPE)
}
