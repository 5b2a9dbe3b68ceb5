/**
 * Registered entries as the runtime keeps them: each definition's wire JSON is computed once at
 * registration (JSON Schema 2020-12, `x-mcp-header` params, prompt arguments), so a request only
 * looks things up. Registration errors are configuration errors and throw at start-up.
 */
import type { Prompt, PromptArgument, Resource, ResourceTemplate, Tool } from '../protocol/types.ts'
import { findHeaderParams } from '../protocol/header-values.ts'
import type { HeaderParam } from '../protocol/header-values.ts'
import { toJsonSchema } from './schema.ts'
import type { JsonSchema, JsonSchemaConverter, JsonSchemaInput, ObjectSchema, Schema } from './schema.ts'
import type {
  CacheHint,
  Completer,
  PromptHandler,
  ResourceHandler,
  ResourceOptions,
  ResourceTemplateHandler,
  ResourceTemplateOptions,
  TaskMode,
  ToolContext,
  ToolOptions,
  PromptOptions,
  Awaitable,
  CapabilityPath,
  RequestContext,
} from './types.ts'
import type { CallToolResult } from '../protocol/types.ts'
import { compileUriTemplate } from './uri-template.ts'
import type { UriTemplate } from './uri-template.ts'

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000
export const DEFAULT_TASK_POLL_MS = 1000

export interface TaskPolicy {
  mode: TaskMode
  ttlMs: number | null
  pollIntervalMs: number
}

export interface ToolEntry<Env = unknown> {
  name: string
  definition: Tool
  /** zod input schema, or undefined for raw JSON Schema inputs (object check only). */
  input: ObjectSchema | undefined
  output: Schema | undefined
  headerParams: HeaderParam[]
  streaming: boolean
  assemble: boolean
  task: TaskPolicy
  singleUseState: boolean
  scopes: readonly string[]
  requires: readonly CapabilityPath[]
  prepare: ((args: never, ctx: RequestContext<Env>) => Awaitable<unknown>) | undefined
  handler: (args: never, ctx: ToolContext<Env>) => Awaitable<CallToolResult>
}

export interface ResourceEntry<Env = unknown> {
  definition: Resource
  scopes: readonly string[]
  cache: CacheHint | undefined
  handler: ResourceHandler<Env>
}

export interface TemplateEntry<Env = unknown> {
  definition: ResourceTemplate
  template: UriTemplate
  scopes: readonly string[]
  cache: CacheHint | undefined
  complete: Record<string, Completer<Env>>
  handler: ResourceTemplateHandler<Env>
}

export interface PromptEntry<Env = unknown> {
  definition: Prompt
  args: ObjectSchema | undefined
  scopes: readonly string[]
  required: string[]
  complete: Record<string, Completer<Env>>
  handler: PromptHandler<ObjectSchema | undefined, Env>
}

function isJsonSchemaInput(value: unknown): value is JsonSchemaInput {
  return typeof value === 'object' && value !== null && 'jsonSchema' in value
}

export function buildToolEntry<Env>(
  name: string,
  options: ToolOptions<ObjectSchema | JsonSchemaInput, Schema | undefined, unknown, Env>,
  handler: ToolEntry<Env>['handler'],
  convert?: JsonSchemaConverter,
): ToolEntry<Env> {
  if (!TOOL_NAME.test(name)) {
    throw new Error(`Tool name "${name}" must be 1–128 characters from A-Z a-z 0-9 _ . - (server/tools "Tool names")`)
  }
  const raw = isJsonSchemaInput(options.input)
  const inputSchema = raw
    ? (options.input as JsonSchemaInput).jsonSchema
    : toJsonSchema(options.input as ObjectSchema, 'input', convert)
  if (inputSchema.type !== 'object') throw new Error(`Tool "${name}": the input schema must have type "object"`)
  const streaming = options.streaming !== undefined && options.streaming !== false
  const definition: Tool = { name, inputSchema: inputSchema as Tool['inputSchema'] }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (options.output !== undefined) definition.outputSchema = toJsonSchema(options.output, 'output', convert)
  const annotations = streaming ? { ...options.annotations, streamingHint: true } : options.annotations
  if (annotations !== undefined) definition.annotations = annotations
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  const task = typeof options.task === 'object' ? options.task : { mode: options.task ?? 'never' }
  return {
    name,
    definition,
    input: raw ? undefined : (options.input as ObjectSchema),
    output: options.output,
    headerParams: findHeaderParams(name, inputSchema),
    streaming,
    assemble: typeof options.streaming === 'object' && options.streaming.assemble === true,
    task: {
      mode: task.mode,
      ttlMs: 'ttlMs' in task && task.ttlMs !== undefined ? task.ttlMs : DEFAULT_TASK_TTL_MS,
      pollIntervalMs: 'pollIntervalMs' in task && task.pollIntervalMs !== undefined ? task.pollIntervalMs : DEFAULT_TASK_POLL_MS,
    },
    // Abuse-resistant default: a destructive tool's confirmation cannot be replayed (opt out with false).
    singleUseState: options.singleUseState ?? annotations?.destructiveHint === true,
    scopes: options.scopes ?? [],
    requires: options.requires ?? [],
    prepare: options.prepare as ToolEntry<Env>['prepare'],
    handler,
  }
}

export function buildResourceEntry<Env>(
  uri: string,
  options: ResourceOptions,
  handler: ResourceHandler<Env>,
): ResourceEntry<Env> {
  const { cache, scopes, ...rest } = options
  return { definition: { uri, ...rest }, scopes: scopes ?? [], cache, handler }
}

export function buildTemplateEntry<Env>(
  uriTemplate: string,
  options: ResourceTemplateOptions<Env>,
  handler: ResourceTemplateHandler<Env>,
): TemplateEntry<Env> {
  const { cache, complete, scopes, ...rest } = options
  return {
    definition: { uriTemplate, ...rest },
    template: compileUriTemplate(uriTemplate),
    scopes: scopes ?? [],
    cache,
    complete: complete ?? {},
    handler,
  }
}

export function buildPromptEntry<Env>(
  name: string,
  options: PromptOptions<ObjectSchema | undefined>,
  handler: PromptEntry<Env>['handler'],
  convert?: JsonSchemaConverter,
): PromptEntry<Env> {
  const definition: Prompt = { name }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  let required: string[] = []
  if (options.args !== undefined) {
    const schema = toJsonSchema(options.args, 'input', convert)
    required = (schema.required as string[] | undefined) ?? []
    definition.arguments = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([key, property]) => {
      const argument: PromptArgument = { name: key }
      if (typeof property.title === 'string') argument.title = property.title
      if (typeof property.description === 'string') argument.description = property.description
      argument.required = required.includes(key)
      return argument
    })
  }
  return {
    definition,
    args: options.args,
    scopes: options.scopes ?? [],
    required,
    complete: (options.complete ?? {}) as Record<string, Completer<Env>>,
    handler,
  }
}
