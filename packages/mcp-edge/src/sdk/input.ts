/**
 * Multi-round-trip input in the SDKs' words, on mcp-edge's sealed rounds. SDK v2 handlers return
 * `inputRequired({ inputRequests })` and read `acceptedContent(ctx.mcpReq.inputResponses, key)`
 * when called again; SDK 1.x handlers `await` `elicitInput` or `sendRequest`. Both become
 * `ctx.ask` of the core (server/input/input-round.ts), which asks a 2026-07-28 client with an
 * `InputRequiredResult` and a sealed `requestState`, and a 2025-era client on the call's stream.
 *
 * Called by the adapter's tool, prompt and resource wrappers (context.ts); builds nothing itself.
 */
import * as z from 'zod/v4/mini'
import { McpError } from '../protocol/errors.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import type { CapabilityPath } from '../server/capabilities.ts'
import type { InputRequest, InputSpec, Root } from '../server/input/input.ts'
import { toJsonSchema } from '../server/schema/schema.ts'
import { isZod } from './schema/schema.ts'
import type { Infer, Schema } from '../server/schema/schema.ts'

/** SDK 2.x `InputRequests`: the questions of a round, by the handler's keys. */
export type InputRequests = Record<string, InputRequest>

/** What an `InputRequiredResult` carries (mrtr.mdx): questions, and optional state of the handler's own. */
export interface InputRequiredResult {
  resultType: 'input_required'
  inputRequests?: InputRequests
  requestState?: string
  _meta?: Record<string, unknown>
}

export interface InputRequiredSpec {
  inputRequests?: Record<string, InputRequest>
  requestState?: string
}

/**
 * One field of a form's requested schema (SDK `PrimitiveSchemaDefinition`): a string, number,
 * integer or boolean, an enum (`enum`, `oneOf`, the older `enumNames`) or a multi-select array.
 */
export type PrimitiveSchemaDefinition = {
  type: 'string' | 'number' | 'integer' | 'boolean' | 'array'
  title?: string
  description?: string
  [keyword: string]: unknown
}

/** The requested schema of a form on the wire: flat properties of primitive types (client/elicitation). */
export interface RequestedSchema {
  type: 'object'
  properties: Record<string, PrimitiveSchemaDefinition | Record<string, unknown>>
  required?: string[]
}

/** Form elicitation parameters as on the wire (SDK `ElicitRequestFormParams`). */
export interface ElicitRequestFormParams {
  mode?: 'form'
  message: string
  requestedSchema: RequestedSchema
  _meta?: Record<string, unknown>
}

/** Form elicitation parameters as handlers give them: `requestedSchema` as JSON Schema or a zod object. */
export interface ElicitFormParams {
  mode?: 'form'
  message: string
  requestedSchema: RequestedSchema | Record<string, unknown> | Schema
  _meta?: Record<string, unknown>
}

export interface ElicitUrlParams {
  mode: 'url'
  message: string
  url: string
  elicitationId?: string
  _meta?: Record<string, unknown>
}

/** The SDKs' URL elicitation parameters, whose `elicitationId` is required (`UrlElicitationRequiredError` carries them). */
export interface ElicitRequestURLParams extends ElicitUrlParams {
  elicitationId: string
}

export type ElicitParams = ElicitFormParams | ElicitUrlParams

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, unknown>
  _meta?: Record<string, unknown>
}

/** The wire form of an elicitation's requested schema (a zod object is converted, `$schema` left out). */
function requestedSchema(schema: ElicitFormParams['requestedSchema']): Record<string, unknown> {
  if (!isZod(schema)) return schema as Record<string, unknown>
  const { $schema: _dropped, ...json } = toJsonSchema(schema, 'input')
  return json
}

/** The embedded request of an elicitation, shaped for the 2026-07-28 wire (mcp-edge shapes it for 2025 clients). */
export function elicitRequest(params: ElicitParams): InputRequest {
  if (params.mode === 'url') {
    const { elicitationId: _id, ...rest } = params
    return { method: 'elicitation/create', params: rest }
  }
  return {
    method: 'elicitation/create',
    params: { ...params, mode: 'form', requestedSchema: requestedSchema(params.requestedSchema) },
  }
}

function inputRequiredResult(spec: InputRequiredSpec): InputRequiredResult {
  if (spec.inputRequests === undefined && spec.requestState === undefined) {
    throw new TypeError('inputRequired() needs inputRequests, requestState or both (mrtr.mdx)')
  }
  return { resultType: 'input_required', ...spec }
}

/**
 * The SDK v2 builder of an input-required result, and of its embedded requests.
 *
 * @example
 * const ok = acceptedContent(ctx.mcpReq.inputResponses, 'confirm')
 * if (ok?.confirm !== true) {
 *   return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Deploy?', requestedSchema: Confirm }) } })
 * }
 */
export const inputRequired = Object.assign(inputRequiredResult, {
  elicit: (params: Omit<ElicitFormParams, 'mode'>): InputRequest => elicitRequest({ ...params, mode: 'form' }),
  elicitUrl: (params: Omit<ElicitUrlParams, 'mode' | 'elicitationId'>): InputRequest => elicitRequest({ ...params, mode: 'url' }),
  createMessage: (params: Record<string, unknown>): InputRequest => ({ method: 'sampling/createMessage', params }),
  listRoots: (): InputRequest => ({ method: 'roots/list', params: {} }),
})

/** True for a handler's `InputRequiredResult` (built by `inputRequired` or by hand). */
export function isInputRequired(value: unknown): value is InputRequiredResult {
  return isObject(value) && value.resultType === 'input_required'
}

/**
 * The accepted content of a form elicitation's answer, or undefined (missing, declined, cancelled,
 * another kind of answer, or, with `schema`, content that does not parse).
 *
 * @example
 * const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', z.object({ confirm: z.boolean() }))
 */
export function acceptedContent<T = Record<string, unknown>>(
  responses: Record<string, unknown> | undefined,
  key: string,
): T | undefined
/** With `schema`: the content as the schema parsed it, typed by it (SDK v2's schema-aware overload). */
export function acceptedContent<S extends Schema>(
  responses: Record<string, unknown> | undefined,
  key: string,
  schema: S,
): Infer<S> | undefined
export function acceptedContent(responses: Record<string, unknown> | undefined, key: string, schema?: Schema): unknown {
  const answer = responses?.[key]
  if (!isObject(answer) || answer.action !== 'accept' || !isObject(answer.content)) return undefined
  if (schema === undefined) return answer.content
  const parsed = z.safeParse(schema, answer.content)
  return parsed.success ? parsed.data : undefined
}

export type InputResponseView =
  | { kind: 'missing' }
  | { kind: 'elicit'; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  | { kind: 'sampling'; result: Record<string, unknown> }
  | { kind: 'roots'; roots: Root[] }

/** One answer as a discriminated view (SDK v2 `inputResponse`). */
export function inputResponse(responses: Record<string, unknown> | undefined, key: string): InputResponseView {
  const answer = responses?.[key]
  if (!isObject(answer)) return { kind: 'missing' }
  if (answer.action === 'accept' || answer.action === 'decline' || answer.action === 'cancel') {
    return isObject(answer.content)
      ? { kind: 'elicit', action: answer.action, content: answer.content }
      : { kind: 'elicit', action: answer.action }
  }
  if (Array.isArray(answer.roots)) return { kind: 'roots', roots: answer.roots as Root[] }
  if (typeof answer.role === 'string' && 'content' in answer) return { kind: 'sampling', result: answer }
  return { kind: 'missing' }
}

/** The client capability an embedded request needs (mrtr.mdx rule 6). */
function requiredCapability(request: InputRequest): CapabilityPath {
  if (request.method === 'sampling/createMessage') return 'sampling'
  if (request.method === 'roots/list') return 'roots'
  return request.params.mode === 'url' ? 'elicitation.url' : 'elicitation.form'
}

const ANSWER_SHAPE: Record<InputRequest['method'], (answer: Record<string, unknown>) => boolean> = {
  // ElicitResult: an action, and content (if any; a null taken as none) an object of the form's fields.
  'elicitation/create': (answer) =>
    (answer.action === 'accept' || answer.action === 'decline' || answer.action === 'cancel') &&
    (answer.content == null || isObject(answer.content)),
  'sampling/createMessage': (answer) => typeof answer.model === 'string' && 'content' in answer,
  'roots/list': (answer) => Array.isArray(answer.roots),
}

/**
 * A core `InputSpec` for a request the SDK code built itself: the answer comes back as the client
 * sent it, checked for its kind's shape only (the SDK leaves validation to the handler, too).
 */
export function rawSpec(request: InputRequest, deadline?: number): InputSpec<Record<string, unknown>> {
  const known = ANSWER_SHAPE[request.method]
  // The handler's doing, not the client's: -32603 naming what can be asked (not -32602, Invalid params).
  if (known === undefined) {
    throw new McpError(
      'internalError',
      `A handler asked the client for ${String(request.method)}, which mcp-edge/sdk does not ask: it asks ` +
        'elicitation/create, sampling/createMessage and roots/list (elicitInput, createMessage, listRoots)',
    )
  }
  return {
    request,
    requires: [requiredCapability(request)],
    deadline,
    read(answer, key) {
      if (!isObject(answer) || !known(answer)) {
        throw new McpError('invalidParams', `Invalid params: inputResponses["${key}"] is not a valid answer to ${request.method}`)
      }
      return answer
    },
  }
}

/**
 * More rounds of questions than this in one call is a handler that cannot be satisfied (one that
 * asks again whatever the answer): `inputRequired` results and awaited questions count together,
 * across the call's requests (`ROUNDS`), and no run asks more questions than this either.
 */
export const MAX_ROUNDS_PER_CALL = 32

/**
 * Sealed between rounds: how many rounds of questions the call has asked, returned or awaited,
 * counted across its requests (a 2025-era client's answer comes in a request of its own, which
 * runs the handler again from its first round); `MAX_ROUNDS_PER_CALL` caps them.
 */
export const ROUNDS = 'sdk:rounds'
/** Sealed between rounds: the keys of the awaited questions the call has asked (`SdkExtra.ask`). */
export const ASKED = 'sdk:asked'
/**
 * Sealed between rounds: when each awaited question asked with a `timeout` is due, by key (ms
 * since the epoch), and 0 once it was answered in time (`SdkExtra.ask`).
 */
export const DUE = 'sdk:due'

/** The `timeout` of a request's options (the SDKs' `RequestOptions`), when it is a positive number of ms. */
export function timeoutOf(options: unknown): number | undefined {
  const timeout = isObject(options) ? options.timeout : undefined
  return typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout) ? timeout : undefined
}

/** The -32603 a call that asked in more than `MAX_ROUNDS_PER_CALL` rounds ends with. */
export function tooManyRounds(): McpError {
  return new McpError(
    'internalError',
    `Internal error: the handler asked for input in more than ${MAX_ROUNDS_PER_CALL} rounds of one call`,
  )
}

/**
 * What an awaited question asks, as a short digest: the form's message and schema, the sampling
 * request's messages, so that a run asking something else (the row it names changed between
 * rounds) asks it anew rather than read the answer given to another question. A URL's address is
 * left out: it often carries a fresh `state` each run. The key is the digest and how many times
 * the run asked the same before (`questionKey`), not its place in the run, which questions asked
 * side by side (`items.map(async …)`) may take in another order each run.
 */
function questionDigest(request: InputRequest): string {
  const { message, requestedSchema, messages, systemPrompt } = request.params as Record<string, unknown>
  const text = JSON.stringify([request.method, message, requestedSchema, messages, systemPrompt])
  // FNV-1a, 32 bits: a change detector inside a sealed state, not a security measure.
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(36)
}

/** `q.<digest>.<n>`: the n-th time this run asks that question. */
export function questionKey(run: { digests?: Map<string, number> | undefined }, request: InputRequest): string {
  const digest = questionDigest(request)
  run.digests ??= new Map()
  const n = (run.digests.get(digest) ?? 0) + 1
  run.digests.set(digest, n)
  return `q.${digest}.${n}`
}

/**
 * The result schemas SDK 1.x code passes to `extra.sendRequest` (checked with zod, as there), typed
 * as the SDK's are, so that code reading the answer (`result.content.text`) compiles as there.
 */
export const ElicitResultSchema = z.looseObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.optional(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))),
})

const sampledContent = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
  z.looseObject({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
])

/** SDK 1.x's: one text, image or audio block, as a sampling request without tools is answered. */
export const CreateMessageResultSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: sampledContent,
  model: z.string(),
  stopReason: z.optional(z.string()),
})

const toolSampledContent = z.union([
  sampledContent,
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.looseObject({ type: z.literal('tool_result'), toolUseId: z.string(), content: z.array(z.unknown()) }),
])

/** A sampling request with `tools` is answered with blocks, tool uses among them (2025-11-25). */
export const CreateMessageResultWithToolsSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([toolSampledContent, z.array(toolSampledContent)]),
  model: z.string(),
  stopReason: z.optional(z.string()),
})

export const ListRootsResultSchema = z.looseObject({
  roots: z.array(z.looseObject({ uri: z.string(), name: z.optional(z.string()) })),
})

/** A client's answer to sampling without tools (`createMessage`), as SDK 1.x types it. */
export type CreateMessageResult = z.output<typeof CreateMessageResultSchema>
/** A client's answer to sampling with tools; SDK 2.x's `requestSampling` gives either. */
export type CreateMessageResultWithTools = z.output<typeof CreateMessageResultWithToolsSchema>
/** A client's roots (`listRoots`). */
export type ListRootsResult = z.output<typeof ListRootsResultSchema>

/** Check an answer with the result schema the SDK code gave (any zod schema, or anything with `parse`). */
export function parseResult(schema: unknown, answer: unknown): unknown {
  if (isZod(schema)) return z.parse(schema, answer)
  if (isObject(schema) && typeof schema.parse === 'function') return (schema.parse as (value: unknown) => unknown)(answer)
  return answer
}

/** The SDKs' `ErrorCode.RequestTimeout`: a question not answered within its `timeout`. */
export const REQUEST_TIMEOUT = -32001

/**
 * When the question `key` is due, if it was asked with a `timeout` and not yet answered in time:
 * set by the run that first asks it, kept in the call's sealed state (`DUE`); `met` marks it
 * answered in time, so that later runs, which replay the answer, keep it.
 */
export function dueOf(state: Record<string, unknown>, key: string, timeout: number | undefined) {
  const due = (state[DUE] ?? {}) as Record<string, [at: number, timeout: number]>
  let entry = due[key]
  if (entry === undefined && timeout !== undefined) {
    entry = [Date.now() + timeout, timeout]
    due[key] = entry
    state[DUE] = due
  }
  if (entry === undefined || entry[0] === 0) return undefined
  const [at, given] = entry
  const met = () => {
    due[key] = [0, given]
  }
  return { at, timeout: given, met }
}
