/**
 * `server/discover` (server/discover.mdx): versions, the capabilities the handlers really honour
 * (conformance: advertised exactly when the methods work), instructions and cache hints. Identity
 * goes in `_meta["io.modelcontextprotocol/serverInfo"]`, added to every result.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../protocol/constants.ts'
import type { MethodEntry } from '../dispatch.ts'
import { serverCapabilities } from '../server-capabilities.ts'

export const discover: MethodEntry = {
  era: 'modern',
  inputRequired: false,
  async run(call) {
    const { server } = call
    const result: Record<string, unknown> = {
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: serverCapabilities(server, call.options),
      ...server.listCache,
    }
    if (server.instructions !== undefined) result.instructions = server.instructions
    return result
  },
}
