/**
 * Where a 2025-era client's answers meet the call that asked. A handler's `ctx.ask` on the legacy
 * lane becomes real server-to-client requests (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`) on the call's SSE stream; the client answers each with a separate POST, which may
 * reach any isolate. Every round of questions is an exchange with a random id, carried in the
 * outgoing JSON-RPC ids (`<exchangeId>.<index>`), so the answer POST can find its owner: an
 * `InputRelay` (on Cloudflare a Durable Object named by the exchange id; `memoryInputRelay` for
 * one isolate). The book below is the bookkeeping both share: an answer is taken once, only from
 * the principal that was asked, only while the exchange waits; anything else changes nothing.
 */
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'

/** What the client sent back for one request: its `result`, or its `error`. */
export type ClientAnswer = { result: unknown } | { error: JsonRpcErrorObject }

/** A traced request's method and span context, kept with its exchange for the answer's span. */
export interface AskedTrace {
  method: string
  traceparent: string
}

/** An answer was taken: with its request's trace, when the asking call was traced. */
export interface AnswerTaken {
  asked?: AskedTrace | undefined
}

export interface InputRelay {
  /**
   * Start an exchange of `count` requests for `principal`; answers are taken until `timeoutMs`.
   * `traces`, per request, come back with its answer (telemetry/input.ts).
   */
  open(principal: string | null, count: number, timeoutMs: number, traces?: readonly AskedTrace[]): Promise<string>
  /** All answers, in request order; rejects with -32001 at the timeout, or when `signal` aborts. */
  wait(exchangeId: string, signal: AbortSignal): Promise<ClientAnswer[]>
  /**
   * Take one answer; `false` for an unknown, expired, already answered or foreign request. With
   * the asked request's trace when there is one (`true` is taken, without a trace).
   */
  answer(exchangeId: string, index: number, principal: string | null, answer: ClientAnswer): Promise<AnswerTaken | boolean>
}

/** `<exchangeId>.<index>`: the id of an outgoing request. */
export function outgoingId(exchangeId: string, index: number): string {
  return `${exchangeId}.${index}`
}

const OUTGOING_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(\d{1,4})$/

/** The exchange and index an answer's id names, or `undefined` when it is not one of ours. */
export function parseOutgoingId(id: unknown): { exchangeId: string; index: number } | undefined {
  const match = typeof id === 'string' ? OUTGOING_ID.exec(id) : null
  return match ? { exchangeId: match[1] as string, index: Number(match[2]) } : undefined
}

interface Exchange {
  principal: string | null
  traces: readonly AskedTrace[] | undefined
  answers: (ClientAnswer | undefined)[]
  missing: number
  timer: ReturnType<typeof setTimeout>
  settle?: { resolve: (answers: ClientAnswer[]) => void; reject: (error: unknown) => void }
  failure?: McpError
}

/** The message of a wait for an exchange its relay no longer knows (it lost its memory: evicted, restarted). */
export const LOST_EXCHANGE = 'Internal error: the request to the client was lost (the input relay restarted); call again'
/** How long an exchange that failed before anyone waited keeps its failure for the wait. */
const FAILED_KEEP_MS = 60_000

function timedOut(): McpError {
  return new McpError('inputTimeout', "Request timed out waiting for the client's answer to the server's request")
}

/** The pending exchanges of one owner (an isolate, or one Durable Object). */
export class ExchangeBook {
  readonly #exchanges = new Map<string, Exchange>()

  open(exchangeId: string, principal: string | null, count: number, timeoutMs: number, traces?: readonly AskedTrace[]): void {
    const exchange: Exchange = {
      principal,
      traces,
      answers: new Array(count).fill(undefined),
      missing: count,
      timer: setTimeout(() => this.#fail(exchangeId, timedOut()), timeoutMs),
    }
    this.#exchanges.set(exchangeId, exchange)
  }

  wait(exchangeId: string): Promise<ClientAnswer[]> {
    const exchange = this.#exchanges.get(exchangeId)
    // Every exchange opened here is known until its wait (a failed one keeps its failure): an unknown one was lost.
    if (!exchange) return Promise.reject(new McpError('internalError', LOST_EXCHANGE))
    if (exchange.failure) {
      this.#close(exchangeId, exchange)
      return Promise.reject(exchange.failure)
    }
    if (exchange.missing === 0) return Promise.resolve(this.#close(exchangeId, exchange))
    return new Promise((resolve, reject) => {
      exchange.settle = { resolve, reject }
    })
  }

  answer(exchangeId: string, index: number, principal: string | null, answer: ClientAnswer): AnswerTaken | false {
    const exchange = this.#exchanges.get(exchangeId)
    if (!exchange || exchange.failure || exchange.principal !== principal || !Number.isInteger(index)) return false
    if (index < 0 || index >= exchange.answers.length || exchange.answers[index] !== undefined) return false
    exchange.answers[index] = answer
    exchange.missing--
    if (exchange.missing === 0 && exchange.settle) exchange.settle.resolve(this.#close(exchangeId, exchange))
    return { asked: exchange.traces?.[index] }
  }

  /** The asking call went away: later answers are refused. */
  cancel(exchangeId: string): void {
    this.#fail(exchangeId, new McpError('internalError', 'The request was cancelled'))
  }

  #fail(exchangeId: string, error: McpError): void {
    const exchange = this.#exchanges.get(exchangeId)
    if (!exchange || exchange.failure) return
    if (exchange.settle) {
      this.#close(exchangeId, exchange)
      exchange.settle.reject(error)
      return
    }
    // Nobody waits yet (it failed between open and wait): the wait gets this failure, not "lost".
    clearTimeout(exchange.timer)
    exchange.failure = error
    exchange.timer = setTimeout(() => this.#exchanges.delete(exchangeId), FAILED_KEEP_MS)
  }

  #close(exchangeId: string, exchange: Exchange): ClientAnswer[] {
    clearTimeout(exchange.timer)
    this.#exchanges.delete(exchangeId)
    return exchange.answers as ClientAnswer[]
  }
}

/**
 * A relay inside one isolate: right for a single-isolate deployment and for tests; on Cloudflare
 * use the Durable Object relay, since the answer may reach another isolate.
 *
 * @example
 * const relay = memoryInputRelay()
 */
export function memoryInputRelay(): InputRelay {
  const book = new ExchangeBook()
  return {
    async open(principal, count, timeoutMs, traces) {
      const exchangeId = crypto.randomUUID()
      book.open(exchangeId, principal, count, timeoutMs, traces)
      return exchangeId
    },
    wait(exchangeId, signal) {
      const waiting = book.wait(exchangeId)
      if (signal.aborted) book.cancel(exchangeId)
      else signal.addEventListener('abort', () => book.cancel(exchangeId), { once: true })
      return waiting
    },
    async answer(exchangeId, index, principal, answer) {
      return book.answer(exchangeId, index, principal, answer)
    },
  }
}

/** Read a client's JSON-RPC response into a `ClientAnswer`. */
export function toClientAnswer(response: Record<string, unknown>): ClientAnswer {
  if ('error' in response && isObject(response.error)) return { error: response.error as unknown as JsonRpcErrorObject }
  return { result: response.result }
}
