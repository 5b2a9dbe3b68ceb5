/**
 * `ctx.ask` for a 2025-era client: the questions of one round go out as real server-to-client
 * requests on the call's own SSE stream (2025 streamable-http: the server MAY send requests on the
 * stream before the response), shaped for the negotiated revision; the call waits for the
 * client's answers through the input relay, then the handler runs again with them (the same
 * replay as a multi-round-trip retry). An answer that is a JSON-RPC error is that question's
 * answer, thrown where the handler asked (`ClientAnswerError`): caught, the handler goes on;
 * uncaught, the call fails with it (-32603).
 */
import type { LegacyVersion } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { shapeLegacyInputRequest } from '../../protocol/legacy.ts'
import type { InputRequest } from '../input/input.ts'
import { ClientAnswerError } from '../input/input-round.ts'
import { outgoingId } from '../input/input-relay.ts'
import type { ClientAnswer, InputRelay } from '../input/input-relay.ts'
import type { Outbox } from '../outbox.ts'
import { startAsk } from '../telemetry/input.ts'
import type { TracedAsk } from '../telemetry/input.ts'

/** How long a call waits for the client's answers by default (5 minutes). */
export const DEFAULT_INPUT_TIMEOUT_MS = 5 * 60 * 1000

export interface LegacyAskOptions {
  relay: InputRelay
  outbox: Outbox
  version: LegacyVersion
  principal: string | null
  timeoutMs: number
  /** Aborts when the call's stream closes; read only when the handler really asks. */
  cancel: { readonly signal: AbortSignal }
}

/**
 * Answers for every key of one round, from the client; `traced`: the call's span, when traced;
 * `deadline`: when the round's answers are due (`InputRound.deadline`), waited for at most the
 * call's own bound.
 */
export type AskClient = (
  requests: Record<string, InputRequest>,
  traced?: TracedAsk,
  deadline?: number,
) => Promise<Record<string, unknown>>

/** What a question whose `deadline` passed is answered with: the SDKs' request timeout. */
const TIMED_OUT: ClientAnswer = { error: { code: -32001, message: 'Request timed out' } }

/**
 * @example
 * const ask = createLegacyAsk({ relay, outbox, version: '2025-11-25', principal: null, timeoutMs, cancel })
 * const answers = await ask({ confirm: { method: 'elicitation/create', params } })
 */
export function createLegacyAsk(options: LegacyAskOptions): AskClient {
  return async (requests, traced, deadline) => {
    const { relay, outbox, version } = options
    const keys = Object.keys(requests)
    const spans = startAsk(
      traced,
      keys.map((key) => (requests[key] as InputRequest).method),
    )
    // A round whose questions are all due waits until then (or the call's bound, if sooner): what is
    // still open is answered with a timeout, and the client told to drop it.
    const timeoutMs = deadline === undefined ? options.timeoutMs : Math.min(options.timeoutMs, Math.max(0, deadline - Date.now()))
    let answers: ClientAnswer[]
    let exchangeId: string | undefined
    try {
      const opened = await relay.open(options.principal, keys.length, timeoutMs, spans?.traces)
      exchangeId = opened
      spans?.opened(opened)
      const waiting = relay.wait(opened, options.cancel.signal)
      keys.forEach((key, index) => {
        const { method, params } = requests[key] as InputRequest
        const id = outgoingId(opened, index)
        outbox.push({ jsonrpc: '2.0', id, method, params: shapeLegacyInputRequest(version, method, params, id) })
      })
      answers = await waiting
    } catch (error) {
      spans?.end({ error, cancelled: options.cancel.signal.aborted })
      if (exchangeId === undefined || !isTimeout(error)) throw error
      // The questions are given up: the client is told to drop them (its late answers would be refused).
      const asked = exchangeId
      keys.forEach((_key, index) => {
        const requestId = outgoingId(asked, index)
        outbox.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'Request timed out' } })
      })
      if (deadline === undefined) throw error
      return timedOut(requests)
    }
    spans?.end({ answers })
    return answered(requests, answers)
  }
}

/** Each question of a round whose deadline passed, answered with the SDKs' request timeout. */
const timedOut = (requests: Record<string, InputRequest>) =>
  answered(
    requests,
    Object.keys(requests).map(() => TIMED_OUT),
  )

const isTimeout = (error: unknown) => error instanceof McpError && error.kind === 'inputTimeout'

/** The round's answers by key: a result, or the error the client (or its deadline) gave, thrown where it was asked. */
function answered(
  requests: Record<string, InputRequest>,
  answers: readonly (ClientAnswer | undefined)[],
): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(requests).map((key, index) => {
      const answer = answers[index]
      if (answer !== undefined && !('error' in answer)) return [key, answer.result]
      return [key, new ClientAnswerError((requests[key] as InputRequest).method, answer?.error)]
    }),
  )
}
