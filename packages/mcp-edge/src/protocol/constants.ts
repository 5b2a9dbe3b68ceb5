/**
 * Protocol constants for the stateless `2026-07-28` MCP revision: versions, reserved `_meta` keys,
 * HTTP header names and method names. Pure data; every other layer reads names from here so a
 * string on the wire is spelled once.
 */

/** The protocol revision this runtime speaks. */
export const PROTOCOL_VERSION = '2026-07-28'

/** Every stateless revision this server serves (basic/versioning: `data.supported` of -32022). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [PROTOCOL_VERSION]

/**
 * The 2025-era revisions the legacy lane serves (an `initialize` handshake, newest first). A
 * request without `_meta["io.modelcontextprotocol/protocolVersion"]` belongs to this era.
 */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const
export type LegacyVersion = (typeof LEGACY_PROTOCOL_VERSIONS)[number]

/** Reserved request `_meta` keys (basic/index.mdx "_meta"). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  progressToken: 'progressToken',
  /** SEP-2998 (draft): opts a single `tools/call` in to partial results. */
  partialResultToken: 'partialResultToken',
} as const

/** The Tasks extension identifier (SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** mcp-edge's own `_meta` key on `tasks/get` for reading a task's partial-result log. */
export const PARTIAL_LOG_META = 'dev.mcp-edge/partialLog'

/** mcp-edge's own key in a `subscriptions/listen` filter: with `taskIds`, also the tasks' partial results. */
export const TASK_PARTIALS_FILTER = 'dev.mcp-edge/partialResults'

/** Header names (lower case, as the Fetch `Headers` API normalises them). */
export const HEADER = {
  protocolVersion: 'mcp-protocol-version',
  method: 'mcp-method',
  name: 'mcp-name',
  paramPrefix: 'mcp-param-',
  accept: 'accept',
  contentType: 'content-type',
  contentLength: 'content-length',
  origin: 'origin',
  host: 'host',
  /** 2025-era transport: the session id minted by `initialize` (sealed, never stored). */
  sessionId: 'mcp-session-id',
  /** 2025-era transport: the last event a client saw on the stream it resumes. */
  lastEventId: 'last-event-id',
} as const

/** Client requests of the 2026-07-28 revision plus the Tasks extension. */
export const METHOD = {
  discover: 'server/discover',
  listen: 'subscriptions/listen',
  toolsList: 'tools/list',
  toolsCall: 'tools/call',
  resourcesList: 'resources/list',
  resourceTemplatesList: 'resources/templates/list',
  resourcesRead: 'resources/read',
  promptsList: 'prompts/list',
  promptsGet: 'prompts/get',
  complete: 'completion/complete',
  tasksGet: 'tasks/get',
  tasksUpdate: 'tasks/update',
  tasksCancel: 'tasks/cancel',
} as const

export type MethodName = (typeof METHOD)[keyof typeof METHOD]

/** Client requests that exist only in the 2025 revisions (the legacy lane). */
export const LEGACY_METHOD = {
  initialize: 'initialize',
  ping: 'ping',
  setLevel: 'logging/setLevel',
  subscribe: 'resources/subscribe',
  unsubscribe: 'resources/unsubscribe',
} as const

/** Client notifications of the 2025 revisions the server acts on (the others, `initialized` among them, need nothing). */
export const CLIENT_NOTIFICATION = {
  cancelled: 'notifications/cancelled',
} as const

/**
 * Notifications the server sends, besides `notifications/{tools,prompts,resources}/list_changed`,
 * which events.ts spells from the list's name.
 */
export const NOTIFICATION = {
  progress: 'notifications/progress',
  message: 'notifications/message',
  resourceUpdated: 'notifications/resources/updated',
  subscriptionsAcknowledged: 'notifications/subscriptions/acknowledged',
  partialResult: 'notifications/tools/partial_result',
  tasks: 'notifications/tasks',
} as const

/** Log levels in ascending severity (RFC 5424 names, server/utilities/logging). */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]
