/**
 * `McpServer` with the registration API of the official SDKs (1.x `@modelcontextprotocol/sdk`,
 * 2.x `@modelcontextprotocol/server`) over mcp-edge's server (`edge`). Each registration becomes
 * a core tool, resource, template or prompt whose handler calls the SDK-style callback with the
 * SDK-style context (context.ts) and runs its multi-round-trip questions on the core's sealed
 * rounds (rounds.ts). The core knows nothing of this file.
 * The registrations themselves are in define.ts, the types in types.ts. Over 400 lines: the
 * SDKs' overloads of `tool`, `resource` and `prompt` are the class's public API and stay on it.
 */
import { isObject } from '../protocol/jsonrpc.ts'
import type { Icon, JsonObject, ToolAnnotations } from '../protocol/types.ts'
import { McpServer as EdgeServer } from '../server/server.ts'
import type { EventDelivery, ListKind } from '../server/events/events.ts'
import { watchClientNotifications, watchKeptRequests } from '../server/kept-requests.ts'
import { quiet } from '../server/quiet.ts'
import type { ServerOptions } from '../server/types.ts'
import { warnOnce } from '../server/telemetry/log.ts'
import { definePrompt, defineResource, defineTool } from './define.ts'
import type { Hooks } from './rounds.ts'
import { clientNotificationWatcher, keptRequestWatcher, LowLevelServer, reportUnexpected } from './low-level.ts'
import { publishing } from './notifier.ts'
import { Registered } from './registered.ts'
import { building, currentHandler, currentLog, currentRequest } from './request-store.ts'
import type { RequestHandlerExtra } from './context.ts'
import { ResourceTemplate } from './resource-template.ts'
import { experimentalTasks } from './unsupported.ts'
import { isRawShape, isZod } from './schema/schema.ts'
import { isZod3 } from './schema/zod3-walk.ts'
import type { ZodRawShape } from './schema/schema.ts'
import type {
  AnyCallback,
  LooseToolAnnotations,
  McpServerOptions,
  PromptArgsSchema,
  PromptCallback,
  PromptConfig,
  PromptSlotConfig,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ResourceMetadata,
  ResourceSlotConfig,
  ToolCallback,
  ToolConfig,
  ToolInputSchema,
  ToolSlotConfig,
} from './types.ts'

/**
 * Lists not cached (below), and `private`: a server built per caller (a factory that reads its
 * context, an `McpAgent` whose `init()` registers by `this.props`) lists what that caller may use,
 * and mcp-edge cannot tell such a server from one shared by everyone.
 */
const UNCACHED_LISTS = { ttlMs: 0, cacheScope: 'private' } as const
/** The SDKs' lists are not paginated. */
const ONE_PAGE = Number.POSITIVE_INFINITY
/** The options of mcp-edge's own server that an SDK-style server takes too. */
const EDGE_OPTIONS = [
  'instructions',
  'pageSize',
  'listCache',
  'listenTimeoutMs',
  'taskLimits',
  'limits',
  'events',
  'jsonSchema',
  'telemetry',
  'extensions',
] as const satisfies readonly (keyof ServerOptions)[]

/**
 * Where a server built without `events` sends its notifications. The package's entry (index.ts)
 * sets it to the `MCP_EVENTS` hub when the Worker binds one; this file imports nothing of the
 * Workers runtime, so the unit tests run it in Node.
 */
let conventionalEvents: () => EventDelivery | undefined = () => undefined

/** Set how a server built without `events` finds its event hub (index.ts: by the `MCP_EVENTS` binding). */
export function useConventionalEvents(find: () => EventDelivery | undefined): void {
  conventionalEvents = find
}

/** What `#unheard` says of a notification sent with no event hub bound. */
const unheard = (notification: string): string =>
  `${notification} reaches no client: no event hub is bound. A 2025 session's GET stream, which carries it, needs ` +
  "McpEventHub bound as MCP_EVENTS and McpSessionLedger as MCP_SESSIONS (export both from 'mcp-edge/cloudflare'); " +
  'a 2026-07-28 listen stream needs the hub (docs/migrate.md)'

/** The lists an SDK server's `capabilities` declare (`{ resources: { listChanged: true } }`). */
function declaredLists(capabilities: unknown): ListKind[] {
  if (typeof capabilities !== 'object' || capabilities === null) return []
  return (['tools', 'resources', 'prompts'] as const).filter((kind) => kind in capabilities)
}

/**
 * @example
 * const server = new McpServer({ name: 'demo', version: '1.0.0' })
 * server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
 *   content: [{ type: 'text', text: String(a + b) }],
 * }))
 */
export class McpServer<Env = unknown> {
  /** mcp-edge's own server underneath: register native tools beside SDK-style ones, serve it with `mcp()`. */
  readonly edge: EdgeServer<Env>
  /** The SDKs' low-level server, as far as tools use it (`elicitInput`, `createMessage`…). */
  readonly server: LowLevelServer
  /** SDK 1.x `experimental.tasks.registerToolTask`: refused, naming `execution: { taskSupport }` (unsupported.ts). */
  readonly experimental = experimentalTasks
  readonly #hooks: Hooks
  /** Set once the turn that built the server is over (`#notify`). */
  #live = false
  /** Set once a handler of the server has run: registrations from then on are announced (registered.ts). */
  #served = false
  /** Set while a registration puts its definition in (`#changing`: a handle's later changes are announced). */
  #registering = false

  constructor(
    serverInfo: { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[] },
    options: McpServerOptions = {},
  ) {
    // mcp-edge's own options pass on; the SDKs' others (capabilities, which mcp-edge derives from
    // what is registered; validators) have nothing to configure here.
    const edgeOptions: Partial<ServerOptions> = Object.fromEntries(
      EDGE_OPTIONS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]),
    )
    edgeOptions.events ??= conventionalEvents()
    // SDK 2.x declares its extensions among its capabilities: offered as mcp-edge's own.
    const declared = (options.capabilities as { extensions?: ServerOptions['extensions'] } | undefined)?.extensions
    if (declared) edgeOptions.extensions = { ...declared, ...edgeOptions.extensions }
    // Lists are not cached by clients unless the server says so: SDK code changes them at run time
    // (handles, registrations in a handler), which a cached list would hide for its TTL. And each is
    // one page, as the SDKs list: a client that reads one page (SDK 1.x's `listTools()` does) sees
    // every tool of a server moved here with more than mcp-edge's 50 a page. The options come last:
    // keys of theirs in the server info (`instructions`, given there by mistake) yield.
    this.edge = new EdgeServer<Env>({ listCache: UNCACHED_LISTS, pageSize: ONE_PAGE, ...serverInfo, ...edgeOptions })
    // Lists the code declares are offered while empty, as an SDK server answers them (`[]`): a
    // server that registers into them at run time (a note added by a tool) is seen by clients
    // that read the capability at connect. So is each list once something was registered in it.
    this.edge.offerLists(...declaredLists(options.capabilities))
    const listChanged = (kind: ListKind) => this.#notify(kind)
    const resourceUpdated = (uri: string) => this.#resourceUpdated(uri)
    const extensions = (given: Record<string, JsonObject>, capabilities?: Record<string, unknown>) => {
      Object.assign(this.edge.extensions, given)
      this.edge.offerLists(...declaredLists(capabilities))
    }
    const log = (params: Parameters<LowLevelServer['sendLoggingMessage']>[0]) => this.sendLoggingMessage(params)
    this.server = new LowLevelServer({ extensions, listChanged, resourceUpdated, log })
    watchKeptRequests(this.edge, keptRequestWatcher(this.server))
    watchClientNotifications(this.edge, clientNotificationWatcher(this.server))
    const threw = (error: unknown, ctx: { signal: AbortSignal }) => reportUnexpected(this.server, error, ctx.signal)
    const ran = () => {
      this.#served = true
    }
    this.#hooks = { listChanged, resourceUpdated, decodeState: options.requestState?.verify, threw, ran }
    queueMicrotask(() => {
      this.#live = true
    })
  }

  // SDK 2.x's deprecated raw-shape overload takes its type parameters input first (porting round
  // X's review). First, and only with an input given, so that a mistake in other code is reported
  // by the overload below, which takes them in the SDKs' order (output, then input).
  registerTool<In extends ZodRawShape, Out = undefined>(
    name: string,
    config: ToolConfig<In, Out> & { inputSchema: In },
    callback: ToolCallback<In, Env>,
  ): RegisteredTool
  registerTool<Out = undefined, In extends ToolInputSchema = undefined>(
    name: string,
    config: ToolConfig<In, Out>,
    callback: ToolCallback<In, Env>,
  ): RegisteredTool
  registerTool(name: string, config: ToolConfig, callback: ToolCallback<ToolInputSchema, Env>): RegisteredTool {
    return this.#registerTool(name, config, callback)
  }

  // The older overloads register through these, not through the public methods, as the SDKs'
  // own do: a subclass that wraps both `tool` and `registerTool` wraps each registration once.
  #registerTool(name: string, config: ToolConfig<ToolInputSchema, unknown>, callback: ToolCallback<ToolInputSchema, Env>) {
    this.edge.offerLists('tools')
    return this.#registration(
      () =>
        new Registered<ToolSlotConfig>(
          name,
          { ...config, callback } as ToolSlotConfig,
          {
            add: (key, slot) => this.#changing(() => defineTool(this.edge, this.#hooks, key, slot)),
            drop: (key) => this.#changing(() => this.edge.removeTool(key)),
            announce: (added) => this.#announce('tools', added),
            check: (key) => void this.edge.tools.get(key)?.definition,
          },
          { paramsSchema: 'inputSchema' },
        ) as RegisteredTool,
    )
  }

  /** SDK 1.x `tool(name, [description], [paramsSchema | annotations], [annotations], callback)`. */
  tool(name: string, callback: ToolCallback<undefined, Env>): RegisteredTool
  tool(name: string, description: string, callback: ToolCallback<undefined, Env>): RegisteredTool
  tool<In extends ZodRawShape>(
    name: string,
    paramsSchemaOrAnnotations: In | ToolAnnotations,
    callback: ToolCallback<In, Env>,
  ): RegisteredTool
  tool<In extends ZodRawShape>(
    name: string,
    description: string,
    paramsSchemaOrAnnotations: In | ToolAnnotations,
    callback: ToolCallback<In, Env>,
  ): RegisteredTool
  tool<In extends ZodRawShape>(
    name: string,
    paramsSchema: In,
    annotations: LooseToolAnnotations,
    callback: ToolCallback<In, Env>,
  ): RegisteredTool
  tool<In extends ZodRawShape>(
    name: string,
    description: string,
    paramsSchema: In,
    annotations: LooseToolAnnotations,
    callback: ToolCallback<In, Env>,
  ): RegisteredTool
  tool(name: string, ...rest: unknown[]): RegisteredTool {
    // As SDK 1.x reads its arguments, left to right: the callback is the first one after the
    // optional ones, and anything after it is ignored (code passes `annotations ? { annotations } :
    // undefined` there, which SDK 1.x never read).
    const description = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined
    let inputSchema: ZodRawShape | undefined
    let annotations: ToolAnnotations | undefined
    if (rest.length > 1) {
      // A zod schema itself is refused, as there (tool() takes a raw shape).
      if (isZod(rest[0]) || isZod3(rest[0]))
        throw new Error(`Tool ${name}: tool() takes a raw shape of zod schemas; pass a z.object as registerTool's inputSchema`)
      // An object of zod schemas (or an empty one) is the params schema, then maybe annotations; another object, annotations.
      if (isRawShape(rest[0])) {
        inputSchema = rest.shift() as ZodRawShape
        if (rest.length > 1 && isObject(rest[0]) && !isRawShape(rest[0])) annotations = rest.shift() as ToolAnnotations
      } else if (isObject(rest[0])) annotations = rest.shift() as ToolAnnotations
    }
    const callback = rest[0] as AnyCallback
    return this.#registerTool(name, { description, inputSchema, annotations }, callback as ToolCallback<ToolInputSchema, Env>)
  }

  registerResource(name: string, uri: string, metadata: ResourceMetadata, callback: ReadResourceCallback<Env>): RegisteredResource
  registerResource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    callback: ReadResourceTemplateCallback<Env>,
  ): RegisteredResourceTemplate
  registerResource(
    name: string,
    target: string | ResourceTemplate,
    metadata: ResourceMetadata,
    callback: AnyCallback,
  ): RegisteredResource {
    return this.#registerResource(name, target, metadata, callback)
  }

  #registerResource(name: string, target: string | ResourceTemplate, metadata: ResourceMetadata, callback: AnyCallback) {
    this.edge.offerLists('resources')
    return this.#registration(
      () =>
        new Registered<ResourceSlotConfig>(
          name,
          { name, target, metadata, callback },
          {
            add: (key, slot) => this.#changing(() => defineResource(this.edge, this.#hooks, key, slot)),
            drop: (_key, slot) =>
              this.#changing(() =>
                typeof slot.target === 'string'
                  ? this.edge.removeResource(slot.target)
                  : this.edge.removeResourceTemplate(slot.target.uriTemplate),
              ),
            announce: (added) => this.#announce('resources', added),
            key: (_key, slot) => (typeof slot.target === 'string' ? `uri ${slot.target}` : `template ${slot.target.uriTemplate}`),
          },
          { uri: 'target', template: 'target' },
        ),
    )
  }

  /** SDK 1.x `resource(name, uriOrTemplate, [metadata], callback)`. */
  resource(name: string, uri: string, callback: ReadResourceCallback<Env>): RegisteredResource
  resource(name: string, uri: string, metadata: ResourceMetadata, callback: ReadResourceCallback<Env>): RegisteredResource
  resource(name: string, template: ResourceTemplate, callback: ReadResourceTemplateCallback<Env>): RegisteredResourceTemplate
  resource(
    name: string,
    template: ResourceTemplate,
    metadata: ResourceMetadata,
    callback: ReadResourceTemplateCallback<Env>,
  ): RegisteredResourceTemplate
  resource(name: string, target: string | ResourceTemplate, ...rest: unknown[]): RegisteredResource {
    // As SDK 1.x reads them: an object first is the metadata; the callback is the next argument.
    const metadata = (isObject(rest[0]) ? rest.shift() : {}) as ResourceMetadata
    const callback = rest[0] as AnyCallback
    return this.#registerResource(name, target, metadata, callback)
  }

  registerPrompt<Args extends PromptArgsSchema = undefined>(
    name: string,
    config: PromptConfig<Args>,
    callback: PromptCallback<Args, Env>,
  ): RegisteredPrompt {
    return this.#registerPrompt(name, config as PromptConfig<PromptArgsSchema>, callback as PromptCallback<PromptArgsSchema, Env>)
  }

  #registerPrompt(name: string, config: PromptConfig<PromptArgsSchema>, callback: PromptCallback<PromptArgsSchema, Env>) {
    this.edge.offerLists('prompts')
    return this.#registration(
      () =>
        new Registered<PromptSlotConfig>(name, { ...config, callback } as PromptSlotConfig, {
          add: (key, slot) => this.#changing(() => definePrompt(this.edge, this.#hooks, key, slot)),
          drop: (key) => this.#changing(() => this.edge.removePrompt(key)),
          announce: (added) => this.#announce('prompts', added),
          check: (key) => void this.edge.prompts.get(key)?.definition,
        }),
    )
  }

  /** SDK 1.x `prompt(name, [description], [argsSchema], callback)`. */
  prompt(name: string, callback: PromptCallback<undefined, Env>): RegisteredPrompt
  prompt(name: string, description: string, callback: PromptCallback<undefined, Env>): RegisteredPrompt
  prompt<Args extends ZodRawShape>(name: string, argsSchema: Args, callback: PromptCallback<Args, Env>): RegisteredPrompt
  prompt<Args extends ZodRawShape>(
    name: string,
    description: string,
    argsSchema: Args,
    callback: PromptCallback<Args, Env>,
  ): RegisteredPrompt
  prompt(name: string, ...rest: unknown[]): RegisteredPrompt {
    // As SDK 1.x reads them: a description, then an args schema when more than the callback is left.
    const description = typeof rest[0] === 'string' ? (rest.shift() as string) : undefined
    const argsSchema = rest.length > 1 ? (rest.shift() as ZodRawShape) : undefined
    const callback = rest[0] as AnyCallback
    return this.#registerPrompt(name, { description, argsSchema }, callback as PromptCallback<PromptArgsSchema, Env>)
  }

  sendToolListChanged(): void {
    this.#notify('tools')
  }

  sendResourceListChanged(): void {
    this.#notify('resources')
  }

  sendPromptListChanged(): void {
    this.#notify('prompts')
  }

  /**
   * `notifications/message` to this server's client, as an SDK server has one: inside a handler,
   * to its caller on the request's stream (as `ctx.mcpReq.log`: a 2026-07-28 call gets it only if it
   * asked for a level); in a subscribe or setLevel handler, on that request's stream, at its
   * caller's level; outside any, to the streams of the caller whose request is being served (an
   * McpAgent's), through the event hub. Never to every listener: a shared server serves many
   * callers. `sessionId` picks nothing more: the caller is the request's.
   */
  async sendLoggingMessage(
    params: { level: Parameters<EdgeServer['notifyLog']>[0]; data: unknown; logger?: string },
    _sessionId?: string,
  ): Promise<void> {
    const running = currentHandler() as RequestHandlerExtra | undefined
    if (running) return running.mcpReq.log(params.level, params.data, params.logger)
    // A subscribe or setLevel handler's: on that request's own stream, at its caller's level.
    const kept = currentLog()
    if (kept) return kept(params.level, params.data, params.logger)
    const subject = currentRequest()?.principal?.subject
    if (subject === undefined) {
      const message =
        'sendLoggingMessage outside a handler: mcp-edge/sdk serves many callers with one server and cannot tell whose ' +
        'client to send it to. Call it inside a tool, resource or prompt handler, or use ' +
        'server.edge.notifyLog(level, data, { audience: [subject] }) to name the listeners (docs/migrate.md)'
      // In the log too: code calling it from a timer rarely awaits it, and would lose the rejection.
      warnOnce(message)
      throw new Error(message)
    }
    const options = params.logger === undefined ? { audience: [subject] } : { audience: [subject], logger: params.logger }
    await this.edge.notifyLog(params.level, params.data, options)
  }

  /** mcp-edge serves no transport objects: a Worker serves the server with `createMcpHandler`. */
  async connect(_transport: unknown): Promise<void> {
    throw new Error(
      'mcp-edge/sdk serves over HTTP only: export createMcpHandler(server) (or McpAgent.serve) instead of connect(transport)',
    )
  }

  isConnected(): boolean {
    return true
  }

  async close(): Promise<void> {}

  /** A registration: its definition goes in as a registration (`#changing`), not a handle's change. */
  #registration<T>(register: () => T): T {
    this.#registering = true
    try {
      return register()
    } finally {
      this.#registering = false
    }
  }

  /**
   * A change of the registry that `#announce` tells through the event hub: made without the core's
   * own announcement to this isolate's listeners, which the hub's reaches too (they heard each
   * change twice).
   */
  #changing<T>(change: () => T): T {
    // Only when the hub will tell (`#announce`): not a registration before the server served, nor
    // any change while it is set up; then the core's own announcement stays.
    const told = this.#live && !building() && (this.#served || !this.#registering)
    if (typeof this.edge.events !== 'object' || !told) return change()
    const loud = quiet(this.edge)
    try {
      return change()
    } finally {
      loud()
    }
  }

  #announce(kind: ListKind, added?: boolean): void {
    if (added && !this.#served) return
    if (typeof this.edge.events === 'object') this.#notify(kind)
  }

  /**
   * Nothing is announced while the server is set up, as an SDK server sends nothing before it is
   * connected: handles disabled at the module's top (in the turn that built the server), in a
   * factory, or in `McpAgent`'s `onStart` and `init()` (`building`) change no list a client has seen.
   */
  #notify(kind: ListKind): void {
    if (!this.#live || building()) return
    this.#unheard(`notifications/${kind}/list_changed`)
    void publishing(this.edge.notifyListChanged(kind), 'list change lost')
  }

  #resourceUpdated(uri: string): void {
    this.#unheard('notifications/resources/updated')
    void publishing(this.edge.notifyResourceUpdated(uri), 'resource update lost')
  }

  /**
   * Said once when the server has no event hub to send `notification` on: it reaches no one (an SDK
   * server sends it on the 2025 session's GET stream, which here needs the hub and the session ledger).
   */
  #unheard(notification: string): void {
    if (this.edge.events === undefined) warnOnce(unheard(notification))
  }
}

export { ResourceTemplate }
export type * from './types.ts'
