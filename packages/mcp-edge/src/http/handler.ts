/**
 * Streamable HTTP for one MCP endpoint, on Web `Request`/`Response` (streamable-http.mdx), serving
 * both eras from the same URL. The checks every request passes are the same for both; then the era
 * is decided per request (DESIGN "Two eras, one registry"): a body whose `_meta` carries
 * `io.modelcontextprotocol/protocolVersion` (or a request naming a 2026 revision in its header) is
 * the stateless 2026-07-28 lane (`modern.ts`); anything else is a 2025-era client on the legacy
 * lane (`legacy.ts`), or, with `legacy: 'reject'`, gets -32022 naming the revision served. Every
 * protocol decision is made in `src/server/` or `src/protocol/`; this file only translates.
 *
 * Order of checks (DESIGN "One request, end to end"): method (405) → Origin/Host (403) → Accept
 * (406) → authentication (401) → content type (415) → size (413) → JSON (-32700) → the lane. A
 * DELETE that ends a 2025 session, or a GET for its stream: Origin/Host (403) → Accept (406, a GET
 * only) → authentication (401) → the session (404).
 */
import { HEADER, META, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { McpError, unsupportedVersion } from '../protocol/errors.ts'
import { isObject, readableId } from '../protocol/jsonrpc.ts'
import type { RequestId } from '../protocol/jsonrpc.ts'
import type { McpServices } from '../server/dispatch.ts'
import { ConfigurationError } from '../server/errors.ts'
import { singleUseWarning } from '../server/methods/context.ts'
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_MAX_QUEUED_CHUNKS } from '../server/outbox.ts'
import type { OutboxOptions } from '../server/outbox.ts'
import { parseJsonBody, positive } from '../server/limits.ts'
import type { McpServer } from '../server/server.ts'
import type { Principal, UpstreamAccess } from '../server/types.ts'
import { createAuthenticator } from './auth.ts'
import type { AuthOptions } from './auth.ts'
import { DEFAULT_MAX_BODY_BYTES, readBody } from './body.ts'
import { checkAccept, checkContentType, checkOrigin, checkStreamAccept, pathStart } from './guards.ts'
import type { GuardOptions } from './guards.ts'
import type { Lane } from './lane.ts'
import { createLegacyLane } from './legacy.ts'
import type { LegacyLane } from './legacy.ts'
import type { LegacyOptions } from './legacy.ts'
import { serveModern } from './modern.ts'
import type { ServerCard } from './discovery/server-card.ts'
import { failure, rejection } from './respond.ts'
import { extractContext } from '../server/telemetry/trace-context.ts'
import type { SpanContext } from '../server/telemetry/trace-context.ts'
import { libraryLog, warnOnce } from '../server/telemetry/log.ts'

export type { McpServices }

export interface McpHttpOptions<Env> extends GuardOptions, AuthOptions<Env> {
  /**
   * Serve a Server Card (SEP-2127, experimental) at `<endpoint>/server-card` (`mcp()` only), built
   * from the server's identity by `serverCard({ name })`: its reverse-DNS `name`, and a
   * `description` when the server has none.
   */
  serverCard?: ServerCard
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
  /**
   * 2025-era clients (`initialize`): served on the same endpoint by default (options of that lane),
   * or `'reject'` for a 2026-07-28-only endpoint, which answers them -32022.
   */
  legacy?: LegacyOptions | 'reject'
}

export const KEEPALIVE_INTERVAL_MS = 15_000

/** The stateless lane: the body says its revision in `_meta`, or the header names a 2026 revision. */
function isModern(body: unknown, headers: Headers): boolean {
  if (isObject(body) && isObject(body.params) && isObject(body.params._meta) && META.protocolVersion in body.params._meta) {
    return true
  }
  return SUPPORTED_PROTOCOL_VERSIONS.includes(headers.get(HEADER.protocolVersion) ?? '')
}

/** -32022 for a 2025-era request on a 2026-07-28-only endpoint, naming what is served. */
function refuseLegacy(body: unknown, headers: Headers): McpError {
  const params = isObject(body) && isObject(body.params) ? body.params : {}
  const requested = String(params.protocolVersion ?? headers.get(HEADER.protocolVersion) ?? '2025-03-26')
  const served = SUPPORTED_PROTOCOL_VERSIONS.join(', ')
  const message = `Unsupported protocol version: ${requested}. This server speaks ${served} only (no initialize handshake; send _meta["${META.protocolVersion}"] on every request)`
  return unsupportedVersion(requested, SUPPORTED_PROTOCOL_VERSIONS, message)
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
  const stream = {
    maxBufferedBytes: positive(options.stream?.maxBufferedBytes, DEFAULT_MAX_BUFFERED_BYTES, 'stream.maxBufferedBytes'),
    maxQueuedChunks: positive(options.stream?.maxQueuedChunks, DEFAULT_MAX_QUEUED_CHUNKS, 'stream.maxQueuedChunks'),
  }
  // A timer takes at most 2^31 - 1 ms; a longer delay would fire at once, on every pull.
  const respondOptions = { stream, keepaliveMs: positive(options.keepaliveMs, KEEPALIVE_INTERVAL_MS, 'keepaliveMs', 2 ** 31 - 1) }
  const legacy = options.legacy === 'reject' ? undefined : createLegacyLane(server, options.legacy)
  const servicesFor = servicesCache(server, options, legacy)
  // mcp-edge auth hook (issue 11): principal resolution, fail-closed locality, challenges.
  const auth = createAuthenticator(options)

  /**
   * Serve one request. `executionCtx` gives handlers `ctx.waitUntil`; `given` is a principal that
   * Hono middleware already established, and `upstream` its access to the caller's identity
   * provider (`mcp()` passes both).
   */
  return async function handle(
    request: Request,
    env: Env,
    executionCtx?: { waitUntil(promise: Promise<unknown>): void },
    given?: Principal,
    upstream?: UpstreamAccess,
  ): Promise<Response> {
    const configured = servicesFor(env)
    const headers = request.headers
    // Read once: the local-only check and the endpoint's path both need it.
    const url = request.url
    // The server's telemetry for this env, built once; a bad OTEL_* setting is logged, never an error here.
    const observer = server.observers.for(env)
    if (configured instanceof Error) {
      // A ConfigurationError says what to set and how, and holds no secret: every request says it.
      const detail = configured instanceof ConfigurationError ? `Server misconfigured: ${configured.message}` : undefined
      return rejection(new McpError('misconfigured', detail), undefined)
    }
    const laneOf = (principal: Principal | undefined): Lane<Env> => ({
      request,
      env,
      principal,
      upstream,
      services: configured,
      respond: respondOptions,
      endpoint: endpointPath(url),
      waitUntil: executionCtx ? (promise) => executionCtx.waitUntil(promise) : undefined,
      challenge: (message, status) => auth.headersForResponse(message, status, env),
      observer,
      transport: observer && transportContext(headers),
    })
    // Each read of a request's method or header is a call into the runtime: once, and only when it decides.
    const method = request.method
    if (method !== 'POST') {
      // 2025 sessions end on DELETE where a session ledger keeps that they did, and have a GET
      // stream where an event hub feeds it too (legacy.ts).
      const ends = legacy?.ends(configured) === true
      const streams = legacy?.streams(configured) === true
      const sessionCall = (ends && method === 'DELETE') || (streams && method === 'GET')
      if (legacy && sessionCall && headers.has(HEADER.sessionId)) {
        try {
          checkOrigin(headers, options)
          if (method === 'GET') checkStreamAccept(headers)
          const lane = laneOf(await auth.resolve(request, env, given, headers, url))
          return await (method === 'GET' ? legacy.stream(lane) : legacy.terminate(lane))
        } catch (error) {
          const failed = failure(error)
          return rejection(failed, undefined, auth.headersFor(failed, env))
        }
      }
      // streamable-http: no GET stream in the 2026 era, and in the 2025 one only a session's
      // (2025: "405 Method Not Allowed, indicating that the server does not offer an SSE
      // stream"); without a session ledger no sessions to delete ("does not allow clients to
      // terminate sessions").
      const allow = ['POST', ...(ends ? ['DELETE'] : []), ...(streams ? ['GET'] : [])].join(', ')
      return rejection(new McpError('methodNotAllowed'), undefined, { allow })
    }
    let id: RequestId | undefined
    try {
      checkOrigin(headers, options)
      checkAccept(headers)
      // Auth hook (issue 11): throws 401 (AuthChallenge) before the body is read.
      const resolved = auth.resolve(request, env, given, headers, url)
      const principal = resolved instanceof Promise ? await resolved : resolved
      checkContentType(headers)
      const text = await readBody(request, maxBodyBytes, headers)
      // JSON hook (issue 11): -32700, or -32600 past the nesting limit, before JSON.parse recurses.
      const body = parseJsonBody(text, options.maxJsonDepth)
      id = readableId(body)
      const lane = laneOf(principal)
      if (Array.isArray(body)) {
        // streamable-http: one message per POST; only 2025-03-26 had batches.
        if (!legacy || isModern(body, headers)) {
          throw new McpError('invalidRequest', 'Invalid Request: batches are not supported')
        }
        return await legacy.serveBatch(lane, body)
      }
      if (isModern(body, headers)) return await serveModern(server, lane, body)
      if (legacy) return await legacy.serve(lane, body)
      if (isObject(body) && 'method' in body && 'id' in body) throw refuseLegacy(body, headers)
      return await serveModern(server, lane, body)
    } catch (error) {
      const failed = failure(error)
      return rejection(failed, id, auth.headersFor(failed, env))
    }
  }
}

/**
 * The services of each env, built once per isolate and env. A configuration error (a missing
 * secret or binding) is kept too: it is logged once, and every request gets a 500 that says what
 * to fix.
 */
function servicesCache<Env>(
  server: McpServer<Env>,
  options: McpHttpOptions<Env>,
  legacy: LegacyLane<Env> | undefined,
): (env: Env) => McpServices | Error {
  const services = new WeakMap<object, McpServices | Error>()
  return (env) => {
    if (!options.services) return {}
    const key = (env ?? services) as object
    let found = services.get(key)
    if (!found) {
      try {
        found = options.services(env)
        const unredeemable = singleUseWarning(server.tools.values(), found)
        if (unredeemable) warnOnce(unredeemable)
        if (legacy?.missesStreams(found)) warnOnce(NO_SESSION_STREAMS)
      } catch (error) {
        found = error instanceof Error ? error : new Error(String(error))
        libraryLog.error('server misconfigured', { error: found.message })
      }
      services.set(key, found)
    }
    return found
  }
}

/** Services built by hand with sessions, session ids and a hub but no `sessionStreams`: their sessions' GET answers 405. */
const NO_SESSION_STREAMS =
  "2025 sessions have no GET stream: the services have sessions and the server an event hub, but no sessionStreams; add `sessionStreams: openSessionStream` (from 'mcp-edge') to the services, or a session's GET answers 405"

/** The HTTP request's own trace context: a link of each message's span (or its parent, without `_meta`'s). */
function transportContext(headers: Headers): SpanContext | undefined {
  const traceparent = headers.get('traceparent')
  return traceparent === null ? undefined : extractContext({ traceparent, tracestate: headers.get('tracestate') })
}

/**
 * The endpoint's path (`/mcp`), which sealed states are bound to with the server's name. The host
 * is left out: one Worker answers on several hostnames (workers.dev, custom domains), and a
 * state must survive a key rotation or a deploy that leaves the endpoint where it is.
 */
function endpointPath(url: string): string {
  const start = pathStart(url)
  if (start === url.length) return '/'
  const end = url.indexOf('?', start)
  return end < 0 ? url.slice(start) : url.slice(start, end)
}
