/**
 * The second argument of an SDK-style handler, built from mcp-edge's `ctx`: one object carrying
 * the SDK 1.x `extra` fields (`signal`, `authInfo`, `sessionId`, `requestId`, `_meta`,
 * `sendNotification`, `sendRequest`) and the SDK 2.x `ctx` fields (`mcpReq.*`, `http.*`), so code
 * written for either reads what it expects. `edge` is mcp-edge's own context (partial results,
 * steps, `ask`), for code moving to the native API.
 *
 * Questions (`sendRequest`, `elicitInput`, `requestSampling`) go through the core's `ask`: a
 * 2026-07-28 client gets an `InputRequiredResult` and the handler runs again with the answer; a
 * 2025-era client is asked on the call's stream, and the handler also runs again from the top.
 * Each question is keyed by its order in the run, so the n-th question finds the n-th answer.
 */
import type { LogLevel } from '../protocol/constants.ts'
import { LOG_LEVELS } from '../protocol/constants.ts'
import type { RequestId } from '../protocol/jsonrpc.ts'
import type { InputRequest } from '../server/input/input.ts'
import type { Principal, RequestContext } from '../server/types.ts'
import { elicitRequest, rawSpec } from './input.ts'
import type { ElicitParams, ElicitResult } from './input.ts'
import { currentRequest, missingStateKeys } from './request-store.ts'
import type { RequestStore } from './request-store.ts'

/** The SDK's `AuthInfo`: what the caller's credentials say (from mcp-edge's principal). */
export interface AuthInfo {
  token: string
  clientId: string
  scopes: string[]
  expiresAt?: number
  resource?: URL
  extra?: Record<string, unknown>
}

/** A notification as the SDKs send it. */
export interface SdkNotification {
  method: string
  params?: Record<string, unknown>
}

/** A server-to-client request as the SDKs send it. */
export interface SdkRequest {
  method: string
  params?: Record<string, unknown>
}

/** Anything with zod's `parse` (the SDKs pass a result schema to `sendRequest`). */
interface ResultSchema {
  parse(value: unknown): unknown
}

/** The handler's second argument: SDK 1.x `extra` and SDK 2.x `ctx` in one. */
export interface RequestHandlerExtra<Env = unknown> {
  signal: AbortSignal
  authInfo?: AuthInfo
  sessionId?: string
  requestId: RequestId
  _meta?: Record<string, unknown>
  requestInfo?: { headers: Record<string, string> }
  /** `notifications/progress` and `notifications/message` go to the request's stream; list changes to listeners. */
  sendNotification(notification: SdkNotification): Promise<void>
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`, answered by the client. */
  // biome-ignore lint/suspicious/noExplicitAny: typed by the SDK's result schema, as in the SDKs
  sendRequest(request: SdkRequest, resultSchema?: ResultSchema, options?: unknown): Promise<any>
  mcpReq: {
    id: RequestId
    method: string
    _meta?: Record<string, unknown>
    signal: AbortSignal
    /** Answers of a retried request (SDK v2 multi-round-trip): every answer given so far, by key. */
    inputResponses: Record<string, unknown> | undefined
    /** The `requestState` this handler returned with its last `inputRequired`, on the retry. */
    requestState: <T = unknown>() => T | undefined
    log(level: LogLevel, data: unknown, logger?: string): Promise<void>
    elicitInput(params: ElicitParams, options?: unknown): Promise<ElicitResult>
    // biome-ignore lint/suspicious/noExplicitAny: typed by the SDK's result schema, as in the SDKs
    requestSampling(params: Record<string, unknown>, options?: unknown): Promise<any>
    // biome-ignore lint/suspicious/noExplicitAny: typed by the SDK's result schema, as in the SDKs
    send(request: SdkRequest, resultSchema?: ResultSchema, options?: unknown): Promise<any>
    notify(notification: SdkNotification): Promise<void>
  }
  http?: { authInfo?: AuthInfo; req?: Request }
  /** mcp-edge's own context for this call: `ctx.partial`, `ctx.step`, `ctx.ask`, `ctx.task`… */
  edge: RequestContext<Env>
}

/** The `AuthInfo` of a principal: the bearer token from the request, scopes, props as `extra`. */
export function authInfoOf(principal: Principal | undefined, store: RequestStore | undefined): AuthInfo | undefined {
  if (principal === undefined && store?.props === undefined) return undefined
  const header = store?.request.headers.get('authorization') ?? ''
  const token = /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '') : ''
  const clientId = principal?.client_id ?? principal?.azp ?? principal?.subject ?? ''
  const extra = { ...principal, ...store?.props }
  return { token, clientId: String(clientId), scopes: [...(principal?.scopes ?? [])], extra }
}

const isLogLevel = (value: unknown): value is LogLevel => (LOG_LEVELS as readonly unknown[]).includes(value)

/** Per run of a handler: answers given so far, and the order of the questions asked in it. */
export interface RunState {
  /** What `mcpReq.inputResponses` shows: the answers collected in this call. */
  responses: Record<string, unknown> | undefined
  /** The handler's own `requestState`, kept sealed between rounds. */
  handlerState: unknown
  /** How many questions this run has asked (their keys are `q1`, `q2`…). */
  asked: number
  /** Announce a list change (the server's `send*ListChanged`). */
  listChanged(kind: 'tools' | 'resources' | 'prompts'): void
}

/**
 * The SDK-style context of one handler run.
 *
 * @example
 * const extra = createExtra(ctx, run)
 * return handler(args, extra)
 */
export function createExtra<Env>(ctx: RequestContext<Env>, run: RunState): RequestHandlerExtra<Env> {
  const store = currentRequest()
  const authInfo = authInfoOf(ctx.principal, store)
  const sessionId = store?.request.headers.get('mcp-session-id') ?? undefined
  const ask = async (request: InputRequest, schema?: ResultSchema) => {
    if (store?.stateKeys === false) throw missingStateKeys()
    run.asked++
    const key = `q${run.asked}`
    const answers = await ctx.ask({ [key]: rawSpec(request) })
    const answer = answers[key]
    return schema ? schema.parse(answer) : answer
  }
  const sendRequest = (request: SdkRequest, schema?: ResultSchema) => {
    const { method, params = {} } = request
    const built: InputRequest =
      method === 'elicitation/create' ? elicitRequest(params as unknown as ElicitParams) : ({ method, params } as InputRequest)
    return ask(built, schema)
  }
  const sendNotification = async (notification: SdkNotification) => {
    const params = notification.params ?? {}
    switch (notification.method) {
      case 'notifications/progress':
        ctx.progress(
          Number(params.progress),
          params.total === undefined ? undefined : Number(params.total),
          params.message as string | undefined,
        )
        return
      case 'notifications/message':
        if (isLogLevel(params.level)) ctx.log(params.level, params.data, params.logger as string | undefined)
        return
      case 'notifications/tools/list_changed':
        return run.listChanged('tools')
      case 'notifications/resources/list_changed':
        return run.listChanged('resources')
      case 'notifications/prompts/list_changed':
        return run.listChanged('prompts')
      default:
        // Other notifications have no place on a request's stream in mcp-edge: dropped, as a
        // disconnected SDK transport drops them.
        return
    }
  }
  const meta = ctx.meta.raw as Record<string, unknown>
  const http = store ? { authInfo, req: store.request } : authInfo ? { authInfo } : undefined
  return {
    signal: ctx.signal,
    authInfo,
    sessionId,
    requestId: ctx.requestId,
    _meta: meta,
    requestInfo: store ? { headers: Object.fromEntries(store.request.headers) } : undefined,
    sendNotification,
    sendRequest,
    mcpReq: {
      id: ctx.requestId,
      method: ctx.method,
      _meta: meta,
      signal: ctx.signal,
      inputResponses: run.responses,
      requestState: <T>() => run.handlerState as T | undefined,
      log: async (level, data, logger) => ctx.log(level, data, logger),
      elicitInput: (params) => ask(elicitRequest(params)) as Promise<ElicitResult>,
      requestSampling: (params) => ask({ method: 'sampling/createMessage', params }),
      send: sendRequest,
      notify: sendNotification,
    },
    http,
    edge: ctx,
  }
}
