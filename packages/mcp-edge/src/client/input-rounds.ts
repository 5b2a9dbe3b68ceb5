/**
 * The client half of multi-round-trip requests (MRTR, SEP-2322): while a `tools/call`,
 * `prompts/get` or `resources/read` answers `resultType: "input_required"`, fulfil its
 * `inputRequests` and retry the original request (a new id) with `inputResponses` and the echoed
 * `requestState`. A result with state only ("load shedding") is retried at once. Transport-neutral:
 * the caller sends; this decides what the next round carries and when to stop.
 */
import type { JsonObject } from './request.ts'

/** What a retry adds to the original params. */
export interface InputRetry {
  inputResponses?: JsonObject
  requestState?: string
}

export interface InputRoundsOptions {
  /** Give up after this many rounds (default 10): a server that keeps asking is not answered forever. */
  maxRounds?: number
}

/** The server asked again more often than `maxRounds`. */
export class TooManyInputRounds extends Error {
  constructor(readonly rounds: number) {
    super(`The server still asked for input after ${rounds} rounds`)
    this.name = 'TooManyInputRounds'
  }
}

/**
 * Run `send` until its result is not `input_required`. `answer` gets each round's `inputRequests`
 * (keyed by the server) and returns the responses under the same keys (`ElicitResult`,
 * `CreateMessageResult` or `ListRootsResult`). Rounds count from 0.
 *
 * @example
 * const result = await resolveInput(
 *   (retry) => client.request('tools/call', { name: 'delete_record', arguments: { id: 'r1' }, ...retry }),
 *   async (requests) => ({ confirm: { action: 'accept', content: { confirm: true } } }),
 * )
 */
export async function resolveInput(
  send: (retry: InputRetry, round: number) => Promise<JsonObject>,
  answer: (inputRequests: JsonObject, round: number) => Promise<JsonObject>,
  options: InputRoundsOptions = {},
): Promise<JsonObject> {
  const maxRounds = options.maxRounds ?? 10
  let retry: InputRetry = {}
  for (let round = 0; round < maxRounds; round++) {
    const result = await send(retry, round)
    if (result.resultType !== 'input_required') return result
    const requests = result.inputRequests as JsonObject | undefined
    const state = typeof result.requestState === 'string' ? result.requestState : undefined
    // "Clients MUST echo requestState exactly, or omit it if none was given."
    retry = state === undefined ? {} : { requestState: state }
    if (requests && Object.keys(requests).length > 0) retry.inputResponses = await answer(requests, round)
  }
  throw new TooManyInputRounds(maxRounds)
}
