/**
 * The server capabilities this server honours, computed in one place for every era that
 * advertises them (`server/discover`, and a legacy `initialize`). Conformance: a capability is
 * advertised exactly when its methods work, and the spec says a server advertises only what it
 * delivers: `listChanged` and `subscribe` need a way to reach every listen stream, so they are
 * advertised only when the server has an event delivery (an event hub, or a declared single
 * isolate).
 */
import { TASKS_EXTENSION } from '../protocol/constants.ts'
import type { JsonObject, ServerCapabilities } from '../protocol/types.ts'
import { APPS_EXTENSION } from './apps.ts'
import type { HandleOptions } from './dispatch.ts'
import type { ServerCore } from './dispatch.ts'

/**
 * @example
 * serverCapabilities(server, options) // { logging: {}, tools: { listChanged: true }, ... }
 */
export function serverCapabilities<Env>(server: ServerCore<Env>, options: HandleOptions<Env>): ServerCapabilities {
  const notifies = server.events !== undefined
  const capabilities: ServerCapabilities = { logging: {} }
  if (server.offers('tools', options)) capabilities.tools = notifies ? { listChanged: true } : {}
  if (server.offers('prompts', options)) capabilities.prompts = notifies ? { listChanged: true } : {}
  if (server.offers('resources', options)) capabilities.resources = notifies ? { subscribe: true, listChanged: true } : {}
  if (server.offers('completions', options)) capabilities.completions = {}
  // A server's own declarations, but Tasks only when tasks are served (it needs a backend).
  const { [TASKS_EXTENSION]: _tasks, ...extensions }: Record<string, JsonObject> = server.extensions
  if (server.offers('tasks', options)) extensions[TASKS_EXTENSION] = {}
  if (server.offers('apps', options)) extensions[APPS_EXTENSION] ??= {}
  if (Object.keys(extensions).length > 0) capabilities.extensions = extensions
  return capabilities
}
