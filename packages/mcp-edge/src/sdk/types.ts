/**
 * The public types of `mcp-edge/sdk`'s `McpServer`: the configs and callbacks of its
 * registrations, as the SDKs write them, and the handles they return.
 */
import type { Annotations, Icon, ToolAnnotations } from '../protocol/types.ts'
// The results as the SDKs type them (open objects), so that what a callback returns is what code
// that names these types holds (low-level/names.ts).
import type { CallToolResult, GetPromptResult, ReadResourceResult } from './low-level/names.ts'
import type { CapabilityPath } from '../server/capabilities.ts'
import type { ObjectSchema } from '../server/schema/schema.ts'
import type { ServerOptions, TaskMode, ToolView } from '../server/types.ts'
import type { RequestHandlerExtra } from './context.ts'
import type { InputRequiredResult } from './input.ts'
import type { Registered, UpdateBase } from './registered.ts'
import type { ResourceTemplate } from './resource-template.ts'
import type { ShapeOutput, Zod3Object, ZodRawShape } from './schema/schema.ts'

type Awaitable<T> = T | Promise<T>
/** A user callback of any arity, kept until called with the arguments its registration implies. */
export type AnyCallback = (...args: never[]) => unknown
/**
 * `tool()`'s annotations argument after a params schema, as SDK 1.x typed it until 1.2x (a
 * passthrough schema): keys besides the annotations are taken, and listed as given. Code that nests
 * `{ title, annotations: {…} }` there compiled against it, and compiles here.
 */
export type LooseToolAnnotations = ToolAnnotations & { [key: string]: unknown }

/** A tool's input as the SDKs take it: a zod raw shape, a zod object (zod 4, or zod 3 as SDK 1.x takes), or nothing. */
export type ToolInputSchema = ZodRawShape | ObjectSchema | Zod3Object | undefined
/**
 * SDK 2.x's type of a schema a tool or prompt is given, as far as mcp-edge takes one: a zod 4
 * object (a tool's input and output, a prompt's arguments).
 */
export type StandardSchemaWithJSON = ObjectSchema

/**
 * A tool callback: `(args, extra)` with an input schema, `(extra)` without one (as in the SDKs).
 * Conditional on `In` itself, as the SDKs write it: a callback given through a generic wrapper
 * (`<In>(…, callback: ToolCallback<In>)`) is then typed by what it returns, its literals kept.
 */
export type ToolCallback<In extends ToolInputSchema = undefined, Env = unknown> = In extends undefined
  ? (extra: RequestHandlerExtra<Env>) => Awaitable<CallToolResult | InputRequiredResult>
  : (args: ShapeOutput<In>, extra: RequestHandlerExtra<Env>) => Awaitable<CallToolResult | InputRequiredResult>

export interface ToolConfig<In extends ToolInputSchema = ToolInputSchema, Out = unknown> {
  title?: string
  description?: string
  inputSchema?: In
  outputSchema?: Out
  annotations?: ToolAnnotations
  icons?: Icon[]
  _meta?: Record<string, unknown>
  /** The SDK's task support (Tasks extension): `required` is mcp-edge's `task: 'always'`. */
  execution?: { taskSupport?: 'forbidden' | 'optional' | 'required' }
  /** mcp-edge: run the call as a durable task (`task` of the native `server.tool`). */
  task?: TaskMode | { mode: TaskMode; ttlMs?: number | null; pollIntervalMs?: number }
  /** mcp-edge: the tool streams partial results (`extra.edge.partial`). */
  streaming?: boolean | { assemble?: boolean }
  /** mcp-edge: OAuth scopes a caller needs to see and call the tool. */
  scopes?: string[]
  /** mcp-edge: the tool's view (MCP Apps). */
  view?: ToolView
  /** mcp-edge: client capabilities the tool cannot run without. */
  requires?: CapabilityPath[]
  /** mcp-edge: single-use confirmation state (default: by the tool's annotations). */
  singleUseState?: boolean
}

export type ResourceMetadata = {
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: Annotations
  icons?: Icon[]
  _meta?: Record<string, unknown>
  /** mcp-edge: OAuth scopes a caller needs to list and read it. */
  scopes?: string[]
}

export type ReadResourceCallback<Env = unknown> = (
  uri: URL,
  extra: RequestHandlerExtra<Env>,
) => Awaitable<ReadResourceResult | InputRequiredResult>
export type ReadResourceTemplateCallback<Env = unknown> = (
  uri: URL,
  variables: Record<string, string | string[]>,
  extra: RequestHandlerExtra<Env>,
) => Awaitable<ReadResourceResult | InputRequiredResult>

export type PromptArgsSchema = ZodRawShape | ObjectSchema | Zod3Object | undefined
/** A prompt callback: `(args, extra)` with arguments, `(extra)` without (as in the SDKs; see `ToolCallback`). */
export type PromptCallback<Args extends PromptArgsSchema = undefined, Env = unknown> = Args extends undefined
  ? (extra: RequestHandlerExtra<Env>) => Awaitable<GetPromptResult | InputRequiredResult>
  : (args: ShapeOutput<Args>, extra: RequestHandlerExtra<Env>) => Awaitable<GetPromptResult | InputRequiredResult>

export interface PromptConfig<Args extends PromptArgsSchema> {
  title?: string
  description?: string
  argsSchema?: Args
  icons?: Icon[]
  _meta?: Record<string, unknown>
  scopes?: string[]
}

export interface RegisteredTool extends Registered<ToolSlotConfig> {
  update(
    changes: UpdateBase & {
      title?: string
      description?: string
      paramsSchema?: ToolInputSchema
      outputSchema?: unknown
      annotations?: ToolAnnotations
      _meta?: Record<string, unknown>
      callback?: AnyCallback
    },
  ): void
}
export type RegisteredResource = Registered<ResourceSlotConfig>
export type RegisteredResourceTemplate = Registered<ResourceSlotConfig>
export type RegisteredPrompt = Registered<PromptSlotConfig>

export interface ToolSlotConfig extends ToolConfig<ToolInputSchema, unknown> {
  callback: AnyCallback
}
export interface ResourceSlotConfig {
  name: string
  target: string | ResourceTemplate
  metadata: ResourceMetadata
  callback: AnyCallback
}
export interface PromptSlotConfig extends PromptConfig<PromptArgsSchema> {
  callback: AnyCallback
}

/** Options of the SDKs' `McpServer` constructor, and any of mcp-edge's server options. */
export type McpServerOptions = Omit<Partial<ServerOptions>, 'name' | 'version'> & {
  /** The SDKs' declared capabilities: mcp-edge derives them from what is registered. */
  capabilities?: object
  /**
   * SDK 2.x: how a handler's own `requestState` is read back (`createRequestStateCodec(...).verify`);
   * `ctx.mcpReq.requestState()` then gives the decoded payload.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the handler's payload, whatever its codec mints
  requestState?: { verify(state: string, ctx: RequestHandlerExtra): Promise<any> }
  [option: string]: unknown
}
