/**
 * mcp-edge/sdk: run code written for the official MCP SDKs (`@modelcontextprotocol/sdk` 1.x,
 * `@modelcontextprotocol/server` 2.x) and Cloudflare agents (`agents/mcp`, `agents/mcp/server`)
 * on mcp-edge with only its imports changed (docs/migrate.md). An adapter over the core: nothing
 * in the core imports it, and a Worker that does not import it carries none of it.
 *
 * Needs the `nodejs_compat` (or `nodejs_als`) compatibility flag, as agents does.
 */
import { useConventionalEvents } from './server.ts'
import { conventionalEvents } from './services.ts'

// A server built without `events` uses the Worker's MCP_EVENTS hub when it has one (docs/migrate.md).
useConventionalEvents(conventionalEvents)

export { McpServer, ResourceTemplate } from './server.ts'
export type {
  McpServerOptions,
  McpServerOptions as ServerOptions,
  PromptCallback,
  PromptConfig,
  ReadResourceCallback,
  ReadResourceTemplateCallback,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ResourceMetadata,
  StandardSchemaWithJSON,
  ToolCallback,
  ToolConfig,
  ToolInputSchema,
} from './server.ts'
export type { LooseToolAnnotations } from './types.ts'
export {
  EXTENSION_ID,
  getUiCapability,
  registerAppResource,
  registerAppTool,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from './apps.ts'
export type {
  LegacyToolCallback,
  McpUiAppResourceConfig,
  McpUiAppToolConfig,
  McpUiClientCapabilities,
  McpUiReadResourceCallback,
  McpUiReadResourceResult,
  McpUiResourceMeta,
  McpUiToolMeta,
} from './apps.ts'
export type { ListResourcesCallback, ListResourcesResult, ResourceTemplateCallbacks } from './resource-template.ts'
export {
  acceptedContent,
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
  inputRequired,
  inputResponse,
  isInputRequired,
  isInputRequired as isInputRequiredResult,
  ListRootsResultSchema,
} from './input.ts'
export type {
  CreateMessageResult,
  CreateMessageResultWithTools,
  ListRootsResult,
  ElicitFormParams,
  ElicitParams,
  ElicitResult,
  ElicitRequestURLParams,
  ElicitUrlParams,
  InputRequests,
  InputRequiredResult,
  InputRequiredSpec,
  InputResponseView,
  PrimitiveSchemaDefinition,
  RequestedSchema,
} from './input.ts'
export type {
  AuthInfo,
  IsomorphicHeaders,
  MessageExtraInfo,
  RequestHandlerExtra,
  RequestHandlerExtra as ServerContext,
  RequestInfo,
  SdkNotification,
  SdkRequest,
  ServerNotification,
  ServerRequest,
} from './context.ts'
export { completable, isCompletable } from './schema/schema.ts'
export {
  ErrorCode,
  McpError,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  SqlError,
  UrlElicitationRequiredError,
} from './errors.ts'
export type { UrlElicitation } from './errors.ts'
export { createRequestStateCodec } from './codec.ts'
export type { RequestStateCodec, RequestStateCodecOptions } from './codec.ts'
export type {
  CompleteCallback,
  CompleteCallback as CompleteResourceTemplateCallback,
  ShapeOutput,
  Zod3Object,
  Zod3Type,
  ZodRawShape,
} from './schema/schema.ts'
export { createMcpHandler } from './handler.ts'
export { OAuthError, OAuthErrorCode, requireBearerAuth } from './web/bearer-auth.ts'
export type { BearerAuthOptions, OAuthTokenVerifier } from './web/bearer-auth.ts'
export {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from './web/guards.ts'
export type {
  CorsOptions,
  CreateMcpHandlerOptions,
  IgnoredHandlerOptions,
  McpFetchHandler,
  McpFetchHandler as StatelessMcpHandler,
  McpHandlerRequestOptions,
  McpRequestContext,
  McpServerFactory,
} from './handler-types.ts'
export type { ServerEvent, ServerEventBus, ServerNotifier } from './notifier.ts'
export { getMcpAuthContext } from './request-store.ts'
export type { McpAuthContext } from './request-store.ts'
export { McpAgent } from './agent/agent.ts'
export { CfWorkerJsonSchemaValidator } from './validators.ts'
export type { Connection, ServeOptions } from './agent/agent.ts'
export { LowLevelServer } from './low-level.ts'
export { Server } from './low-level/server.ts'
export {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from './low-level/schemas.ts'
export type {
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  RequestHandler,
  RequestOf,
} from './low-level/schemas.ts'
export type {
  ResourceTemplate as ResourceTemplateType,
  ClientCapabilities,
  ContentBlock,
  Icon,
  Implementation,
  PromptMessage,
  Resource,
  ResourceLink,
  TextContent,
  Tool,
  ToolAnnotations,
  Annotations,
  ImageContent,
  AudioContent,
  EmbeddedResource,
  ResourceContents,
  TextResourceContents,
  BlobResourceContents,
  ServerCapabilities,
  Prompt,
  PromptArgument,
  RequestMeta,
  CompleteResult,
} from '../protocol/types.ts'
/** SDK 1.x's names for the protocol's messages (`types.js`): requests, notifications, sampling, JSON-RPC. */
export type * from './low-level/names.ts'
/** SDK 1.x's names: a log level, a request's id, a progress token. */
export type { LogLevel as LoggingLevel } from '../protocol/constants.ts'
export type { RequestId, RequestId as ProgressToken } from '../protocol/jsonrpc.ts'
