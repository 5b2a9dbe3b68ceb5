/**
 * `McpAgent` as Cloudflare's agents writes it: a Durable Object class with `server`, `init()`,
 * `initialState`, `state`/`setState` and `props`, served by `MyMCP.serve('/mcp')` through its
 * `MCP_OBJECT` binding. The Worker half (`serve`, at a path or agents' URL pattern) authenticates
 * the request and routes it to one object: the 2025 session's (its `Mcp-Session-Id`), so state is
 * per session as McpAgent keeps it, or, for a request without a session (a 2026-07-28 client, an
 * `initialize`), the caller's (`principal:<subject>`; at a pattern, the caller's of that path,
 * `path:[subject, path]`), so a stateless client's state is per principal. The object half runs
 * agents' `onStart` and `init()` once, and again for a request whose grant differs in the props
 * they read (setup.ts), and serves the request with `mcp()`; the caller and the
 * grant's props travel from the Worker in one internal header that a client cannot set (the
 * Worker replaces it).
 *
 * State lives in the object's SQLite storage (`ctx.storage.kv`, key `mcp-edge:state`), and so do
 * the redeemed single-use confirmations (table `mcp_edge_redeemed`) when no McpNonceLedger is
 * bound; sessions are sealed with `MCP_STATE_KEYS`, which an McpAgent Worker must set (each
 * request says how). Over 400 lines: the object half and the Worker half (`serve`) share the
 * forwarded caller's shape and routing names, which one file keeps together.
 */
import { DurableObject } from 'cloudflare:workers'
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { createAuthenticator } from '../../http/auth.ts'
import type { AuthOptions } from '../../http/auth.ts'
import { checkOrigin } from '../../http/guards.ts'
import { failure, rejection } from '../../http/respond.ts'
import { ConfigurationError } from '../../server/errors.ts'
import { subjectOf } from '../../server/principal.ts'
import { quiet } from '../../server/quiet.ts'
import { errorFields, libraryLog, warnOnce } from '../../server/telemetry/log.ts'
import type { NonceLedger } from '../../server/tasks/tasks.ts'
import type { Principal } from '../../server/types.ts'
import type { McpHttpOptions } from '../../http/handler.ts'
import type { AnyServer, CreateMcpHandlerOptions } from '../handler-types.ts'
import {
  answerPreflight,
  browserRules,
  edgeOf,
  edgeOptions,
  ignoredOptions,
  notServedHere,
  rollbackPoint,
  serving,
  toBrowser,
} from '../serving.ts'
import type { Serving } from '../serving.ts'
import { prepared } from '../low-level/prepare.ts'
import { building, currentHandler, currentRequest, RequestHost, withBuilding, withRequest } from '../request-store.ts'
import type { RequestStore } from '../request-store.ts'
import type { RequestHandlerExtra } from '../context.ts'
import type { ElicitParams, ElicitResult } from '../input.ts'
import { callerFromProps, grantOf, propsOf } from '../principal.ts'
import type { Grant } from '../principal.ts'
import { openForwarded, sealForwarded, sessionOpens } from './forward.ts'
import { SetUpBusy, SetUps } from './setup.ts'
import { SqlError } from '../errors.ts'
import { conventionalServices } from '../services.ts'

/** The internal header carrying the caller from the Worker to the object (JSON). */
const FORWARDED = 'x-mcp-edge-agent'
const STATE_KEY = 'mcp-edge:state'
/** The table of redeemed confirmation states, in the agent's own SQLite storage. */
const REDEEMED = 'mcp_edge_redeemed'
/** What a handler assigned to `this.props`, for its request only (McpAgent `props`). */
const assignedInRequest = new WeakMap<RequestStore, { value: unknown }>()
/**
 * agents' `Connection` (`import type { Connection } from 'agents'`), for the signatures code writes
 * with it: `onStateUpdate(state, source: Connection | 'server')`. mcp-edge serves no WebSocket, so
 * the source it passes is always `'server'`, and this type has agents' `id` only: code that calls
 * a connection's WebSocket methods (`source.send(…)`) has none to call here.
 */
export interface Connection<_State = unknown> {
  readonly id: string
}

/**
 * What the set-up serving a request had assigned to `this.props`, taken when the request is handed
 * the app: a handler still running once another grant's set-up has begun (its answer streaming,
 * work it left running) keeps its own grant's value.
 */
const setUpAssigned = new WeakMap<RequestStore, { value: unknown }>()

export interface ServeOptions<Env = unknown> extends CreateMcpHandlerOptions<Env> {
  /** The Durable Object binding of the agent class (default `MCP_OBJECT`). */
  binding?: string
  jurisdiction?: DurableObjectJurisdiction
}

/** What of `serve()`'s options the object acts on (the Worker acts on the rest): JSON data, forwarded with each request. */
type ObjectOptions = Pick<McpHttpOptions<unknown>, 'maxBodyBytes' | 'keepaliveMs' | 'stream' | 'maxJsonDepth'> & {
  legacy?: McpHttpOptions<unknown>['legacy'] | 'stateless'
}
const OBJECT_OPTIONS = ['legacy', 'maxBodyBytes', 'keepaliveMs', 'stream', 'maxJsonDepth'] as const

/** Options of `serve()` that neither the Worker nor the object acts on, and why (said once, at a request). */
const NOT_FOR_AGENTS: Record<string, string> = {
  route: "serve()'s path is the agent's route",
  authContext: "an agent's props are those an OAuth provider in front hands the Worker (ctx.props)",
  serverCard: 'an McpAgent serves no Server Card (serve one with createMcpHandler or mcp())',
  services:
    "an agent's object serves with the services bound by their conventional names (MCP_STATE_KEYS, MCP_EVENTS, MCP_SESSIONS: docs/migrate.md)",
}

interface Forwarded {
  /** The options the object acts on, those `serve()` was given. */
  options?: ObjectOptions
  principal?: Principal
  props?: Record<string, unknown>
  grant?: Grant
  /** The object serves a 2025 session (`session`) or a caller's stateless requests (`principal`). */
  route: 'session' | 'principal'
  /** A `principal` object of one path, when `serve`'s path is a pattern: its caller's home is another. */
  path?: string
  /** The agent's binding and jurisdiction, for reaching the caller's own object (its ledger). */
  binding: string
  jurisdiction?: DurableObjectJurisdiction
}

/** A set-up that threw, with the hook it threw in (`lists`: reading a low-level `Server`'s lists). */
class SetUpFailed extends Error {
  readonly step: 'init' | 'onStart'
  constructor(step: 'init' | 'onStart', cause: unknown) {
    super(`${step} threw`, { cause })
    this.step = step
  }
}

/** serve()'s `onerror` cannot reach the agent's server, which runs in its Durable Object. */
const AGENT_ONERROR =
  "McpAgent.serve's onerror option does nothing: the agent's server runs in its Durable Object, which a function given " +
  'to serve() does not reach; set this.server.server.onerror in init() (docs/migrate.md)'

type Fetcher = { fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> }

/** The object that serves a caller's requests without a session (and keeps its confirmations). */
function principalName(principal: Principal | undefined): string {
  return `principal:${principal?.subject ?? 'anonymous'}`
}

/**
 * agents' `serve` path: a URL pattern's pathname (`/*`, `/mcp/:org`), where `/` means every path.
 * A pattern serves many paths, and `init()` may register tools from the one it started for (the
 * URL, or props naming it), so a caller without a session gets an object per path there.
 */
function pathMatcher(path: string, by: string): { matches(pathname: string): boolean; pattern: boolean } {
  const pathname = path === '/' ? '/*' : path
  if (!/[*:({]/.test(pathname)) return { matches: (given) => given === pathname, pattern: false }
  let compiled: URLPattern
  try {
    compiled = new URLPattern({ pathname })
  } catch (error) {
    throw new TypeError(`${by}: '${path}' is not a URL pattern's path (${error instanceof Error ? error.message : error})`)
  }
  return { matches: (given) => compiled.test({ pathname: given }), pattern: true }
}

/**
 * A 2025 session ends on DELETE only where a session ledger keeps that it did (http/legacy.ts),
 * and an agent's objects keep none of their own: without `MCP_SESSIONS` the core's 405 would not
 * say what ends sessions here, where agents answered 204.
 */
function undeletable(): Response {
  const message = `Method not allowed: sessions end on DELETE only with a session ledger. Bind McpSessionLedger as MCP_SESSIONS (export { McpSessionLedger } from 'mcp-edge/cloudflare'; docs/migrate.md)`
  return rejection(new McpError('methodNotAllowed', message), undefined, { allow: 'POST' })
}

function misconfigured(message: string): Response {
  return rejection(new McpError('misconfigured', `Server misconfigured: ${message}`), undefined)
}

/**
 * @example
 * export class MyMCP extends McpAgent<Env, { count: number }> {
 *   server = new McpServer({ name: 'counter', version: '1.0.0' })
 *   initialState = { count: 0 }
 *   async init() {
 *     this.server.tool('add', { n: z.number() }, async ({ n }) => {
 *       this.setState({ count: this.state.count + n })
 *       return { content: [{ type: 'text', text: String(this.state.count) }] }
 *     })
 *   }
 * }
 * export default MyMCP.serve('/mcp')
 */
export abstract class McpAgent<
  Env = unknown,
  State = unknown,
  Props extends Record<string, unknown> = Record<string, unknown>,
> extends DurableObject<Env> {
  // `any`: a server built without a type argument (`new McpServer({...})`, as agents' examples do).
  // biome-ignore lint/suspicious/noExplicitAny: any Env, as above
  abstract server: AnyServer<any> | Promise<AnyServer<any>>
  /** Register tools here; runs once per object, before its first request (and again for other props it reads: setup.ts). */
  abstract init(): Promise<void>
  // `initialState` is the subclass's own field (not declared here, so it needs no `override`).
  /** Set by the first request: which object this is, for `redeemConfirmation`'s home. */
  #forwarded: Forwarded | undefined
  #state: { value: State } | undefined
  /** `onStart` and `init()` run, again for other props they read (setup.ts). */
  #setUps: SetUps<Serving> | undefined
  #initialized: Promise<void> | undefined
  /** Takes the server back to what it had before the set-up (a failed one, or one made again). */
  #undo: (() => void) | undefined
  /** The app of each server served: one per server, whatever its set-ups (a 2025 session's calls and streams live in it). */
  readonly #apps = new WeakMap<object, Serving>()
  /** The server the last set-up served, whose listen streams a set-up made again does not tell. */
  #served: object | undefined
  /** Whether the failed start failed in `init()` (else in an `onStart` override), for its message. */
  #initThrew = false

  /** This session's (or, without one, this principal's) state: stored, else `initialState`. */
  get state(): State {
    if (!this.#state) {
      const stored = this.ctx.storage.kv.get<State>(STATE_KEY)
      const initial = (this as { initialState?: State }).initialState
      this.#state = { value: stored === undefined ? (initial as State) : stored }
    }
    return this.#state.value
  }

  /** Replace the state: stored at once in the object's SQLite storage. */
  setState(state: State): void {
    this.validateStateChange(state, 'server')
    this.ctx.storage.kv.put(STATE_KEY, state)
    this.#state = { value: state }
    this.onStateChanged(state, 'server')
    this.onStateUpdate(state, 'server')
  }

  /** Called by `setState` before anything is stored (agents' hook): throw to refuse the change. */
  validateStateChange(_next: State, _source: unknown): void {}

  /** Called by `setState` with the new state (agents' hook; overriding it is optional). */
  onStateChanged(_state: State | undefined, _source: unknown): void {}

  /** agents' older name of `onStateChanged`, called the same way. */
  onStateUpdate(_state: State | undefined, _source: unknown): void {}

  /**
   * agents' start hook: runs once per object, before its first request is served, with that
   * request's props (and again, with `init()`, for a request whose props differ in what they read). As in agents, this base runs `init()`; an override that does not call
   * `super.onStart()` has `init()` run after it instead (as agents' earlier releases did).
   */
  async onStart(_props?: Props): Promise<void> {
    await this.#init()
  }

  #init(): Promise<void> {
    this.#initialized ??= this.#runInit()
    return this.#initialized
  }

  async #runInit(): Promise<void> {
    try {
      await this.init()
    } catch (error) {
      this.#initThrew = true
      throw error
    }
  }

  /** The server as the class gives it, or undefined while a getter throws (until `init()` makes it). */
  #given(): AnyServer<unknown> | PromiseLike<AnyServer<unknown>> | undefined {
    try {
      return this.server
    } catch {
      return undefined
    }
  }

  /**
   * Note what the server has before a set-up, so that what the set-up registers can be taken back
   * when it fails or runs again (agents makes a new object). A server given as a promise is read
   * once it is there, without waiting for it (`init()` may be what makes it), before `init()` goes
   * on with it: its own `await this.server` resumes after this one. A server that `init()` assigns,
   * or reads through a getter that throws until `init()` assigns it (as Cloudflare's own servers
   * wrote it: "Tried to access server before it was initialized"), has nothing before.
   */
  #markBefore(): void {
    const server = this.#given()
    this.#undo = undefined
    if (server !== undefined && 'then' in server) {
      server.then(
        (given) => {
          this.#undo = rollbackPoint(edgeOf(given))
        },
        () => {},
      )
    } else if (server !== undefined) this.#undo = rollbackPoint(edgeOf(server))
  }

  /** Take back what the set-up registered: everything, on a server the set-up made. */
  #takeBack(): void {
    if (this.#undo) {
      this.#undo()
      return
    }
    const server = this.#given()
    if (server !== undefined && !('then' in server)) rollbackPoint(edgeOf(server), 'nothing')()
  }

  /**
   * The props of the calling request's grant (an OAuth provider in front). Read from the request
   * running now, so two concurrent calls each see their own. Declared as agents declares it, a
   * property (a subclass may narrow it: `props!: Props`), and served by an accessor on the
   * prototype (below). Code may assign it, as it may in agents: in `onStart` or `init()` the
   * value stands for the requests that set-up serves (every set-up starts without one), in a
   * handler for that request only, so one grant's value never answers another's request;
   * `undefined` assigned gives the request's props back. Outside a request (the constructor, an
   * `alarm()`, a `fetch` override before `super.fetch()`) it is `undefined`, and what is assigned
   * there is not kept.
   */
  declare props: Props | undefined
  /** What the set-up running now, or the last one, assigned to `this.props`. */
  #assignedProps: { value: unknown } | undefined

  static {
    Object.defineProperty(McpAgent.prototype, 'props', {
      configurable: true,
      get(this: McpAgent) {
        const store = currentRequest()
        if (store === undefined) return undefined
        const assigned = assignedInRequest.get(store) ?? (building() ? this.#assignedProps : setUpAssigned.get(store))
        return assigned ? assigned.value : store.props
      },
      set(this: McpAgent, value: unknown) {
        const store = currentRequest()
        if (building()) this.#assignedProps = value === undefined ? undefined : { value }
        else if (store !== undefined) assignedInRequest.set(store, { value: value === undefined ? store.props : value })
      },
    })
  }

  /**
   * A subclass's own `props` field (`props!: Props` or `private props!: Props`, which TypeScript
   * defines on the object after this constructor when it emits fields as defined, ES2022) hides
   * the accessor: it is taken off. A value it was given is not used: the grant's props are, as
   * agents puts the grant's props in the field when the object starts.
   */
  #uncoverProps(): void {
    const own = Object.getOwnPropertyDescriptor(this, 'props')
    if (own !== undefined && 'value' in own && own.configurable) delete (this as { props?: unknown }).props
  }

  /**
   * agents' `this.elicitInput`: ask the caller of the running tool (`server.server.elicitInput`).
   * Its `relatedRequestId` is taken: the question always goes to the running request; a `timeout`
   * is kept as `server.server.elicitInput` keeps it.
   */
  elicitInput(params: ElicitParams, options?: { relatedRequestId?: string | number; timeout?: number }): Promise<ElicitResult> {
    const extra = currentHandler() as RequestHandlerExtra | undefined
    if (!extra) throw new Error('this.elicitInput works inside a tool, prompt or resource handler only')
    return extra.mcpReq.elicitInput(params, options)
  }

  /**
   * agents' `this.sql`: a query on the object's SQLite storage, values bound as parameters. A
   * boolean is taken, as agents types it, and bound as workerd binds it (the text `true`/`false`).
   * A query that fails throws a `SqlError` (`SQL query failed: …`, with the query), as agents' does.
   *
   * @example
   * const rows = this.sql<{ n: number }>`SELECT count(*) AS n FROM notes WHERE owner = ${owner}`
   */
  sql<Row = Record<string, SqlStorageValue>>(strings: TemplateStringsArray, ...values: (SqlStorageValue | boolean)[]): Row[] {
    const query = strings.join('?')
    try {
      return this.ctx.storage.sql.exec(query, ...values).toArray() as Row[]
    } catch (error) {
      throw new SqlError(query, error)
    }
  }

  /** A request routed here by `serve`. */
  override async fetch(request: Request): Promise<Response> {
    const header = request.headers.get(FORWARDED)
    if (header === null) return new Response('Not found', { status: 404 })
    const secret = (this.env as Record<string, unknown> | undefined)?.MCP_STATE_KEYS as string | undefined
    // Only the Worker's serve() can make the header (forward.ts): anything else is refused.
    const forwarded = await openForwarded<Forwarded>(secret, header).catch(() => undefined)
    if (!forwarded) return new Response('Not found', { status: 404 })
    this.#forwarded ??= forwarded
    const headers = new Headers(request.headers)
    headers.delete(FORWARDED)
    const served = new Request(request, { headers })
    // The core's execution context: the object's waitUntil keeps list-change publishes and spans alive.
    const host = new RequestHost(served, forwarded.props, forwarded.principal, this.ctx, this.env, true, {
      grant: forwarded.grant,
    })
    return withRequest(host, async () => {
      this.#setUps ??= new SetUps(this.constructor.name)
      let set: { app: Serving; answered: () => void }
      try {
        set = await this.#setUps.appFor(forwarded.props, (props, again) => this.#setUp(forwarded, served, props, again))
      } catch (error) {
        if (error instanceof SetUpBusy) {
          return rejection(new McpError('unavailable', `Service unavailable: ${error.message}`), undefined, {
            'retry-after': '5',
          })
        }
        // init() threw (it runs again next request): a JSON-RPC 500 naming the class, logged; not an
        // exception through the Worker, whose error page no MCP client reads and carries the message.
        // mcp-edge's own refusal after it (a listed item it cannot serve) names the item and the fix.
        const failed = error instanceof SetUpFailed ? error : new SetUpFailed('onStart', error)
        if (failed.step !== 'init' && failed.cause instanceof ConfigurationError) {
          libraryLog.error('McpAgent could not serve its server', errorFields(failed.cause))
          return misconfigured(failed.cause.message)
        }
        const step = failed.step === 'init' ? 'init()' : 'onStart()'
        libraryLog.error(`McpAgent ${step} failed`, errorFields(failed.cause))
        return misconfigured(`${this.constructor.name}.${step} threw; see the server logs`)
      }
      if (this.#assignedProps) setUpAssigned.set(host, this.#assignedProps)
      try {
        return await set.app.fetch(served, this.env, host)
      } finally {
        set.answered()
      }
    })
  }

  /**
   * `onStart` and `init()` run inside the request they are set up for, so they see its props (as
   * agents' first request's), watched (setup.ts); neither what they change of the lists nor
   * what is taken back is announced, in an event hub or in this isolate. `again`: the set-up runs
   * again, on a server taken back to what it had before the first.
   */
  #setUp(forwarded: Forwarded, served: Request, props: Forwarded['props'], again: boolean): Promise<Serving> {
    const host = new RequestHost(served, props, forwarded.principal, this.ctx, this.env, true, { grant: forwarded.grant })
    return withBuilding(host, async () => {
      const loud = this.#served ? quiet(this.#served) : () => {}
      try {
        // A failed set-up's value, or the last grant's, is never the next set-up's.
        this.#assignedProps = undefined
        if (again) this.#takeBack()
        else this.#markBefore()
        return await this.#start()
      } catch (error) {
        // Which hook threw, said now: another grant's set-up may begin before the requests hear it.
        const step = this.#initThrew ? 'init' : 'onStart'
        this.#takeBack()
        throw new SetUpFailed(step, error)
      } finally {
        loud()
      }
    })
  }

  /**
   * Redeem a confirmation's nonce once for this object's caller (an RPC from the caller's session
   * and `path:` objects; `principal:` objects redeem their own). A sealed state is bound to its caller, so
   * one ledger per caller makes each state single-use wherever it is replayed.
   */
  async redeemConfirmation(nonce: string, expiresAt: number): Promise<boolean> {
    const sql = this.ctx.storage.sql
    sql.exec(`CREATE TABLE IF NOT EXISTS ${REDEEMED} (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS ${REDEEMED}_expiry ON ${REDEEMED} (expires_at);`)
    sql.exec(`DELETE FROM ${REDEEMED} WHERE expires_at <= ?`, Date.now())
    const inserted = sql.exec(
      `INSERT INTO ${REDEEMED} (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING RETURNING nonce`,
      nonce,
      expiresAt,
    )
    return inserted.toArray().length === 1
  }

  /**
   * `init()`, then the app serving what `serve` forwarded, at whatever path it matched. The Worker
   * checked the path and the Origin and authenticated the caller, who arrives with the request (or
   * is anonymous): `serve`'s options for those act there. The object serves with the conventional
   * services, and with what `serve` forwarded of its options (`OBJECT_OPTIONS`: the lane, limits, keepalive).
   */
  async #start() {
    this.#initThrew = false
    this.#initialized = undefined
    this.#uncoverProps()
    await this.onStart(this.props)
    await this.#init()
    // What the object acts on of serve()'s options (the Worker acted on the rest: auth, Origin, Host).
    const { legacy, ...own } = this.#forwarded?.options ?? {}
    const options = {
      ...own,
      ...(legacy === undefined || legacy === 'stateless' ? {} : { legacy }),
      allowedOrigins: ['*'],
      allowAnonymous: true,
      services: (env: Env) => {
        const services = conventionalServices(env, true)
        return { ...services, nonces: services.nonces ?? this.#ledger() }
      },
    }
    const given = await this.server
    // A list handler that throws here is read again in the requests that need it (low-level/server.ts).
    const server = await prepared(given)
    // The Worker refused the origins it does not allow (serve's browser rules): any that arrives passed.
    const edge = edgeOf(server)
    this.#served = edge
    let app = this.#apps.get(edge)
    if (!app) {
      app = serving(edge, '', options, browserRules({ allowedOriginHostnames: '*' }))
      this.#apps.set(edge, app)
    }
    return app
  }

  /**
   * Single-use confirmations without a ledger binding, kept by the caller's own `principal:`
   * object (this one, or reached by RPC from a session's): a sealed state is bound to its caller,
   * so redeeming it there is redeeming it once wherever it is replayed.
   */
  #ledger(): NonceLedger {
    return {
      redeem: (nonce, expiresAt) => {
        const forwarded = this.#forwarded
        if (!forwarded || (forwarded.route === 'principal' && forwarded.path === undefined))
          return this.redeemConfirmation(nonce, expiresAt)
        const namespace = (this.env as Record<string, unknown>)[forwarded.binding] as DurableObjectNamespace<McpAgent>
        const scoped = forwarded.jurisdiction ? namespace.jurisdiction(forwarded.jurisdiction) : namespace
        const home = scoped.get(scoped.idFromName(principalName(forwarded.principal)))
        return home.redeemConfirmation(nonce, expiresAt)
      },
    }
  }

  /** The Worker's fetch handler: `export default MyMCP.serve('/mcp')` (or a pattern: `serve('/*')`). */
  static serve<Env = unknown>(path: string, options: ServeOptions<Env> = {}): Fetcher {
    const binding = options.binding ?? 'MCP_OBJECT'
    // biome-ignore lint/complexity/noThisInStatic: the subclass's name, which the error names
    const served = pathMatcher(path, `${this?.name || 'McpAgent'}.serve`)
    const auth = createAuthenticator(options as AuthOptions<unknown>)
    const guards = edgeOptions(options)
    const browser = browserRules(options)
    const sayIgnored = ignoredOptions(options, 'McpAgent.serve')
    const notForAgents = Object.keys(NOT_FOR_AGENTS).filter((key) => (options as Record<string, unknown>)[key] !== undefined)
    const forOptions = OBJECT_OPTIONS.filter((key) => options[key] !== undefined)
    const objectOptions = forOptions.length === 0 ? undefined : Object.fromEntries(forOptions.map((key) => [key, options[key]]))
    // biome-ignore lint/complexity/noThisInStatic: the subclass's name, which the 404 names
    const setBy = `${this?.name || 'McpAgent'}.serve's path`
    return {
      async fetch(request, env, ctx) {
        const { pathname } = new URL(request.url)
        if (!served.matches(pathname)) return new Response(notServedHere(path, setBy, pathname), { status: 404 })
        // A 2025 session's DELETE from a non-browser client (a browser's goes on, to be answered with CORS).
        if (
          request.method === 'DELETE' &&
          !(env as Record<string, unknown>).MCP_SESSIONS &&
          request.headers.has('mcp-session-id') &&
          !request.headers.has('origin')
        )
          return undeletable()
        const refused = browser.refuse(request)
        if (refused) return refused
        sayIgnored()
        for (const key of notForAgents) warnOnce(`McpAgent.serve option ${key} does nothing on mcp-edge: ${NOT_FOR_AGENTS[key]}`)
        if (options.onerror) warnOnce(AGENT_ONERROR)
        // A browser's CORS preflight carries no credentials: answered here, before authentication.
        if (request.method === 'OPTIONS') return answerPreflight(request, browser)
        // What the Worker answers itself, a browser reads too (the 401's challenge, the 500's fix).
        const refuse = (response: Response) => toBrowser(request, response, browser)
        const namespace = (env as Record<string, unknown>)[binding] as DurableObjectNamespace | undefined
        if (!namespace)
          return refuse(
            misconfigured(
              `the Durable Object binding ${binding} is missing: bind the agent class in wrangler.jsonc (docs/migrate.md)`,
            ),
          )
        const props = propsOf(ctx)
        const grant = grantOf(ctx)
        let principal: Principal | undefined
        try {
          // Props that name no one are refused even with allowAnonymous: served as anonymous, every
          // such grant would share one object, its state and storage (createMcpHandler keeps none).
          const named = callerFromProps(props, grant, { ...options, allowAnonymous: false }, 'McpAgent.serve', 'serve()')
          checkOrigin(request.headers, guards)
          principal = await auth.resolve(request, env, named)
        } catch (error) {
          const failed = failure(error)
          return refuse(rejection(failed, undefined, auth.headersFor(failed, env)))
        }
        // A 2025 session's requests go to its object, named with its caller, so a session id sent by
        // someone else, or with a 2026-07-28 request (which has no session), reaches none of theirs.
        const version = request.headers.get('mcp-protocol-version')
        const modern = version !== null && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)
        const session = modern ? null : request.headers.get('mcp-session-id')
        const route = session === null ? 'principal' : 'session'
        const perPath = route === 'principal' && served.pattern ? pathname : undefined
        const name =
          session !== null
            ? `session:${JSON.stringify([principal?.subject ?? null, session])}`
            : perPath === undefined
              ? principalName(principal)
              : `path:${JSON.stringify([principal?.subject ?? null, perPath])}`
        const scoped = options.jurisdiction ? namespace.jurisdiction(options.jurisdiction) : namespace
        const headers = new Headers(request.headers)
        const secret = (env as Record<string, unknown>).MCP_STATE_KEYS as string | undefined
        const forwarded: Forwarded = { principal, props, grant, route, binding, jurisdiction: options.jurisdiction }
        if (perPath !== undefined) forwarded.path = perPath
        if (objectOptions) forwarded.options = objectOptions
        try {
          headers.set(FORWARDED, await sealForwarded(secret, forwarded))
        } catch (error) {
          // McpAgent keeps state per session, so it needs MCP_STATE_KEYS: the error says how to set it.
          return refuse(misconfigured(error instanceof Error ? error.message : String(error)))
        }
        // A session id that does not open here reaches no object: the 404 the object would answer.
        if (session !== null && !(await sessionOpens(secret as string, session, subjectOf(principal))))
          return refuse(rejection(new McpError('sessionNotFound'), undefined))
        const answered = await scoped.get(scoped.idFromName(name)).fetch(new Request(request, { headers }))
        if (!request.headers.has('origin')) return answered
        // The object's own refusals (a set-up that threw or is busy) come without CORS headers.
        return answered.headers.has('access-control-allow-origin') ? browser.decorate(answered) : refuse(answered)
      },
    }
  }

  /** The HTTP+SSE transport (2024-11-05) is not served: every request says to use `serve` (a Streamable HTTP client's GET gets 405). */
  static serveSSE(path: string, options?: unknown): Fetcher {
    // The call to make instead, with the binding it was given (porting round T: without it, the
    // suggested call looked for MCP_OBJECT, which that Worker did not bind).
    const binding = (options as { binding?: unknown } | undefined)?.binding
    const given = typeof binding === 'string' ? `, { binding: '${binding}' }` : ''
    // biome-ignore lint/complexity/noThisInStatic: the subclass's name, which the message names
    const message = `The HTTP+SSE transport is not served by mcp-edge: export default ${this.name}.serve('${path}'${given}) instead (Streamable HTTP, which current clients speak); see docs/migrate.md`
    return {
      async fetch(request) {
        // A Streamable HTTP client's GET for its optional stream (after initialize: it names its
        // session or version), routed here by a Worker that sends every GET to serveSSE, as GitMCP
        // does: 405, which that transport reads as "no stream here"; a 410 ended Inspector's session.
        const streamable = request.headers.has('mcp-session-id') || request.headers.has('mcp-protocol-version')
        return new Response(JSON.stringify({ error: 'sse_transport_removed', message }), {
          status: streamable && request.method === 'GET' ? 405 : 410,
          headers: { 'content-type': 'application/json', ...(streamable ? { allow: 'POST' } : {}) },
        })
      },
    }
  }

  /** agents' older name of `serveSSE`. */
  static mount(path: string, options?: unknown): Fetcher {
    // biome-ignore lint/complexity/noThisInStatic: the subclass's serveSSE, naming the subclass
    return this.serveSSE(path, options)
  }
}
