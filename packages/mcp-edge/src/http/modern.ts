/**
 * The 2026-07-28 lane of the endpoint: one request or notification per POST, carrying its own
 * `_meta`; the standard and `Mcp-Param-*` headers must mirror the body (-32020) before the server
 * sees it. Nothing here remembers anything between requests.
 */
import { METHOD, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { unsupportedVersion } from '../protocol/errors.ts'
import { classifyMessage } from '../protocol/jsonrpc.ts'
import { isLegacyVersion } from '../protocol/legacy.ts'
import { readRequestMeta } from '../protocol/meta.ts'
import type { McpServer } from '../server/server.ts'
import { validateParamHeaders, validateStandardHeaders } from './headers.ts'
import { handleOptions } from './lane.ts'
import type { Lane } from './lane.ts'
import { respond } from './respond.ts'

/**
 * Not async: a refusal throws here, at once, into the entry handler's `try` (its only caller), and
 * a request's answer is `respond`'s own promise, without one more of this function's.
 */
export function serveModern<Env>(server: McpServer<Env>, lane: Lane<Env>, body: unknown): Response | Promise<Response> {
  const incoming = classifyMessage(body)
  // streamable-http: an accepted notification gets 202 and no body.
  if (incoming.kind !== 'request') return new Response(null, { status: 202 })
  const message = incoming.message
  const meta = readRequestMeta(message.params)
  const headers = lane.request.headers
  validateStandardHeaders(headers, message, meta)
  // A 2025 revision is spoken through initialize, not per request with _meta: unsupported here.
  if (isLegacyVersion(meta.protocolVersion)) throw unsupportedVersion(meta.protocolVersion, SUPPORTED_PROTOCOL_VERSIONS)
  const params = message.params as Record<string, unknown>
  if (message.method === METHOD.toolsCall && typeof params.name === 'string') {
    const viewer = { principal: lane.principal, env: lane.env, meta }
    validateParamHeaders(headers, server.headerParams(params.name, viewer), params.arguments)
  }
  return respond(lane, message.id, (run) => server.handle(message, meta, handleOptions(lane, run)))
}
