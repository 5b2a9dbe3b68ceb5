/**
 * A registered tool as the runtime keeps it. Registration stores the options and checks only what
 * needs no schema conversion (the name, a raw `{ jsonSchema }` input, the view, the result budget); the
 * wire definition (JSON Schema 2020-12) and the `x-mcp-header` params are derived from the schemas
 * on the tool's first use in an isolate (a `tools/list` page that holds it, a call, tool search),
 * once, whether the schemas were given as values or as functions. So a server with many tools
 * pays at start-up only for building its zod schemas (its own module's work), not for converting
 * them. A schema with no JSON Schema (or a bad header annotation, or a schema function that
 * throws) fails every use with an error naming the tool and the schema, logged once; lists and
 * tool search leave the tool out (`checkSchemas()` finds such tools in a test); see docs/tools.md
 * "Many tools".
 */
import { checkViewUri, toolViewMeta } from './apps.ts'
import { findHeaderParams } from '../protocol/header-values.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import type { HeaderParam } from '../protocol/header-values.ts'
import type { CallToolResult, Tool } from '../protocol/types.ts'
import { positive } from './limits.ts'
import { warnOnce } from './telemetry/log.ts'
import { checkArguments, checkToolSchemas } from './registration.ts'
import { DEFAULT_MAX_RESULT_BYTES } from './results/budget.ts'
import { Derived } from './schema/derived.ts'
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

/**
 * Set on a tool's options by mcp-edge/sdk: a name outside that convention (a SHOULD of the spec:
 * `list sites`, `github:search`) is served with a warning, as SDK 1.x does, so code written for it
 * loads; a native tool's is refused at registration. Not exported from the package.
 */
export const CONVENTION_WARNED = Symbol('mcp-edge: tool name convention warned, not enforced')
/**
 * Set on a tool's options by mcp-edge/sdk, which checks each result against the output schema
 * itself (a failure is an `isError` result there, as in the SDKs): the core does not parse it again.
 */
export const OUTPUT_CHECKED = Symbol('mcp-edge: the result is checked against the output schema before the core sees it')
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
  /** Results are checked against `output` before they reach the core (`OUTPUT_CHECKED`). */
  readonly outputChecked: boolean
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

/** A tool's schemas, functions called; a function that throws fails naming the tool and the schema. */
function resolveSchemas<Env>(name: string, options: AnyToolOptions<Env>): ToolSchemas {
  return { input: resolveSchema(name, options.input, 'input'), output: resolveSchema(name, options.output, 'output') }
}

function resolveSchema<S>(name: string, given: S | (() => S), io: 'input' | 'output'): S {
  if (typeof given !== 'function') return given
  try {
    return (given as () => S)()
  } catch (error) {
    throw new Error(`Tool "${name}", ${io} schema function: ${(error as Error).message}`)
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
  if (output !== undefined) definition.outputSchema = outputJsonSchema(name, output, convert)
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

/**
 * A tool's output as JSON Schema, whose root says `type: "object"` (MCP's `Tool.outputSchema`;
 * `structuredContent` is an object): a root that says no type but can only describe objects (a
 * union or discriminated union of objects, an intersection with one, a `$ref` to one) gets it, as
 * SDK 2.x lists it. Listed without it, clients refused the whole `tools/list` (SDK 1.x's
 * `listTools()` threw; a porting round met a discriminated union). Any other root is listed as it
 * is to 2026-07-28 clients, and left out for 2025-era ones, whose revisions take an object's only
 * (protocol/legacy.ts); said once in the log.
 */
function outputJsonSchema(name: string, output: Schema, convert?: JsonSchemaConverter): JsonSchema {
  const schema = toolJsonSchema(name, output, 'output', convert)
  if (schema.type === undefined && describesObjects(schema, schema.$defs)) {
    const { $schema, ...rest } = schema
    return $schema === undefined ? { type: 'object', ...rest } : { $schema, type: 'object', ...rest }
  }
  if (schema.type !== 'object')
    warnOnce(
      `Tool "${name}": its output schema does not describe an object: 2025-era clients get the tool without it, and its structured content as text`,
    )
  return schema
}

/** Whether every value `node` accepts is an object (`$defs`: the root's, for a local `$ref`; `depth` bounds a cycle of them). */
function describesObjects(node: unknown, defs: unknown, depth = 0): boolean {
  if (!isObject(node) || depth > 8) return false
  if (node.type === 'object') return true
  if (node.type !== undefined) return false
  const ref = node.$ref
  if (typeof ref === 'string') {
    const match = /^#\/\$defs\/([^/]+)$/.exec(ref)
    return match !== null && isObject(defs) && describesObjects(defs[match[1] as string], defs, depth + 1)
  }
  const members = (key: string) => (Array.isArray(node[key]) && node[key].length > 0 ? (node[key] as unknown[]) : undefined)
  const either = members('anyOf') ?? members('oneOf')
  if (either) return either.every((member) => describesObjects(member, defs, depth + 1))
  const all = members('allOf')
  return all?.some((member) => describesObjects(member, defs, depth + 1)) === true
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

/** A tool's wire form, derived from its schemas on first use. */
interface Wire {
  definition: Tool
  headerParams: HeaderParam[]
}

/** One task policy shared by every tool that never runs as a task (most of them). */
const NO_TASKS: TaskPolicy = Object.freeze({ mode: 'never', ttlMs: DEFAULT_TASK_TTL_MS, pollIntervalMs: DEFAULT_TASK_POLL_MS })

function taskPolicy(task: AnyToolOptions<unknown>['task']): TaskPolicy {
  if (task === undefined || task === 'never') return NO_TASKS
  const given: Partial<TaskPolicy> & { mode: TaskMode } = typeof task === 'object' ? task : { mode: task }
  const { mode, ttlMs = DEFAULT_TASK_TTL_MS, pollIntervalMs = DEFAULT_TASK_POLL_MS } = given
  return { mode, ttlMs, pollIntervalMs }
}

/** A tool's schemas that failed on their first build: the wire form's failure, or a call's (a 2025-era call builds no wire form). */
const SCHEMA_FAILED = 'tool schema failed: the tool is left out of lists and its calls fail'
/**
 * A call's schemas that failed to build after a list had built them once and let them go (a
 * schema function must return the same schema each time): the tool stays listed, its calls fail.
 */
const SCHEMA_REBUILD_FAILED = 'tool schema failed when built again for a call: the tool stays listed and its calls fail'

/**
 * A tool whose derived parts are getters on the class, not closures per derived part: registering
 * one is a few field writes and one small closure (`#resolve`), and the schemas are resolved
 * (functions called) and converted on first use.
 */

class RegisteredTool<Env> implements ToolEntry<Env> {
  readonly name: string
  readonly title: string | undefined
  readonly description: string | undefined
  readonly streaming: boolean
  readonly assemble: boolean
  readonly task: TaskPolicy
  readonly singleUseState: boolean
  readonly scopes: readonly string[]
  readonly visible: Visibility<Env> | undefined
  readonly requires: readonly CapabilityPath[]
  readonly prepare: ToolEntry<Env>['prepare']
  readonly maxResultBytes: number | undefined
  readonly outputChecked: boolean
  readonly handler: ToolEntry<Env>['handler']
  readonly #options: AnyToolOptions<Env>
  readonly #convert: JsonSchemaConverter | undefined
  /** The schemas resolved and the wire form; what deriving either threw is kept (derived.ts). */
  readonly #schemas = new Derived<ToolSchemas>()
  readonly #wire = new Derived<Wire>()

  constructor(name: string, options: AnyToolOptions<Env>, handler: ToolEntry<Env>['handler'], convert?: JsonSchemaConverter) {
    this.name = name
    this.title = options.title
    this.description = options.description
    this.streaming = isStreaming(options)
    this.assemble = typeof options.streaming === 'object' && options.streaming.assemble === true
    this.task = taskPolicy(options.task)
    // Abuse-resistant default: a destructive tool's confirmation cannot be replayed (opt out with false).
    this.singleUseState = options.singleUseState ?? isDestructive(options.annotations)
    this.scopes = options.scopes ?? []
    this.visible = options.visible
    this.requires = options.requires ?? []
    this.prepare = options.prepare as ToolEntry<Env>['prepare']
    this.maxResultBytes =
      options.maxResultBytes === undefined ? undefined : positive(options.maxResultBytes, 0, `Tool "${name}": maxResultBytes`)
    this.outputChecked = (options as { [OUTPUT_CHECKED]?: boolean })[OUTPUT_CHECKED] === true
    this.handler = handler
    this.#options = options
    this.#convert = convert
  }

  get definition(): Tool {
    return this.#built(false).definition
  }

  /**
   * Read by a call (its `Mcp-Param-*` headers) before it parses with the schemas: a wire form built
   * here keeps them; one a list built already is reused, and `input`/`output` keep them.
   */
  get headerParams(): HeaderParam[] {
    return this.#built(true).headerParams
  }

  get input(): ObjectSchema | undefined {
    const { input } = this.#resolved(this.#failedLog())
    return isJsonSchemaInput(input) ? undefined : input
  }

  get output(): Schema | undefined {
    return this.#resolved(this.#failedLog()).output
  }

  /** What a call's failed build is logged as: a rebuild after a list made the wire form, or the first build. */
  #failedLog(): string {
    return this.#wire.built ? SCHEMA_REBUILD_FAILED : SCHEMA_FAILED
  }

  /** The schemas, kept; a failure is logged with `log` (the wire form logs its own). */
  #resolved(log?: string): ToolSchemas {
    return this.#schemas.get(this.#resolve, log)
  }

  /** Resolve the tool's schemas: call the functions it was given (what `#schemas` keeps, or lets go after a list). */
  #resolve = (): ToolSchemas => resolveSchemas(this.name, this.#options)

  /**
   * The wire form. For a list (`keep` false), schemas given as functions are built for it and let
   * go, unless a call already kept them: a client that lists every tool leaves the definitions in
   * the isolate, not a zod object tree per tool besides (with the benchmark's catalog about 27 KiB
   * a tool, against about 2 KiB of definition). A later call builds them again, once, and keeps them.
   */
  #built(keep: boolean): Wire {
    return this.#wire.get(
      () => {
        const schemas = keep ? this.#resolved() : this.#schemas.transient(this.#resolve)
        const definition = toolDefinition(this.name, this.#options, schemas, this.#convert)
        return { definition, headerParams: findHeaderParams(this.name, definition.inputSchema) }
      },
      this.#schemas.failed ? undefined : SCHEMA_FAILED,
    ) // a call's failed build was logged already
  }
}

/**
 * Register-time checks and the entry. What needs no conversion fails here, at start-up: a bad
 * name, options or a handler of the wrong kind, no input (registration.ts), a raw `{ jsonSchema }` input that is no object or has a bad header annotation, a view
 * that is no `ui://` URI, a bad `maxResultBytes`. Everything derived from zod schemas waits for
 * the tool's first use.
 */
export function buildToolEntry<Env>(
  name: string,
  options: AnyToolOptions<Env>,
  handler: ToolEntry<Env>['handler'],
  convert?: JsonSchemaConverter,
): ToolEntry<Env> {
  if (!TOOL_NAME.test(name)) {
    const convention = '1–128 characters from A-Z a-z 0-9 _ . -'
    if (name === '' || (options as { [CONVENTION_WARNED]?: boolean })[CONVENTION_WARNED] !== true)
      throw new Error(`Tool name "${name}" must be ${convention} (server/tools "Tool names")`)
    warnOnce(`Tool name "${name}" is not ${convention}, as the spec says tool names should be: some clients may refuse it`)
  }
  checkArguments(`Tool "${name}"`, options, handler, 'server.tool(name, { input, ... }, handler)')
  checkToolSchemas(`Tool "${name}"`, options)
  if (isJsonSchemaInput(options.input)) findHeaderParams(name, inputJsonSchema(name, options.input))
  const { view } = options
  if (view !== undefined) checkViewUri(typeof view === 'string' ? view : view.uri, `Tool "${name}"`)
  return new RegisteredTool(name, options, handler, convert)
}
