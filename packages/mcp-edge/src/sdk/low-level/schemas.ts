/**
 * The SDKs' request schemas that a low-level `Server` sets its handlers with
 * (`setRequestHandler(CallToolRequestSchema, …)`, from SDK 1.x's `types.js`): each names its
 * method, and types the request the handler gets. zod/mini, as the rest of the adapter.
 */
import * as z from 'zod/v4/mini'
import { LOG_LEVELS } from '../../protocol/constants.ts'
import type { Prompt, ResourceTemplate, Tool } from '../../protocol/types.ts'
import type { RequestHandlerExtra } from '../context.ts'

export type { RequestOf } from '../context.ts'

const meta = z.optional(z.record(z.string(), z.unknown()))
const paginated = z.optional(z.looseObject({ cursor: z.optional(z.string()), _meta: meta }))
const request = <M extends string, P extends z.core.$ZodType>(method: M, params: P) =>
  z.looseObject({ method: z.literal(method), params })

export const ListToolsRequestSchema = request('tools/list', paginated)
export const CallToolRequestSchema = request(
  'tools/call',
  z.looseObject({ name: z.string(), arguments: z.optional(z.record(z.string(), z.unknown())), _meta: meta }),
)
export const ListResourcesRequestSchema = request('resources/list', paginated)
export const ListResourceTemplatesRequestSchema = request('resources/templates/list', paginated)
export const ReadResourceRequestSchema = request('resources/read', z.looseObject({ uri: z.string(), _meta: meta }))
export const SubscribeRequestSchema = request('resources/subscribe', z.looseObject({ uri: z.string(), _meta: meta }))
export const UnsubscribeRequestSchema = request('resources/unsubscribe', z.looseObject({ uri: z.string(), _meta: meta }))
export const ListPromptsRequestSchema = request('prompts/list', paginated)
export const GetPromptRequestSchema = request(
  'prompts/get',
  z.looseObject({ name: z.string(), arguments: z.optional(z.record(z.string(), z.string())), _meta: meta }),
)
export const CompleteRequestSchema = request(
  'completion/complete',
  z.looseObject({
    ref: z.union([
      z.looseObject({ type: z.literal('ref/prompt'), name: z.string() }),
      z.looseObject({ type: z.literal('ref/resource'), uri: z.string() }),
    ]),
    argument: z.looseObject({ name: z.string(), value: z.string() }),
    context: z.optional(z.looseObject({ arguments: z.optional(z.record(z.string(), z.string())) })),
    _meta: meta,
  }),
)
/**
 * Taken by `setRequestHandler` and never called (low-level.ts): mcp-edge answers `initialize` and
 * `ping` itself. Here so that code setting them builds and runs.
 */
export const InitializeRequestSchema = request(
  'initialize',
  z.looseObject({
    protocolVersion: z.string(),
    capabilities: z.record(z.string(), z.unknown()),
    clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
    _meta: meta,
  }),
)
export const PingRequestSchema = request('ping', z.optional(z.looseObject({ _meta: meta })))
export const SetLevelRequestSchema = request('logging/setLevel', z.looseObject({ level: z.enum(LOG_LEVELS), _meta: meta }))

/** A request handler as the SDKs take it: the request (typed by its schema) and the SDK-style `extra`. */
export type RequestHandler<Request = { method: string; params?: Record<string, unknown> }> = (
  request: Request,
  extra: RequestHandlerExtra,
) => unknown

/** What the list handlers return, as SDK 1.x's `types.js` names it (`ListResourcesResult` is resource-template.ts's). */
export interface ListToolsResult {
  tools: Tool[]
  nextCursor?: string
  _meta?: Record<string, unknown>
}

export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplate[]
  nextCursor?: string
  _meta?: Record<string, unknown>
}

export interface ListPromptsResult {
  prompts: Prompt[]
  nextCursor?: string
  _meta?: Record<string, unknown>
}
