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
 * Each question is keyed by what it asks and how many times the run asked it (input.ts
 * `questionKey`), so an answer is read only by the question it was given to.
 *
 * Over 400 lines: the object (`SdkExtra`), its `mcpReq` and the proxy that lets code spread and
 * assign it as the SDKs' plain object are one thing, each reading the others' private state; the
 * types the SDKs name for it (`RequestHandlerExtra`, `RequestInfo`…) are its shape.
 */
import type { LogLevel } from '../protocol/constants.ts'
import { LOG_LEVELS } from '../protocol/constants.ts'
import type { RequestId } from '../protocol/jsonrpc.ts'
import type { InputRequest } from '../server/input/input.ts'
import { ClientAnswerError, InputRequired } from '../server/input/input-round.ts'
import { McpError } from './errors.ts'
import { announced } from './notifier.ts'
import type { Announcements } from './notifier.ts'
import { isLegacyVersion } from '../protocol/legacy.ts'
import type { Principal, RequestContext, ToolContext } from '../server/types.ts'
import { checkedAnswer } from './schema/form-check.ts'
import {
  ASKED,
  dueOf,
  elicitRequest,
  MAX_ROUNDS_PER_CALL,
  parseResult,
  questionKey,
  rawSpec,
  REQUEST_TIMEOUT,
  ROUNDS,
  timeoutOf,
  tooManyRounds,
} from './input.ts'
import type { CreateMessageResult, CreateMessageResultWithTools, ElicitParams, ElicitResult } from './input.ts'
import { missingStateKeys } from './request-store.ts'
import type { RequestStore } from './request-store.ts'
import type { AuthInfo } from './principal.ts'
import type * as z from 'zod/v4/mini'

export type { AuthInfo }

/** A notification as the SDKs send it (its params any object, as `SdkRequest`'s). */
export interface SdkNotification {
  method: string
  params?: object
}

/**
 * A server-to-client request as the SDKs send it. Its params are any object: the SDK's own request
 * types (`CreateMessageRequest`, `ElicitRequest`) are interfaces without an index signature.
 */
export interface SdkRequest {
  method: string
  params?: object
}

/** The SDKs' names for what a server sends the client (`@modelcontextprotocol/sdk/types.js`). */
export type ServerRequest = SdkRequest
export type ServerNotification = SdkNotification

/** A result schema the SDKs pass to `sendRequest`: a zod schema (or anything with `parse`). */
type ResultSchema = unknown

/**
 * What a schema parses to: zod 4's output (classic or mini: mcp-edge/sdk's own schemas, SDK 1.x
 * releases on zod 4), or zod 3's `_output` (SDK 1.x releases on zod 3, whose schemas code may
 * import). The request a `setRequestHandler` handler gets; what `sendRequest` resolves to.
 */
export type RequestOf<S> = S extends z.core.$ZodType ? z.output<S> : S extends { _output: infer Output } ? Output : unknown

/**
 * `sendRequest` as the SDKs type it: resolving to the result schema's output (zod 4's, or zod 3's
 * `_output`), and to `any` without a schema. Two overloads, not one generic, so that `extra` stays
 * assignable to SDK 1.x's `RequestHandlerExtra` where code passes it to a helper typed with it.
 */
export interface SendRequest {
  <S extends object>(request: SdkRequest, resultSchema: S, options?: unknown): Promise<RequestOf<S>>
  // biome-ignore lint/suspicious/noExplicitAny: without a schema, as the SDKs
  (request: SdkRequest, resultSchema?: unknown, options?: unknown): Promise<any>
}

/**
 * The handler's second argument: SDK 1.x `extra` and SDK 2.x `ctx` in one. SDK 1.x's type takes
 * two arguments (`RequestHandlerExtra<ServerRequest, ServerNotification>`), which code that
 * wraps callbacks names; here the first is the Worker's env, and the second is taken and unused.
 * A handler annotated so is not the type `registerTool` takes (`RequestHandlerExtra<unknown>`):
 * registered as it is, it needs a cast (docs/migrate.md).
 */
export type RequestHandlerExtra<Env = unknown, _Notification = unknown> = {
  signal: AbortSignal
  authInfo?: AuthInfo
  sessionId?: string
  requestId: RequestId
  _meta?: { progressToken?: string | number; [key: string]: unknown }
  requestInfo?: RequestInfo
  /** `notifications/progress` and `notifications/message` go to the request's stream; list changes to listeners. */
  sendNotification(notification: SdkNotification): Promise<void>
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`, answered by the client. */
  sendRequest: SendRequest
  mcpReq: {
    id: RequestId
    method: string
    _meta?: Record<string, unknown>
    /** SDK 2.x: the reserved `io.modelcontextprotocol/*` keys of the request's `_meta` (2026-07-28's envelope), if it carried any. */
    envelope?: Record<string, unknown>
    signal: AbortSignal
    /** Answers of a retried request (SDK v2 multi-round-trip): every answer given so far, by key. */
    inputResponses: Record<string, unknown> | undefined
    /** The `requestState` this handler returned with its last `inputRequired`, on the retry. */
    requestState: <T = unknown>() => T | undefined
    log(level: LogLevel, data: unknown, logger?: string): Promise<void>
    elicitInput(params: ElicitParams, options?: unknown): Promise<ElicitResult>
    requestSampling(
      params: Record<string, unknown>,
      options?: unknown,
    ): Promise<CreateMessageResult | CreateMessageResultWithTools>
    send: SendRequest
    notify(notification: SdkNotification): Promise<void>
  }
  http?: { authInfo?: AuthInfo; req?: Request }
  /** mcp-edge's own context for this call: `partial`, `step`, `ask`, `task`… (a tool's; the same object elsewhere). */
  edge: ToolContext<Env>
}

/** SDK 1.x: headers as both Node.js and the browser give them. */
export type IsomorphicHeaders = Record<string, string | string[] | undefined>

/** SDK 1.x: what a handler's `extra.requestInfo` says of the HTTP request. */
export interface RequestInfo {
  headers: IsomorphicHeaders
  url?: URL
}

/** SDK 1.x: what a transport hands the server with a message (typed for code that names it). */
export interface MessageExtraInfo {
  requestInfo?: RequestInfo
  authInfo?: AuthInfo
  closeSSEStream?: () => void
  closeStandaloneSSEStream?: () => void
}

/**
 * The `AuthInfo` of a principal: the bearer token from the request, scopes, the principal's claims
 * and the props as `extra` (and `extra.props`, as agents gives them). Behind an OAuth provider that
 * says what it verified (`store.grant`), the token, client, scopes, expiry and resource are its.
 */
export function authInfoOf(principal: Principal | undefined, store: RequestStore | undefined): AuthInfo | undefined {
  if (store?.authInfo) return store.authInfo
  if (principal === undefined && store?.props === undefined) return undefined
  const extra = { ...principal, ...store?.props, ...(store?.props ? { props: store.props } : {}) }
  const grant = store?.grant
  if (grant) {
    const resource = URL.canParse(grant.resource ?? '') ? new URL(grant.resource as string) : undefined
    return {
      token: grant.token,
      clientId: grant.clientId ?? String(principal?.subject ?? ''),
      scopes: [...grant.scopes],
      ...(grant.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }),
      ...(resource ? { resource } : {}),
      extra,
    }
  }
  const header = store?.request.headers.get('authorization') ?? ''
  const token = /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '') : ''
  const clientId = principal?.client_id ?? principal?.azp ?? principal?.subject ?? ''
  return { token, clientId: String(clientId), scopes: [...(principal?.scopes ?? [])], extra }
}

/** The prefix of the `_meta` keys the protocol reserves (2026-07-28's per-request envelope). */
const RESERVED_META = 'io.modelcontextprotocol/'

export const isLogLevel = (value: unknown): value is LogLevel => (LOG_LEVELS as readonly unknown[]).includes(value)

/** The signal of a run: the request's, and aborted too when the run is dropped (`RunState.dropped`). */
function runSignal(run: RunState, request: AbortSignal): AbortSignal {
  if (!run.dropped) {
    run.dropped = new AbortController()
    run.signal = AbortSignal.any([request, run.dropped.signal])
  }
  return run.signal as AbortSignal
}

/** Per run of a handler: answers given so far, and the order of the questions asked in it. */
export interface RunState {
  /** What `mcpReq.inputResponses` shows: the answers collected in this call. */
  responses: Record<string, unknown> | undefined
  /** The handler's own `requestState`, kept sealed between rounds. */
  handlerState: unknown
  /** How many questions this run has asked. */
  asked: number
  /** How many times this run asked each question, by digest (`questionKey`). */
  digests?: Map<string, number> | undefined
  /**
   * Aborted when the run is dropped for a question it awaits (`park`): its `extra.signal` follows
   * it, so work tied to the signal (a timer, a fetch) stops, where the run's `finally` never runs.
   * Made when the signal is first read.
   */
  dropped?: AbortController | undefined
  /** The run's `extra.signal` (`runSignal`). */
  signal?: AbortSignal | undefined
  /**
   * Called when an awaited question goes to the client: the run is left waiting for good, and
   * `runSdkHandler` ends the round with it (the handler runs again when the answer comes).
   */
  park?: ((pending: InputRequired) => void) | undefined
  /** The server's announcements: list changes and resource updates. */
  hooks: Announcements
}

/** `mcpReq` of the SDK v2 context, over the same run. */
class McpReq<Env> {
  readonly #extra: SdkExtra<Env>
  constructor(extra: SdkExtra<Env>) {
    this.#extra = extra
  }
  get id(): RequestId {
    return this.#extra.edge.requestId
  }
  get method(): string {
    return this.#extra.edge.method
  }
  get _meta(): Record<string, unknown> {
    return this.#extra._meta
  }
  get signal(): AbortSignal {
    return this.#extra.signal
  }
  get envelope(): Record<string, unknown> | undefined {
    const reserved = Object.entries(this.#extra._meta ?? {}).filter(([key]) => key.startsWith(RESERVED_META))
    return reserved.length > 0 ? Object.fromEntries(reserved) : undefined
  }
  get inputResponses(): Record<string, unknown> | undefined {
    return this.#extra.run.responses
  }
  // Arrow functions, so that SDK code may destructure them (`const { elicitInput } = ctx.mcpReq`).
  readonly requestState = <T = unknown>(): T | undefined => this.#extra.run.handlerState as T | undefined
  readonly log = async (level: LogLevel, data: unknown, logger?: string): Promise<void> =>
    this.#extra.edge.log(level, data, logger)
  readonly elicitInput = async (params: ElicitParams, options?: unknown): Promise<ElicitResult> =>
    checkedAnswer(params, (await SdkExtra.ask(this.#extra, elicitRequest(params), undefined, options)) as ElicitResult)
  readonly requestSampling = (
    params: Record<string, unknown>,
    options?: unknown,
  ): Promise<CreateMessageResult | CreateMessageResultWithTools> =>
    SdkExtra.ask(this.#extra, { method: 'sampling/createMessage', params }, undefined, options) as Promise<
      CreateMessageResult | CreateMessageResultWithTools
    >
  readonly send: SendRequest = (request: SdkRequest, resultSchema?: unknown, options?: unknown) =>
    this.#extra.sendRequest(request, resultSchema, options)
  readonly notify = (notification: SdkNotification): Promise<void> => this.#extra.sendNotification(notification)
}

/**
 * The SDK-style context of one handler run. Built per call, so what a handler rarely reads (the
 * auth info, the headers, `mcpReq`) is computed when read, and the methods live on the prototype.
 * `edge` holds the Worker's env, secrets included, which a tool that returns
 * `JSON.stringify(extra)` (a debugging tool, as agents' own test server has) would hand its caller:
 * it is never an own field, and `toJSON` gives what the SDKs' object serializes to.
 */
class SdkExtra<Env> implements RequestHandlerExtra<Env> {
  readonly #edge: ToolContext<Env>
  readonly #run: RunState
  readonly #store: RequestStore | undefined
  #mcpReq: McpReq<Env> | undefined

  constructor(ctx: RequestContext<Env>, run: RunState, store: RequestStore | undefined) {
    this.#edge = ctx as ToolContext<Env>
    this.#run = run
    this.#store = store
  }

  get edge(): ToolContext<Env> {
    return this.#edge
  }
  /** The run's answers, question count and announcements (rounds.ts). */
  get run(): RunState {
    return this.#run
  }

  /** What the SDKs' `extra` serializes to: its data fields (its functions, and `edge`, are left out). */
  toJSON(): Record<string, unknown> {
    const { signal, authInfo, sessionId, requestId, _meta, requestInfo, mcpReq, http } = this
    const { id, method, inputResponses } = mcpReq
    return {
      signal,
      authInfo,
      sessionId,
      requestId,
      _meta,
      requestInfo,
      mcpReq: { id, method, _meta, signal, inputResponses },
      http: http && { authInfo: http.authInfo },
    }
  }

  get signal(): AbortSignal {
    return runSignal(this.#run, this.edge.signal)
  }
  get requestId(): RequestId {
    return this.edge.requestId
  }
  get _meta(): Record<string, unknown> {
    return this.edge.meta.raw as Record<string, unknown>
  }
  get authInfo(): AuthInfo | undefined {
    return authInfoOf(this.edge.principal, this.#store)
  }
  get sessionId(): string | undefined {
    return this.#store?.request.headers.get('mcp-session-id') ?? undefined
  }
  get requestInfo(): RequestInfo | undefined {
    const request = this.#store?.request
    return request ? { headers: Object.fromEntries(request.headers), url: new URL(request.url) } : undefined
  }
  get http(): { authInfo?: AuthInfo; req?: Request } | undefined {
    const authInfo = this.authInfo
    if (this.#store) return { authInfo, req: this.#store.request }
    return authInfo ? { authInfo } : undefined
  }
  get mcpReq(): McpReq<Env> {
    this.#mcpReq ??= new McpReq(this)
    return this.#mcpReq
  }

  /**
   * One question of `extra`'s run, answered through the core's rounds (static: code calls methods
   * on the proxy, which has no private fields). While the client has not answered, the question's
   * promise never settles, as an SDK handler's await lasts until the answer comes: a rejection
   * would let code that catches it (a fallback answer) act before the user has answered. The run
   * is then left (`park`), and the handler runs again with the answer.
   */
  static async ask<Env>(extra: SdkExtra<Env>, request: InputRequest, schema?: ResultSchema, options?: unknown): Promise<unknown> {
    if (extra.#store?.stateKeys === false) throw missingStateKeys()
    const run = extra.#run
    if (run.asked === MAX_ROUNDS_PER_CALL) throw tooManyRounds()
    run.asked++
    const key = questionKey(run, request)
    // A question not asked before starts a round; past the cap it is refused before it is sent
    // (once sent, the core asks it whatever the handler throws).
    const state = extra.#edge.state as Record<string, unknown>
    const asked = (state[ASKED] ?? []) as string[]
    state[ASKED] = asked
    if (!asked.includes(key)) {
      if (((state[ROUNDS] as number | undefined) ?? 0) >= MAX_ROUNDS_PER_CALL) throw tooManyRounds()
      asked.push(key)
    }
    const due = dueOf(state, key, timeoutOf(options))
    let answers: Record<string, unknown>
    try {
      answers = await extra.#edge.ask({ [key]: rawSpec(request, due?.at) })
    } catch (error) {
      // A 2025-era client's error answer rejects the question, as the SDKs' request does: with its code and message.
      if (error instanceof ClientAnswerError && error.answer) {
        throw new McpError(error.answer.code, error.answer.message, error.answer.data)
      }
      if (!(error instanceof InputRequired) || !run.park) throw error
      run.park(error)
      return new Promise(() => {})
    }
    // A 2026-07-28 client answers in a retry, which nothing waits for: one past the question's
    // timeout is refused as the SDKs' request times out. A 2025-era call waited until then only.
    if (due) {
      if (Date.now() > due.at && !isLegacyVersion(extra.edge.meta.protocolVersion)) {
        throw new McpError(REQUEST_TIMEOUT, 'Request timed out', { timeout: due.timeout })
      }
      due.met()
    }
    return parseResult(schema, answers[key])
  }

  #sendRequest: RequestHandlerExtra['sendRequest'] | undefined
  #sendNotification: RequestHandlerExtra['sendNotification'] | undefined

  // Bound functions, made when first read, so that SDK code may destructure them
  // (`async (args, { sendNotification }) => …`) and a call that never reads them makes none.
  get sendRequest(): RequestHandlerExtra['sendRequest'] {
    this.#sendRequest ??= ((request: SdkRequest, resultSchema?: ResultSchema, options?: unknown) =>
      this.#request(request, resultSchema, options)) as RequestHandlerExtra['sendRequest']
    return this.#sendRequest
  }

  get sendNotification(): RequestHandlerExtra['sendNotification'] {
    this.#sendNotification ??= (notification) => this.#notify(notification)
    return this.#sendNotification
  }

  // biome-ignore lint/suspicious/noExplicitAny: typed by the SDK's result schema, as in the SDKs
  #request(request: SdkRequest, resultSchema?: ResultSchema, options?: unknown): Promise<any> {
    const { method, params = {} } = request
    const built: InputRequest =
      method === 'elicitation/create' ? elicitRequest(params as unknown as ElicitParams) : ({ method, params } as InputRequest)
    return SdkExtra.ask(this, built, resultSchema, options)
  }

  async #notify(notification: SdkNotification): Promise<void> {
    const params = (notification.params ?? {}) as Record<string, unknown>
    const ctx = this.edge
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
      default:
        // A list change or resource update goes to the server's listeners. Other notifications
        // have no place on a request's stream in mcp-edge: dropped, as a disconnected SDK
        // transport drops them.
        announced(this.run.hooks, notification)
    }
  }
}

/** The fields the SDKs' `extra` (and 2.x `ctx`) has as its own: what a spread copies. */
const OWN_FIELDS: readonly string[] = [
  'signal',
  'authInfo',
  'sessionId',
  'requestId',
  '_meta',
  'requestInfo',
  'sendNotification',
  'sendRequest',
  'mcpReq',
  'http',
]

/** What code assigned or defined on an `extra` (`extra.authInfo = …`), kept beside its getters. */
const assigned = new WeakMap<object, Map<string | symbol, unknown>>()

function assignedOf(target: object): Map<string | symbol, unknown> {
  let own = assigned.get(target)
  if (!own) {
    own = new Map()
    assigned.set(target, own)
  }
  return own
}

/**
 * `extra` as code handles the SDKs' plain object: wrappers pass `{ ...extra, authInfo }` on to the
 * handler they wrap, which then calls `extra.sendNotification`; middleware assigns a field. Here the
 * fields are getters (computed when read), so the proxy reports them as own fields (read when
 * copied, not when described), and keeps what code assigns or defines beside them. `edge` is not
 * among them: it holds the env. It cannot be frozen (its fields are computed).
 */
const SPREADABLE: ProxyHandler<SdkExtra<unknown>> = {
  get(target, key) {
    const own = assigned.get(target)
    return own?.has(key) ? own.get(key) : target[key as keyof SdkExtra<unknown>]
  },
  set(target, key, value, receiver) {
    // On an object made from it (`Object.create(extra)`), the field is that object's own.
    // (the proxy's prototype is its target's; an object made from the proxy has the proxy as its own)
    if (Object.getPrototypeOf(receiver) !== Object.getPrototypeOf(target))
      return Reflect.defineProperty(receiver, key, { value, writable: true, enumerable: true, configurable: true })
    assignedOf(target).set(key, value)
    return true
  },
  defineProperty(target, key, descriptor) {
    // Its fields stay configurable (a proxy may not report a field it does not hold as fixed).
    if (descriptor.configurable === false || descriptor.writable === false) return false
    assignedOf(target).set(key, 'value' in descriptor ? descriptor.value : descriptor.get?.call(target))
    return true
  },
  deleteProperty(target, key) {
    assigned.get(target)?.delete(key)
    return true
  },
  has: (target, key) => assigned.get(target)?.has(key) === true || key in target,
  ownKeys(target) {
    const own = assigned.get(target)
    return own ? [...new Set<string | symbol>([...OWN_FIELDS, ...own.keys()])] : [...OWN_FIELDS]
  },
  getOwnPropertyDescriptor(target, key) {
    const own = assigned.get(target)
    if (own?.has(key)) return { value: own.get(key), enumerable: true, configurable: true, writable: true }
    if (typeof key !== 'string' || !OWN_FIELDS.includes(key)) return undefined
    return { get: () => target[key as keyof SdkExtra<unknown>], enumerable: true, configurable: true }
  },
  preventExtensions: () => false,
}

/**
 * The SDK-style context of one handler run, for the request `store` (undefined: a task's run).
 *
 * @example
 * const extra = createExtra(ctx, run, hostOf(ctx))
 * return handler(args, extra)
 */
export function createExtra<Env>(
  ctx: RequestContext<Env>,
  run: RunState,
  store: RequestStore | undefined,
): RequestHandlerExtra<Env> {
  return new Proxy(new SdkExtra(ctx, run, store), SPREADABLE as ProxyHandler<SdkExtra<Env>>)
}
