/**
 * TypeScript shapes of the 2026-07-28 wire objects the runtime sends or reads (schema.ts names).
 * Types only; the guards that check incoming values live next to the code that reads them.
 */
import type { LogLevel } from './constants.ts'
import type { RequestId } from './jsonrpc.ts'

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }
export type MetaObject = Record<string, unknown>

export interface Implementation {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
}

export interface Icon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

export interface Annotations {
  audience?: ('user' | 'assistant')[]
  priority?: number
  lastModified?: string
}

export interface TextContent {
  type: 'text'
  text: string
  annotations?: Annotations
  _meta?: MetaObject
}

export interface ImageContent {
  type: 'image'
  data: string
  mimeType: string
  annotations?: Annotations
  _meta?: MetaObject
}

export interface AudioContent {
  type: 'audio'
  data: string
  mimeType: string
  annotations?: Annotations
  _meta?: MetaObject
}

export interface TextResourceContents {
  uri: string
  mimeType?: string
  text: string
  _meta?: MetaObject
}

export interface BlobResourceContents {
  uri: string
  mimeType?: string
  blob: string
  _meta?: MetaObject
}

export type ResourceContents = TextResourceContents | BlobResourceContents

export interface Resource {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
  annotations?: Annotations
  icons?: Icon[]
  _meta?: MetaObject
}

export interface ResourceTemplate {
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: Annotations
  icons?: Icon[]
  _meta?: MetaObject
}

export interface ResourceLink extends Resource {
  type: 'resource_link'
}

export interface EmbeddedResource {
  type: 'resource'
  resource: ResourceContents
  annotations?: Annotations
  _meta?: MetaObject
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
  /** SEP-2998 (draft): the tool streams partial results. */
  streamingHint?: boolean
}

export interface Tool {
  name: string
  title?: string
  description?: string
  inputSchema: { type: 'object'; [key: string]: unknown }
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
  icons?: Icon[]
  _meta?: MetaObject
}

export interface PromptArgument {
  name: string
  title?: string
  description?: string
  required?: boolean
}

export interface Prompt {
  name: string
  title?: string
  description?: string
  arguments?: PromptArgument[]
  icons?: Icon[]
  _meta?: MetaObject
}

export interface PromptMessage {
  role: 'user' | 'assistant'
  content: ContentBlock
}

/** Fields every result carries. `resultType` is added by the runtime. */
export interface ResultBase {
  _meta?: MetaObject
}

export interface CallToolResult extends ResultBase {
  content: ContentBlock[]
  structuredContent?: unknown
  isError?: boolean
}

export interface GetPromptResult extends ResultBase {
  description?: string
  messages: PromptMessage[]
}

export interface ReadResourceResult extends ResultBase {
  contents: ResourceContents[]
}

export interface CompleteResult extends ResultBase {
  completion: { values: string[]; total?: number; hasMore?: boolean }
}

export type CacheScope = 'public' | 'private'

export interface ClientCapabilities {
  experimental?: Record<string, JsonObject>
  roots?: JsonObject
  sampling?: { context?: JsonObject; tools?: JsonObject }
  elicitation?: { form?: JsonObject; url?: JsonObject }
  extensions?: Record<string, JsonObject>
  /** SEP-2998 (draft). */
  partialResults?: JsonObject
  [key: string]: unknown
}

export interface ServerCapabilities {
  completions?: JsonObject
  logging?: JsonObject
  prompts?: { listChanged?: boolean }
  resources?: { subscribe?: boolean; listChanged?: boolean }
  tools?: { listChanged?: boolean }
  extensions?: Record<string, JsonObject>
}

/** The reserved request `_meta` of this revision, as read from a request. */
export interface RequestMeta {
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation
  logLevel?: LogLevel
  progressToken?: string | number
  partialResultToken?: string | number
  raw: MetaObject
}

export interface SubscriptionFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
  /** Tasks extension. */
  taskIds?: string[]
  /** mcp-edge: with `taskIds`, the tasks' partial results too (TASK_PARTIALS_FILTER). */
  'dev.mcp-edge/partialResults'?: boolean
}

export type { RequestId }
