/**
 * The SDKs' low-level `Server` (SDK 1.x `@modelcontextprotocol/sdk/server/index.js`, 2.x
 * `@modelcontextprotocol/server`): a server whose lists and calls are request handlers
 * (`setRequestHandler(ListToolsRequestSchema, …)`, `CallToolRequestSchema`…), not registrations.
 *
 * mcp-edge serves lists itself (both eras, pages, scopes, tasks, list-change events), so what a
 * list handler returns is read into the core's registries: when the server is first served
 * (`prepared`), and again when the server announces a change (`sendToolListChanged()` and kin),
 * which is how an SDK server tells its clients that a list changed. Each tool, resource, template
 * and prompt read so is served by the handler the server set for its call, read or get, called
 * with the request as the SDK builds it and the SDK-style `extra` (context.ts), on the core's
 * rounds (rounds.ts), so `elicitInput` and `sendRequest` work in it as in `McpServer`'s handlers.
 */
import * as z from 'zod/v4/mini'
import { LOG_LEVELS } from '../protocol/constants.ts'
import { McpError as EdgeError } from '../protocol/errors.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import type { CallToolResult, GetPromptResult, Icon, JsonObject, ReadResourceResult } from '../protocol/types.ts'
import type { ListKind } from '../server/events/events.ts'
import { zodToJsonSchema } from '../server/schema/json-schema.ts'
import type { JsonSchema, ObjectSchema, Schema } from '../server/schema/schema.ts'
import type { McpServer as EdgeServer } from '../server/server.ts'
import { CONVENTION_WARNED } from '../server/tool-entry.ts'
import type { Completer, PromptOptions, RequestContext, ServerOptions, ToolOptions } from '../server/types.ts'
import type { RequestHandlerExtra } from './context.ts'
import { protocolFailure, withContent } from './define.ts'
import { LowLevelServer, methodOf, reportUnexpected } from './low-level.ts'
import type { RequestSchema } from './low-level.ts'
import { runSdkHandler } from './rounds.ts'
import type { Hooks } from './rounds.ts'
import { McpServer } from './server.ts'
import type { McpServerOptions } from './types.ts'

const meta = z.optional(z.record(z.string(), z.unknown()))
const paginated = z.optional(z.looseObject({ cursor: z.optional(z.string()), _meta: meta }))
const request = <M extends string, P extends z.core.$ZodType>(method: M, params: P) =>
  z.looseObject({ method: z.literal(method), params })

/** The SDKs' request schemas, for `setRequestHandler(schema, handler)`: the method they name, the request's type. */
export const ListToolsRequestSchema = request('tools/list', paginated)
export const CallToolRequestSchema = request(
  'tools/call',
  z.looseObject({ name: z.string(), arguments: z.optional(z.record(z.string(), z.unknown())), _meta: meta }),
)
export const ListResourcesRequestSchema = request('resources/list', paginated)
export const ListResourceTemplatesRequestSchema = request('resources/templates/list', paginated)
export const ReadResourceRequestSchema = request('resources/read', z.looseObject({ uri: z.string(), _meta: meta }))
export const SubscribeRequestSchema = request('resources/subscribe', z.looseObject({ uri: z.string(), _meta: meta }))
export const UnsubscribeRequestSchema = request('resources/unsubscribe', z.looseObject({ uri: z.string(), _meta: meta }))
export const ListPromptsRequestSchema = request('prompts/list', paginated)
export const GetPromptRequestSchema = request(
  'prompts/get',
  z.looseObject({ name: z.string(), arguments: z.optional(z.record(z.string(), z.string())), _meta: meta }),
)
export const CompleteRequestSchema = request(
  'completion/complete',
  z.looseObject({
    ref: z.union([
      z.looseObject({ type: z.literal('ref/prompt'), name: z.string() }),
      z.looseObject({ type: z.literal('ref/resource'), uri: z.string() }),
    ]),
    argument: z.looseObject({ name: z.string(), value: z.string() }),
    context: z.optional(z.looseObject({ arguments: z.optional(z.record(z.string(), z.string())) })),
    _meta: meta,
  }),
)
export const SetLevelRequestSchema = request('logging/setLevel', z.looseObject({ level: z.enum(LOG_LEVELS), _meta: meta }))

/** A request handler as the SDKs take it: the request (typed by its schema) and the SDK-style `extra`. */
export type RequestHandler<Request = { method: string; params?: Record<string, unknown> }> = (
  request: Request,
  extra: RequestHandlerExtra,
) => unknown

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
/** More pages than this from one list handler is a cursor that never ends. */
const MAX_PAGES = 100
const KINDS: readonly ListKind[] = ['tools', 'resources', 'prompts']

/** A raw JSON Schema given as a tool's `outputSchema`, as the core takes an output: a zod schema it converts. */
const rawSchemas = new WeakMap<Schema, JsonSchema>()
function rawOutput(jsonSchema: JsonSchema): Schema {
  // The SDKs' low-level server checks no result against it: neither does this one.
  const schema = z.unknown()
  rawSchemas.set(schema, jsonSchema)
  return schema
}

/** A prompt's listed arguments as the core takes them: a zod object of strings, described. */
function promptArgs(args: unknown, name: string): ObjectSchema | undefined {
  if (args === undefined) return undefined
  if (!Array.isArray(args)) throw new Error(`prompts/list: prompt "${name}" has arguments that are not an array`)
  const shape: Record<string, Schema> = {}
  for (const arg of args) {
    if (!isObject(arg) || typeof arg.name !== 'string')
      throw new Error(`prompts/list: prompt "${name}" has an argument without a name`)
    const described = { description: arg.description, title: arg.title } as { description?: string; title?: string }
    const string = z.string().register(z.globalRegistry, dropUndefined(described))
    shape[arg.name] = arg.required === true ? string : z.optional(string)
  }
  return z.object(shape)
}

/** The variables of an RFC 6570 URI template (`{+path}`, `{?a,b*}` → path, a, b). */
function templateVariables(uriTemplate: string): string[] {
  const names: string[] = []
  for (const [, expression = ''] of uriTemplate.matchAll(/\{([^}]*)\}/g)) {
    for (const spec of expression.replace(/^[+#./;?&]/, '').split(',')) names.push(spec.replace(/(\*|:\d+)$/, ''))
  }
  return names
}

/**
 * The `extra` of a list handler, which mcp-edge calls when it reads the list, not for a client's
 * request: there is no caller to name or to ask, and what it would send goes nowhere.
 */
function listingExtra(method: string): RequestHandlerExtra {
  const signal = new AbortController().signal
  const nobody = () =>
    Promise.reject(new Error(`${method} is read when mcp-edge builds its lists, with no client to ask (docs/migrate.md)`))
  const quiet = async () => {}
  const mcpReq = { id: 0, method, signal, inputResponses: undefined, requestState: () => undefined, log: quiet }
  return {
    signal,
    requestId: 0,
    sendNotification: quiet,
    sendRequest: nobody,
    mcpReq: { ...mcpReq, elicitInput: nobody, requestSampling: nobody, send: nobody, notify: quiet },
  } as unknown as RequestHandlerExtra
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T
}

/** `from`'s fields named in `keys` that it has. */
function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => from[key] !== undefined).map((key) => [key, from[key]]))
}

const TOOL_FIELDS = ['title', 'description', 'annotations', 'icons', '_meta'] as const
const RESOURCE_FIELDS = ['name', 'title', 'description', 'mimeType', 'size', 'icons', '_meta'] as const
const PROMPT_FIELDS = ['title', 'description', 'icons', '_meta'] as const

/**
 * @example
 * const server = new Server({ name: 'demo', version: '1.0.0' }, { capabilities: { tools: {} } })
 * server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ECHO] }))
 * server.setRequestHandler(CallToolRequestSchema, async (request) => ({
 *   content: [{ type: 'text', text: String(request.params.arguments?.text) }],
 * }))
 * export default { fetch: createMcpHandler(server) }
 */
export class Server<Env = unknown> extends LowLevelServer {
  /** mcp-edge's own server underneath, holding what the list handlers returned. */
  readonly edge: EdgeServer<Env>
  /** Announces, logs and connects as an SDK-style server does. */
  readonly #owner: McpServer<Env>
  readonly #handlers = new Map<string, RequestHandler>()
  readonly #hooks: Hooks
  /** What the last read of each registry put there: its key, and its listing as JSON (to tell a change). */
  readonly #read = {
    tools: new Map<string, string>(),
    resources: new Map<string, string>(),
    templates: new Map<string, string>(),
    prompts: new Map<string, string>(),
  }
  /** The kinds whose handlers changed since they were last read. */
  readonly #stale = new Set<ListKind>(KINDS)
  /** The read of each kind under way (one at a time: a later one waits for it). */
  readonly #reading: Partial<Record<ListKind, Promise<void>>> = {}

  constructor(
    serverInfo: { name: string; version: string; title?: string; description?: string; websiteUrl?: string; icons?: Icon[] },
    options: McpServerOptions = {},
  ) {
    // Set once `super` returns: the hooks are called later, never during the construction.
    const self: { server?: Server<Env> } = {}
    const ownerOf = () => (self.server as Server<Env>).#owner
    super({
      extensions: (given: Record<string, JsonObject>) => ownerOf().server.registerCapabilities({ extensions: given }),
      listChanged: (kind) => void (self.server as Server<Env>).#changed(kind),
      resourceUpdated: (uri) => void ownerOf().server.sendResourceUpdated({ uri }),
      log: (params) => ownerOf().sendLoggingMessage(params),
    })
    self.server = this
    const given = options.jsonSchema as ServerOptions['jsonSchema']
    const convert = given ?? zodToJsonSchema
    const jsonSchema = (schema: Schema, io: 'input' | 'output') => rawSchemas.get(schema) ?? convert(schema, io)
    this.#owner = new McpServer<Env>(serverInfo, { ...options, jsonSchema })
    this.edge = this.#owner.edge
    const threw = (error: unknown, ctx: { signal: AbortSignal }) => reportUnexpected(this, error, ctx.signal)
    const announcements = {
      listChanged: (kind: ListKind) => void this.#changed(kind),
      resourceUpdated: (uri: string) => void this.sendResourceUpdated({ uri }),
    }
    this.#hooks = { ...announcements, decodeState: options.requestState?.verify, threw }
  }

  /**
   * Serve `method` with `handler`, given the SDK's request schema (1.x) or the method's name (2.x).
   * The lists, calls, reads, gets and completions are served; `resources/subscribe`,
   * `resources/unsubscribe` and `logging/setLevel` are accepted and never called (mcp-edge keeps
   * them itself); any other method is refused, naming why.
   */
  override setRequestHandler<S extends RequestSchema>(
    schema: S,
    handler: (request: z.output<S>, extra: RequestHandlerExtra) => unknown,
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
  }

  /** The handler of `method`, as SDK 2.x code asks (`assertCanSetRequestHandler`). */
  removeRequestHandler(method: string): void {
    const kinds = SERVED[method]
    if (!this.#handlers.delete(method) || !kinds) return
    for (const kind of kinds) this.#stale.add(kind)
  }

  /** The list is read again, and its listeners told (the SDKs' contract for a list that changed). */
  override sendToolListChanged(): Promise<void> {
    return this.#changed('tools')
  }

  override sendResourceListChanged(): Promise<void> {
    return this.#changed('resources')
  }

  override sendPromptListChanged(): Promise<void> {
    return this.#changed('prompts')
  }

  /** mcp-edge serves no transport objects: a Worker serves the server with `createMcpHandler`. */
  connect(transport: unknown): Promise<void> {
    return this.#owner.connect(transport)
  }

  /**
   * Every list read that is due (the first, or since a handler changed): what `createMcpHandler`
   * and `McpAgent` wait for before serving. A list handler that throws, or lists something the
   * core cannot serve, fails it, naming the item.
   */
  prepared(): Promise<void> {
    const due = KINDS.filter((kind) => this.#stale.has(kind))
    return due.length === 0 ? Promise.resolve() : Promise.all(due.map((kind) => this.#readKind(kind))).then(() => {})
  }

  async #changed(kind: ListKind): Promise<void> {
    this.#stale.add(kind)
    await this.#readKind(kind)
    if (kind === 'tools') this.#owner.sendToolListChanged()
    else if (kind === 'resources') this.#owner.sendResourceListChanged()
    else this.#owner.sendPromptListChanged()
  }

  #readKind(kind: ListKind): Promise<void> {
    const run = async () => {
      this.#stale.delete(kind)
      try {
        if (kind === 'tools') await this.#readTools()
        else if (kind === 'resources') await this.#readResources()
        else await this.#readPrompts()
      } catch (error) {
        this.#stale.add(kind)
        throw error
      }
    }
    const read = (this.#reading[kind] ?? Promise.resolve()).then(run, run)
    this.#reading[kind] = read
    return read
  }

  /** Every item of a paginated list handler's pages (none when no handler is set). */
  async #listAll(method: string, key: string): Promise<Record<string, unknown>[]> {
    const handler = this.#handlers.get(method)
    if (!handler) return []
    const items: Record<string, unknown>[] = []
    let cursor: unknown
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = typeof cursor === 'string' ? { cursor } : {}
      const result = await handler({ method, params }, listingExtra(method))
      const listed = isObject(result) ? result[key] : undefined
      if (!Array.isArray(listed)) throw new Error(`${method}: the handler returned no "${key}" array`)
      for (const item of listed) {
        if (!isObject(item)) throw new Error(`${method}: an item of "${key}" is not an object`)
        items.push(item)
      }
      cursor = (result as { nextCursor?: unknown }).nextCursor
      if (typeof cursor !== 'string') return items
    }
    throw new Error(`${method}: more than ${MAX_PAGES} pages (a nextCursor that never ends?)`)
  }

  /**
   * Bring one registry to `items`: what left or changed is removed, what is new or changed is
   * added (`add`); what is the same stays as it is.
   */
  #sync(
    read: Map<string, string>,
    items: Record<string, unknown>[],
    keyOf: (item: Record<string, unknown>) => string,
    remove: (key: string) => void,
    add: (key: string, item: Record<string, unknown>) => void,
    what: string,
  ): void {
    const next = new Map<string, string>()
    for (const item of items) {
      const key = keyOf(item)
      if (next.has(key)) throw new Error(`${what} "${key}" is listed twice`)
      next.set(key, JSON.stringify(item))
    }
    for (const [key, json] of read) {
      if (next.get(key) === json) continue
      remove(key)
      read.delete(key)
    }
    const byKey = new Map(items.map((item) => [keyOf(item), item]))
    for (const [key, json] of next) {
      if (read.get(key) === json) continue
      add(key, byKey.get(key) as Record<string, unknown>)
      read.set(key, json)
    }
  }

  async #readTools(): Promise<void> {
    const tools = await this.#listAll('tools/list', 'tools')
    const name = (tool: Record<string, unknown>) => {
      if (typeof tool.name !== 'string') throw new Error('tools/list: a tool has no name')
      return tool.name
    }
    this.#sync(
      this.#read.tools,
      tools,
      name,
      (key) => this.edge.removeTool(key),
      (key, tool) => this.#addTool(key, tool),
      'tool',
    )
  }

  #addTool(name: string, tool: Record<string, unknown>): void {
    const { inputSchema, outputSchema } = tool
    if (!isObject(inputSchema) || inputSchema.type !== 'object') {
      throw new Error(`tools/list: tool "${name}" has no inputSchema of type "object"`)
    }
    const options = {
      ...pick(tool, TOOL_FIELDS),
      input: { jsonSchema: inputSchema },
      ...(isObject(outputSchema) ? { output: rawOutput(outputSchema) } : {}),
      // As SDK 1.x, a name outside the spec's convention is warned about, not refused (tool-entry.ts).
      [CONVENTION_WARNED]: true,
    } as unknown as ToolOptions<ObjectSchema, undefined, undefined, Env>
    this.edge.tool(
      name,
      options,
      (args, ctx) =>
        runSdkHandler(
          ctx,
          this.#hooks,
          (extra) => this.#call('tools/call', { name, arguments: args, ...metaOf(extra) }, extra, withContent),
          protocolFailure,
        ) as Promise<CallToolResult>,
    )
  }

  async #readResources(): Promise<void> {
    const [resources, templates] = await Promise.all([
      this.#listAll('resources/list', 'resources'),
      this.#listAll('resources/templates/list', 'resourceTemplates'),
    ])
    const field = (key: string) => (item: Record<string, unknown>) => {
      if (typeof item[key] !== 'string') throw new Error(`a listed resource has no ${key}`)
      if (typeof item.name !== 'string') throw new Error(`resource "${item[key]}" has no name`)
      return item[key] as string
    }
    const read = (ctx: RequestContext<Env>, uri: string) =>
      runSdkHandler(
        ctx,
        this.#hooks,
        (extra) => this.#call('resources/read', { uri, ...metaOf(extra) }, extra),
        protocolFailure,
      ) as Promise<ReadResourceResult>
    this.#sync(
      this.#read.resources,
      resources,
      field('uri'),
      (uri) => this.edge.removeResource(uri),
      (uri, resource) =>
        this.edge.resource(uri, pick(resource, RESOURCE_FIELDS) as { name: string }, (given, ctx) => read(ctx, given)),
      'resource',
    )
    this.#sync(
      this.#read.templates,
      templates,
      field('uriTemplate'),
      (uriTemplate) => this.edge.removeResourceTemplate(uriTemplate),
      (uriTemplate, template) => {
        const ref = { type: 'ref/resource', uri: uriTemplate }
        const complete = this.#completers(ref, templateVariables(uriTemplate))
        const listing = pick(
          template,
          RESOURCE_FIELDS.filter((key) => key !== 'size'),
        ) as { name: string }
        this.edge.resourceTemplate(uriTemplate, { ...listing, ...complete }, (uri, _variables, ctx) => read(ctx, uri))
      },
      'resource template',
    )
  }

  async #readPrompts(): Promise<void> {
    const prompts = await this.#listAll('prompts/list', 'prompts')
    const name = (prompt: Record<string, unknown>) => {
      if (typeof prompt.name !== 'string') throw new Error('prompts/list: a prompt has no name')
      return prompt.name
    }
    const add = (key: string, prompt: Record<string, unknown>) => {
      const args = promptArgs(prompt.arguments, key)
      const names = args ? Object.keys(args._zod.def.shape) : []
      const complete = this.#completers({ type: 'ref/prompt', name: key }, names)
      const options = { ...pick(prompt, PROMPT_FIELDS), ...(args ? { args } : {}), ...complete } as PromptOptions<
        ObjectSchema,
        Env
      >
      this.edge.prompt(
        key,
        options,
        (given, ctx) =>
          runSdkHandler(
            ctx as RequestContext<Env>,
            this.#hooks,
            (extra) => this.#call('prompts/get', { name: key, arguments: given, ...metaOf(extra) }, extra),
            protocolFailure,
          ) as Promise<GetPromptResult>,
      )
    }
    this.#sync(this.#read.prompts, prompts, name, (key) => this.edge.removePrompt(key), add, 'prompt')
  }

  /** With a `completion/complete` handler: a completer for each of `names`, asking it with `ref`. */
  #completers(ref: Record<string, string>, names: string[]): { complete?: Record<string, Completer<Env>> } {
    if (!this.#handlers.has('completion/complete') || names.length === 0) return {}
    const completer: (name: string) => Completer<Env> = (name) => (value, ctx) =>
      runSdkHandler(ctx, this.#hooks, (extra) => {
        const params = { ref, argument: { name, value }, context: { arguments: ctx.arguments } }
        return this.#call('completion/complete', params, extra, (result) => (result as { completion: unknown }).completion)
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
    if (!finish) return result
    return typeof (result as { then?: unknown } | undefined)?.then === 'function'
      ? Promise.resolve(result).then(finish)
      : finish(result)
  }
}

/** The request's `_meta` (a progress token…), as the SDKs hand it to the handler in `params`. */
const metaOf = (extra: RequestHandlerExtra) =>
  extra._meta === undefined || Object.keys(extra._meta).length === 0 ? {} : { _meta: extra._meta }

/** A low-level server's lists are read before it is served (the others need nothing). */
export function prepared<S>(server: S): Promise<S> | S {
  return server instanceof Server ? server.prepared().then(() => server) : server
}
