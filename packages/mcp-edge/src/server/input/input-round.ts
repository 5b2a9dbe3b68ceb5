/**
 * One round of a multi-round-trip request: the answers the handler can read now (sealed answers
 * from earlier rounds plus this request's `inputResponses`) and the questions it still has.
 * `ask` resolves when every key it names has an answer; otherwise it records the missing ones and
 * throws `InputRequired`, and the runtime answers `input_required` (or, in a task, moves the task
 * to `input_required` until `tasks/update` stores the answers). The handler then runs again from
 * the top with the answers in hand, so it reads like straight-line code across rounds.
 */
import { McpError } from '../../protocol/errors.ts'
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import type { ClientCapabilities } from '../../protocol/types.ts'
import { missingCapabilities, supports } from '../capabilities.ts'
import type { CapabilityPath } from '../capabilities.ts'
import type { InputRequest, InputResponses, InputSpecs } from './input.ts'

/**
 * A 2025-era client answered a question with a JSON-RPC error (or not at all): kept as that
 * question's answer, and thrown by `ask` where the handler asked it, which may catch it (as an SDK
 * handler catches a rejected `elicitInput`); uncaught, the call fails with it (-32603).
 */
export class ClientAnswerError extends McpError {
  /** What the client answered: its code, message and data; undefined when it sent no answer. */
  readonly answer: JsonRpcErrorObject | undefined

  constructor(method: string, answer: JsonRpcErrorObject | undefined) {
    const reason = answer ? `${answer.code} ${answer.message}` : 'no answer'
    super('internalError', `The client answered ${method} with an error (${reason})`)
    this.name = 'ClientAnswerError'
    this.answer = answer
  }
}

/** Thrown by `ask` when answers are missing. Handlers should let it propagate. */
export class InputRequired extends Error {
  constructor() {
    super('Input required from the client')
    this.name = 'InputRequired'
  }
}

/**
 * Read `params.inputResponses`: absent, or an object (mrtr.mdx: malformed input responses get a
 * JSON-RPC error). The values are checked only when a handler reads them; unknown keys are ignored.
 */
export function readInputResponses(value: unknown): Record<string, unknown> {
  if (value === undefined) return {}
  if (!isObject(value)) throw new McpError('invalidParams', 'Invalid params: inputResponses must be an object')
  return value
}

export class InputRound {
  readonly #prior: Record<string, unknown>
  readonly #responses: Record<string, unknown>
  readonly #capabilities: ClientCapabilities
  readonly #method: string
  /** Answers the handler read in this run; they travel to the next round. */
  readonly used: Record<string, unknown> = {}
  /** Questions still open when the handler stopped. */
  pending: Record<string, InputRequest> | undefined
  /**
   * When every open question is due, if each has a `deadline` (InputSpec): the latest of them. A
   * 2025-era call's wait ends then, and every question still open has passed its own. Undefined
   * when any open question has none: the round waits for all of them.
   */
  get deadline(): number | undefined {
    return this.#undated ? undefined : this.#latest
  }
  #latest: number | undefined
  #undated = false

  constructor(
    method: string,
    prior: Record<string, unknown>,
    responses: Record<string, unknown>,
    capabilities: ClientCapabilities,
  ) {
    this.#method = method
    this.#prior = prior
    this.#responses = { ...responses }
    this.#capabilities = capabilities
  }

  /** The answer for `key`: a sealed earlier answer wins over one sent again now. */
  #answer(key: string): { found: boolean; value: unknown } {
    if (Object.hasOwn(this.#prior, key)) return { found: true, value: this.#prior[key] }
    if (Object.hasOwn(this.#responses, key)) return { found: true, value: this.#responses[key] }
    return { found: false, value: undefined }
  }

  async ask<const Specs extends InputSpecs>(specs: Specs): Promise<InputResponses<Specs>> {
    if (this.#method === '') {
      throw new Error('ctx.ask is available on tools/call, prompts/get and resources/read only (mrtr.mdx)')
    }
    const out: Record<string, unknown> = {}
    const missing: Record<string, InputRequest> = {}
    const undeclared: CapabilityPath[] = []
    // Taken into the round's deadline only with the questions, once they are asked (`pending`).
    const deadlines: (number | undefined)[] = []
    for (const [key, spec] of Object.entries(specs)) {
      const { found, value } = this.#answer(key)
      if (found) {
        this.used[key] = value
        // Kept as the answer, so that every later run meets it where it asked (the same replay).
        if (value instanceof ClientAnswerError) throw value
        out[key] = spec.read(value, key)
        continue
      }
      missing[key] = spec.request
      deadlines.push(Number.isFinite(spec.deadline) ? spec.deadline : undefined)
      for (const path of spec.requires) {
        if (!supports(this.#capabilities, path) && !undeclared.includes(path)) undeclared.push(path)
      }
    }
    // mrtr.mdx rule 6: never send an input type the request did not declare; a handler that
    // cannot go on without it gets -32021 (basic/index.mdx).
    if (undeclared.length > 0) throw missingCapabilities(undeclared, 'This request')
    if (Object.keys(missing).length === 0) return out as InputResponses<Specs>
    this.pending = { ...this.pending, ...missing }
    for (const deadline of deadlines) {
      if (deadline === undefined) this.#undated = true
      else this.#latest = Math.max(this.#latest ?? deadline, deadline)
    }
    throw new InputRequired()
  }
}
