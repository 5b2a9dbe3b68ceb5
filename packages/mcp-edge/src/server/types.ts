/**
 * The public types of the server builder: definitions users register and the context their
 * handlers receive. Runtime-free; `Env` is whatever the host passes (the Worker `env` on
 * Cloudflare). Past 300 lines on purpose: every option a user passes is described here, in one
 * place, as docs/reference.md shows it.
 */
import type { LogLevel } from '../protocol/constants.ts'
import type { RequestId } from '../protocol/jsonrpc.ts'
import type {
  CacheScope,
  CallToolResult,
  ClientCapabilities,
  CompleteResult,
  ContentBlock,
  Annotations,
  GetPromptResult,
  Icon,
  JsonObject,
  MetaObject,
  ReadResourceResult,
  RequestMeta,
  Resource,
  ToolAnnotations,
} from '../protocol/types.ts'
import type { EventDelivery } from './events/events.ts'
import type { CapabilityPath } from './capabilities.ts'
import type { InputResponses, InputSpecs } from './input/input.ts'
import type { OutboxStats, PartialChunk } from './outbox.ts'
import type { Infer, JsonSchemaConverter, JsonSchemaInput, ObjectSchema, Schema } from './schema/schema.ts'
import type { ResultPolicy } from './results/store.ts'
import type { TaskLimits } from './tasks/limits.ts'
import type { TelemetryConfig } from './telemetry/setup.ts'

/** Who is calling, as established by the `authenticate` option. */
export interface Principal {
  /** Stable identifier of the caller (token subject, user id). Sealed state and tasks bind to it. */
  subject: string
  /**
   * OAuth scopes the caller holds. Tools, resources and prompts that declare `scopes` need all of
   * theirs; without this field (a bearer secret, a local caller) scopes limit nothing.
   */
  scopes?: readonly string[]
  [claim: string]: unknown
}

/**
 * What a `visible` predicate sees of a request: who asks, the Worker env, and the request's `_meta`
 * (protocol version, client capabilities, client info; for a 2025-era session's stream, the
 * session's). A `RequestContext` is one.
 */
export interface VisibilityContext<Env = unknown> {
  readonly principal: Principal | undefined
  readonly env: Env
  readonly meta: RequestMeta
}

/**
 * Whether a tool, resource, resource template or prompt exists for this caller (docs/catalogs.md).
 * Synchronous and cheap: lists call it once per entry. What it hides is absent from lists and
 * search, and a call or read of it fails exactly as for one that was never registered. A predicate
 * that throws hides the entry (and the error is logged).
 */
export type Visibility<Env = unknown> = (ctx: VisibilityContext<Env>) => boolean

export interface CacheHint {
  ttlMs: number
  cacheScope: CacheScope
}

/**
 * The caller's access to their identity provider's API, from their sign-in (the OAuth template
 * keeps the provider's tokens with the grant, encrypted, and refreshes them). Never on the
 * principal: a principal is stored with tasks and handed to telemetry; this is neither.
 */
export interface UpstreamAccess {
  /** Where the caller signed in: the provider's issuer. */
  readonly issuer: string
  /** An access token for the provider's API as the caller, valid now. Never log it or return it. */
  token(): Promise<string>
}

/** Everything a handler may use while serving one request. */
export interface RequestContext<Env = unknown> {
  readonly requestId: RequestId
  readonly method: string
  /** Aborted when the client goes away (closing the SSE stream is cancellation) or the task is cancelled. */
  readonly signal: AbortSignal
  readonly env: Env
  readonly principal: Principal | undefined
  /** The caller's identity provider, as their sign-in left it (undefined without one, and in tasks). */
  readonly upstream: UpstreamAccess | undefined
  /** The request's `_meta` as read: protocol version, client capabilities, client info, tokens. */
  readonly meta: RequestMeta
  /** True when this request's client capabilities declare `path` (for example `'elicitation.url'`). */
  supports(path: CapabilityPath): boolean
  /** `notifications/progress` on this request's stream; a no-op without a `progressToken` (and in tasks). */
  progress(progress: number, total?: number, message?: string): void
  /** `notifications/message` on this request's stream, at or above the request's log level only. */
  log(level: LogLevel, data: unknown, logger?: string): void
  /**
   * Ask the client for input (multi-round-trip requests). Resolves with every answer once all
   * are in; otherwise the runtime answers `input_required` and the handler runs again, from the
   * top, when the client retries with the answers. Only on `tools/call`, `prompts/get` and
   * `resources/read`.
   */
  ask<const Specs extends InputSpecs>(requests: Specs): Promise<InputResponses<Specs>>
  /** Application state carried to the next round, sealed inside `requestState`. */
  readonly state: Record<string, unknown>
  /** 1 on the first call, +1 per retry with input responses. */
  readonly round: number
  /** Keep the Worker alive for `promise` after the response (the Worker's `executionCtx.waitUntil`). */
  waitUntil(promise: Promise<unknown>): void
}

export interface ToolContext<Env = unknown, Prep = unknown> extends RequestContext<Env> {
  /** What the tool's `prepare` step returned (undefined without one). */
  readonly prepared: Prep
  /**
   * Stream a partial result (SEP-2998). A no-op unless this request declared `partialResults`
   * and carried a `partialResultToken`. The promise resolves when the stream has room again:
   * awaiting it keeps every chunk (as long as each is under half the stream's byte budget);
   * ignoring it lets the runtime merge or drop chunks for a slow reader.
   */
  partial(chunk: PartialChunk | string): Promise<void>
  /** Counters of this call's partial-result stream. */
  partialStats(): OutboxStats
  /** Set when the call runs as a task (Tasks extension). */
  readonly task: { readonly id: string } | undefined
  /**
   * A checkpoint. In a task, `fn`'s JSON result is stored in the task's object before the step
   * returns, and when the handler runs again (after a restart, after input, in the next alarm)
   * a completed step returns its stored value without running; names must be unique in a call
   * and are matched, with their order, against what is stored. Outside tasks, `fn` just runs.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>
}

export type Awaitable<T> = T | Promise<T>

/**
 * A tool's input: a zod object or `{ jsonSchema }`, or a function that builds one on first use and
 * again on the first call after a list (which lets it go); it must return the same schema each
 * time. Either is converted to JSON Schema on first use.
 */
export type ToolInput = ObjectSchema | JsonSchemaInput | (() => ObjectSchema | JsonSchemaInput)
/** A tool's output schema, or a function that builds it on first use (and again after a list, as `ToolInput`'s). */
export type ToolOutput = Schema | (() => Schema)

/** Handler arguments: inferred from a zod input (or the one its function builds), a plain record for raw JSON Schema. */
export type ToolArgs<In> = In extends () => infer Built ? ArgsOf<Built> : ArgsOf<In>
type ArgsOf<In> = In extends ObjectSchema ? Infer<In> : Record<string, unknown>

export type ToolHandler<In, Env, Prep = unknown> = (args: ToolArgs<In>, ctx: ToolContext<Env, Prep>) => Awaitable<CallToolResult>

/** A tool's view (MCP Apps): its `ui://` URI, and who may call the tool (`model`, `app`; default both). */
export type ToolView = string | { uri: string; visibility?: ('model' | 'app')[] }

/** When a tool call becomes a task (Tasks extension). */
export type TaskMode = 'never' | 'optional' | 'always'

export interface ToolOptions<In extends ToolInput, Out extends ToolOutput | undefined, Prep, Env = unknown> {
  title?: string
  description?: string
  /**
   * A zod object (arguments are parsed with it), or `{ jsonSchema }` advertised as given (checked
   * now). Or a function returning either, called on the tool's first use, and again on its first
   * call after a list (a list lets the built schemas go): it must return the same schema each time. A zod schema's JSON
   * Schema is built and checked on the tool's first use (list or call), so registering costs
   * nearly nothing; a schema with no JSON Schema fails that use, naming the tool.
   */
  input: In
  /**
   * With an output schema, `structuredContent` is checked against it and mirrored as text. A
   * function: built on first use, and again on the first call after a list (the same schema each time).
   */
  output?: Out
  annotations?: ToolAnnotations
  icons?: Icon[]
  _meta?: MetaObject
  /**
   * Its view (MCP Apps): a `ui://` resource registered with `server.view`, which hosts with the
   * extension render with the tool's result. Sets `_meta.ui.resourceUri` (and the flat
   * `ui/resourceUri`); `visibility: ['app']` keeps the tool from the model, for the view's own calls.
   */
  view?: ToolView
  /** The tool streams partial results: advertises `annotations.streamingHint`. */
  streaming?: boolean | { assemble?: boolean }
  /**
   * Task support (Tasks extension). `optional`: a task when this request declared the extension,
   * a plain call otherwise; `always`: only as a task (-32021 for clients without it).
   */
  task?: TaskMode | { mode: TaskMode; ttlMs?: number | null; pollIntervalMs?: number }
  /** Client capabilities the tool cannot run without; missing ones get -32021 before it runs. */
  requires?: CapabilityPath[]
  /**
   * Require that each sealed `requestState` of this tool is redeemed once only (a nonce ledger,
   * `services.nonces`). Default: on for every tool MCP considers destructive, that is unless it is
   * annotated `readOnlyHint: true` or `destructiveHint: false` (a tool without annotations is
   * destructive). Without a ledger such a tool's state is refused; set `false` to opt out.
   */
  singleUseState?: boolean
  /** OAuth scopes a caller needs (all of them): others do not see the tool and get 403 on a call. */
  scopes?: string[]
  /**
   * Who the tool exists for. A caller it answers `false` for does not see it in `tools/list` or
   * `search_tools`, and calling it is -32602 "Unknown tool", as for a name never registered.
   */
  visible?: Visibility<Env>
  /**
   * Runs in the request before the tool starts (and before a task is created): may ask the client
   * for input with `ctx.ask` (Tasks §"MRTR before task creation"). Its JSON result reaches the
   * handler as `ctx.prepared`.
   */
  prepare?: (args: ToolArgs<In>, ctx: RequestContext<Env>) => Awaitable<Prep>
  /**
   * This tool's result budget in bytes (docs/results.md), instead of the server's (`results`,
   * default 64 KiB): a larger result is stored and answered with a preview and a link. Above the
   * default, the tool declares `_meta["anthropic/maxResultSizeChars"]` so Claude Code accepts it.
   */
  maxResultBytes?: number
}

export interface ResourceOptions<Env = unknown> {
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  /** Who it is for and how much it matters (`audience`, `priority`, `lastModified`), listed as given. */
  annotations?: Annotations
  icons?: Icon[]
  _meta?: MetaObject
  cache?: CacheHint
  /** OAuth scopes a caller needs to list and read it (403 `insufficient_scope` otherwise). */
  scopes?: string[]
  /** Who it exists for: hidden from the others' lists, and "Resource not found" when they read it. */
  visible?: Visibility<Env>
}

export type ResourceHandler<Env> = (uri: string, ctx: RequestContext<Env>) => Awaitable<ReadResourceResult>

export type Completer<Env> = (
  value: string,
  ctx: RequestContext<Env> & { arguments: Record<string, string> },
) => Awaitable<string[] | CompleteResult['completion']>

export interface ResourceTemplateOptions<Env> extends Omit<ResourceOptions<Env>, 'size'> {
  /** Completion for template variables. */
  complete?: Record<string, Completer<Env>>
  /**
   * The resources the template stands for, added to `resources/list` after the fixed ones (on
   * its last page; the list is then private, as it is computed per caller).
   */
  list?: (ctx: RequestContext<Env>) => Awaitable<Resource[]>
}

export type ResourceTemplateHandler<Env> = (
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext<Env>,
) => Awaitable<ReadResourceResult | undefined>

export interface PromptOptions<Args extends ObjectSchema | undefined, Env = unknown> {
  title?: string
  description?: string
  /** Prompt arguments as a zod object of strings; required ones are checked before the handler. */
  args?: Args
  icons?: Icon[]
  _meta?: MetaObject
  complete?: Record<string, Completer<unknown>>
  /** OAuth scopes a caller needs to list and get it (403 `insufficient_scope` otherwise). */
  scopes?: string[]
  /** Who it exists for: hidden from the others' lists, and "Unknown prompt" when they get it. */
  visible?: Visibility<Env>
}

export type PromptHandler<Args extends ObjectSchema | undefined, Env> = (
  args: Args extends ObjectSchema ? Infer<Args> : Record<string, never>,
  ctx: RequestContext<Env>,
) => Awaitable<GetPromptResult>

export interface ServerInfo {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  /** Icons clients show for the server (at least one `src`: an https or data: URL). */
  icons?: Icon[]
  instructions?: string
}

/** Per-principal caps in one isolate (`src/server/limits.ts`); reaching one is 429. */
export interface LimitOptions {
  /** Concurrent listen streams per principal in one isolate (default 1,000). */
  listenStreams?: number
  /** Live (non-terminal) tasks per principal created through one isolate (default 100). */
  liveTasks?: number
}

export interface ServerOptions extends ServerInfo {
  /** Items per page of the list methods (default 50). */
  pageSize?: number
  /** Cache hint of `server/discover` and the list results (default 5 minutes, public). */
  listCache?: CacheHint
  /** A `subscriptions/listen` stream ends gracefully after this long (default 10 minutes). */
  listenTimeoutMs?: number
  /** Limits of tasks' runs and storage (README "Tasks"; defaults in task-limits.ts). */
  taskLimits?: Partial<TaskLimits>
  /** Per-principal caps in one isolate: listen streams (default 1,000) and live tasks (default 100). */
  limits?: LimitOptions
  /**
   * How list changes and resource updates reach `subscriptions/listen` streams: an event hub
   * (`cloudflareEventHub(...)`, every isolate), or `'isolate'` when this server is known to run
   * in one isolate (a single process, a test). Without it `listChanged` and `subscribe` are not
   * advertised: in a Worker, a change made in one isolate would not reach listeners in others.
   */
  events?: EventDelivery
  /**
   * Builds the JSON Schema of tool inputs, outputs and prompt arguments. The built-in converter
   * covers the zod types tools use (README "API"); plug zod's full generator for the rest:
   * `(schema, io) => z.toJSONSchema(schema, { target: 'draft-2020-12', io })`.
   */
  jsonSchema?: JsonSchemaConverter
  /**
   * Extensions this server declares in its capabilities, by id, with their settings. Tasks
   * (`io.modelcontextprotocol/tasks`) and Apps (`io.modelcontextprotocol/ui`) are declared by
   * mcp-edge itself when the server offers them.
   */
  extensions?: Record<string, JsonObject>
  /**
   * Spans, the operation duration metric, the one log line per message, hooks (docs/observability.md).
   * Default: a log line per message at `info`, no spans or metrics; `{ tracer: otlpFromEnv }`
   * exports them over OTLP once the Worker has OTEL_EXPORTER_OTLP_ENDPOINT.
   */
  telemetry?: TelemetryConfig
  /**
   * Tool search for large catalogs (docs/catalogs.md), as `toolSearch({ alwaysListed })` builds it:
   * `tools/list` carries only the tools named in `alwaysListed` and a `search_tools` tool that
   * finds the others by name, title and description. Every tool can still be called by name.
   */
  toolSearch?: ToolSearch
  /**
   * Results over their budget (docs/results.md): `resultBudgets({ store: cloudflareResults({ binding }) })`
   * stores them and answers a preview with a `resource_link` only their caller can read. Without
   * it results are never cut (and the server's bundle carries none of that code).
   */
  results?: ResultPolicy
}

/** The `toolSearch` server option, as `toolSearch(options)` builds it. */
export interface ToolSearch {
  /** The tools `tools/list` carries: those named in `alwaysListed`, and `search_tools`. */
  readonly listed: ReadonlySet<string>
  /** Registers `search_tools` over the server's registry (the server calls it once, when created). */
  register(server: {
    readonly tools: ReadonlyMap<string, unknown>
    tool(name: string, options: never, handler: never): unknown
  }): void
}

/** What `toolSearch` takes. */
export interface ToolSearchOptions {
  /** Tools `tools/list` carries beside `search_tools` (names not registered are skipped). */
  alwaysListed?: readonly string[]
  /** The most tools one search returns (default 10, at most 50); a call's `limit` may ask for fewer. */
  maxResults?: number
}

export type { CapabilityPath, ClientCapabilities, ContentBlock }
