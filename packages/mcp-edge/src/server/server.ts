/**
 * The server builder: register tools, resources, resource templates and prompts, then hand the
 * server to a transport (`mcp()` for Hono). Runtime-agnostic; it takes a parsed request and
 * returns a JSON-RPC response, pushing any notifications to the request's outbox.
 *
 * Past 400 lines on purpose: `McpServer` is the public surface users hold (registration, views,
 * the notify calls, `handle`), and each of its methods is a few lines over the modules that do the
 * work (registry.ts, apps.ts, methods/, events/, telemetry/); split across files, the surface
 * would be harder to read.
 *
 * @example
 * const server = createMcpServer({ name: 'weather', version: '1.0.0' })
 * server.tool('get_weather', { description: 'Current weather', input: z.object({ city: z.string() }) },
 *   async ({ city }) => ({ content: [{ type: 'text', text: `Sunny in ${city}` }] }))
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts'
import { ERROR_KINDS, isMcpError, McpError, unsupportedVersion } from '../protocol/errors.ts'
import type { JsonRpcErrorObject } from '../protocol/errors.ts'
import { errorResponse, resultResponse } from '../protocol/jsonrpc.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.ts'
import { isLegacyVersion, legacyError, legacyStatus, shapeLegacyResult } from '../protocol/legacy.ts'
import { readLogLevel } from '../protocol/meta.ts'
import type { Icon, JsonObject, RequestMeta } from '../protocol/types.ts'
import { missingCapabilities, supports } from './capabilities.ts'
import type { Call, HandleOptions, Listed, ListedEntry, MethodEntry, MethodTable, ServerCore } from './dispatch.ts'
import { toErrorObject } from './errors.ts'
import { listsRead } from './kept-requests.ts'
import { checkedFeature, Limits } from './limits.ts'
import { logEvent, resourceEvent } from './events/events.ts'
import type { EventDelivery, ListKind, McpEvent, NotifyLogOptions, NotifyOptions } from './events/events.ts'
import { ListenHub } from './events/listen-hub.ts'
import { isQuiet } from './quiet.ts'
import { TaskEvents } from './events/task-publish.ts'
import { createMethodTable } from './methods/index.ts'
import type { HeaderParam } from '../protocol/header-values.ts'
import { buildPromptEntry, buildResourceEntry, buildTemplateEntry } from './registry.ts'
import type { PromptEntry, ResourceEntry, TemplateEntry } from './registry.ts'
import type { JsonSchemaConverter, ObjectSchema } from './schema/schema.ts'
import { buildToolEntry } from './tool-entry.ts'
import type { ToolEntry } from './tool-entry.ts'
import { DEFAULT_TASK_LIMITS, taskLimits } from './tasks/limits.ts'
import { viewResource } from './apps.ts'
import { isVisible } from './methods/access.ts'
import type { ViewOptions } from './apps.ts'
import { startPublish } from './telemetry/events.ts'
import { createObserverCache } from './telemetry/setup.ts'
import type { ObserverCache } from './telemetry/setup.ts'
import type { TaskLimits } from './tasks/limits.ts'
import type {
  CacheHint,
  PromptHandler,
  PromptOptions,
  ResourceHandler,
  ResourceOptions,
  ResourceTemplateHandler,
  ResourceTemplateOptions,
  ServerOptions,
  ToolHandler,
  ToolInput,
  ToolOptions,
  ToolOutput,
  VisibilityContext,
} from './types.ts'
import { checkDefinitions } from './schema/derived.ts'
import type { ResultPolicy } from './results/store.ts'

export const DEFAULT_PAGE_SIZE = 50
export const DEFAULT_LIST_CACHE: CacheHint = { ttlMs: 5 * 60 * 1000, cacheScope: 'public' }
/** A listen stream ends gracefully after this long; the client may open a new one. */
export const DEFAULT_LISTEN_TIMEOUT_MS = 10 * 60 * 1000

/** A response and the HTTP status it should ride on when sent as plain JSON. */
export interface Handled {
  message: JsonRpcResponse
  status: number
}

export class McpServer<Env = unknown> implements ServerCore<Env> {
  readonly info: { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[] }
  readonly extensions: Readonly<Record<string, JsonObject>>
  readonly instructions: string | undefined
  readonly pageSize: number
  readonly listCache: CacheHint
  readonly listenTimeoutMs: number
  readonly taskLimits: TaskLimits
  /** Where notifications go: an event hub (every isolate), `'isolate'`, or nowhere (not advertised). */
  readonly events: EventDelivery | undefined
  readonly tools = new Map<string, ToolEntry<Env>>()
  readonly resources = new Map<string, ResourceEntry<Env>>()
  readonly templates = new Map<string, TemplateEntry<Env>>()
  readonly prompts = new Map<string, PromptEntry<Env>>()
  /** The listen streams of this isolate (single-isolate delivery, and this isolate's registry changes). */
  readonly hub = new ListenHub()
  /** Task status changes through the hub, tried again when a publish fails (task-publish.ts). */
  readonly #taskEvents = new TaskEvents((event) => this.publish(event))
  /** Per-principal caps of this isolate (issue 11); the defaults' are built at their first use (`limits`). */
  #limits: Limits | undefined
  /** Results over their budget: where they are stored, and the limits (undefined: never cut). */
  readonly results: ResultPolicy | undefined
  readonly #methods: MethodTable = createMethodTable()
  /** The `jsonSchema` option: zod → JSON Schema of tools and prompts (built-in converter if unset). */
  readonly #jsonSchema: JsonSchemaConverter | undefined
  /** Each registry's entries in list order, kept from the first list until the next registration. */
  readonly #listed = new Map<Listed, ListedEntry<Env>[]>()
  /** With `toolSearch`: the tools `tools/list` carries (the always-listed ones and `search_tools`). */
  readonly #listedTools: ReadonlySet<string> | undefined
  /** How many views (MCP Apps) are registered: the extension is declared once there is one. */
  #views = 0
  /** Lists offered while empty too (`offerLists`). */
  readonly #lists = new Set<ListKind>()
  /** The telemetry of each Worker env (spans, the duration metric, log lines, hooks), built at first use. */
  readonly observers: ObserverCache
  /** Whether a method, or a tool or prompt name, is known (telemetry names the others `_OTHER`). */
  readonly #known = (method: string, name?: string) => {
    if (name === undefined) return this.#methods.has(method)
    return method === 'tools/call' ? this.tools.has(name) : method === 'prompts/get' ? this.prompts.has(name) : true
  }

  constructor(options: ServerOptions) {
    const {
      instructions,
      pageSize,
      listCache,
      listenTimeoutMs,
      taskLimits: tasks,
      limits,
      events,
      jsonSchema,
      telemetry,
      extensions,
      toolSearch,
      results,
      ...info
    } = options
    this.#jsonSchema = jsonSchema
    // Given limits are checked now (a bad one fails at start-up); the defaults wait for a listen
    // stream or a task, as the task defaults need no check: less code run before a first answer.
    if (limits !== undefined) this.#limits = new Limits(limits)
    this.results = checkedFeature(results, ['spill', 'read'], 'results', 'resultBudgets({ store })', 'results.md')
    this.info = info
    this.instructions = instructions
    this.pageSize = pageSize ?? DEFAULT_PAGE_SIZE
    this.listCache = listCache ?? DEFAULT_LIST_CACHE
    this.listenTimeoutMs = listenTimeoutMs ?? DEFAULT_LISTEN_TIMEOUT_MS
    this.taskLimits = tasks === undefined ? { ...DEFAULT_TASK_LIMITS } : taskLimits(tasks)
    this.events = events
    this.observers = createObserverCache(telemetry, info)
    this.extensions = { ...extensions }
    const search = checkedFeature(toolSearch, ['register'], 'toolSearch', 'toolSearch({ alwaysListed })', 'catalogs.md')
    if (search) {
      this.#listedTools = search.listed
      search.register(this)
    }
  }

  /** Per-principal caps of this isolate (issue 11): listen streams, live tasks. */
  get limits(): Limits {
    this.#limits ??= new Limits()
    return this.#limits
  }

  /**
   * Register a tool. Arguments are parsed with `options.input`; its JSON Schema is built on the
   * tool's first use (tool-entry.ts), as is the schema itself when `input` (or `output`) is a function.
   */
  tool<In extends ToolInput, Out extends ToolOutput | undefined = undefined, Prep = undefined>(
    name: string,
    options: ToolOptions<In, Out, Prep, Env>,
    handler: ToolHandler<In, Env, Prep>,
  ): this {
    if (this.tools.has(name)) throw new Error(`Tool "${name}" is already registered`)
    const entry = buildToolEntry<Env>(
      name,
      options as unknown as ToolOptions<ToolInput, ToolOutput | undefined, unknown, Env>,
      handler as unknown as ToolEntry<Env>['handler'],
      this.#jsonSchema,
    )
    this.tools.set(name, entry)
    this.#listed.clear()
    this.#registryChanged('tools')
    return this
  }

  /**
   * A view (MCP Apps): a `ui://` resource of HTML that hosts with the extension render for the
   * tools that name it (`view` in the tool's options). Listed and read with the MIME type
   * `text/html;profile=mcp-app` and its `_meta.ui` (CSP, permissions, domain, border); the server
   * declares `io.modelcontextprotocol/ui` once it has one.
   *
   * @example
   * server.view('ui://notes/board.html', { name: 'Notes board', html: BOARD_HTML })
   * server.tool('show_notes', { input: z.object({}), view: 'ui://notes/board.html' }, async () => ({
   *   content: [{ type: 'text', text: 'Two notes: milk, eggs' }],
   *   structuredContent: { notes: ['milk', 'eggs'] },
   * }))
   */
  view(uri: string, options: ViewOptions<Env>): this {
    const { options: listing, handler } = viewResource(uri, options)
    this.resource(uri, listing, handler)
    this.#views++
    return this
  }

  /** A resource at a fixed URI. */
  resource(uri: string, options: ResourceOptions<Env>, handler: ResourceHandler<Env>): this {
    if (this.resources.has(uri)) throw new Error(`Resource "${uri}" is already registered`)
    this.resources.set(uri, buildResourceEntry(uri, options, handler))
    this.#listed.clear()
    this.#registryChanged('resources')
    return this
  }

  /** Resources matching an RFC 6570 template, such as `file:///{path}`. */
  resourceTemplate(uriTemplate: string, options: ResourceTemplateOptions<Env>, handler: ResourceTemplateHandler<Env>): this {
    if (this.templates.has(uriTemplate)) throw new Error(`Resource template "${uriTemplate}" is already registered`)
    this.templates.set(uriTemplate, buildTemplateEntry(uriTemplate, options, handler))
    this.#listed.clear()
    this.#registryChanged('resources')
    return this
  }

  prompt<Args extends ObjectSchema | undefined = undefined>(
    name: string,
    options: PromptOptions<Args, Env>,
    handler: PromptHandler<Args, Env>,
  ): this {
    if (this.prompts.has(name)) throw new Error(`Prompt "${name}" is already registered`)
    this.prompts.set(name, buildPromptEntry<Env>(name, options, handler as PromptEntry<Env>['handler'], this.#jsonSchema))
    this.#listed.clear()
    this.#registryChanged('prompts')
    return this
  }

  /** Remove a tool; open listen streams hear `notifications/tools/list_changed`. */
  removeTool(name: string): boolean {
    return this.#remove(this.tools, name, 'tools')
  }

  /** Remove a resource; listen streams hear `notifications/resources/list_changed`. */
  removeResource(uri: string): boolean {
    return this.#remove(this.resources, uri, 'resources')
  }

  /** Remove a resource template; listen streams hear `notifications/resources/list_changed`. */
  removeResourceTemplate(uriTemplate: string): boolean {
    return this.#remove(this.templates, uriTemplate, 'resources')
  }

  /** Remove a prompt; listen streams hear `notifications/prompts/list_changed`. */
  removePrompt(name: string): boolean {
    return this.#remove(this.prompts, name, 'prompts')
  }

  /**
   * Convert every tool's and prompt's schemas to JSON Schema now (they are otherwise converted on
   * first use) and throw one error naming each tool and prompt whose schema fails: call it in a
   * test so such a schema fails `npm test`, not a deploy (docs/tools.md "Many tools").
   *
   * @example
   * it('converts every schema', () => server.checkSchemas())
   */
  checkSchemas(): void {
    checkDefinitions([...this.tools.values(), ...this.prompts.values()])
  }

  #remove(registry: Map<string, unknown>, key: string, kind: ListKind): boolean {
    const removed = registry.delete(key)
    if (removed) {
      this.#listed.clear()
      this.#registryChanged(kind)
    }
    return removed
  }

  /**
   * Tell listen streams that a list changed, in every isolate when an event hub is configured.
   * Works the same from a request, a task, a `scheduled` or `queue` handler; await it (or hand
   * it to `waitUntil`) so the Worker does not end before the hub has it.
   *
   * @example
   * await server.notifyListChanged('tools')
   */
  notifyListChanged(kind: ListKind, options?: NotifyOptions): Promise<void> {
    return this.publish({ type: 'listChanged', list: kind, audience: options?.audience })
  }

  /**
   * Tell listen streams subscribed to `uri` (or a parent of it with fewer than 32 `/`:
   * `MAX_PREFIX_TOPICS`) that it changed. A TypeError for a `uri` that is not a non-empty string,
   * a RangeError past 2,048 characters (the longest a subscription may name).
   *
   * @example
   * await server.notifyResourceUpdated('notes://all')
   * await server.notifyResourceUpdated('notes://alice', { audience: ['alice'] }) // only alice's listeners
   */
  notifyResourceUpdated(uri: string, options?: NotifyOptions): Promise<void> {
    return this.publish(resourceEvent(uri, options))
  }

  /**
   * Send `notifications/message` to every 2025-era session stream whose level admits it (its
   * `logging/setLevel`, else the lane's `logLevel`), through the event hub; 2026-07-28 clients get
   * logs only on their requests' streams (`ctx.log`). `data`: JSON of at most 64 KiB, no secrets.
   * @example await server.notifyLog('warning', { message: 'the import failed' }, { logger: 'import' })
   */
  notifyLog(level: LogLevel, data: unknown, options?: NotifyLogOptions): Promise<void> {
    return this.publish(logEvent(level, data, options))
  }

  /** Send an event through the configured delivery; without one, nobody listens for it. */
  async publish(event: McpEvent): Promise<void> {
    if (this.events === undefined) return
    const publishing = startPublish(this.observers.latest(), event, this.observers.log)
    const sent = publishing?.event ?? event
    try {
      const listeners = this.events === 'isolate' ? this.hub.publish(sent) : await this.events.publish(sent)
      publishing?.end({ listeners: typeof listeners === 'number' ? listeners : undefined })
    } catch (error) {
      publishing?.end({ error })
      throw error
    }
  }

  /**
   * A task's status changed (the task engine's hook). Only an event hub carries it; without one,
   * a listener hears it from the task's own watch stream.
   */
  taskChanged(taskId: string, principal: string | null, params: Record<string, unknown>): void {
    if (this.events === undefined || this.events === 'isolate') return
    const audience = principal === null ? undefined : [principal]
    // The result stays out (it may be megabytes; a hub message is at most 1 MiB): a listener
    // reads a completed task back whole (listen-tasks.ts).
    const { result: _result, ...status } = params
    void this.#taskEvents.changed(taskId, { type: 'task', taskId, params: status, audience }, status.lastUpdatedAt)
  }

  /**
   * This isolate's registry changed, which other isolates know nothing of (register at module
   * scope, so every isolate has the same definitions). Announced on the in-isolate path only
   * (`events: 'isolate'`); through a hub, `notifyListChanged` says when every isolate changed.
   */
  #registryChanged(kind: ListKind): void {
    // Registration at module scope, before any stream could listen, publishes nothing.
    if (this.hub.listening && !isQuiet(this)) this.hub.publish({ type: 'listChanged', list: kind })
  }

  /**
   * The entries of one registry in registration order (the list methods page through it). With
   * `toolSearch`, the tools are only those `tools/list` carries.
   */
  listed(kind: Listed): readonly ListedEntry<Env>[] {
    let entries = this.#listed.get(kind)
    if (!entries) {
      const listed = this.#listedTools
      entries =
        kind === 'tools' && listed ? [...this.tools.values()].filter((tool) => listed.has(tool.name)) : [...this[kind].values()]
      this.#listed.set(kind, entries)
    }
    return entries
  }

  /**
   * The `Mcp-Param-*` headers a tool's arguments must be mirrored in: none for an unknown tool, nor
   * for one hidden from `viewer`, whose call then fails as an unknown tool's does.
   */
  headerParams(toolName: string, viewer?: VisibilityContext<Env>): readonly HeaderParam[] {
    const tool = this.tools.get(toolName)
    if (!tool || (viewer && !isVisible(tool, viewer))) return []
    return tool.headerParams
  }

  /**
   * Serve one request whose `_meta` was already read (for a 2025-era request, built by the
   * transport from the session: its revision is then a legacy one). Never throws: protocol
   * failures become JSON-RPC errors (with the request id), unexpected ones -32603 with nothing
   * leaked. Results and errors leave in the shapes of the request's revision.
   */
  async handle(request: JsonRpcRequest, meta: RequestMeta, options: HandleOptions<Env>): Promise<Handled> {
    const legacy = isLegacyVersion(meta.protocolVersion)
    const observe = options.observe
    const operation = observe?.observer.start(
      observe.scope,
      request.method,
      (request.params ?? {}) as Record<string, unknown>,
      request.id,
      meta,
      this.#known,
    )
    const ended = () => ({ cancelled: options.cancel.aborted ?? options.cancel.signal.aborted, partial: options.outbox?.stats })
    try {
      if (!legacy && !SUPPORTED_PROTOCOL_VERSIONS.includes(meta.protocolVersion))
        throw unsupportedVersion(meta.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS)
      const entry = this.#methods.get(request.method)
      const era = legacy ? 'legacy' : 'modern'
      const ofEra = entry !== undefined && (entry.era === undefined || entry.era === era)
      // A list whose code could not read it before (mcp-edge/sdk), read for this client first: what
      // it holds decides whether the method is offered (completions: a prompt or a template).
      const reading =
        ofEra && entry.capability !== undefined
          ? listsRead(this, entry.capability, meta, (request.params ?? {}) as Record<string, unknown>)
          : undefined
      if (reading) await reading
      if (!ofEra || !this.#offered(entry, options)) {
        throw new McpError('methodNotFound', `Method not found: ${request.method}`)
      }
      if (entry.requires !== undefined && !supports(meta.clientCapabilities, entry.requires)) {
        throw missingCapabilities([entry.requires], request.method)
      }
      const call: Call<Env> = {
        server: this,
        request,
        params: (request.params ?? {}) as Record<string, unknown>,
        meta,
        logLevel: meta.logLevel ?? readLogLevel(meta),
        options,
        span: operation?.span,
      }
      const result = await entry.run(call as unknown as Call)
      // mrtr.mdx: "Servers MUST NOT send InputRequiredResult responses on any other client requests."
      if (!entry.inputRequired && (result as { resultType?: string }).resultType === 'input_required') {
        throw new Error(`${request.method} may not answer input_required`)
      }
      const shaped = legacy
        ? shapeLegacyResult(meta.protocolVersion as LegacyVersion, request.method, result)
        : this.decorate(result)
      operation?.end({ result }, ended())
      return { message: resultResponse(request.id, shaped), status: 200 }
    } catch (error) {
      return failed(error, request, legacy, (object) => operation?.end({ error: object }, ended()))
    }
  }

  #offered(entry: MethodEntry, options: HandleOptions<Env>): boolean {
    return entry.capability === undefined || this.offers(entry.capability, options)
  }

  /** Add `resultType` (default `complete`) and `serverInfo` to a result (basic/index.mdx). */
  decorate(result: object): object {
    const withMeta = result as { resultType?: string; _meta?: Record<string, unknown> }
    return {
      ...result,
      resultType: withMeta.resultType ?? 'complete',
      _meta: { ...withMeta._meta, 'io.modelcontextprotocol/serverInfo': this.info },
    }
  }

  /**
   * Offer these lists (their methods, and their capability) while they are empty too: an empty
   * list answers `[]`, not -32601. For code that declares them, or registers into them at run time
   * and empties them again (mcp-edge/sdk: the SDKs keep a list's handlers once installed), so a
   * client that read the capability once finds the methods there from then on.
   */
  offerLists(...kinds: ListKind[]): void {
    for (const kind of kinds) this.#lists.add(kind)
  }

  /** Whether a server capability is on offer: advertised exactly when its methods work. */
  offers(capability: string, options: HandleOptions<Env>): boolean {
    switch (capability) {
      case 'tools':
        return this.tools.size > 0 || this.#lists.has('tools')
      case 'prompts':
        return this.prompts.size > 0 || this.#lists.has('prompts')
      case 'resources':
        // A stored result's link is read with resources/read.
        return this.resources.size > 0 || this.templates.size > 0 || this.results !== undefined || this.#lists.has('resources')
      case 'completions':
        return this.prompts.size > 0 || this.templates.size > 0
      case 'tasks':
        return options.tasks !== undefined
      case 'apps':
        return this.#views > 0
      default:
        return true
    }
  }
}

/**
 * A request's failure in its revision's shape, told to its operation first (`end`): a function of
 * its own, so an isolate whose first request succeeds never compiles it.
 */
function failed(error: unknown, request: JsonRpcRequest, legacy: boolean, end: (object: JsonRpcErrorObject) => void): Handled {
  const object = toErrorObject(error, request.method)
  end(object)
  const status = isMcpError(error) ? error.status : ERROR_KINDS.internalError.status
  if (legacy) return { message: errorResponse(request.id, legacyError(object)), status: legacyStatus(status) }
  return { message: errorResponse(request.id, object), status }
}

/**
 * Create a server.
 *
 * @example
 * const server = createMcpServer<Env>({ name: 'weather', version: '1.0.0', instructions: 'Weather tools' })
 */
export function createMcpServer<Env = unknown>(options: ServerOptions): McpServer<Env> {
  return new McpServer<Env>(options)
}
