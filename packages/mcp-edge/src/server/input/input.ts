/**
 * Multi-round-trip input (MRTR, mrtr.mdx): builders for the three embedded input requests
 * (elicitation in form or URL mode, sampling, roots) and typed readers of the client's answers.
 * A builder returns an `InputSpec`: the wire request, the client capability it needs, and a
 * reader that checks the answer (form content with the same zod schema that built the form).
 *
 * The handler-facing `ctx.ask` lives in `input-round.ts`; this module is pure description.
 */
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import type { ContentBlock } from '../../protocol/types.ts'
import { parseWith, toJsonSchema } from '../schema/schema.ts'
import type { Infer, JsonSchema, ObjectSchema } from '../schema/schema.ts'
import type { CapabilityPath } from '../capabilities.ts'
import { Attached } from '../attached.ts'

/** An input request as it appears in `inputRequests` (no `jsonrpc`, no `id`). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list'
  params: Record<string, unknown>
}

export interface InputSpec<T> {
  readonly request: InputRequest
  /** Client capabilities this request needs (mrtr.mdx rule 6: only what this request declared). */
  readonly requires: readonly CapabilityPath[]
  /** Check an answer; throws -32602 when it is malformed. */
  read(answer: unknown, key: string): T
  /**
   * When the client's answer is due (ms since the epoch; mcp-edge/sdk: a question's `timeout`). A
   * 2025-era call waits for a round of questions until the latest of their deadlines when each has
   * one (`InputRound.deadline`), at most its own bound: what is still open is then answered with a
   * timeout error (-32001, as the SDKs' request times out), thrown where the handler asked.
   */
  readonly deadline?: number | undefined
}

export type InputSpecs = Record<string, InputSpec<unknown>>
export type InputResponses<Specs extends InputSpecs> = {
  [K in keyof Specs]: Specs[K] extends InputSpec<infer T> ? T : never
}

/** Answer to an elicitation: the content only when the user accepted a form. */
export type ElicitResponse<T> = { action: 'accept'; content: T } | { action: 'decline' } | { action: 'cancel' }

export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: ContentBlock | ContentBlock[] | Record<string, unknown>
}

export interface SamplingRequest {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  temperature?: number
  stopSequences?: string[]
  modelPreferences?: Record<string, unknown>
  metadata?: Record<string, unknown>
  /** Tool-enabled sampling needs `sampling.tools` from the client. */
  tools?: Record<string, unknown>[]
  toolChoice?: Record<string, unknown>
}

export interface SamplingResponse {
  role: 'user' | 'assistant'
  content: unknown
  model: string
  stopReason?: string
}

export interface Root {
  uri: string
  name?: string
}

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel'])
// On the schema (attached.ts): a handler that asks often makes its form's schema per call.
const formSchemas = new Attached<JsonSchema>('mcp-edge.formSchema')

function malformed(key: string, why: string): McpError {
  return new McpError('invalidParams', `Invalid params: inputResponses["${key}"] ${why}`)
}

/** The requested schema of a form: flat, primitive properties only (client/elicitation). */
function formSchema(schema: ObjectSchema): JsonSchema {
  const cached = formSchemas.get(schema)
  if (cached) return cached
  const { $schema: _ignored, ...json } = toJsonSchema(schema, 'input')
  for (const [name, property] of Object.entries((json.properties ?? {}) as Record<string, JsonSchema>)) {
    const type = property.type
    const primitive = type === 'string' || type === 'number' || type === 'integer' || type === 'boolean'
    const multiSelect = type === 'array' && isObject(property.items)
    if (!primitive && !multiSelect && !Array.isArray(property.oneOf)) {
      throw new Error(`Elicitation form property "${name}" must be a string, number, integer, boolean or enum`)
    }
  }
  formSchemas.set(schema, json)
  return json
}

function readElicitation(answer: unknown, key: string): { action: string; content?: unknown } {
  if (!isObject(answer) || typeof answer.action !== 'string' || !ELICIT_ACTIONS.has(answer.action)) {
    throw malformed(key, 'must be an ElicitResult with action accept, decline or cancel')
  }
  return answer as { action: string; content?: unknown }
}

/**
 * Builders for `ctx.ask`.
 *
 * @example
 * const { confirm } = await ctx.ask({
 *   confirm: input.form('Delete the file?', z.object({ ok: z.boolean() })),
 * })
 * if (confirm.action !== 'accept' || !confirm.content.ok) return { content: [...], isError: true }
 */
export const input = {
  /** A form elicitation built from a flat zod object; the answer is parsed with the same schema. */
  form<S extends ObjectSchema>(message: string, schema: S): InputSpec<ElicitResponse<Infer<S>>> {
    return {
      request: { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: formSchema(schema) } },
      requires: ['elicitation.form'],
      read(answer, key) {
        const result = readElicitation(answer, key)
        if (result.action !== 'accept') return { action: result.action } as ElicitResponse<Infer<S>>
        const parsed = parseWith(schema, result.content ?? {})
        if (!parsed.ok) throw malformed(key, `does not match the requested schema: ${parsed.message}`)
        return { action: 'accept', content: parsed.value }
      },
    }
  },

  /** A URL elicitation: `accept` only means the user agreed to open the page. */
  url(message: string, url: string): InputSpec<{ action: 'accept' | 'decline' | 'cancel' }> {
    return {
      request: { method: 'elicitation/create', params: { mode: 'url', message, url } },
      requires: ['elicitation.url'],
      read(answer, key) {
        return { action: readElicitation(answer, key).action as 'accept' | 'decline' | 'cancel' }
      },
    }
  },

  /** `sampling/createMessage` (deprecated by SEP-2577, still valid when declared). */
  sampling(request: SamplingRequest): InputSpec<SamplingResponse> {
    const withTools = request.tools !== undefined || request.toolChoice !== undefined
    return {
      request: { method: 'sampling/createMessage', params: { ...request } },
      requires: withTools ? ['sampling', 'sampling.tools'] : ['sampling'],
      read(answer, key) {
        if (!isObject(answer) || typeof answer.model !== 'string' || !('content' in answer)) {
          throw malformed(key, 'must be a CreateMessageResult with role, content and model')
        }
        if (answer.role !== 'user' && answer.role !== 'assistant') throw malformed(key, 'has an invalid role')
        return answer as unknown as SamplingResponse
      },
    }
  },

  /** `roots/list` (deprecated by SEP-2577, still valid when declared). */
  roots(): InputSpec<Root[]> {
    return {
      request: { method: 'roots/list', params: {} },
      requires: ['roots'],
      read(answer, key) {
        if (!isObject(answer) || !Array.isArray(answer.roots)) throw malformed(key, 'must be a ListRootsResult')
        for (const root of answer.roots) {
          if (!isObject(root) || typeof root.uri !== 'string') throw malformed(key, 'has a root without a uri')
        }
        return answer.roots as Root[]
      },
    }
  },
}
