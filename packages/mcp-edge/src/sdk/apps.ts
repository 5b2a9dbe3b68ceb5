/**
 * MCP Apps' server helpers as `@modelcontextprotocol/ext-apps/server` exports them, typed for this
 * `McpServer`: `registerAppTool`, `registerAppResource`, `getUiCapability` and their constants.
 * ext-apps' own run on it unchanged, but their types name the SDK's `McpServer` (1.x's in
 * ext-apps 1.x, 2.x's in 2.x), which this one does not match member for member (porting round X:
 * a ported Apps server failed to compile). Moving their import to `mcp-edge/sdk` is the whole port.
 *
 * They do what ext-apps' do: a tool's view is named under `_meta.ui.resourceUri` and under the flat
 * `ui/resourceUri` key older hosts read (either given, both listed), and a view resource is served
 * as `text/html;profile=mcp-app` unless its metadata says otherwise. Like ext-apps', they do not
 * declare the extension in the server's capabilities (the native `server.edge.view` does).
 */
import { APP_MIME_TYPE, APPS_EXTENSION, LEGACY_VIEW_KEY, type ViewOptions } from '../server/apps.ts'
import type { ReadResourceResult } from './low-level/names.ts'
import type { ZodRawShape } from './schema/schema.ts'
import type { McpServer } from './server.ts'
import type {
  ReadResourceCallback,
  RegisteredResource,
  RegisteredTool,
  ResourceMetadata,
  ToolCallback,
  ToolConfig,
  ToolInputSchema,
} from './types.ts'

/** The flat `_meta` key of a tool's view (ext-apps' `RESOURCE_URI_META_KEY`). */
export const RESOURCE_URI_META_KEY = LEGACY_VIEW_KEY
/** The MIME type of a view (ext-apps' `RESOURCE_MIME_TYPE`). */
export const RESOURCE_MIME_TYPE = APP_MIME_TYPE
/** The extension's id in capabilities (ext-apps' `EXTENSION_ID`). */
export const EXTENSION_ID = APPS_EXTENSION

/** A tool's `_meta.ui`: its view, and who may call it (`['app']`: the view only, hidden from the model). */
export interface McpUiToolMeta {
  resourceUri?: string
  visibility?: ('model' | 'app')[]
}

/** A view resource's `_meta.ui`, on its listing and on its read: what the native `server.view` puts there. */
export type McpUiResourceMeta = Pick<ViewOptions<unknown>, 'csp' | 'permissions' | 'domain' | 'prefersBorder'>

/** What a host that renders views declares under `extensions["io.modelcontextprotocol/ui"]`. */
export interface McpUiClientCapabilities {
  mimeTypes?: string[]
  [key: string]: unknown
}

/** A tool's config with its view named: under `_meta.ui` or under the flat key. */
export type McpUiAppToolConfig<In extends ToolInputSchema = ToolInputSchema, Out = unknown> = ToolConfig<In, Out> & {
  _meta: { [key: string]: unknown } & ({ ui: McpUiToolMeta } | { [RESOURCE_URI_META_KEY]?: string })
}

export interface McpUiAppResourceConfig extends ResourceMetadata {
  _meta?: { ui?: McpUiResourceMeta; [key: string]: unknown }
}

/** What a view's read callback returns: its contents may carry `_meta.ui`. */
export type McpUiReadResourceResult = ReadResourceResult

export type McpUiReadResourceCallback<Env = unknown> = ReadResourceCallback<Env>

/** ext-apps 2.x's name of a raw-shape tool's callback (its deprecated overload): `ToolCallback`. */
export type LegacyToolCallback<Args extends ZodRawShape | undefined, Env = unknown> = ToolCallback<Args, Env>

/**
 * Register a tool that has a view: `server.registerTool` with the view named under both keys. The
 * first overload is ext-apps 2.x's raw-shape one, for code that gives its type arguments in that
 * order (input first), as `registerTool`'s.
 *
 * @example
 * registerAppTool(server, 'get-time', { description: 'The time', _meta: { ui: { resourceUri: 'ui://time/app.html' } } },
 *   async () => ({ content: [{ type: 'text', text: new Date().toISOString() }] }))
 */
export function registerAppTool<In extends ZodRawShape, Out = undefined, Env = unknown>(
  server: Pick<McpServer<Env>, 'registerTool'>,
  name: string,
  config: McpUiAppToolConfig<In, Out> & { inputSchema: In },
  callback: ToolCallback<In, Env>,
): RegisteredTool
export function registerAppTool<Out = undefined, In extends ToolInputSchema = undefined, Env = unknown>(
  server: Pick<McpServer<Env>, 'registerTool'>,
  name: string,
  config: McpUiAppToolConfig<In, Out>,
  callback: ToolCallback<In, Env>,
): RegisteredTool
export function registerAppTool<Env>(
  server: Pick<McpServer<Env>, 'registerTool'>,
  name: string,
  config: McpUiAppToolConfig,
  callback: ToolCallback<ToolInputSchema, Env>,
): RegisteredTool {
  const meta: Record<string, unknown> = config._meta
  const ui = meta.ui as McpUiToolMeta | undefined
  const flat = meta[RESOURCE_URI_META_KEY]
  let _meta = meta
  if (ui?.resourceUri && !flat) _meta = { ...meta, [RESOURCE_URI_META_KEY]: ui.resourceUri }
  else if (flat && !ui?.resourceUri) _meta = { ...meta, ui: { ...ui, resourceUri: flat } }
  return server.registerTool(name, { ...config, _meta }, callback)
}

/**
 * Register a view: `server.registerResource` at a fixed URI, as `text/html;profile=mcp-app` unless
 * `config.mimeType` says otherwise.
 *
 * @example
 * registerAppResource(server, 'Time view', 'ui://time/app.html', {}, async () => ({
 *   contents: [{ uri: 'ui://time/app.html', mimeType: RESOURCE_MIME_TYPE, text: HTML }],
 * }))
 */
export function registerAppResource<Env = unknown>(
  server: Pick<McpServer<Env>, 'registerResource'>,
  name: string,
  uri: string,
  config: McpUiAppResourceConfig,
  callback: McpUiReadResourceCallback<Env>,
): RegisteredResource {
  return server.registerResource(name, uri, { mimeType: RESOURCE_MIME_TYPE, ...config }, callback)
}

/**
 * What the client declared of MCP Apps, or undefined when it renders no views.
 *
 * @example
 * const apps = getUiCapability(server.server.getClientCapabilities())
 */
export function getUiCapability(
  capabilities: { extensions?: { [key: string]: unknown } } | null | undefined,
): McpUiClientCapabilities | undefined {
  return capabilities?.extensions?.[EXTENSION_ID] as McpUiClientCapabilities | undefined
}
