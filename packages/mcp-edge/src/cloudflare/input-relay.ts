/**
 * The input relay on Durable Objects: one object per exchange (a round of server-to-client
 * requests to a 2025-era client), named by the exchange id that every outgoing request id carries.
 * The call waiting for answers holds an RPC into the object; the client's answer POST, in
 * whichever isolate it lands, is routed to the same object by the id it echoes, and settles that
 * wait. The object is in-memory only (nothing worth persisting: the waiting call itself lives in
 * one isolate), so it writes no storage; if it restarts, the wait fails with -32603
 * (`LOST_EXCHANGE`) and the call ends, and the client's late answer is refused like any answer
 * nobody waits for (-32600, HTTP 400). Unused exchanges expire at their timeout.
 */
import { DurableObject } from 'cloudflare:workers'
import { isMcpError, McpError } from '../protocol/errors.ts'
import type { ErrorKind } from '../protocol/errors.ts'
import { ExchangeBook, LOST_EXCHANGE } from '../server/input/input-relay.ts'
import type { AnswerTaken, AskedTrace, ClientAnswer, InputRelay } from '../server/input/input-relay.ts'

/** The error of a call whose exchange was lost with its relay object (module header). */
export { LOST_EXCHANGE }

export class McpInputRelay extends DurableObject<Record<string, unknown>> {
  readonly #book = new ExchangeBook()

  open(exchangeId: string, principal: string | null, count: number, timeoutMs: number, traces?: readonly AskedTrace[]): void {
    this.#book.open(exchangeId, principal, count, timeoutMs, traces)
  }

  /** The answers, or why there are none: errors lose their kind crossing RPC, so it is returned. */
  async wait(exchangeId: string): Promise<ClientAnswer[] | { kind: ErrorKind; message: string }> {
    try {
      return await this.#book.wait(exchangeId)
    } catch (error) {
      return isMcpError(error)
        ? { kind: error.kind, message: error.message }
        : { kind: 'internalError', message: 'Internal error' }
    }
  }

  answer(exchangeId: string, index: number, principal: string | null, answer: ClientAnswer): AnswerTaken | false {
    return this.#book.answer(exchangeId, index, principal, answer)
  }

  cancel(exchangeId: string): void {
    this.#book.cancel(exchangeId)
  }
}

/**
 * An `InputRelay` over a namespace of `McpInputRelay` objects.
 *
 * @example
 * const relay = durableInputRelay(env.MCP_INPUT_RELAY)
 */
export function durableInputRelay(namespace: DurableObjectNamespace<McpInputRelay>): InputRelay {
  const stub = (exchangeId: string) => namespace.get(namespace.idFromName(exchangeId))
  return {
    async open(principal, count, timeoutMs, traces) {
      const exchangeId = crypto.randomUUID()
      await stub(exchangeId).open(exchangeId, principal, count, timeoutMs, traces)
      return exchangeId
    },
    async wait(exchangeId, signal) {
      const relay = stub(exchangeId)
      const waiting = relay.wait(exchangeId)
      const cancel = () => void relay.cancel(exchangeId).catch(() => {})
      if (signal.aborted) cancel()
      else signal.addEventListener('abort', cancel, { once: true })
      try {
        // The object lost its memory (evicted, restarted, redeployed): the exchange is gone with it.
        const answers = await waiting.catch(() => {
          throw new McpError('internalError', LOST_EXCHANGE)
        })
        if (Array.isArray(answers)) return answers as ClientAnswer[]
        throw new McpError(answers.kind, answers.message)
      } finally {
        signal.removeEventListener('abort', cancel)
      }
    },
    async answer(exchangeId, index, principal, answer) {
      return stub(exchangeId).answer(exchangeId, index, principal, answer)
    },
  }
}
