/**
 * SDK 1.x's names for the protocol's messages (`@modelcontextprotocol/sdk/types.js`, also in SDK
 * 2.x), for code that types what it builds or receives with them: requests and their params,
 * notifications, sampling and roots, the JSON-RPC envelope. Types only: nothing here is bundled.
 * Built from mcp-edge's own protocol types and the adapter's request schemas, so a request a
 * low-level handler receives has the type its schema gives it. Not carried: the experimental
 * tasks' types (so `ClientNotification` has no task status), the URL elicitation's completion
 * notification, and the client side's list-changed handler options, which servers do not use.
 */
import type { LogLevel } from '../../protocol/constants.ts'
import type { RequestId } from '../../protocol/jsonrpc.ts'
import type * as Protocol from '../../protocol/types.ts'
import type {
  AudioContent,
  ClientCapabilities,
  CompleteResult,
  ContentBlock,
  Icon,
  ImageContent,
  Implementation,
  MetaObject,
  ServerCapabilities,
  TextContent,
  Tool,
} from '../../protocol/types.ts'
import type { RequestOf } from '../context.ts'
import type {
  CreateMessageResult,
  CreateMessageResultWithTools,
  ElicitParams,
  ElicitRequestFormParams as FormParams,
  ElicitResult,
  ListRootsResult,
} from '../input.ts'
import type {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from './schemas.ts'
import type { ListPromptsResult, ListResourceTemplatesResult, ListToolsResult } from './schemas.ts'
import type { ListResourcesResult } from '../resource-template.ts'

/**
 * An object type as the SDKs' loose zod schemas type it: other keys allowed, so a value annotated
 * with it takes keys of its own, and goes where a record is taken (ext-apps' callbacks, a
 * `Record<string, unknown>` parameter). mcp-edge's own types are closed; these are for SDK code.
 */
type Open<T> = T & { [key: string]: unknown }

/** The results a handler returns, as the SDKs type them (open). */
export type CallToolResult = Open<Protocol.CallToolResult>
export type GetPromptResult = Open<Protocol.GetPromptResult>
export type ReadResourceResult = Open<Protocol.ReadResourceResult>
/** A form elicitation's params (SDK 2.x `ElicitRequestFormParams`), open as well. */
export type ElicitRequestFormParams = Open<FormParams>

/** The params every request and notification may carry. */
export interface RequestParams {
  _meta?: { progressToken?: string | number; [key: string]: unknown }
  [key: string]: unknown
}
export type NotificationParams = { _meta?: MetaObject; [key: string]: unknown }

/** Any request, notification or result, as the SDKs' base types describe them. */
export interface Request {
  method: string
  params?: RequestParams
}
export interface Notification {
  method: string
  params?: NotificationParams
}
export type Result = { _meta?: MetaObject; [key: string]: unknown }
export type EmptyResult = Result

export type Cursor = string
export type Role = 'user' | 'assistant'
export interface Progress {
  progress: number
  total?: number
  message?: string
}
export interface BaseMetadata {
  name: string
  title?: string
}
export interface Icons {
  icons?: Icon[]
}
export interface ToolExecution {
  taskSupport?: 'required' | 'optional' | 'forbidden'
}

// Requests a server answers, typed by the schemas a low-level `Server` sets its handlers with.
export type ListToolsRequest = RequestOf<typeof ListToolsRequestSchema>
export type CallToolRequest = RequestOf<typeof CallToolRequestSchema>
export type CallToolRequestParams = CallToolRequest['params']
export type ListResourcesRequest = RequestOf<typeof ListResourcesRequestSchema>
export type ListResourceTemplatesRequest = RequestOf<typeof ListResourceTemplatesRequestSchema>
export type ReadResourceRequest = RequestOf<typeof ReadResourceRequestSchema>
export type ReadResourceRequestParams = ReadResourceRequest['params']
export type ResourceRequestParams = ReadResourceRequestParams
export type SubscribeRequest = RequestOf<typeof SubscribeRequestSchema>
export type SubscribeRequestParams = SubscribeRequest['params']
export type UnsubscribeRequest = RequestOf<typeof UnsubscribeRequestSchema>
export type UnsubscribeRequestParams = UnsubscribeRequest['params']
export type ListPromptsRequest = RequestOf<typeof ListPromptsRequestSchema>
export type GetPromptRequest = RequestOf<typeof GetPromptRequestSchema>
export type GetPromptRequestParams = GetPromptRequest['params']
export type CompleteRequest = RequestOf<typeof CompleteRequestSchema>
export type CompleteRequestParams = CompleteRequest['params']
export type SetLevelRequest = RequestOf<typeof SetLevelRequestSchema>
export type SetLevelRequestParams = SetLevelRequest['params']
export type PaginatedRequestParams = RequestParams & { cursor?: Cursor }
export interface PaginatedRequest {
  method: string
  params?: PaginatedRequestParams
}
export type PaginatedResult = Result & { nextCursor?: Cursor }
export interface PingRequest {
  method: 'ping'
  params?: RequestParams
}

/** What a completion refers to: a prompt, or a resource template. */
export interface PromptReference {
  type: 'ref/prompt'
  name: string
  title?: string
}
export interface ResourceTemplateReference {
  type: 'ref/resource'
  uri: string
}
/** SDK 1.x's older name of `ResourceTemplateReference`. */
export type ResourceReference = ResourceTemplateReference
export type CompleteRequestPrompt = CompleteRequest & { params: { ref: PromptReference } }
export type CompleteRequestResourceTemplate = CompleteRequest & { params: { ref: ResourceTemplateReference } }

// Initialization (2025-era clients). The capabilities as the SDK's loose schemas give them.
export interface InitializeRequestParams extends RequestParams {
  protocolVersion: string
  capabilities: ClientCapabilities | Record<string, unknown>
  clientInfo: Implementation
}
export interface InitializeRequest {
  method: 'initialize'
  params: InitializeRequestParams
}
export type InitializeResult = Result & {
  protocolVersion: string
  capabilities: ServerCapabilities | Record<string, unknown>
  serverInfo: Implementation
  instructions?: string
}

// Notifications.
export interface LoggingMessageNotificationParams extends NotificationParams {
  level: LogLevel
  logger?: string
  data: unknown
}
export interface LoggingMessageNotification {
  method: 'notifications/message'
  params: LoggingMessageNotificationParams
}
export interface ProgressNotificationParams extends NotificationParams, Progress {
  progressToken: string | number
}
export interface ProgressNotification {
  method: 'notifications/progress'
  params: ProgressNotificationParams
}
export interface ResourceUpdatedNotificationParams extends NotificationParams {
  uri: string
}
export interface ResourceUpdatedNotification {
  method: 'notifications/resources/updated'
  params: ResourceUpdatedNotificationParams
}
export interface CancelledNotificationParams extends NotificationParams {
  requestId?: RequestId
  reason?: string
}
export interface CancelledNotification {
  method: 'notifications/cancelled'
  params: CancelledNotificationParams
}
/** A notification that carries no params of its own. */
interface Bare<Method extends string> {
  method: Method
  params?: NotificationParams
}
export type ToolListChangedNotification = Bare<'notifications/tools/list_changed'>
export type ResourceListChangedNotification = Bare<'notifications/resources/list_changed'>
export type PromptListChangedNotification = Bare<'notifications/prompts/list_changed'>
export type InitializedNotification = Bare<'notifications/initialized'>
export type RootsListChangedNotification = Bare<'notifications/roots/list_changed'>

// Sampling, elicitation and roots: what a server asks a client.
export interface ToolUseContent {
  type: 'tool_use'
  id: string
  name: string
  input: Record<string, unknown>
  _meta?: MetaObject
}
export interface ToolResultContent {
  type: 'tool_result'
  toolUseId: string
  content: ContentBlock[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
  _meta?: MetaObject
}
export type SamplingContent = TextContent | ImageContent | AudioContent
export type SamplingMessageContentBlock = SamplingContent | ToolUseContent | ToolResultContent
export interface SamplingMessage {
  role: Role
  content: SamplingMessageContentBlock | SamplingMessageContentBlock[]
  _meta?: MetaObject
}
export interface ModelHint {
  name?: string
}
export interface ModelPreferences {
  hints?: ModelHint[]
  costPriority?: number
  speedPriority?: number
  intelligencePriority?: number
}
export interface ToolChoice {
  mode?: 'auto' | 'required' | 'none'
}
export interface CreateMessageRequestParamsBase {
  _meta?: RequestParams['_meta']
  messages: SamplingMessage[]
  modelPreferences?: ModelPreferences
  systemPrompt?: string
  includeContext?: 'none' | 'thisServer' | 'allServers'
  temperature?: number
  maxTokens: number
  stopSequences?: string[]
  metadata?: object
}
export interface CreateMessageRequestParamsWithTools extends CreateMessageRequestParamsBase {
  tools: Tool[]
  toolChoice?: ToolChoice
}
export type CreateMessageRequestParams = CreateMessageRequestParamsBase | CreateMessageRequestParamsWithTools
export interface CreateMessageRequest {
  method: 'sampling/createMessage'
  params: CreateMessageRequestParams
}
export type ElicitRequestParams = ElicitParams
export interface ElicitRequest {
  method: 'elicitation/create'
  params: ElicitRequestParams
}
export type Root = ListRootsResult['roots'][number]
export interface ListRootsRequest {
  method: 'roots/list'
  params?: RequestParams
}

// The JSON-RPC envelope.
export type JSONRPCRequest = Request & { jsonrpc: '2.0'; id: RequestId }
export type JSONRPCNotification = Notification & { jsonrpc: '2.0' }
export interface JSONRPCResultResponse {
  jsonrpc: '2.0'
  id: RequestId
  result: Result
}
export interface JSONRPCErrorResponse {
  jsonrpc: '2.0'
  id?: RequestId
  error: { code: number; message: string; data?: unknown }
}
/** SDK 1.x's older name of `JSONRPCErrorResponse`. */
export type JSONRPCError = JSONRPCErrorResponse
export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResultResponse | JSONRPCErrorResponse

// What each side sends and answers.
export type ClientRequest =
  | PingRequest
  | InitializeRequest
  | CompleteRequest
  | SetLevelRequest
  | GetPromptRequest
  | ListPromptsRequest
  | ListResourcesRequest
  | ListResourceTemplatesRequest
  | ReadResourceRequest
  | SubscribeRequest
  | UnsubscribeRequest
  | CallToolRequest
  | ListToolsRequest
export type ClientNotification =
  | CancelledNotification
  | ProgressNotification
  | InitializedNotification
  | RootsListChangedNotification
export type ClientResult = EmptyResult | CreateMessageResult | CreateMessageResultWithTools | ElicitResult | ListRootsResult
export type ServerResult =
  | EmptyResult
  | InitializeResult
  | CompleteResult
  | GetPromptResult
  | ListPromptsResult
  | ListResourcesResult
  | ListResourceTemplatesResult
  | ReadResourceResult
  | CallToolResult
  | ListToolsResult
/** A tool result as SDK 1.x's client accepts it: the current shape, or the 2024-10-07 `toolResult`. */
export type CompatibilityCallToolResult = CallToolResult | (Result & { toolResult: unknown })
