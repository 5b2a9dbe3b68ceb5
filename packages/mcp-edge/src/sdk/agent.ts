/**
 * `McpAgent` as Cloudflare's agents writes it: a Durable Object class with `server`, `init()`,
 * `initialState`, `state`/`setState` and `props`, served by `MyMCP.serve('/mcp')` through its
 * `MCP_OBJECT` binding. The Worker half (`serve`) authenticates the request and routes it to one
 * object: the 2025 session's (its `Mcp-Session-Id`), so state is per session as McpAgent keeps
 * it, or, for a request without a session (a 2026-07-28 client, an `initialize`), the caller's
 * (`principal:<subject>`), so a stateless client's state is per principal. The object half runs
 * `init()` once and serves the request with `mcp()`; the caller and the grant's props travel from
 * the Worker in one internal header that a client cannot set (the Worker replaces it).
 *
 * State lives in the object's SQLite storage (`ctx.storage.kv`, key `mcp-edge:state`), and so do
 * the redeemed single-use confirmations (table `mcp_edge_redeemed`) when no McpNonceLedger is
 * bound; sessions are sealed with `MCP_STATE_KEYS`, which an McpAgent Worker must set (each
 * request says how).
 */
import { DurableObject } from 'cloudflare:workers'
import { McpError } from '../protocol/errors.ts'
import { createAuthenticator } from '../http/auth.ts'
import type { AuthOptions } from '../http/auth.ts'
import { checkOrigin } from '../http/guards.ts'
import { failure, rejection } from '../http/respond.ts'
import type { McpServer as EdgeServer } from '../server/server.ts'
import type { NonceLedger } from '../server/tasks/tasks.ts'
import type { Principal } from '../server/types.ts'
import type { McpServer } from './server.ts'
import { edgeOf, edgeOptions, propsOf, serving } from './handler.ts'
import type { CreateMcpHandlerOptions, Serving } from './handler.ts'
import { currentHandler, withRequest } from './request-store.ts'
import type { RequestHandlerExtra } from './context.ts'
import type { ElicitParams, ElicitResult } from './input.ts'
import { conventionalServices, hasStateKeys, principalFromProps } from './services.ts'

/** The internal header carrying the caller from the Worker to the object (JSON). */
const FORWARDED = 'x-mcp-edge-agent'
const STATE_KEY = 'mcp-edge:state'
/** The table of redeemed confirmation states, in the agent's own SQLite storage. */
const REDEEMED = 'mcp_edge_redeemed'

export interface ServeOptions<Env = unknown> extends CreateMcpHandlerOptions<Env> {
  /** The Durable Object binding of the agent class (default `MCP_OBJECT`). */
  binding?: string
  jurisdiction?: DurableObjectJurisdiction
}

interface Forwarded {
  principal?: Principal
  props?: Record<string, unknown>
}

type Fetcher = { fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> }

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
  abstract server: McpServer<any> | EdgeServer<any> | Promise<McpServer<any> | EdgeServer<any>>
  /** Register tools here; runs once per object, before its first request. */
  abstract init(): Promise<void>
  // `initialState` is the subclass's own field (not declared here, so it needs no `override`).
  /** The props of the caller's grant (an OAuth provider in front), per request. */
  props?: Props
  #state: { value: State } | undefined
  #app: Promise<Serving> | undefined

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
    this.ctx.storage.kv.put(STATE_KEY, state)
    this.#state = { value: state }
    this.onStateUpdate?.(state, 'server')
  }

  onStateUpdate?(state: State, source: unknown): void

  /** agents' `this.elicitInput`: ask the caller of the running tool (`server.server.elicitInput`). */
  elicitInput(params: ElicitParams): Promise<ElicitResult> {
    const extra = currentHandler() as RequestHandlerExtra | undefined
    if (!extra) throw new Error('this.elicitInput works inside a tool, prompt or resource handler only')
    return extra.mcpReq.elicitInput(params)
  }

  /**
   * agents' `this.sql`: a query on the object's SQLite storage, values bound as parameters.
   *
   * @example
   * const rows = this.sql<{ n: number }>`SELECT count(*) AS n FROM notes WHERE owner = ${owner}`
   */
  sql<Row = Record<string, SqlStorageValue>>(strings: TemplateStringsArray, ...values: SqlStorageValue[]): Row[] {
    return this.ctx.storage.sql.exec(strings.join('?'), ...values).toArray() as Row[]
  }

  /** A request routed here by `serve`. */
  override async fetch(request: Request): Promise<Response> {
    const header = request.headers.get(FORWARDED)
    if (header === null) return new Response('Not found', { status: 404 })
    const forwarded = JSON.parse(header) as Forwarded
    const headers = new Headers(request.headers)
    headers.delete(FORWARDED)
    const served = new Request(request, { headers })
    this.props = forwarded.props as Props | undefined
    this.#app ??= this.#start(new URL(request.url).pathname)
    const app = await this.#app
    const store = {
      request: served,
      props: forwarded.props,
      principal: forwarded.principal,
      waitUntil: (promise: Promise<unknown>) => this.ctx.waitUntil(promise),
      stateKeys: hasStateKeys(this.env),
    }
    return withRequest(store, () => app.fetch(served, this.env))
  }

  /**
   * `init()`, then the app serving the path `serve` forwarded from (only its path reaches here).
   * The Worker checked the Origin and authenticated the caller, who arrives with the request (or
   * is anonymous): `serve`'s options act there, and the object serves with the conventional services.
   */
  async #start(path: string) {
    await this.init()
    return serving(edgeOf(await this.server), path, {
      allowedOrigins: ['*'],
      allowAnonymous: true,
      services: (env: Env) => {
        const services = conventionalServices(env, true)
        return { ...services, nonces: services.nonces ?? this.#ledger() }
      },
    })
  }

  /**
   * Single-use confirmations without a ledger binding: a sealed state is bound to its caller, and
   * this object serves every stateless request of that caller, so redeeming it here is redeeming
   * it once anywhere. Expired rows go at the next redemption (an expired state is refused before).
   */
  #ledger(): NonceLedger {
    const sql = this.ctx.storage.sql
    sql.exec(`CREATE TABLE IF NOT EXISTS ${REDEEMED} (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS ${REDEEMED}_expiry ON ${REDEEMED} (expires_at);`)
    return {
      redeem: async (nonce, expiresAt) => {
        sql.exec(`DELETE FROM ${REDEEMED} WHERE expires_at <= ?`, Date.now())
        const inserted = sql.exec(
          `INSERT INTO ${REDEEMED} (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING RETURNING nonce`,
          nonce,
          expiresAt,
        )
        return inserted.toArray().length === 1
      },
    }
  }

  /** The Worker's fetch handler: `export default MyMCP.serve('/mcp')`. */
  static serve<Env = unknown>(path: string, options: ServeOptions<Env> = {}): Fetcher {
    const binding = options.binding ?? 'MCP_OBJECT'
    const auth = createAuthenticator(options as AuthOptions<unknown>)
    const guards = edgeOptions(options)
    return {
      async fetch(request, env, ctx) {
        const { pathname } = new URL(request.url)
        if (pathname !== path) return new Response('Not found', { status: 404 })
        const namespace = (env as Record<string, unknown>)[binding] as DurableObjectNamespace | undefined
        if (!namespace)
          return misconfigured(
            `the Durable Object binding ${binding} is missing: bind the agent class in wrangler.jsonc (docs/migrate.md)`,
          )
        const props = propsOf(ctx)
        const named = principalFromProps(props)
        if (props !== undefined && named === undefined) {
          return misconfigured(
            "the grant's props name no one: give them one of sub, userId, login, email, username or id (docs/migrate.md)",
          )
        }
        let principal: Principal | undefined
        try {
          checkOrigin(request.headers, guards)
          principal = await auth.resolve(request, env, named)
        } catch (error) {
          const failed = failure(error)
          return rejection(failed, undefined, auth.headersFor(failed, env))
        }
        const session = request.headers.get('mcp-session-id')
        const name = session !== null ? `session:${session}` : `principal:${principal?.subject ?? 'anonymous'}`
        const scoped = options.jurisdiction ? namespace.jurisdiction(options.jurisdiction) : namespace
        const headers = new Headers(request.headers)
        headers.set(FORWARDED, JSON.stringify({ principal, props } satisfies Forwarded))
        return scoped.get(scoped.idFromName(name)).fetch(new Request(request, { headers }))
      },
    }
  }

  /** The HTTP+SSE transport (2024-11-05) is not served: every request says to use `serve`. */
  static serveSSE(path: string, _options?: unknown): Fetcher {
    // biome-ignore lint/complexity/noThisInStatic: the subclass's name, which the message names
    const message = `The HTTP+SSE transport is not served by mcp-edge: export default ${this.name}.serve('${path}') instead (Streamable HTTP, which current clients speak); see docs/migrate.md`
    return {
      async fetch() {
        return new Response(JSON.stringify({ error: 'sse_transport_removed', message }), {
          status: 410,
          headers: { 'content-type': 'application/json' },
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
