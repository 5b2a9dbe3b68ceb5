/**
 * `server/discover` (server/discover.mdx): versions, the capabilities the handlers really honour
 * (conformance: advertised exactly when the methods work), instructions and cache hints. Identity
 * goes in `_meta["io.modelcontextprotocol/serverInfo"]`, added to every result.
 */
import { SUPPORTED_PROTOCOL_VERSIONS, TASKS_EXTENSION } from '../../protocol/constants.ts'
import type { ServerCapabilities } from '../../protocol/types.ts'
import type { Call, MethodEntry } from '../dispatch.ts'

export function serverCapabilities(call: Call): ServerCapabilities {
  const { server, options } = call
  const capabilities: ServerCapabilities = { logging: {} }
  if (server.offers('tools', options)) capabilities.tools = { listChanged: true }
  if (server.offers('prompts', options)) capabilities.prompts = { listChanged: true }
  if (server.offers('resources', options)) capabilities.resources = { subscribe: true, listChanged: true }
  if (server.offers('completions', options)) capabilities.completions = {}
  if (server.offers('tasks', options)) capabilities.extensions = { [TASKS_EXTENSION]: {} }
  return capabilities
}

export const discover: MethodEntry = {
  era: 'modern',
  inputRequired: false,
  async run(call) {
    const { server } = call
    const result: Record<string, unknown> = {
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: serverCapabilities(call),
      ...server.listCache,
    }
    if (server.instructions !== undefined) result.instructions = server.instructions
    return result
  },
}
