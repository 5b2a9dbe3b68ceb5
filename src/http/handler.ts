/**
 * Streamable HTTP for one MCP endpoint, on Web `Request`/`Response` (streamable-http.mdx). Turns
 * a POST into a parsed, validated request for the server and the server's answer into a JSON
 * response, or an SSE stream opened the moment the first notification goes out. Every protocol
 * decision is made in `src/server/` or `src/protocol/`; this file only translates.
 *
 * Order of checks (DESIGN "One request, end to end"): method (405) → Origin/Host (403) → Accept
 * (406) → authentication (401) → content type (415) → size (413) → JSON (-32700) → JSON-RPC shape
 * (-32600) → required `_meta` (-32602) → headers (-32020) → server (version, method, capability).
 */
import { METHOD } from '../protocol/constants.ts'
import { isMcpError, McpError } from '../protocol/errors.ts'
import { classifyMessage, errorResponse, readableId } from '../protocol/jsonrpc.ts'
import type { JsonRpcResponse, RequestId } from '../protocol/jsonrpc.ts'
import { readRequestMeta } from '../protocol/meta.ts'
import type { HandleOptions } from '../server/dispatch.ts'
import { LazyAbort } from '../server/cancellation.ts'
import { Outbox } from '../server/outbox.ts'
import type { OutboxOptions } from '../server/outbox.ts'
import type { RequestStateCodec } from '../server/request-state.ts'
import type { Handled, McpServer } from '../server/server.ts'
import type { NonceLedger, TaskBackend } from '../server/tasks.ts'
import type { Principal } from '../server/types.ts'
import { createAuthenticator } from './auth.ts'
import type { AuthOptions } from './auth.ts'
import { DEFAULT_MAX_BODY_BYTES, readBody } from './body.ts'
import { parseJsonBody } from '../server/limits.ts'
import { checkAccept, checkContentType, checkOrigin } from './guards.ts'
import type { GuardOptions } from './guards.ts'
import { validateParamHeaders, validateStandardHeaders } from './headers.ts'
import { sseResponse } from './stream.ts'

/** Services that depend on the Worker environment (secrets, bindings). */
export interface McpServices {
  requestState?: RequestStateCodec
  tasks?: TaskBackend
  nonces?: NonceLedger
}

export interface McpHttpOptions<Env> extends GuardOptions, AuthOptions<Env> {
  /** Largest accepted request body (default 4 MiB); bigger ones get 413 without being buffered. */
  maxBodyBytes?: number
  /** Interval of SSE keepalive comments (default 15 s). */
  keepaliveMs?: number
  /** Bounds of each response stream's queue (slow readers, partial results). */
  stream?: OutboxOptions
  /** Deepest nesting of arrays and objects a request body may have (default 64); deeper is -32600. */
  maxJsonDepth?: number
  /** Builds the env-dependent services once per isolate and env object. */
  services?: (env: Env) => McpServices
}

export const KEEPALIVE_INTERVAL_MS = 15_000

const JSON_HEADERS = { 'content-type': 'application/json' }

function jsonResponse(body: JsonRpcResponse, status: number, extra?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS })
}

function rejection(error: McpError, id: RequestId | undefined, extra?: Record<string, string>): Response {
  return jsonResponse(errorResponse(id, error.toJSON()), error.status, extra)
}

/**
 * Create a fetch-style handler for an MCP endpoint.
 *
 * @example
 * const handle = createMcpHandler(server, { allowedOrigins: ['https://app.example.com'] })
 * export default { fetch: (request, env, ctx) => handle(request, env, ctx) }
 */
export function createMcpHandler<Env>(server: McpServer<Env>, options: McpHttpOptions<Env> = {}) {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const keepaliveMs = options.keepaliveMs ?? KEEPALIVE_INTERVAL_MS
  // Built once per isolate and env. A configuration error (a missing secret or binding) is kept
  // too: it is logged once, with its instructions, and every request gets a plain 500.
  const services = new WeakMap<object, McpServices | Error>()
  const servicesFor = (env: Env): McpServices | Error => {
    if (!options.services) return {}
    const key = (env ?? services) as object
    let found = services.get(key)
    if (!found) {
      try {
        found = options.services(env)
      } catch (error) {
        found = error instanceof Error ? error : new Error(String(error))
        console.error(`[mcp-edge] server misconfigured: ${found.message}`)
      }
      services.set(key, found)
    }
    return found
  }
  // mcp-edge auth hook (issue 11): principal resolution, fail-closed locality, challenges.
  const auth = createAuthenticator(options)

  /**
   * Serve one request. `executionCtx` gives handlers `ctx.waitUntil`; `given` is a principal that
   * Hono middleware already established (`mcp()` passes it).
   */
  return async function handle(
    request: Request,
    env: Env,
    executionCtx?: { waitUntil(promise: Promise<unknown>): void },
    given?: Principal,
  ): Promise<Response> {
    const configured = servicesFor(env)
    if (configured instanceof Error) return rejection(new McpError('misconfigured'), undefined)
    if (request.method !== 'POST') {
      // streamable-http: GET and DELETE get 405 in this revision (no GET stream, no sessions).
      return rejection(new McpError('methodNotAllowed'), undefined, { allow: 'POST' })
    }
    let id: RequestId | undefined
    try {
      checkOrigin(request.headers, options)
      checkAccept(request.headers)
      // Auth hook (issue 11): throws 401 (AuthChallenge) before the body is read.
      const principal = await auth.resolve(request, env, given)
      checkContentType(request.headers)
      const text = await readBody(request, maxBodyBytes)
      // JSON hook (issue 11): -32700, or -32600 past the nesting limit, before JSON.parse recurses.
      const body = parseJsonBody(text, options.maxJsonDepth)
      id = readableId(body)
      const incoming = classifyMessage(body)
      // streamable-http: an accepted notification gets 202 and no body.
      if (incoming.kind === 'notification') return new Response(null, { status: 202 })
      const message = incoming.message
      const meta = readRequestMeta(message.params)
      validateStandardHeaders(request.headers, message, meta)
      const params = message.params as Record<string, unknown>
      if (message.method === METHOD.toolsCall && typeof params.name === 'string') {
        validateParamHeaders(request.headers, server.headerParams(params.name), params.arguments)
      }
      return await respond(server, request, {
        message,
        meta,
        principal,
        env,
        services: configured,
        keepaliveMs,
        stream: options.stream,
        waitUntil: executionCtx ? (promise) => executionCtx.waitUntil(promise) : undefined,
        challenge: (response, status) => auth.headersForResponse(response, status, env),
      })
    } catch (error) {
      if (isMcpError(error)) return rejection(error, id, auth.headersFor(error, env))
      console.error('[mcp-edge] request failed:', error)
      return rejection(new McpError('internalError'), id)
    }
  }
}

/**
 * The endpoint's path (`/mcp`), which sealed states are bound to with the server's name. The host
 * is left out: one Worker answers on several hostnames (workers.dev, custom domains), and a
 * state must survive a key rotation or a deploy that leaves the endpoint where it is.
 */
function endpointPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const end = url.indexOf('?', start)
  return end < 0 ? url.slice(start) : url.slice(start, end)
}

interface Exchange<Env> {
  message: Parameters<McpServer<Env>['handle']>[0]
  meta: Parameters<McpServer<Env>['handle']>[1]
  principal: Principal | undefined
  env: Env
  services: McpServices
  keepaliveMs: number
  stream: OutboxOptions | undefined
  waitUntil: ((promise: Promise<unknown>) => void) | undefined
  /** Headers of a server-made refusal: `WWW-Authenticate` (403 insufficient_scope), `Retry-After` (429). */
  challenge: (message: JsonRpcResponse, status: number) => Record<string, string> | undefined
}

/** Run the request; answer with JSON unless a notification goes out first, then with SSE. */
async function respond<Env>(server: McpServer<Env>, request: Request, exchange: Exchange<Env>): Promise<Response> {
  // With the enable_request_signal flag, workerd aborts request.signal when the client goes away.
  const cancel = new LazyAbort(request.signal ?? undefined)
  const outbox = new Outbox(exchange.stream)
  const handleOptions: HandleOptions<Env> = {
    env: exchange.env,
    principal: exchange.principal,
    cancel,
    outbox,
    waitUntil: exchange.waitUntil,
    endpoint: endpointPath(request.url),
    ...exchange.services,
  }
  const done: Promise<Handled> = server.handle(exchange.message, exchange.meta, handleOptions)
  const first = await Promise.race([done, outbox.firstMessage])
  if (first !== undefined) {
    outbox.close()
    return jsonResponse(first.message, first.status, exchange.challenge(first.message, first.status))
  }
  void done.then(() => outbox.close())
  return sseResponse(outbox, done, cancel, exchange.keepaliveMs)
}
