/**
 * A registered tool as the runtime keeps it. Its wire definition (JSON Schema 2020-12) and its
 * `x-mcp-header` params are derived from its schemas once: at registration for schemas given as
 * values (so a bad schema fails at start-up), or on first use for schemas given as functions, so a
 * server with many tools pays nothing for those at start-up and only for the tools an isolate
 * lists or calls.
 */
import { toolViewMeta } from './apps.ts'
import { findHeaderParams } from '../protocol/header-values.ts'
import type { HeaderParam } from '../protocol/header-values.ts'
import type { CallToolResult, Tool } from '../protocol/types.ts'
import { positive } from './limits.ts'
import { DEFAULT_MAX_RESULT_BYTES } from './results/budget.ts'
import { toJsonSchema } from './schema/schema.ts'
import type { JsonSchema, JsonSchemaConverter, JsonSchemaInput, ObjectSchema, Schema } from './schema/schema.ts'
import type {
  Awaitable,
  CapabilityPath,
  RequestContext,
  TaskMode,
  ToolContext,
  ToolInput,
  ToolOptions,
  ToolOutput,
  Visibility,
} from './types.ts'

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
  /** Title and description as given, read by tool search without building the definition. */
  readonly title: string | undefined
  readonly description: string | undefined
  readonly definition: Tool
  /** zod input schema, or undefined for raw JSON Schema inputs (object check only). */
  readonly input: ObjectSchema | undefined
  readonly output: Schema | undefined
  readonly headerParams: HeaderParam[]
  streaming: boolean
  assemble: boolean
  task: TaskPolicy
  singleUseState: boolean
  scopes: readonly string[]
  /** Who the tool exists for (`visible`); undefined: everyone its scopes admit. */
  visible: Visibility<Env> | undefined
  requires: readonly CapabilityPath[]
  prepare: ((args: never, ctx: RequestContext<Env>) => Awaitable<unknown>) | undefined
  /** The tool's own result budget (`maxResultBytes`); undefined: the server's. */
  maxResultBytes: number | undefined
  handler: (args: never, ctx: ToolContext<Env>) => Awaitable<CallToolResult>
}

function isJsonSchemaInput(value: unknown): value is JsonSchemaInput {
  return typeof value === 'object' && value !== null && 'jsonSchema' in value
}

/** A tool's schemas once resolved (functions called). */
interface ToolSchemas {
  input: ObjectSchema | JsonSchemaInput
  output: Schema | undefined
}

type AnyToolOptions<Env> = ToolOptions<ToolInput, ToolOutput | undefined, unknown, Env>

function resolveSchemas<Env>(options: AnyToolOptions<Env>): ToolSchemas {
  return {
    input: typeof options.input === 'function' ? options.input() : options.input,
    output: typeof options.output === 'function' ? options.output() : options.output,
  }
}

function toolDefinition<Env>(
  name: string,
  options: AnyToolOptions<Env>,
  { input, output }: ToolSchemas,
  convert: JsonSchemaConverter | undefined,
): Tool {
  const definition: Tool = { name, inputSchema: inputJsonSchema(name, input, convert) as Tool['inputSchema'] }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (output !== undefined) definition.outputSchema = toolJsonSchema(name, output, 'output', convert)
  const annotations = isStreaming(options) ? { ...options.annotations, streamingHint: true } : options.annotations
  if (annotations !== undefined) definition.annotations = annotations
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  if (options.view !== undefined) definition._meta = toolViewMeta(options.view, options._meta, name)
  // Claude Code refuses results over ~25k tokens unless the tool declares a larger size.
  const budget = options.maxResultBytes
  if (budget !== undefined && budget > DEFAULT_MAX_RESULT_BYTES) {
    definition._meta = { ...definition._meta, 'anthropic/maxResultSizeChars': budget }
  }
  return definition
}

/** A tool's input as JSON Schema, which must describe an object. */
function inputJsonSchema(name: string, input: ObjectSchema | JsonSchemaInput, convert?: JsonSchemaConverter): JsonSchema {
  const schema = isJsonSchemaInput(input) ? input.jsonSchema : toolJsonSchema(name, input, 'input', convert)
  if (schema.type !== 'object') throw new Error(`Tool "${name}": the input schema must have type "object"`)
  return schema
}

/** A tool's schema as JSON Schema; what zod cannot express fails naming the tool. */
function toolJsonSchema(name: string, schema: Schema, io: 'input' | 'output', convert?: JsonSchemaConverter): JsonSchema {
  try {
    return toJsonSchema(schema, io, convert)
  } catch (error) {
    throw new Error(`Tool "${name}", ${io} schema: ${(error as Error).message}`)
  }
}

/**
 * Destructive as MCP reads the hints (server/tools "Tool annotations"): `readOnlyHint` defaults
 * to false and `destructiveHint` to true, so a tool without annotations is destructive.
 */
export const isDestructive = (annotations: Tool['annotations']) =>
  annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false

const isStreaming = (options: { streaming?: unknown }) => options.streaming !== undefined && options.streaming !== false

export function buildToolEntry<Env>(
  name: string,
  options: AnyToolOptions<Env>,
  handler: ToolEntry<Env>['handler'],
  convert?: JsonSchemaConverter,
): ToolEntry<Env> {
  if (!TOOL_NAME.test(name)) {
    throw new Error(`Tool name "${name}" must be 1–128 characters from A-Z a-z 0-9 _ . - (server/tools "Tool names")`)
  }
  let schemas: ToolSchemas | undefined
  let wire: { definition: Tool; headerParams: HeaderParam[] } | undefined
  const resolved = () => {
    schemas ??= resolveSchemas(options)
    return schemas
  }
  const built = () => {
    if (!wire) {
      const definition = toolDefinition(name, options, resolved(), convert)
      wire = { definition, headerParams: findHeaderParams(name, definition.inputSchema) }
    }
    return wire
  }
  // Schemas given as values are converted and checked now, so a schema with no JSON Schema, a
  // non-object input or a bad header annotation fails at start-up (and `wrangler deploy` refuses
  // the script) instead of breaking tools/list later. Schemas given as functions wait for first use.
  const { input, output } = options
  if (typeof input !== 'function' && typeof output !== 'function') built()
  // One half a function, the other a value: the value is checked now, the definition waits.
  else if (typeof input !== 'function') findHeaderParams(name, inputJsonSchema(name, input, convert))
  else if (output !== undefined && typeof output !== 'function') toolJsonSchema(name, output, 'output', convert)
  const given: Partial<TaskPolicy> & { mode: TaskMode } =
    typeof options.task === 'object' ? options.task : { mode: options.task ?? 'never' }
  const { mode, ttlMs = DEFAULT_TASK_TTL_MS, pollIntervalMs = DEFAULT_TASK_POLL_MS } = given
  return {
    name,
    title: options.title,
    description: options.description,
    get definition() {
      return built().definition
    },
    get input() {
      const { input } = resolved()
      return isJsonSchemaInput(input) ? undefined : input
    },
    get output() {
      return resolved().output
    },
    get headerParams() {
      return built().headerParams
    },
    streaming: isStreaming(options),
    assemble: typeof options.streaming === 'object' && options.streaming.assemble === true,
    task: { mode, ttlMs, pollIntervalMs },
    // Abuse-resistant default: a destructive tool's confirmation cannot be replayed (opt out with false).
    singleUseState: options.singleUseState ?? isDestructive(options.annotations),
    scopes: options.scopes ?? [],
    visible: options.visible,
    requires: options.requires ?? [],
    prepare: options.prepare as ToolEntry<Env>['prepare'],
    maxResultBytes:
      options.maxResultBytes === undefined ? undefined : positive(options.maxResultBytes, 0, `Tool "${name}": maxResultBytes`),
    handler,
  }
}
