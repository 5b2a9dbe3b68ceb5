/**
 * mcp-edge: a stateless 2026-07-28 MCP server runtime for Cloudflare Workers, built on Hono.
 * The public surface; a test snapshots this list so a change to it is deliberate.
 */
export {
  LOG_LEVELS,
  META,
  PARTIAL_LOG_META,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  TASK_PARTIALS_FILTER,
  TASKS_EXTENSION,
} from './protocol/constants.ts'
export type { LogLevel } from './protocol/constants.ts'
export { ERROR_KINDS, McpError } from './protocol/errors.ts'
export type { ErrorKind, JsonRpcErrorObject } from './protocol/errors.ts'
export type * from './protocol/types.ts'

export { createMcpServer, McpServer } from './server/server.ts'
export { APP_MIME_TYPE, APPS_EXTENSION, rendersViews } from './server/apps.ts'
export type { ViewCsp, ViewOptions, ViewPermissions } from './server/apps.ts'
export type {
  Cursor,
  EventDelivery,
  EventHub,
  ListenPath,
  ListKind,
  McpEvent,
  NotifyLogOptions,
  NotifyOptions,
  Subscription,
} from './server/events/events.ts'
export { ConfigurationError, ToolError } from './server/errors.ts'
export { input } from './server/input/input.ts'
export type { ElicitResponse, InputRequest, InputSpec, Root, SamplingRequest, SamplingResponse } from './server/input/input.ts'
export { ClientAnswerError, InputRequired } from './server/input/input-round.ts'
export { createKeyRing, RequestStateCodec } from './server/request-state.ts'
export type { RequestStateOptions, StateBinding, StateBody } from './server/request-state.ts'
export type { SessionFacts, SessionKey, SessionLedger } from './server/legacy/session-ledger.ts'
export { openSessionStream } from './server/legacy/session-stream.ts'
export type { OpenSessionStream, SessionStream } from './server/dispatch.ts'
export type { OutboxOptions, OutboxStats, PartialChunk } from './server/outbox.ts'
export type { JsonSchemaInput } from './server/schema/schema.ts'
export type { TaskLimits } from './server/tasks/limits.ts'
export { DEFAULT_MAX_RESULT_BYTES } from './server/results/budget.ts'
export { memoryResultStore, parseResultUri } from './server/results/store.ts'
export type { ResultOptions, ResultPolicy, ResultStore, StoredPage, StoredResult } from './server/results/store.ts'
export { resultBudgets } from './server/results/spill.ts'
export { toolSearch } from './server/catalog/search-tool.ts'
export { TaskSuspended } from './server/tasks/replay.ts'
export type {
  DetailedTask,
  NonceLedger,
  PartialLogPage,
  PartialLogQuery,
  Task,
  TaskBackend,
  TaskCall,
  TaskStatus,
} from './server/tasks/tasks.ts'
export type * from './server/types.ts'
export { ATTR, DURATION_BUCKETS_S, OPERATION_DURATION } from './server/telemetry/conventions.ts'
export type { Outcome } from './server/telemetry/conventions.ts'
export { createLog } from './server/telemetry/log.ts'
export type { Log, LogLevelName } from './server/telemetry/log.ts'
export type { McpHooks, RecordOptions, RequestEnd, RequestInfo, TraceContextMode } from './server/telemetry/observe.ts'
export { otlpExporter, otlpFromEnv } from './server/telemetry/otlp.ts'
export type { OtlpExporterOptions, OtlpFromEnvOptions } from './server/telemetry/otlp.ts'
export { recordingExporter } from './server/telemetry/recording.ts'
export type { RecordingExporter } from './server/telemetry/recording.ts'
export type { TelemetryConfig } from './server/telemetry/setup.ts'
export { extractContext, formatTraceparent, parseTraceparent } from './server/telemetry/trace-context.ts'
export type { SpanContext } from './server/telemetry/trace-context.ts'
export { createTelemetry } from './server/telemetry/tracer.ts'
export type {
  Attributes,
  FinishedSpan,
  NativeSpan,
  NativeTracing,
  OperationPoint,
  SpanKind,
  Telemetry,
  TelemetryExporter,
  TelemetrySpan,
} from './server/telemetry/tracer.ts'

export { createMcpHandler } from './http/handler.ts'
export type { McpHttpOptions, McpServices } from './http/handler.ts'
export { mcp } from './http/hono.ts'
export type { McpVariables } from './http/hono.ts'
export { serverCard } from './http/discovery/server-card.ts'
export type { ServerCard, ServerCardOptions } from './http/discovery/server-card.ts'
export { registryServerJson } from './http/discovery/server-json.ts'
export type {
  RegistryHeader,
  RegistryServerJson,
  RegistryServerJsonOptions,
  ServerListingOptions,
} from './http/discovery/server-json.ts'
export { aiCatalog } from './http/discovery/ai-catalog.ts'
export type { AiCatalogCard, AiCatalogOptions } from './http/discovery/ai-catalog.ts'
export { AuthChallenge, isLocalRequest, principalFromClaims } from './http/auth.ts'
export { bearerToken } from './http/bearer.ts'
export type { AuthOptions, RateLimiter, ResourceServer } from './http/auth.ts'
export { mcpCors } from './http/cors.ts'
export { jwtResourceServer, metadataUrlOf, protectedResourceMetadata } from './http/resource-server.ts'
export type { JwtResourceServer, JwtResourceServerOptions } from './http/resource-server.ts'
export { introspectionResourceServer } from './http/introspection.ts'
export type { IntrospectionResourceServer, IntrospectionResourceServerOptions } from './http/introspection.ts'
