/**
 * Registered entries as the runtime keeps them: each definition's wire JSON is computed once
 * (JSON Schema 2020-12, `x-mcp-header` params, prompt arguments), so a request only looks things
 * up. Registration errors are configuration errors and throw at start-up; a tool whose schemas
 * are given as functions has them built, converted and checked on its first use instead, so a
 * server with many tools pays nothing for them at start-up (and only for the tools an isolate
 * actually lists or calls).
 */
import type { Prompt, PromptArgument, Resource, ResourceTemplate, Tool } from '../protocol/types.ts'
import { findHeaderParams, toJsonSchema } from './schema.ts'
import type { HeaderParam, JsonSchema, JsonSchemaInput, ObjectSchema, Schema } from './schema.ts'
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
  ToolInput,
  ToolOptions,
  ToolOutput,
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
  readonly definition: Tool
  /** zod input schema, or undefined for raw JSON Schema inputs (object check only). */
  readonly input: ObjectSchema | undefined
  readonly output: Schema | undefined
  readonly headerParams: HeaderParam[]
  streaming: boolean
  assemble: boolean
  task: TaskPolicy
  singleUseState: boolean
  requires: readonly CapabilityPath[]
  prepare: ((args: never, ctx: RequestContext<Env>) => Awaitable<unknown>) | undefined
  handler: (args: never, ctx: ToolContext<Env>) => Awaitable<CallToolResult>
}

export interface ResourceEntry<Env = unknown> {
  definition: Resource
  cache: CacheHint | undefined
  handler: ResourceHandler<Env>
}

export interface TemplateEntry<Env = unknown> {
  definition: ResourceTemplate
  template: UriTemplate
  cache: CacheHint | undefined
  complete: Record<string, Completer<Env>>
  handler: ResourceTemplateHandler<Env>
}

export interface PromptEntry<Env = unknown> {
  definition: Prompt
  args: ObjectSchema | undefined
  required: string[]
  complete: Record<string, Completer<Env>>
  handler: PromptHandler<ObjectSchema | undefined, Env>
}

function isJsonSchemaInput(value: unknown): value is JsonSchemaInput {
  return typeof value === 'object' && value !== null && 'jsonSchema' in value
}

/** What a tool's schemas compile to: its wire definition, parsers and header params. */
interface CompiledSchemas {
  definition: Tool
  input: ObjectSchema | undefined
  output: Schema | undefined
  headerParams: HeaderParam[]
}

function compileSchemas<Env>(
  name: string,
  options: ToolOptions<ToolInput, ToolOutput | undefined, unknown, Env>,
): CompiledSchemas {
  const given = typeof options.input === 'function' ? options.input() : options.input
  const output = typeof options.output === 'function' ? options.output() : options.output
  const raw = isJsonSchemaInput(given)
  const inputSchema = raw ? given.jsonSchema : toJsonSchema(given, 'input')
  if (inputSchema.type !== 'object') throw new Error(`Tool "${name}": the input schema must have type "object"`)
  const definition: Tool = { name, inputSchema: inputSchema as Tool['inputSchema'] }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (output !== undefined) definition.outputSchema = toJsonSchema(output, 'output')
  const streaming = options.streaming !== undefined && options.streaming !== false
  const annotations = streaming ? { ...options.annotations, streamingHint: true } : options.annotations
  if (annotations !== undefined) definition.annotations = annotations
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  return { definition, input: raw ? undefined : given, output, headerParams: findHeaderParams(name, inputSchema) }
}

export function buildToolEntry<Env>(
  name: string,
  options: ToolOptions<ToolInput, ToolOutput | undefined, unknown, Env>,
  handler: ToolEntry<Env>['handler'],
): ToolEntry<Env> {
  if (!TOOL_NAME.test(name)) {
    throw new Error(`Tool name "${name}" must be 1–128 characters from A-Z a-z 0-9 _ . - (server/tools "Tool names")`)
  }
  let compiled: CompiledSchemas | undefined
  const schemas = () => {
    compiled ??= compileSchemas(name, options)
    return compiled
  }
  // Schemas given as values are compiled now, so a bad one fails at start-up.
  if (typeof options.input !== 'function' && typeof options.output !== 'function') schemas()
  const task = typeof options.task === 'object' ? options.task : { mode: options.task ?? 'never' }
  return {
    name,
    get definition() {
      return schemas().definition
    },
    get input() {
      return schemas().input
    },
    get output() {
      return schemas().output
    },
    get headerParams() {
      return schemas().headerParams
    },
    streaming: options.streaming !== undefined && options.streaming !== false,
    assemble: typeof options.streaming === 'object' && options.streaming.assemble === true,
    task: {
      mode: task.mode,
      ttlMs: 'ttlMs' in task && task.ttlMs !== undefined ? task.ttlMs : DEFAULT_TASK_TTL_MS,
      pollIntervalMs: 'pollIntervalMs' in task && task.pollIntervalMs !== undefined ? task.pollIntervalMs : DEFAULT_TASK_POLL_MS,
    },
    singleUseState: options.singleUseState === true,
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
  const { cache, ...rest } = options
  return { definition: { uri, ...rest }, cache, handler }
}

export function buildTemplateEntry<Env>(
  uriTemplate: string,
  options: ResourceTemplateOptions<Env>,
  handler: ResourceTemplateHandler<Env>,
): TemplateEntry<Env> {
  const { cache, complete, ...rest } = options
  return {
    definition: { uriTemplate, ...rest },
    template: compileUriTemplate(uriTemplate),
    cache,
    complete: complete ?? {},
    handler,
  }
}

export function buildPromptEntry<Env>(
  name: string,
  options: PromptOptions<ObjectSchema | undefined>,
  handler: PromptEntry<Env>['handler'],
): PromptEntry<Env> {
  const definition: Prompt = { name }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  let required: string[] = []
  if (options.args !== undefined) {
    const schema = toJsonSchema(options.args, 'input')
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
    required,
    complete: (options.complete ?? {}) as Record<string, Completer<Env>>,
    handler,
  }
}
