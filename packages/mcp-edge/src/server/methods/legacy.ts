/**
 * The requests only 2025-era clients send (the legacy lane): `initialize`, `ping`,
 * `logging/setLevel`, `resources/subscribe` and `resources/unsubscribe`. `initialize` answers from
 * the same registry as `server/discover`; the HTTP layer seals what it negotiated into the session
 * id. With a session ledger (and an event hub, for subscriptions), `logging/setLevel` keeps the
 * session's level (later calls of the session log from it, on every isolate) and
 * `resources/subscribe`/`unsubscribe` the session's subscriptions, which its GET stream delivers;
 * then `initialize` advertises `subscribe` and `listChanged`. A subscription needs the scopes that
 * reading the resource needs (403 `insufficient_scope`, as `resources/read`). Without a ledger they
 * are accepted and kept nowhere: later calls log at the lane's configured level, and nothing is
 * delivered (the first subscribe says so in the log, once per isolate). Code that watches them (kept-requests.ts: an SDK server's own handlers) hears each
 * one before the session keeps it, ledger or not; what it refuses is not kept.
 */
import { LEGACY_METHOD, LOG_LEVELS } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import { legacyCapabilities, legacyImplementation } from '../../protocol/legacy.ts'
import type { LegacyVersion, LogLevel } from '../../protocol/constants.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import { heard } from '../kept-requests.ts'
import { MAX_SUBSCRIBED_URI } from '../legacy/session-ledger.ts'
import { serverCapabilities } from '../server-capabilities.ts'
import { warnOnce } from '../telemetry/log.ts'
import { readScopes, requireScopes, viewerOf } from './access.ts'

/** Whether 2025 sessions get a GET stream here: session ids (state keys), a session ledger and an event hub. */
function servesStreams({ server, options }: Call): boolean {
  return options.requestState !== undefined && options.sessions !== undefined && typeof server.events === 'object'
}

/** Said once when a 2025 client subscribes where nothing keeps it (module header). */
const NOT_KEPT =
  'resources/subscribe answered and not kept: no update will reach the session without a session ledger ' +
  'and an event hub (the sessions and events options, or MCP_SESSIONS and MCP_EVENTS: docs/legacy-clients.md)'

function invalid(message: string): McpError {
  return new McpError('invalidParams', `Invalid params: ${message}`)
}

export const initialize: MethodEntry = {
  era: 'legacy',
  inputRequired: false,
  async run(call) {
    const { params, server, meta } = call
    if (typeof params.protocolVersion !== 'string') throw invalid('protocolVersion must be a string')
    if (!isObject(params.capabilities)) throw invalid('capabilities must be an object')
    if (!isObject(params.clientInfo) || typeof params.clientInfo.name !== 'string') {
      throw invalid('clientInfo with a name is required')
    }
    const version = meta.protocolVersion as LegacyVersion
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: legacyCapabilities(serverCapabilities(server, call.options), { streams: servesStreams(call) }),
      serverInfo: legacyImplementation(server.info, version),
    }
    if (server.instructions !== undefined) result.instructions = server.instructions
    return result
  },
}

export const ping: MethodEntry = { era: 'legacy', inputRequired: false, run: async () => ({}) }

export const setLevel: MethodEntry = {
  era: 'legacy',
  capability: 'logging',
  inputRequired: false,
  async run(call) {
    const { params, options } = call
    if (!(LOG_LEVELS as readonly unknown[]).includes(params.level))
      throw invalid(`unknown log level ${JSON.stringify(params.level)}`)
    await heard(call)
    await options.legacySession?.setLogLevel(params.level as LogLevel)
    return {}
  },
}

/** `resources/subscribe` and `resources/unsubscribe`: kept for the session's GET stream, with a ledger (module header). */
export const subscription: MethodEntry = {
  era: 'legacy',
  capability: 'resources',
  inputRequired: false,
  async run(call) {
    const { params, request, server, options } = call
    const uri = params.uri
    if (typeof uri !== 'string' || uri === '') throw invalid('uri must be a string')
    if (uri.length > MAX_SUBSCRIBED_URI) throw invalid(`uri is longer than ${MAX_SUBSCRIBED_URI} characters`)
    const subscribing = request.method === LEGACY_METHOD.subscribe
    // A resource this principal may not read is not subscribed to either: 403 with its scopes, as resources/read.
    if (subscribing) requireScopes(options.principal, readScopes(server, viewerOf(call), uri), `Subscribing to ${uri}`)
    // The code that watches it decides first: what it refuses is not kept. One the ledger then
    // refuses (past its cap) the watcher has seen, which delivers nothing to the session.
    await heard(call)
    const session = options.legacySession
    if (!session || typeof server.events !== 'object') {
      if (subscribing) warnOnce(NOT_KEPT)
      return {}
    }
    await session.subscribe(uri, subscribing)
    return {}
  },
}
