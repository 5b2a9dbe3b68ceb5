/**
 * A registered tool as the runtime keeps it. Its wire definition (JSON Schema 2020-12) and its
 * `x-mcp-header` params are derived from its schemas once, when first needed: a tool given zod
 * objects has them checked at registration (a bad header annotation or a non-object input fails at
 * start-up) but its JSON Schema built when it is first listed; a tool whose schemas are functions
 * has them built, converted and checked on its first use, so a server with many tools pays
 * nothing for them at start-up and only for the tools an isolate lists or calls.
 */
import type { CallToolResult, Tool } from '../protocol/types.ts'
import { findHeaderParams, mayHaveMeta, toJsonSchema } from './schema.ts'
import type { HeaderParam, JsonSchema, JsonSchemaInput, ObjectSchema, Schema } from './schema.ts'
import type {
  Awaitable,
  CapabilityPath,
  RequestContext,
  TaskMode,
  ToolContext,
  ToolInput,
  ToolOptions,
  ToolOutput,
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

function isJsonSchemaInput(value: unknown): value is JsonSchemaInput {
  return typeof value === 'object' && value !== null && 'jsonSchema' in value
}

const HEADER_ANNOTATION = 'x-mcp-header'

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

function toolDefinition<Env>(name: string, options: AnyToolOptions<Env>, { input, output }: ToolSchemas): Tool {
  const inputSchema = isJsonSchemaInput(input) ? input.jsonSchema : toolJsonSchema(name, input, 'input')
  if (inputSchema.type !== 'object') throw new Error(`Tool "${name}": the input schema must have type "object"`)
  const definition: Tool = { name, inputSchema: inputSchema as Tool['inputSchema'] }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (output !== undefined) definition.outputSchema = toolJsonSchema(name, output, 'output')
  const annotations = isStreaming(options) ? { ...options.annotations, streamingHint: true } : options.annotations
  if (annotations !== undefined) definition.annotations = annotations
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  return definition
}

/** A tool's schema as JSON Schema; what zod cannot express fails naming the tool. */
function toolJsonSchema(name: string, schema: Schema, io: 'input' | 'output'): JsonSchema {
  try {
    return toJsonSchema(schema, io)
  } catch (error) {
    throw new Error(`Tool "${name}": its ${io} schema cannot be expressed as JSON Schema (${(error as Error).message})`)
  }
}

const isStreaming = (options: { streaming?: unknown }) => options.streaming !== undefined && options.streaming !== false

export function buildToolEntry<Env>(
  name: string,
  options: AnyToolOptions<Env>,
  handler: ToolEntry<Env>['handler'],
): ToolEntry<Env> {
  if (!TOOL_NAME.test(name)) {
    throw new Error(`Tool name "${name}" must be 1–128 characters from A-Z a-z 0-9 _ . - (server/tools "Tool names")`)
  }
  let schemas: ToolSchemas | undefined
  let definition: Tool | undefined
  let headerParams: HeaderParam[] | undefined
  const resolved = () => {
    schemas ??= resolveSchemas(options)
    return schemas
  }
  const wire = () => {
    definition ??= toolDefinition(name, options, resolved())
    return definition
  }
  const headers = () => {
    if (!headerParams) {
      const { input } = resolved()
      if (isJsonSchemaInput(input)) headerParams = findHeaderParams(name, wire().inputSchema)
      // Only an annotated schema needs its JSON Schema to find and check its header params.
      else headerParams = mayHaveMeta(input, HEADER_ANNOTATION) ? findHeaderParams(name, wire().inputSchema) : []
    }
    return headerParams
  }
  // Schemas given as values are checked now (a bad header annotation or a non-object input fails
  // at start-up); a plain zod object's JSON Schema waits until the tool is first listed.
  if (typeof options.input !== 'function' && typeof options.output !== 'function') {
    const { input } = resolved()
    if (isJsonSchemaInput(input) || (input._zod.def as { type?: string }).type !== 'object') wire()
    headers()
  }
  const task = typeof options.task === 'object' ? options.task : { mode: options.task ?? 'never' }
  return {
    name,
    get definition() {
      return wire()
    },
    get input() {
      const { input } = resolved()
      return isJsonSchemaInput(input) ? undefined : input
    },
    get output() {
      return resolved().output
    },
    get headerParams() {
      return headers()
    },
    streaming: isStreaming(options),
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
