/**
 * What the adapter knows of the HTTP request a handler runs for: the `Request` itself (for
 * `ctx.http.req`, the session id, the bearer token of `authInfo`), the props of the caller's
 * grant (`getMcpAuthContext()`, `this.props`), and the host's `waitUntil`. The SDKs' APIs read
 * these from module-level functions, not from an argument, so they are kept in an
 * `AsyncLocalStorage` (as agents keeps its auth context) for the async life of each handler run.
 *
 * The adapter hands the core a `RequestHost` as the request's execution context, and a handler
 * finds it through its own `ctx.waitUntil` (`hostOf`), so the async context is entered around the
 * handler only, not around the whole request (where workerd carried it through all of the core's
 * own work too: reading the body, the response, telemetry). Entering it is the adapter's one
 * remaining cost per call (`withHandler`; bench/cg-sdk.mjs: the adapter without it counts as many
 * instructions a call as the native API). What costs is the new context frame workerd makes per
 * `run`, about 10k of its 12k instructions (entering an existing frame costs about 2k), and it
 * cannot be saved without breaking the request's isolation:
 * - left out for handlers that will not read it: nothing tells them apart before they run (a
 *   handler may call `server.server.elicitInput` or `getMcpAuthContext()` only after an await, or
 *   only on some calls), and a promise's continuation keeps the context that was current when it
 *   was awaited, so a context entered later (at the first read) is not the one it resumes in;
 * - frames reused from run to run (a pool of `run`s whose stored object is refilled per call):
 *   work a handler leaves running (a `waitUntil`, a timer, an unawaited promise) resumes in its
 *   frame after the handler has returned, and would read the next call's request there.
 * test/workers/sdk-context-concurrency.test.ts fails if a context leaks between interleaved calls.
 *
 * Needs the `nodejs_compat` (or `nodejs_als`) compatibility flag, which agents needs as well.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { McpError } from '../protocol/errors.ts'
import type { KeptRequestLog, NotifyingClient } from '../server/kept-requests.ts'
import type { Principal } from '../server/types.ts'
import type { AuthInfo, Grant } from './principal.ts'

export interface RequestStore {
  readonly request: Request
  readonly props: Record<string, unknown> | undefined
  /** The caller as established before the request reached the adapter (McpAgent's Worker). */
  readonly principal?: Principal | undefined
  /** What an OAuth provider in front verified of the token (`ctx.auth`), for `authInfo`. */
  readonly grant?: Grant | undefined
  /** SDK 2.x: the `AuthInfo` the code verified in front and handed over, given back as it was. */
  readonly authInfo?: AuthInfo | undefined
  waitUntil(promise: Promise<unknown>): void
  /**
   * Whether `MCP_STATE_KEYS` is set, when the adapter binds it by that name: without it a handler
   * cannot ask, and says how to fix that (undefined when the Worker gives its own services).
   */
  readonly stateKeys: boolean | undefined
}

/** Whether this env has the secret that seals rounds and sessions. */
export function hasStateKeys(env: unknown): boolean {
  const value = (env as Record<string, unknown> | undefined)?.MCP_STATE_KEYS
  return typeof value === 'string' && value.trim() !== ''
}

/** A Worker's execution context as far as the adapter uses it (a Durable Object's state has it too). */
interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void
}

/** Set while `hostOf` asks a handler's context for its host: a synchronous call, so nothing else runs meanwhile. */
let asking = false
let answered: RequestHost | undefined
const QUESTION: Promise<void> = Promise.resolve()

/**
 * One request as the adapter serves it, handed to the core as its execution context: the core
 * passes each handler's `ctx.waitUntil` on to it, which is how `hostOf` finds it again.
 */
export class RequestHost implements RequestStore {
  readonly request: Request
  readonly props: Record<string, unknown> | undefined
  readonly principal: Principal | undefined
  readonly grant: Grant | undefined
  readonly authInfo: AuthInfo | undefined
  readonly #host: WaitUntil | undefined
  readonly #env: unknown
  readonly #conventional: boolean

  /** `conventional`: the adapter binds `MCP_STATE_KEYS` by its name (no `services` option). */
  constructor(
    request: Request,
    props: Record<string, unknown> | undefined,
    principal: Principal | undefined,
    host: WaitUntil | undefined,
    env: unknown,
    conventional: boolean,
    credentials?: { grant?: Grant | undefined; authInfo?: AuthInfo | undefined },
  ) {
    this.request = request
    this.grant = credentials?.grant
    this.authInfo = credentials?.authInfo
    this.props = props
    this.principal = principal
    this.#host = host
    this.#env = env
    this.#conventional = conventional
  }

  waitUntil(promise: Promise<unknown>): void {
    if (asking) {
      answered = this
      return
    }
    this.#host?.waitUntil(promise)
  }

  /** Hono's `ExecutionContext` has it (the browser path goes through `mcp()`); nothing to do here. */
  passThroughOnException(): void {}

  get stateKeys(): boolean | undefined {
    return this.#conventional ? hasStateKeys(this.#env) : undefined
  }
}

/**
 * The adapter's host of the request a handler's context serves, or undefined (a task's run in its
 * Durable Object, a server the adapter does not serve). `ctx.waitUntil` hands its promise to the
 * request's execution context at once (http/handler.ts); asked with `asking` set, a
 * `RequestHost` answers instead of keeping the promise.
 *
 * @example
 * const store = hostOf(ctx) ?? currentRequest()
 */
export function hostOf(ctx: WaitUntil): RequestHost | undefined {
  asking = true
  answered = undefined
  try {
    ctx.waitUntil(QUESTION)
  } finally {
    asking = false
  }
  const host = answered
  answered = undefined
  return host
}

/** What the async context holds: the request, and the handler running in it (set per round). */
export interface Frame {
  readonly store: RequestStore | undefined
  handler: unknown
  /** A server is being set up for the request (a factory, `McpAgent`'s `onStart` and `init()`). */
  building?: boolean
  /** Where a log line of a kept request's handler goes (a subscribe handler's `sendLoggingMessage`). */
  log?: KeptRequestLog | undefined
  /** The client a hook outside any handler runs for (`oninitialized`: `getClientVersion()` answers with it). */
  client?: NotifyingClient | undefined
}

const storage = new AsyncLocalStorage<Frame>()

/** Run `fn` with `store` as the current request's (McpAgent: its `init()` and `this.props`). */
export function withRequest<T>(store: RequestStore, fn: () => T): T {
  return storage.run({ store, handler: undefined }, fn)
}

/**
 * `withRequest`, for code that sets a server up (a factory, `McpAgent`'s `init()`): what it
 * changes of the server's lists is not announced (`building`), as an SDK server announces nothing
 * before it is connected. Only until the set-up settles: work it started that runs later (a timer,
 * an unawaited load) resumes in this frame, and is announced by then.
 */
export function withBuilding<T>(store: RequestStore, fn: () => T | Promise<T>): Promise<T> {
  const frame: Frame = { store, handler: undefined, building: true }
  const settled = () => {
    frame.building = false
  }
  let out: Promise<T>
  try {
    out = Promise.resolve(storage.run(frame, fn))
  } catch (error) {
    settled()
    throw error
  }
  out.then(settled, settled)
  return out
}

/** Whether the code running now sets a server up (`withBuilding`). */
export function building(): boolean {
  return storage.getStore()?.building === true
}

/**
 * Run `fn` in `frame`: as a handler of the request `frame.store` (module-level functions read
 * both); `fn` sets `frame.handler` to the SDK-style context of each run. A handler beside another
 * of the same request (a 2025-03-26 batch) has a frame of its own. This is what the adapter costs
 * a call (bench/README.md, bench:sdk): workerd makes a context object, a wrapper and persistent
 * handles for each run, some 12,000–15,000 instructions (bench/cg-sdk.mjs), about 4% of a small call.
 *
 * @example
 * const frame = { store: hostOf(ctx) ?? currentRequest(), handler: undefined }
 * return withHandler(frame, () => run(frame))
 */
export function withHandler<T>(frame: Frame, fn: () => T): T {
  return storage.run(frame, fn)
}

/** The current request's store, or undefined outside a request served by the adapter. */
export function currentRequest(): RequestStore | undefined {
  return storage.getStore()?.store
}

/** Where a log line of the kept request being handled goes (low-level.ts `keptRequestWatcher`), if one is. */
export function currentLog(): KeptRequestLog | undefined {
  return storage.getStore()?.log
}

/** The client an `oninitialized` hook runs for, when one runs (low-level.ts). */
export function currentClient(): NotifyingClient | undefined {
  return storage.getStore()?.client
}

/** The SDK-style context of the handler running now (for `server.server.elicitInput` and kin). */
export function currentHandler(): unknown {
  return storage.getStore()?.handler
}

/** How many times `getMcpAuthContext` was called: a factory that calls it builds per caller (handler.ts). */
let reads = 0
export const authContextReads = (): number => reads

export interface McpAuthContext {
  props: Record<string, unknown>
}

/**
 * The props of the current request's grant (agents' `getMcpAuthContext`): from `authContext`
 * given to `createMcpHandler`, or from an OAuth provider in front (`ctx.props`).
 *
 * @example
 * const login = getMcpAuthContext()?.props.login
 */
export function getMcpAuthContext(): McpAuthContext | undefined {
  reads++
  const props = storage.getStore()?.store?.props
  return props === undefined ? undefined : { props }
}

/** A handler asked for input on a Worker without `MCP_STATE_KEYS`: 500, naming the fix. */
export function missingStateKeys(): McpError {
  return new McpError(
    'misconfigured',
    'Server misconfigured: a tool asked the client for input, which needs the MCP_STATE_KEYS secret. ' +
      'Generate one with: echo "k1:$(openssl rand -base64 32)" | npx wrangler secret put MCP_STATE_KEYS ' +
      '(locally: MCP_STATE_KEYS="k1:..." in .dev.vars). See docs/migrate.md.',
  )
}
