/**
 * The SDKs' low-level `Server` (SDK 1.x `@modelcontextprotocol/sdk/server/index.js`, 2.x
 * `@modelcontextprotocol/server`): a server whose lists and calls are request handlers
 * (`setRequestHandler(ListToolsRequestSchema, …)`, `CallToolRequestSchema`…), not registrations.
 *
 * mcp-edge serves lists itself (both eras, pages, scopes, tasks, list-change events), so what a
 * list handler returns is read into the core's registries (reading.ts): when the server is first
 * served (`prepared`), and again when the server announces a change (`sendToolListChanged()` and
 * kin), which is how an SDK server tells its clients that a list changed. Each tool, resource,
 * template and prompt read so is served by the handler the server set for its call, read or get,
 * called with the request as the SDK builds it and the SDK-style `extra` (context.ts), on the
 * core's rounds (rounds.ts), so `elicitInput` and `sendRequest` work in it as in `McpServer`'s.
 *
 * One file, over 400 lines: one class whose reads (first, announced, and in a request for a list
 * that could not be read before) share its private state (what is due, read, under way), which
 * reading.ts's functions, given only what they need, cannot hold.
 */
import { McpError as EdgeError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import type { CallToolResult, GetPromptResult, Icon, JsonObject, ReadResourceResult, RequestMeta } from '../../protocol/types.ts'
import { ConfigurationError } from '../../server/errors.ts'
import type { ListKind } from '../../server/events/events.ts'
import { readListsWith, watchClientNotifications, watchKeptRequests } from '../../server/kept-requests.ts'
import { zodToJsonSchema } from '../../server/schema/json-schema.ts'
import type { ObjectSchema } from '../../server/schema/schema.ts'
import type { McpServer as EdgeServer } from '../../server/server.ts'
import { CONVENTION_WARNED } from '../../server/tool-entry.ts'
import type { Completer, PromptOptions, RequestContext, ServerOptions, ToolOptions } from '../../server/types.ts'
import { errorFields, libraryLog, warnOnce } from '../../server/telemetry/log.ts'
import { compileUriTemplate } from '../../server/uri-template.ts'
import type { RequestHandlerExtra } from '../context.ts'
import { afterResult, protocolFailure, withContent } from '../define.ts'
import { clientNotificationWatcher, keptRequestWatcher, LowLevelServer, methodOf, reportUnexpected } from '../low-level.ts'
import type { RequestSchema, SetLevelHandler, SubscribeHandler } from '../low-level.ts'
import { publishing } from '../notifier.ts'
import { runSdkHandler } from '../rounds.ts'
import type { Hooks } from '../rounds.ts'
import { McpServer } from '../server.ts'
import { currentRequest, withHandler } from '../request-store.ts'
import type { McpServerOptions } from '../types.ts'
import { ListHandlerFailed } from './prepare.ts'
import { convertingRaw, ListedRegistry, pick, plan, promptArgs, rawOutput, readPages } from './reading.ts'
import type { RequestHandler, RequestOf } from './schemas.ts'
import type { SetLevelRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from './schemas.ts'

/** The methods whose handlers serve what the core lists: read into its registries, called for each item. */
const SERVED: Record<string, ListKind[]> = {
  'tools/list': ['tools'],
  'tools/call': ['tools'],
  'resources/list': ['resources'],
  'resources/templates/list': ['resources'],
  'resources/read': ['resources'],
  'prompts/list': ['prompts'],
  'prompts/get': ['prompts'],
  'completion/complete': ['resources', 'prompts'],
}
const KINDS: readonly ListKind[] = ['tools', 'resources', 'prompts']
const COMPLETE = 'completion/complete'
/** The lists a request of each capability serves from (a method's `capability`: server/dispatch.ts). */
const READ_FOR: Record<string, ListKind[]> = {
  tools: ['tools'],
  resources: ['resources'],
  prompts: ['prompts'],
  completions: ['resources', 'prompts'],
}
/** Completions by the list their `ref` completes from: a prompt's needs no resource list, nor a template's the prompts. */
const COMPLETES_FROM: Record<string, ListKind[]> = { 'ref/prompt': ['prompts'], 'ref/resource': ['resources'] }

/** The lists a request of `capability` with `params` cannot be answered without (a completion's: its `ref`'s, else both). */
function neededFor(capability: string, params: Record<string, unknown>): readonly ListKind[] {
  const ref = capability === 'completions' ? (params.ref as { type?: unknown } | undefined) : undefined
  return (typeof ref?.type === 'string' ? COMPLETES_FROM[ref.type] : undefined) ?? READ_FOR[capability] ?? []
}

const TOOL_FIELDS = ['title', 'description', 'annotations', 'icons', '_meta'] as const
const RESOURCE_FIELDS = ['name', 'title', 'description', 'mimeType', 'size', 'annotations', 'icons', '_meta'] as const
const TEMPLATE_FIELDS = RESOURCE_FIELDS.filter((key) => key !== 'size')
const PROMPT_FIELDS = ['title', 'description', 'icons', '_meta'] as const

/** The request's `_meta` (a progress token…), as the SDKs hand it to the handler in `params`. */
function metaOf(extra: RequestHandlerExtra): { _meta?: Record<string, unknown> } {
  return extra._meta === undefined || Object.keys(extra._meta).length === 0 ? {} : { _meta: extra._meta }
}

/**
 * @example
 * const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } })
 * server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ECHO] }))
 * server.setRequestHandler(CallToolRequestSchema, async (request) => ({
 *   content: [{ type: 'text', text: String(request.params.arguments?.text) }],
 * }))
 * export default { fetch: createMcpHandler(server) }
 */
// SDK code names the SDK's three type arguments (`Server<Request, Notification, Result>`, as
// `S extends Server<infer R, any, any>`): taken, the first as the Worker's env, the others unused.
export class Server<Env = unknown, _Notification = unknown, _Result = unknown> extends LowLevelServer {
  /**
   * mcp-edge's own server underneath, holding what the list handlers returned. `createMcpHandler`
   * and `McpAgent` read the lists before they serve it; served otherwise (`mcp(server.edge)`),
   * await `server.prepared()` first.
   */
  readonly edge: EdgeServer<Env>
  /** Announces, logs and connects as an SDK-style server does. */
  readonly #owner: McpServer<Env>
  readonly #handlers = new Map<string, RequestHandler>()
  readonly #hooks: Hooks
  readonly #tools: ListedRegistry
  readonly #resources: ListedRegistry
  readonly #templates: ListedRegistry
  readonly #prompts: ListedRegistry
  /** Each kind's read, whether what it read is still registered, and how its listeners are told. */
  readonly #kinds: Record<ListKind, { read(): Promise<void>; intact(): boolean; tell(): void }>
  /** The kinds whose handlers changed since they were last read. */
  readonly #stale = new Set<ListKind>(KINDS)
  /** The last read of each kind (one at a time: a later one waits for it). */
  readonly #reading: Partial<Record<ListKind, Promise<void>>> = {}
  /** The kinds read at least once. */
  readonly #read = new Set<ListKind>()
  /** The kinds whose handler threw at every read so far: read again in each request that needs them. */
  readonly #unread = new Set<ListKind>()
  /** The read of an unread kind a request started (`#readUnread`), which the others wait for. */
  readonly #unreadRead: Partial<Record<ListKind, Promise<void>>> = {}

  constructor(
    serverInfo: { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[] },
    options: McpServerOptions = {},
  ) {
    // Set once `super` returns: the hooks are called later, never during the construction.
    const self: { server?: Server<Env> } = {}
    const ownerOf = () => (self.server as Server<Env>).#owner
    super({
      extensions: (given: Record<string, JsonObject>, capabilities?: Record<string, unknown>) =>
        ownerOf().server.registerCapabilities({ ...capabilities, extensions: given }),
      listChanged: (kind) => void (self.server as Server<Env>).#announce(kind),
      resourceUpdated: (uri) => void ownerOf().server.sendResourceUpdated({ uri }),
      log: (params) => ownerOf().sendLoggingMessage(params),
    })
    self.server = this
    const jsonSchema = convertingRaw((options.jsonSchema as ServerOptions['jsonSchema']) ?? zodToJsonSchema)
    this.#owner = new McpServer<Env>(serverInfo, { ...options, jsonSchema })
    const edge = this.#owner.edge
    this.edge = edge
    // This server's own subscribe and setLevel handlers, not its owner's `server.server`'s.
    watchKeptRequests(edge, keptRequestWatcher(this))
    watchClientNotifications(edge, clientNotificationWatcher(this))
    readListsWith(edge, (capability, meta, params) =>
      this.#unread.size === 0 ? undefined : this.#readFor(capability, meta, params),
    )
    this.#tools = new ListedRegistry(edge.tools, (key) => edge.removeTool(key))
    this.#resources = new ListedRegistry(edge.resources, (key) => edge.removeResource(key))
    this.#templates = new ListedRegistry(edge.templates, (key) => edge.removeResourceTemplate(key))
    this.#prompts = new ListedRegistry(edge.prompts, (key) => edge.removePrompt(key))
    const owner = this.#owner
    this.#kinds = {
      tools: { read: () => this.#readTools(), intact: () => this.#tools.intact(), tell: () => owner.sendToolListChanged() },
      resources: {
        read: () => this.#readResources(),
        intact: () => this.#resources.intact() && this.#templates.intact(),
        tell: () => owner.sendResourceListChanged(),
      },
      prompts: {
        read: () => this.#readPrompts(),
        intact: () => this.#prompts.intact(),
        tell: () => owner.sendPromptListChanged(),
      },
    }
    const threw = (error: unknown, ctx: { signal: AbortSignal }) => reportUnexpected(this, error, ctx.signal)
    this.#hooks = {
      listChanged: (kind: ListKind) => void this.#announce(kind),
      resourceUpdated: (uri: string) => void this.sendResourceUpdated({ uri }),
      decodeState: options.requestState?.verify,
      threw,
    }
  }

  /**
   * Serve `method` with `handler`, given the SDK's request schema (1.x) or the method's name (2.x).
   * The lists, calls, reads, gets and completions are served; `resources/subscribe`,
   * `resources/unsubscribe` and `logging/setLevel` are called before mcp-edge keeps what they ask
   * itself (low-level.ts `keptRequestWatcher`); any other method is refused, naming why.
   */
  // The requests mcp-edge answers itself hand their handlers less than a call's `extra` (low-level.ts).
  override setRequestHandler(
    schema: typeof SubscribeRequestSchema | typeof UnsubscribeRequestSchema,
    handler: SubscribeHandler,
  ): void
  override setRequestHandler(schema: typeof SetLevelRequestSchema, handler: SetLevelHandler): void
  override setRequestHandler(method: 'resources/subscribe' | 'resources/unsubscribe', handler: SubscribeHandler): void
  override setRequestHandler(method: 'logging/setLevel', handler: SetLevelHandler): void
  override setRequestHandler<S extends RequestSchema>(
    schema: S,
    handler: (request: RequestOf<S>, extra: RequestHandlerExtra) => unknown,
  ): void
  override setRequestHandler(method: string, handler: RequestHandler): void
  override setRequestHandler(methodOrSchema: string | RequestSchema, handler: unknown): void {
    const method = methodOf(methodOrSchema)
    const kinds = method === undefined ? undefined : SERVED[method]
    if (method === undefined || !kinds) {
      super.setRequestHandler(methodOrSchema, handler)
      return
    }
    if (typeof handler !== 'function') throw new TypeError(`setRequestHandler(${method}): the handler must be a function`)
    this.#handlers.set(method, handler as RequestHandler)
    for (const kind of kinds) this.#stale.add(kind)
    // Offered from now on, empty or not, as the SDK's server answers it (a completion handler
    // completes what the other lists hold, and offers none itself).
    if (method !== COMPLETE) this.edge.offerLists(...kinds)
  }

  /** No handler for `method` from now on (its list is read again before the server is next prepared). */
  override removeRequestHandler(method: string): void {
    const kinds = SERVED[method]
    if (!kinds) {
      super.removeRequestHandler(method)
      return
    }
    if (!this.#handlers.delete(method)) return
    for (const kind of kinds) this.#stale.add(kind)
  }

  /** The list is read again, then its listeners told (the SDKs' contract for a list that changed). */
  override sendToolListChanged(): Promise<void> {
    return this.#announce('tools')
  }

  override sendResourceListChanged(): Promise<void> {
    return this.#announce('resources')
  }

  override sendPromptListChanged(): Promise<void> {
    return this.#announce('prompts')
  }

  /**
   * Read `kind` again and tell its listeners: the promise to await, also kept alive for the request
   * and its failure logged, for code that does not await it (`void server.sendToolListChanged()`).
   */
  #announce(kind: ListKind): Promise<void> {
    const changed = this.#changed(kind)
    void publishing(changed, 'list change lost: reading the list again failed')
    return changed
  }

  /** mcp-edge serves no transport objects: a Worker serves the server with `createMcpHandler`. */
  connect(transport: unknown): Promise<void> {
    return this.#owner.connect(transport)
  }

  /**
   * Every list read that is due (the first, since a handler changed, or since an entry it read was
   * taken back), and those under way: what `createMcpHandler` and `McpAgent` wait for before
   * serving. A list with an item the core cannot serve fails it with a `ConfigurationError` naming
   * the item, and the registry keeps what it had. A list handler that throws does not: it may read
   * the client (`getClientCapabilities()`, or what `oninitialized` kept), which no request gives it
   * here. Its error is logged, the list keeps what it had, and a list never read yet is read again
   * in each request that needs it, for that request's client (`#readFor`), until it can be.
   */
  prepared(): Promise<void> {
    const reads = KINDS.map((kind) => {
      if (this.#stale.has(kind) || !this.#kinds[kind].intact()) return this.#readKind(kind)
      // A read under way that fails leaves its kind due: read it again.
      return this.#reading[kind]?.catch(() => this.#readKind(kind))
    })
    const unless = (error: unknown) => {
      if (!(error instanceof ListHandlerFailed)) throw error
      // Once an isolate for each error: a server built per request (a factory) is first served each time.
      warnOnce(`${error.message}, when the server was first served; it is read again in each request that needs it`)
    }
    return Promise.all(reads.map((read) => read?.catch(unless))).then(() => {})
  }

  /**
   * The lists a request of `capability` serves from that no read has read yet, read now for its
   * client (`getClientCapabilities()` and `getClientVersion()` answer with `meta`'s). Requests that
   * come while one reads wait for that read, and read for themselves only if it failed, so a burst
   * costs one read when it succeeds. While a list handler still throws, so does the request: -32603,
   * the error in the log.
   */
  #readFor(capability: string, meta: RequestMeta, params: Record<string, unknown>): Promise<void> | undefined {
    const unread = (kind: ListKind) => this.#unread.has(kind)
    const needed = neededFor(capability, params).filter(unread)
    // A completion fails only with its ref's list. The other decides whether completions are
    // offered (a prompt or a template) only when the server holds neither: read then, its failure
    // left to the requests that need it.
    const others =
      capability === 'completions' ? (READ_FOR.completions ?? []).filter((kind) => unread(kind) && !needed.includes(kind)) : []
    if (needed.length === 0 && others.length === 0) return undefined
    const client = { protocolVersion: meta.protocolVersion, capabilities: meta.clientCapabilities, info: meta.clientInfo }
    const frame = { store: currentRequest(), handler: undefined, client }
    const read = Promise.all(needed.map((kind) => this.#readUnread(kind, frame)))
    if (others.length === 0) return read.then(() => {})
    return read.then(async () => {
      if (this.edge.prompts.size > 0 || this.edge.templates.size > 0) return
      await Promise.all(others.map((kind) => this.#readUnread(kind, frame).catch(() => {})))
    })
  }

  /** `#readFor`'s read of one kind, until it is read: another request's under way, else this one's. */
  async #readUnread(kind: ListKind, frame: Parameters<typeof withHandler>[0]): Promise<void> {
    while (this.#unread.has(kind)) {
      const other = this.#unreadRead[kind]
      if (other) {
        await other.catch(() => {})
        continue
      }
      const read = withHandler(frame, () => this.#readKind(kind))
      this.#unreadRead[kind] = read
      try {
        await read
      } catch (error) {
        // An item the core cannot serve: named, as at a first read (its message holds no secret).
        if (error instanceof ConfigurationError) throw new EdgeError('misconfigured', `Server misconfigured: ${error.message}`)
        if (!(error instanceof ListHandlerFailed)) throw error
        libraryLog.error('a list handler threw', errorFields(error))
        throw new EdgeError('internalError', `Internal error: ${error.method} threw; see the server logs`)
      } finally {
        if (this.#unreadRead[kind] === read) delete this.#unreadRead[kind]
      }
    }
  }

  async #changed(kind: ListKind): Promise<void> {
    this.#stale.add(kind)
    await this.#readKind(kind)
    this.#kinds[kind].tell()
  }

  #readKind(kind: ListKind): Promise<void> {
    const run = async () => {
      // Due again if a handler changes while it runs, or if it fails.
      this.#stale.delete(kind)
      try {
        await this.#kinds[kind].read()
        this.#read.add(kind)
        this.#unread.delete(kind)
      } catch (error) {
        this.#stale.add(kind)
        if (error instanceof ListHandlerFailed && !this.#read.has(kind)) this.#unread.add(kind)
        throw error
      }
    }
    const read = (this.#reading[kind] ?? Promise.resolve()).then(run, run)
    this.#reading[kind] = read
    return read
  }

  /** Every item of `method`'s pages (none without a handler). */
  #list(method: string, key: string): Promise<Record<string, unknown>[]> {
    const handler = this.#handlers.get(method)
    return handler ? readPages(handler, method, key) : Promise.resolve([])
  }

  async #readTools(): Promise<void> {
    const tools = await this.#list('tools/list', 'tools')
    this.#tools.apply(plan(tools, 'tools/list', 'tool', 'name', (name, tool) => this.#toolAdder(name, tool)))
  }

  #toolAdder(name: string, tool: Record<string, unknown>): () => void {
    const { inputSchema, outputSchema } = tool
    if (!isObject(inputSchema) || inputSchema.type !== 'object') {
      throw new ConfigurationError(`tools/list: tool "${name}" has no inputSchema of type "object"`)
    }
    const options = {
      ...pick(tool, TOOL_FIELDS),
      input: { jsonSchema: inputSchema },
      ...(isObject(outputSchema) ? { output: rawOutput(outputSchema) } : {}),
      // As SDK 1.x, a name outside the spec's convention is warned about, not refused (tool-entry.ts).
      [CONVENTION_WARNED]: true,
    } as unknown as ToolOptions<ObjectSchema, undefined, undefined, Env>
    const call = (args: unknown, ctx: RequestContext<Env>) =>
      runSdkHandler(
        ctx,
        this.#hooks,
        (extra) => this.#call('tools/call', { name, arguments: args, ...metaOf(extra) }, extra, withContent),
        protocolFailure,
      ) as Promise<CallToolResult>
    return () => void this.edge.tool(name, options, call)
  }

  async #readResources(): Promise<void> {
    const [resources, templates] = await Promise.all([
      this.#list('resources/list', 'resources'),
      this.#list('resources/templates/list', 'resourceTemplates'),
    ])
    const read = (ctx: RequestContext<Env>, uri: string) =>
      runSdkHandler(
        ctx,
        this.#hooks,
        (extra) => this.#call('resources/read', { uri, ...metaOf(extra) }, extra),
        protocolFailure,
      ) as Promise<ReadResourceResult>
    const named = (method: string, what: string, key: string, item: Record<string, unknown>) => {
      if (typeof item.name !== 'string') throw new ConfigurationError(`${method}: ${what} "${key}" has no name`)
    }
    const salt = this.#completesSalt()
    // Both checked before either registry changes.
    const listed = plan(resources, 'resources/list', 'resource', 'uri', (uri, resource) => {
      named('resources/list', 'resource', uri, resource)
      const listing = pick(resource, RESOURCE_FIELDS) as { name: string }
      return () => void this.edge.resource(uri, listing, (given, ctx) => read(ctx, given))
    })
    const templated = plan(
      templates,
      'resources/templates/list',
      'resource template',
      'uriTemplate',
      (uriTemplate, template) => {
        named('resources/templates/list', 'resource template', uriTemplate, template)
        let variables: readonly string[]
        try {
          variables = compileUriTemplate(uriTemplate).variables
        } catch (error) {
          throw new ConfigurationError(`resources/templates/list: ${(error as Error).message}`)
        }
        const complete = this.#completers({ type: 'ref/resource', uri: uriTemplate }, variables)
        const listing = { ...(pick(template, TEMPLATE_FIELDS) as { name: string }), ...complete }
        return () => void this.edge.resourceTemplate(uriTemplate, listing, (uri, _variables, ctx) => read(ctx, uri))
      },
      salt,
    )
    // One read: the templates refused puts the resources back as they were.
    const undo = this.#resources.apply(listed)
    try {
      this.#templates.apply(templated)
    } catch (error) {
      undo()
      throw error
    }
  }

  async #readPrompts(): Promise<void> {
    const prompts = await this.#list('prompts/list', 'prompts')
    const salt = this.#completesSalt()
    const adder = (name: string, prompt: Record<string, unknown>) => {
      const args = promptArgs(prompt.arguments, name)
      const complete = this.#completers({ type: 'ref/prompt', name }, args ? Object.keys(args._zod.def.shape) : [])
      const options = { ...pick(prompt, PROMPT_FIELDS), ...(args ? { args } : {}), ...complete } as PromptOptions<
        ObjectSchema,
        Env
      >
      const get = (given: unknown, ctx: RequestContext<Env>) =>
        runSdkHandler(
          ctx,
          this.#hooks,
          (extra) => this.#call('prompts/get', { name, arguments: given, ...metaOf(extra) }, extra),
          protocolFailure,
        ) as Promise<GetPromptResult>
      return () => void this.edge.prompt(name, options, (given, ctx) => get(given, ctx as RequestContext<Env>))
    }
    this.#prompts.apply(plan(prompts, 'prompts/list', 'prompt', 'name', adder, salt))
  }

  /** What else a resource's or prompt's registration depends on: whether a completion handler is set. */
  #completesSalt(): string {
    return this.#handlers.has(COMPLETE) ? '+complete' : ''
  }

  /** With a `completion/complete` handler: a completer for each of `names`, asking it with `ref`. */
  #completers(ref: Record<string, string>, names: readonly string[]): { complete?: Record<string, Completer<Env>> } {
    if (!this.#handlers.has(COMPLETE) || names.length === 0) return {}
    const completer: (name: string) => Completer<Env> = (name) => (value, ctx) =>
      runSdkHandler(ctx, this.#hooks, (extra) => {
        const params = { ref, argument: { name, value }, context: { arguments: ctx.arguments } }
        return this.#call(COMPLETE, params, extra, (result) => (result as { completion: unknown }).completion)
      }) as ReturnType<Completer<Env>>
    return { complete: Object.fromEntries(names.map((name) => [name, completer(name)])) }
  }

  /** The handler of `method` with the request the SDKs build, its result through `finish`. */
  #call(
    method: string,
    params: Record<string, unknown>,
    extra: RequestHandlerExtra,
    finish?: (result: unknown) => unknown,
  ): unknown {
    const handler = this.#handlers.get(method)
    if (!handler) throw new EdgeError('methodNotFound', `Method not found: ${method} (the server set no handler for it)`)
    const result = handler({ method, params }, extra)
    return finish ? afterResult(result, finish) : result
  }
}
