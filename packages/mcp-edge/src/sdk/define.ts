/**
 * Registering SDK-style definitions in the core registry: each becomes a core tool, resource,
 * template or prompt whose handler calls the SDK callback with the SDK-style context
 * (context.ts), on the core's multi-round-trip rounds (rounds.ts). `McpServer` (server.ts) calls
 * these from its registration handles, each time a definition is (re)added.
 */
import type { CallToolResult, CompleteResult, GetPromptResult, ReadResourceResult, Resource } from '../protocol/types.ts'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { McpError as EdgeError } from '../protocol/errors.ts'
import { ErrorCode, ProtocolError } from './errors.ts'
import { InputRequired } from '../server/input/input-round.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import { parseMaybeAsync } from '../server/schema/schema.ts'
import { toolError } from '../server/tool-result.ts'
import { CONVENTION_WARNED, OUTPUT_CHECKED } from '../server/tool-entry.ts'
import type { ObjectSchema, Parsed, Schema } from '../server/schema/schema.ts'
import type { McpServer as EdgeServer } from '../server/server.ts'
import { TaskSuspended } from '../server/tasks/replay.ts'
import { errorFields, libraryLog } from '../server/telemetry/log.ts'
import type { Awaitable, Completer, RequestContext, TaskMode, ToolOptions } from '../server/types.ts'
import type { RequestHandlerExtra } from './context.ts'
import { currentRequest, hostOf, withHandler } from './request-store.ts'
import { isInputRequired } from './input.ts'
import { isThenable, runSdkHandler } from './rounds.ts'
import type { Hooks } from './rounds.ts'
import { completersOf, promptArgs, toolInput, toolOutput } from './schema/schema.ts'
import type { CompleteCallback } from './schema/schema.ts'
import type { AnyCallback, PromptSlotConfig, ResourceSlotConfig, ToolSlotConfig } from './types.ts'

const TASK_SUPPORT: Record<string, TaskMode> = { forbidden: 'never', optional: 'optional', required: 'always' }
const URL_ELICITATION_RETIRED =
  'URL elicitation cannot be signalled by throwing UrlElicitationRequiredError on protocol revision 2026-07-28: ' +
  'return inputRequired({ inputRequests: { …: inputRequired.elicitUrl(...) } }) from the handler instead'
const isModern = (version: string) => (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)

const call = (callback: AnyCallback, ...args: unknown[]) => (callback as (...args: unknown[]) => unknown)(...args)

/**
 * A thrown error is a tool result with `isError` (as the SDKs do), the SDKs' `McpError` included;
 * questions (`InputRequired`), a task's suspension and mcp-edge's own protocol errors pass on.
 */
function toolFailure(error: unknown, ctx: RequestContext<unknown>): CallToolResult {
  if (error instanceof InputRequired || error instanceof TaskSuspended) throw error
  if (error instanceof EdgeError && !(error instanceof ProtocolError)) throw error
  // As in both SDKs: "URL elicitation required" is the client's to act on, a JSON-RPC error.
  if (error instanceof ProtocolError && error.code === ErrorCode.UrlElicitationRequired) protocolFailure(error, ctx)
  libraryLog.debug('tool failed', errorFields(error))
  return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true }
}

/**
 * A result without `content` (JavaScript code returning only `structuredContent`): SDK 1.x reads it
 * as no content, SDK 2.x adds its JSON as text, which the 2026-07-28 revision asks of structured
 * results; the core needs `content`, so it is completed here as SDK 2.x completes it.
 */
export function withContent(result: unknown): unknown {
  if (!isObject(result) || 'content' in result || isInputRequired(result)) return result
  const { structuredContent } = result as { structuredContent?: unknown }
  const content = structuredContent === undefined ? [] : [{ type: 'text', text: JSON.stringify(structuredContent) }]
  return { ...result, content }
}

/**
 * As both SDKs check a result against the tool's output schema: a result without `isError` that
 * lacks its structured content, or whose content does not match, is an `isError` result saying
 * so (the core, for its own tools, answers with a JSON-RPC error instead).
 */
function checkOutput(name: string, output: Schema, result: CallToolResult): CallToolResult | Promise<CallToolResult> {
  // Only a tool result is checked (as the SDKs do): not a question (`inputRequired`), not an error.
  if (!isObject(result) || !('content' in result) || result.isError === true) return result
  const failed = (text: string) => toolError(`Output validation error: ${text}`)
  if (result.structuredContent === undefined)
    return failed(`Tool ${name} has an output schema but no structured content was provided`)
  // Awaited where the schema has an `async` refinement, as the SDKs parse it (safeParseAsync).
  return afterResult(parseMaybeAsync(output, result.structuredContent), (checked) =>
    (checked as Parsed<Schema>).ok
      ? result
      : failed(`Invalid structured content for tool ${name}: ${(checked as { message: string }).message}`),
  ) as CallToolResult | Promise<CallToolResult>
}

export function defineTool<Env>(edge: EdgeServer<Env>, hooks: Hooks, name: string, config: ToolSlotConfig): void {
  const what = `Tool "${name}"`
  const given = config.inputSchema
  // Raw shapes and zod 3 schemas are refused now if they would be, and built on first use (schema.ts).
  const input = toolInput(given, what)
  const output = toolOutput(config.outputSchema, what)
  // The SDK's own fields (callback, schemas, execution) are translated; the rest are the core's names.
  const { callback, execution, inputSchema: _input, outputSchema: _output, task: taskOption, ...same } = config
  const support = execution?.taskSupport
  const task = taskOption ?? (support === undefined ? undefined : TASK_SUPPORT[support])
  const options = { ...same, input, output, task }
  const withArgs = given !== undefined
  const run = (args: unknown, extra: RequestHandlerExtra<Env>) => {
    const result = withArgs ? call(callback, args, extra) : call(callback, extra)
    return afterResult(result, withContent) as CallToolResult | Promise<CallToolResult>
  }
  const checked =
    output === undefined
      ? run
      : (args: unknown, extra: RequestHandlerExtra<Env>) =>
          Promise.resolve(run(args, extra)).then((result) =>
            checkOutput(name, typeof output === 'function' ? output() : output, result),
          )
  // As SDK 1.x, a name outside the spec's convention is warned about, not refused (tool-entry.ts).
  // The result is checked here, into an isError result as the SDKs do; the core need not check it again.
  const lenient = { ...dropUndefined(options), [CONVENTION_WARNED]: true, [OUTPUT_CHECKED]: true }
  edge.tool(name, lenient as ToolOptions<ObjectSchema, undefined, undefined, Env>, (args, ctx) =>
    runSdkHandler(ctx, hooks, (extra) => checked(args, extra) as CallToolResult, toolFailure),
  )
}

/**
 * What a handler's thrown error answers: itself, but "URL elicitation required" (-32042), which
 * 2026-07-28 retired ("MUST NOT be emitted"): there, as SDK 2.x does, an error naming the
 * replacement. For every kind of handler (tools, resources, prompts).
 */
export function protocolFailure(error: unknown, ctx: RequestContext<unknown>): never {
  if (error instanceof ProtocolError && error.code === ErrorCode.UrlElicitationRequired && isModern(ctx.meta.protocolVersion))
    throw new EdgeError('internalError', URL_ELICITATION_RETIRED)
  throw error
}

export function defineResource<Env>(
  edge: EdgeServer<Env>,
  hooks: Hooks,
  name: string,
  { target, metadata, callback }: ResourceSlotConfig,
): void {
  const { scopes, ...listing } = metadata
  const run = (ctx: RequestContext<Env>, call: (extra: RequestHandlerExtra<Env>) => unknown) =>
    runSdkHandler(ctx, hooks, (extra) => call(extra), protocolFailure) as Promise<ReadResourceResult>
  if (typeof target === 'string') {
    edge.resource(target, dropUndefined({ name, ...listing, scopes }), (uri, ctx) =>
      run(ctx, (extra) => call(callback, new URL(uri), extra)),
    )
    return
  }
  const complete = wrapCompleters(target.completeCallbacks)
  const list = target.listCallback
  const { size: _size, ...templateListing } = listing
  edge.resourceTemplate(
    target.uriTemplate,
    dropUndefined({
      name,
      ...templateListing,
      scopes,
      complete,
      // As the SDKs list them: the template's metadata under each resource's own fields.
      list:
        list &&
        (async (ctx: RequestContext<Env>) => {
          const listed = (await run(ctx, (extra) => list(extra as RequestHandlerExtra))) as unknown as { resources: Resource[] }
          return listed.resources.map((resource) => ({ ...templateListing, ...resource }))
        }),
    }),
    (uri, variables, ctx) => run(ctx, (extra) => call(callback, new URL(uri), variables, extra)),
  )
}

export function definePrompt<Env>(edge: EdgeServer<Env>, hooks: Hooks, name: string, config: PromptSlotConfig): void {
  const { callback, argsSchema, title, description, icons, _meta, scopes } = config
  const args = argsSchema === undefined ? undefined : promptArgs(argsSchema, `Prompt "${name}"`)
  const complete = completersOf(argsSchema)
  const options = dropUndefined({ title, description, icons, _meta, scopes, args, complete: wrapCompleters(complete) })
  edge.prompt(
    name,
    options,
    (parsed, ctx) =>
      runSdkHandler(
        ctx as RequestContext<Env>,
        hooks,
        (extra) => (args === undefined ? call(callback, extra) : call(callback, parsed, extra)),
        protocolFailure,
      ) as Promise<GetPromptResult>,
  )
}

/**
 * SDK completion callbacks as the core's completers (the same value, the other arguments), run
 * in the request's async context as handlers are (`getMcpAuthContext()` works in them). Their
 * suggestions go out with `total` and `hasMore`, as the SDKs send them (the core cuts at 100).
 */
function wrapCompleters(complete: Record<string, CompleteCallback>): Record<string, Completer<unknown>> {
  return Object.fromEntries(
    Object.entries(complete).map(([name, fn]) => [
      name,
      (value: string, ctx: RequestContext & { arguments: Record<string, string> }) =>
        afterResult(
          withHandler({ store: hostOf(ctx) ?? currentRequest(), handler: undefined }, () =>
            fn(value, { arguments: ctx.arguments }),
          ),
          counted,
        ) as Awaitable<CompleteResult['completion']>,
    ]),
  )
}

const counted = (values: unknown) => (Array.isArray(values) ? { values, total: values.length, hasMore: false } : values)

/** `finish` of what a handler returned: at once, or once its promise settles (a sync handler's result stays sync). */
export function afterResult(result: unknown, finish: (value: unknown) => unknown): unknown {
  return isThenable(result) ? Promise.resolve(result).then(finish) : finish(result)
}

export function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T
}
