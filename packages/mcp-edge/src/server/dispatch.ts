/**
 * The method table: one entry per client request of 2026-07-28 (plus the Tasks extension), each
 * with the server capability it belongs to, the client capability it needs, whether it may answer
 * `input_required`, and how its result is cached. Dispatch is a lookup, not a switch.
 */
import type { LogLevel } from '../protocol/constants.ts'
import type { JsonRpcRequest } from '../protocol/jsonrpc.ts'
import type { Icon, JsonObject, RequestMeta, ServerCapabilities } from '../protocol/types.ts'
import type { InputRelay } from './input/input-relay.ts'
import type { AskClient } from './legacy/ask.ts'
import type { SessionFactsCache, SessionKey, SessionLedger } from './legacy/session-ledger.ts'
import type { Outbox } from './outbox.ts'
import type { RequestStateCodec } from './request-state.ts'
import type { EventDelivery, EventHub } from './events/events.ts'
import type { Limits } from './limits.ts'
import type { ListenHub } from './events/listen-hub.ts'
import type { PromptEntry, ResourceEntry, TemplateEntry } from './registry.ts'
import type { ToolEntry } from './tool-entry.ts'
import type { ResultPolicy } from './results/store.ts'
import type { TaskLimits } from './tasks/limits.ts'
import type { CacheHint } from './types.ts'
import type { NonceLedger, TaskBackend } from './tasks/types.ts'
import type { CapabilityPath, Principal, UpstreamAccess, Visibility } from './types.ts'
import type { MessageScope, Observer } from './telemetry/observe.ts'
import type { ObserverCache } from './telemetry/setup.ts'
import type { TelemetrySpan } from './telemetry/tracer.ts'

/** Services that depend on the Worker environment (secrets, bindings), built once per isolate. */
export interface McpServices {
  /** Seals and opens `requestState` (and 2025-era session ids); without it no multi-round-trip request can be answered. */
  requestState?: RequestStateCodec | undefined
  /** Single-use redemption of sealed states (tools with `singleUseState`). */
  nonces?: NonceLedger | undefined
  /** Where tasks live (Tasks extension); without it the extension is not offered. */
  tasks?: TaskBackend | undefined
  /** Where 2025-era clients' answers to server-to-client requests find their call (default: this isolate only). */
  inputRelay?: InputRelay | undefined
  /**
   * Where 2025-era sessions' changes live (ended by DELETE, the level of `logging/setLevel`);
   * without it DELETE answers 405 and `logging/setLevel` is accepted but not kept.
   */
  sessions?: SessionLedger | undefined
  /**
   * Opens a 2025-era session's GET stream: `openSessionStream` (server/legacy/session-stream.ts),
   * which `cloudflareServices` sets with `sessions`. The stream needs a session ledger, session
   * ids and an event hub as well; without it a session's GET is 405, and a Worker that sets none
   * bundles none of its code.
   */
  sessionStreams?: OpenSessionStream | undefined
}

/** What `McpServices.sessionStreams` is given: one session's GET stream (server/legacy/session-stream.ts). */
export interface SessionStream<Env> {
  server: ServerCore<Env>
  hub: EventHub
  /** The request's options (its principal, its services): what it may list and read. */
  options: HandleOptions<Env>
  /** The session's revision, capabilities and client, as `visible` predicates see them. */
  meta: RequestMeta
  /** The level a session that never set one logs at (the lane's `logLevel`). */
  logLevel: LogLevel
  /**
   * Where the session's facts live and its key there: the stream keeps them (stream-facts.ts),
   * read again when the hub announces a change. `cache`: this isolate's, told what it reads.
   */
  ledger: SessionLedger
  session: SessionKey
  cache?: SessionFactsCache | undefined
  /** Whether this is still the session's stream in this isolate (a newer GET replaces it). */
  current: () => boolean
  /** This stream's id, as the ledger records the session's newest stream (`SessionFacts.stream`). */
  id: string
  outbox: Outbox
  signal: AbortSignal
  /** The request's `Last-Event-ID`, if any: where the stream resumes. */
  lastEventId?: string | null
}

/** Opens the stream once the hub has it; `done` settles when it ends, `cursor` names where it started. */
export type OpenSessionStream = <Env>(stream: SessionStream<Env>) => Promise<{ done: Promise<void>; cursor: string }>

/** What the host (the HTTP adapter, a task object) supplies for one request. */
export interface HandleOptions<Env = unknown> extends McpServices {
  env: Env
  principal?: Principal | undefined
  /** Its `signal` aborts when the client goes away (an AbortController, or a `LazyAbort`, whose `aborted` reads it without making a signal). */
  cancel: { readonly signal: AbortSignal; readonly aborted?: boolean }
  /** The request's own notification stream. */
  outbox?: Outbox | undefined
  /**
   * Asks the client directly and waits for its answers (the 2025-era lane, where the server sends
   * requests on the call's stream). Without it, `ctx.ask` answers `input_required`.
   */
  askClient?: AskClient | undefined
  /**
   * The 2025-era session of this request, where `logging/setLevel` keeps its level and
   * `resources/subscribe` its subscriptions (with a session ledger).
   */
  legacySession?:
    | { setLogLevel(level: LogLevel): Promise<void>; subscribe(uri: string, subscribed: boolean): Promise<void> }
    | undefined
  /** The caller's identity provider (`ctx.upstream`): the request's own, never stored with a task. */
  upstream?: UpstreamAccess | undefined
  /** The host's `waitUntil` (a Worker's `executionCtx`), offered to handlers as `ctx.waitUntil`. */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
  /** The endpoint's path (`/mcp`): sealed states are bound to it and the server's name. */
  endpoint?: string | undefined
  /** This message's observer and where it came from (telemetry.ts); absent when nothing observes. */
  observe?: { observer: Observer; scope: MessageScope } | undefined
}

export type Listed = 'tools' | 'resources' | 'templates' | 'prompts'

/** What a list method reads of an entry: its wire definition, the scopes it needs, who sees it. */
export interface ListedEntry<Env = unknown> {
  readonly definition: unknown
  readonly scopes: readonly string[]
  readonly visible?: Visibility<Env> | undefined
}

/**
 * What the methods, the task engine and the capability code see of the server: its settings, its
 * registries (read only) and the few operations they call. `McpServer` implements it; defining it
 * here, with the method table, keeps the imports one way (server.ts → methods → this file).
 */
export interface ServerCore<Env = unknown> {
  readonly info: { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[] }
  /** Extensions the server declares beyond those it derives (Tasks, Apps). */
  readonly extensions: Readonly<Record<string, JsonObject>>
  readonly instructions: string | undefined
  readonly pageSize: number
  readonly listCache: CacheHint
  readonly listenTimeoutMs: number
  readonly taskLimits: TaskLimits
  readonly limits: Limits
  /** Results over their budget (`results` option); undefined: never cut. */
  readonly results: ResultPolicy | undefined
  readonly events: EventDelivery | undefined
  readonly hub: ListenHub
  readonly tools: ReadonlyMap<string, ToolEntry<Env>>
  readonly resources: ReadonlyMap<string, ResourceEntry<Env>>
  readonly templates: ReadonlyMap<string, TemplateEntry<Env>>
  readonly prompts: ReadonlyMap<string, PromptEntry<Env>>
  /** The entries of one registry in registration order (their definitions are built when read). */
  listed(kind: Listed): readonly ListedEntry<Env>[]
  /** Whether a server capability is on offer: advertised exactly when its methods work. */
  offers(capability: string, options: HandleOptions<Env>): boolean
  /** Add `resultType` and `serverInfo` to a 2026-07-28 result. */
  decorate(result: object): object
  /** A task's status changed: to the event hub, when there is one. */
  taskChanged(taskId: string, principal: string | null, params: Record<string, unknown>): void
  /** Telemetry, per Worker env (telemetry/setup.ts). */
  readonly observers: ObserverCache
}

/** One request on its way through a method. */
export interface Call<Env = unknown> {
  server: ServerCore<Env>
  request: JsonRpcRequest
  params: Record<string, unknown>
  meta: RequestMeta
  logLevel: LogLevel | undefined
  options: HandleOptions<Env>
  /** The message's span, when it is traced: methods add what only they know (the input round). */
  span?: TelemetrySpan | undefined
}

export interface MethodEntry {
  /** The era the method exists in (2026-07-28 `modern`, 2025 `legacy`); both when absent. */
  era?: 'modern' | 'legacy'
  /** The server capability that must be advertised for the method to exist (else -32601). */
  capability?: keyof ServerCapabilities | 'tasks'
  /** The client capability the request must declare (else -32021). */
  requires?: CapabilityPath
  /** mrtr.mdx: only tools/call, prompts/get and resources/read may answer input_required. */
  inputRequired: boolean
  run(call: Call): Promise<object>
}

export type MethodTable = ReadonlyMap<string, MethodEntry>
