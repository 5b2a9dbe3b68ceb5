/**
 * SDK 1.x's names for the protocol's messages (`types.js`), as mcp-edge/sdk exports them
 * (the package's types, sdk/low-level/names.ts and sdk/context.ts): a value of each SDK type is one of mcp-edge/sdk's type of the same name, so code
 * that builds or receives one compiles with its import changed. A type check (`npm run typecheck`
 * fails when one no longer fits; the test only calls it). Not compared: `ClientRequest` and
 * `ClientNotification`, whose SDK unions hold the experimental tasks' messages, which
 * mcp-edge/sdk does not carry.
 */
import type * as Sdk from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import type * as Ours from 'mcp-edge/sdk'

/** Each name as SDK 1.x types it. */
interface SdkNames {
  CallToolResult: Sdk.CallToolResult
  GetPromptResult: Sdk.GetPromptResult
  ReadResourceResult: Sdk.ReadResourceResult
  ElicitRequestFormParams: Sdk.ElicitRequestFormParams
  BaseMetadata: Sdk.BaseMetadata
  CallToolRequest: Sdk.CallToolRequest
  CallToolRequestParams: Sdk.CallToolRequestParams
  CancelledNotification: Sdk.CancelledNotification
  CancelledNotificationParams: Sdk.CancelledNotificationParams
  ClientResult: Sdk.ClientResult
  CompatibilityCallToolResult: Sdk.CompatibilityCallToolResult
  CompleteRequest: Sdk.CompleteRequest
  CompleteRequestParams: Sdk.CompleteRequestParams
  CompleteRequestPrompt: Sdk.CompleteRequestPrompt
  CompleteRequestResourceTemplate: Sdk.CompleteRequestResourceTemplate
  CreateMessageRequest: Sdk.CreateMessageRequest
  CreateMessageRequestParams: Sdk.CreateMessageRequestParams
  CreateMessageRequestParamsBase: Sdk.CreateMessageRequestParamsBase
  CreateMessageRequestParamsWithTools: Sdk.CreateMessageRequestParamsWithTools
  Cursor: Sdk.Cursor
  ElicitRequest: Sdk.ElicitRequest
  ElicitRequestParams: Sdk.ElicitRequestParams
  EmptyResult: Sdk.EmptyResult
  GetPromptRequest: Sdk.GetPromptRequest
  GetPromptRequestParams: Sdk.GetPromptRequestParams
  Icons: Sdk.Icons
  InitializeRequest: Sdk.InitializeRequest
  InitializeRequestParams: Sdk.InitializeRequestParams
  InitializeResult: Sdk.InitializeResult
  InitializedNotification: Sdk.InitializedNotification
  JSONRPCError: Sdk.JSONRPCError
  JSONRPCErrorResponse: Sdk.JSONRPCErrorResponse
  JSONRPCMessage: Sdk.JSONRPCMessage
  JSONRPCNotification: Sdk.JSONRPCNotification
  JSONRPCRequest: Sdk.JSONRPCRequest
  JSONRPCResponse: Sdk.JSONRPCResponse
  JSONRPCResultResponse: Sdk.JSONRPCResultResponse
  ListPromptsRequest: Sdk.ListPromptsRequest
  ListResourceTemplatesRequest: Sdk.ListResourceTemplatesRequest
  ListResourcesRequest: Sdk.ListResourcesRequest
  ListRootsRequest: Sdk.ListRootsRequest
  ListToolsRequest: Sdk.ListToolsRequest
  LoggingMessageNotification: Sdk.LoggingMessageNotification
  LoggingMessageNotificationParams: Sdk.LoggingMessageNotificationParams
  ModelHint: Sdk.ModelHint
  ModelPreferences: Sdk.ModelPreferences
  Notification: Sdk.Notification
  NotificationParams: Sdk.NotificationParams
  PaginatedRequest: Sdk.PaginatedRequest
  PaginatedRequestParams: Sdk.PaginatedRequestParams
  PaginatedResult: Sdk.PaginatedResult
  PingRequest: Sdk.PingRequest
  Progress: Sdk.Progress
  ProgressNotification: Sdk.ProgressNotification
  ProgressNotificationParams: Sdk.ProgressNotificationParams
  PromptListChangedNotification: Sdk.PromptListChangedNotification
  PromptReference: Sdk.PromptReference
  ReadResourceRequest: Sdk.ReadResourceRequest
  ReadResourceRequestParams: Sdk.ReadResourceRequestParams
  Request: Sdk.Request
  RequestParams: Sdk.RequestParams
  ResourceListChangedNotification: Sdk.ResourceListChangedNotification
  ResourceReference: Sdk.ResourceReference
  ResourceRequestParams: Sdk.ResourceRequestParams
  ResourceTemplateReference: Sdk.ResourceTemplateReference
  ResourceUpdatedNotification: Sdk.ResourceUpdatedNotification
  ResourceUpdatedNotificationParams: Sdk.ResourceUpdatedNotificationParams
  Result: Sdk.Result
  Role: Sdk.Role
  Root: Sdk.Root
  RootsListChangedNotification: Sdk.RootsListChangedNotification
  SamplingContent: Sdk.SamplingContent
  SamplingMessage: Sdk.SamplingMessage
  SamplingMessageContentBlock: Sdk.SamplingMessageContentBlock
  ServerResult: Sdk.ServerResult
  SetLevelRequest: Sdk.SetLevelRequest
  SetLevelRequestParams: Sdk.SetLevelRequestParams
  SubscribeRequest: Sdk.SubscribeRequest
  SubscribeRequestParams: Sdk.SubscribeRequestParams
  ToolChoice: Sdk.ToolChoice
  ToolExecution: Sdk.ToolExecution
  ToolListChangedNotification: Sdk.ToolListChangedNotification
  ToolResultContent: Sdk.ToolResultContent
  ToolUseContent: Sdk.ToolUseContent
  UnsubscribeRequest: Sdk.UnsubscribeRequest
  UnsubscribeRequestParams: Sdk.UnsubscribeRequestParams
  IsomorphicHeaders: Sdk.IsomorphicHeaders
  MessageExtraInfo: Sdk.MessageExtraInfo
  RequestInfo: Sdk.RequestInfo
}

/** Each name as mcp-edge/sdk types it. */
interface OurNames {
  CallToolResult: Ours.CallToolResult
  GetPromptResult: Ours.GetPromptResult
  ReadResourceResult: Ours.ReadResourceResult
  ElicitRequestFormParams: Ours.ElicitRequestFormParams
  BaseMetadata: Ours.BaseMetadata
  CallToolRequest: Ours.CallToolRequest
  CallToolRequestParams: Ours.CallToolRequestParams
  CancelledNotification: Ours.CancelledNotification
  CancelledNotificationParams: Ours.CancelledNotificationParams
  ClientResult: Ours.ClientResult
  CompatibilityCallToolResult: Ours.CompatibilityCallToolResult
  CompleteRequest: Ours.CompleteRequest
  CompleteRequestParams: Ours.CompleteRequestParams
  CompleteRequestPrompt: Ours.CompleteRequestPrompt
  CompleteRequestResourceTemplate: Ours.CompleteRequestResourceTemplate
  CreateMessageRequest: Ours.CreateMessageRequest
  CreateMessageRequestParams: Ours.CreateMessageRequestParams
  CreateMessageRequestParamsBase: Ours.CreateMessageRequestParamsBase
  CreateMessageRequestParamsWithTools: Ours.CreateMessageRequestParamsWithTools
  Cursor: Ours.Cursor
  ElicitRequest: Ours.ElicitRequest
  ElicitRequestParams: Ours.ElicitRequestParams
  EmptyResult: Ours.EmptyResult
  GetPromptRequest: Ours.GetPromptRequest
  GetPromptRequestParams: Ours.GetPromptRequestParams
  Icons: Ours.Icons
  InitializeRequest: Ours.InitializeRequest
  InitializeRequestParams: Ours.InitializeRequestParams
  InitializeResult: Ours.InitializeResult
  InitializedNotification: Ours.InitializedNotification
  JSONRPCError: Ours.JSONRPCError
  JSONRPCErrorResponse: Ours.JSONRPCErrorResponse
  JSONRPCMessage: Ours.JSONRPCMessage
  JSONRPCNotification: Ours.JSONRPCNotification
  JSONRPCRequest: Ours.JSONRPCRequest
  JSONRPCResponse: Ours.JSONRPCResponse
  JSONRPCResultResponse: Ours.JSONRPCResultResponse
  ListPromptsRequest: Ours.ListPromptsRequest
  ListResourceTemplatesRequest: Ours.ListResourceTemplatesRequest
  ListResourcesRequest: Ours.ListResourcesRequest
  ListRootsRequest: Ours.ListRootsRequest
  ListToolsRequest: Ours.ListToolsRequest
  LoggingMessageNotification: Ours.LoggingMessageNotification
  LoggingMessageNotificationParams: Ours.LoggingMessageNotificationParams
  ModelHint: Ours.ModelHint
  ModelPreferences: Ours.ModelPreferences
  Notification: Ours.Notification
  NotificationParams: Ours.NotificationParams
  PaginatedRequest: Ours.PaginatedRequest
  PaginatedRequestParams: Ours.PaginatedRequestParams
  PaginatedResult: Ours.PaginatedResult
  PingRequest: Ours.PingRequest
  Progress: Ours.Progress
  ProgressNotification: Ours.ProgressNotification
  ProgressNotificationParams: Ours.ProgressNotificationParams
  PromptListChangedNotification: Ours.PromptListChangedNotification
  PromptReference: Ours.PromptReference
  ReadResourceRequest: Ours.ReadResourceRequest
  ReadResourceRequestParams: Ours.ReadResourceRequestParams
  Request: Ours.Request
  RequestParams: Ours.RequestParams
  ResourceListChangedNotification: Ours.ResourceListChangedNotification
  ResourceReference: Ours.ResourceReference
  ResourceRequestParams: Ours.ResourceRequestParams
  ResourceTemplateReference: Ours.ResourceTemplateReference
  ResourceUpdatedNotification: Ours.ResourceUpdatedNotification
  ResourceUpdatedNotificationParams: Ours.ResourceUpdatedNotificationParams
  Result: Ours.Result
  Role: Ours.Role
  Root: Ours.Root
  RootsListChangedNotification: Ours.RootsListChangedNotification
  SamplingContent: Ours.SamplingContent
  SamplingMessage: Ours.SamplingMessage
  SamplingMessageContentBlock: Ours.SamplingMessageContentBlock
  ServerResult: Ours.ServerResult
  SetLevelRequest: Ours.SetLevelRequest
  SetLevelRequestParams: Ours.SetLevelRequestParams
  SubscribeRequest: Ours.SubscribeRequest
  SubscribeRequestParams: Ours.SubscribeRequestParams
  ToolChoice: Ours.ToolChoice
  ToolExecution: Ours.ToolExecution
  ToolListChangedNotification: Ours.ToolListChangedNotification
  ToolResultContent: Ours.ToolResultContent
  ToolUseContent: Ours.ToolUseContent
  UnsubscribeRequest: Ours.UnsubscribeRequest
  UnsubscribeRequestParams: Ours.UnsubscribeRequestParams
  IsomorphicHeaders: Ours.IsomorphicHeaders
  MessageExtraInfo: Ours.MessageExtraInfo
  RequestInfo: Ours.RequestInfo
}

/** Compiles only while every SDK type fits the one of its name. */
const fits = (sdk: SdkNames): OurNames => sdk
/** Results are open, as the SDKs' are: one goes where a record is taken (ext-apps' callbacks). */
const open = (result: Ours.ReadResourceResult): Record<string, unknown> => result
/** A wrapper's view of what the callback it wraps returns: a result of the exported type, or a question. */
declare const asks: (value: unknown) => value is Ours.InputRequiredResult
const wrap = (callback: Ours.ToolCallback<undefined>) => async (extra: Ours.RequestHandlerExtra) => {
  const result = await callback(extra)
  if (asks(result)) return result
  const seen: Ours.CallToolResult = result
  return seen
}
/** SDK 2.x's name for the protocol's resource template (`ResourceTemplate` is the class). */
const template = (sdk: Sdk.ResourceTemplate): Ours.ResourceTemplateType => sdk

describe("SDK 1.x's types.js names", () => {
  it('are exported by mcp-edge/sdk, each taking what the SDK type of its name holds', () => {
    expect(fits({ Role: 'user' } as SdkNames).Role).toBe('user')
    expect(template({ uriTemplate: 'notes://{name}', name: 'note' }).uriTemplate).toBe('notes://{name}')
    expect(open({ contents: [], extra: 1 }).extra).toBe(1)
    expect(typeof wrap).toBe('function')
  })
})
