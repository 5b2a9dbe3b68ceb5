/**
 * The requests only 2025-era clients send (the legacy lane): `initialize`, `ping`,
 * `logging/setLevel`, `resources/subscribe` and `resources/unsubscribe`. `initialize` answers from
 * the same registry as `server/discover`; the HTTP layer seals what it negotiated into the session
 * id. `logging/setLevel` keeps the session's level in the session ledger when one is configured
 * (later calls of the session log from it, on every isolate); without one it is accepted and later
 * calls log at the lane's configured level. `resources/subscribe` and `unsubscribe` are accepted
 * and deliver no updates (`subscribe` is not advertised).
 */
import { LOG_LEVELS } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import { legacyCapabilities, legacyImplementation } from '../../protocol/legacy.ts'
import type { LegacyVersion, LogLevel } from '../../protocol/constants.ts'
import type { MethodEntry } from '../dispatch.ts'
import { serverCapabilities } from '../server-capabilities.ts'

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
      capabilities: legacyCapabilities(serverCapabilities(server, call.options)),
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
  async run({ params, options }) {
    if (!(LOG_LEVELS as readonly unknown[]).includes(params.level))
      throw invalid(`unknown log level ${JSON.stringify(params.level)}`)
    await options.legacySession?.setLogLevel(params.level as LogLevel)
    return {}
  },
}

/** `resources/subscribe` and `resources/unsubscribe`: accepted, nothing to deliver (module header). */
export const subscription: MethodEntry = {
  era: 'legacy',
  capability: 'resources',
  inputRequired: false,
  async run({ params }) {
    if (typeof params.uri !== 'string' || params.uri === '') throw invalid('uri must be a string')
    return {}
  },
}
