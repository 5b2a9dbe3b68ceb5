/**
 * What the adapter knows of the HTTP request a handler runs for: the `Request` itself (for
 * `ctx.http.req`, the session id, the bearer token of `authInfo`), the props of the caller's
 * grant (`getMcpAuthContext()`, `this.props`), and the host's `waitUntil`. Kept in an
 * `AsyncLocalStorage` for the request's whole async life, as agents keeps its auth context: the
 * SDKs' APIs read these from module-level functions, not from an argument.
 *
 * Needs the `nodejs_compat` (or `nodejs_als`) compatibility flag, which agents needs as well.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { McpError } from '../protocol/errors.ts'
import type { Principal } from '../server/types.ts'

export interface RequestStore {
  readonly request: Request
  readonly props: Record<string, unknown> | undefined
  /** The caller as established before the request reached the adapter (McpAgent's Worker). */
  readonly principal?: Principal | undefined
  readonly waitUntil: ((promise: Promise<unknown>) => void) | undefined
  /**
   * Whether `MCP_STATE_KEYS` is set, when the adapter binds it by that name: without it a handler
   * cannot ask, and says how to fix that (undefined when the Worker gives its own services).
   */
  readonly stateKeys: boolean | undefined
}

const storage = new AsyncLocalStorage<RequestStore>()

/** Run `fn` with `store` as the current request's. */
export function withRequest<T>(store: RequestStore, fn: () => T): T {
  return storage.run(store, fn)
}

/** The current request's store, or undefined outside a request served by the adapter. */
export function currentRequest(): RequestStore | undefined {
  return storage.getStore()
}

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
  const props = storage.getStore()?.props
  return props === undefined ? undefined : { props }
}

/** The SDK-style context of a handler running beside another of the same request (a batch). */
const handlers = new AsyncLocalStorage<unknown>()

/**
 * Run `fn` as the handler whose SDK-style context is `extra` (for `server.server.elicitInput` and
 * kin). A request runs one handler at a time, nearly always: its context then goes in the request's
 * store, without a second async context; a handler beside another (a 2025-03-26 batch) gets its own.
 */
export async function withHandler<T>(extra: unknown, fn: () => T | Promise<T>): Promise<T> {
  const store = storage.getStore() as (RequestStore & { handler?: unknown }) | undefined
  if (!store || store.handler !== undefined) return handlers.run(extra, fn)
  store.handler = extra
  try {
    return await fn()
  } finally {
    store.handler = undefined
  }
}

export function currentHandler(): unknown {
  return handlers.getStore() ?? (storage.getStore() as { handler?: unknown } | undefined)?.handler
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
