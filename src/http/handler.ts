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
 * (406) → authentication (401) → content type (415) → size (413) → JSON (-32700) → the lane.
 */
import { HEADER, META, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { isMcpError, McpError } from '../protocol/errors.ts'
import { isObject, readableId } from '../protocol/jsonrpc.ts'
import type { RequestId } from '../protocol/jsonrpc.ts'
import type { McpServices } from '../server/dispatch.ts'
import type { OutboxOptions } from '../server/outbox.ts'
import type { McpServer } from '../server/server.ts'
import type { Awaitable, Principal } from '../server/types.ts'
import { DEFAULT_MAX_BODY_BYTES, readBody } from './body.ts'
import { checkAccept, checkContentType, checkOrigin } from './guards.ts'
import type { GuardOptions } from './guards.ts'
import type { Lane } from './lane.ts'
import { createLegacyLane } from './legacy.ts'
import type { LegacyOptions } from './legacy.ts'
import { serveModern } from './modern.ts'
import { rejection } from './respond.ts'

export type { McpServices }

export interface McpHttpOptions<Env> extends GuardOptions {
  /** Largest accepted request body (default 4 MiB); bigger ones get 413 without being buffered. */
  maxBodyBytes?: number
  /** Interval of SSE keepalive comments (default 15 s). */
  keepaliveMs?: number
  /** Bounds of each response stream's queue (slow readers, partial results). */
  stream?: OutboxOptions
  /**
   * Who is calling. Return a principal to accept the request, or nothing to refuse it with 401.
   * Without this option every request is served anonymously.
   */
  authenticate?: (request: Request, env: Env) => Awaitable<Principal | null | undefined>
  /** Added to `WWW-Authenticate` on 401 (RFC 9728 protected resource metadata). */
  resourceMetadataUrl?: string
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
  return new McpError(
    'unsupportedVersion',
    `Unsupported protocol version: ${requested}. This server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} only (no initialize handshake; send _meta["${META.protocolVersion}"] on every request)`,
    { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
  )
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
  const respondOptions = { stream: options.stream, keepaliveMs: options.keepaliveMs ?? KEEPALIVE_INTERVAL_MS }
  const legacy = options.legacy === 'reject' ? undefined : createLegacyLane(server, options.legacy)
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
  const challenge = options.resourceMetadataUrl
    ? `Bearer realm="mcp", resource_metadata="${options.resourceMetadataUrl}"`
    : 'Bearer realm="mcp"'

  return async function handle(request: Request, env: Env): Promise<Response> {
    const configured = servicesFor(env)
    if (configured instanceof Error) return rejection(new McpError('misconfigured'), undefined)
    if (request.method !== 'POST') {
      // streamable-http: no GET stream and no sessions to delete, in either era (2025: "405
      // Method Not Allowed, indicating that the server does not offer an SSE stream" / "does not
      // allow clients to terminate sessions").
      return rejection(new McpError('methodNotAllowed'), undefined, { allow: 'POST' })
    }
    let id: RequestId | undefined
    try {
      checkOrigin(request.headers, options)
      checkAccept(request.headers)
      let principal: Principal | undefined
      if (options.authenticate) {
        const found = options.authenticate(request, env)
        principal = (found instanceof Promise ? await found : found) ?? undefined
        if (!principal) return rejection(new McpError('unauthorized'), undefined, { 'www-authenticate': challenge })
      }
      checkContentType(request.headers)
      const text = await readBody(request, maxBodyBytes)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new McpError('parseError')
      }
      id = readableId(body)
      const lane: Lane<Env> = { request, env, principal, services: configured, respond: respondOptions }
      if (Array.isArray(body)) {
        // streamable-http: one message per POST; only 2025-03-26 had batches.
        if (!legacy || isModern(body, request.headers)) {
          throw new McpError('invalidRequest', 'Invalid Request: batches are not supported')
        }
        return await legacy.serveBatch(lane, body)
      }
      if (isModern(body, request.headers)) return await serveModern(server, lane, body)
      if (legacy) return await legacy.serve(lane, body)
      if (isObject(body) && 'method' in body && 'id' in body) throw refuseLegacy(body, request.headers)
      return await serveModern(server, lane, body)
    } catch (error) {
      if (isMcpError(error)) return rejection(error, id)
      console.error('[mcp-edge] request failed:', error)
      return rejection(new McpError('internalError'), id)
    }
  }
}
