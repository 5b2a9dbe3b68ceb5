/**
 * A 2025-era call asking its client (`ctx.ask` on the legacy lane), traced across isolates
 * (docs/observability.md, "Asking a 2025-era client"): each server-to-client request is a CLIENT
 * span named by its method (`elicitation/create`), a child of the call's span, from the moment it
 * is sent until the call has every answer. Its context is kept with the exchange in the input
 * relay, so the isolate the client's answer POST reaches (any of them) records a SERVER span
 * `answer {method}` as its child: one trace holds the call, the question and the answer.
 *
 * Neither function throws: telemetry never changes what is asked or answered.
 */
import { isMcpError } from '../../protocol/errors.ts'
import type { AskedTrace, ClientAnswer } from '../input/input-relay.ts'
import { outgoingId } from '../input/input-relay.ts'
import { ATTR, CANCELLED, OTHER } from './conventions.ts'
import type { Log } from './log.ts'
import { formatTraceparent, isSampled, parseTraceparent } from './trace-context.ts'
import type { Telemetry, TelemetrySpan } from './tracer.ts'

const NOOP = () => {}

/** What a call gives `askClient` when it is traced: where its question spans go, and their parent. */
export interface TracedAsk {
  telemetry: Telemetry
  parent: TelemetrySpan
  log: Log
}

export interface AskSpans {
  /** Each request's method and span context, kept with the exchange for the answer's span. */
  readonly traces: AskedTrace[]
  /** The exchange is open: each span gets its request's JSON-RPC id. */
  opened(exchangeId: string): void
  /** The round ended: with every answer, or with why not (`cancelled` when the client went away). */
  end(outcome: { answers: ClientAnswer[] } | { error: unknown; cancelled: boolean }): void
}

function failed(log: Log, error: unknown): void {
  log.error('telemetry failed; the request went on without it', { error: String(error) })
}

/** The spans of one round of questions; `undefined` when the call's trace is not sampled. */
export function startAsk(traced: TracedAsk | undefined, methods: readonly string[]): AskSpans | undefined {
  // The trace's sampled flag, not whether this invocation records: the answer comes in another
  // invocation, which the runtime may trace though this one was not.
  if (!traced || !isSampled(traced.parent.context)) return undefined
  const { telemetry, parent, log } = traced
  try {
    const spans = methods.map((method) =>
      telemetry.startSpan(method, {
        kind: 'client',
        parent: parent.context,
        attributes: { [ATTR.method]: method, [ATTR.era]: 'legacy' },
      }),
    )
    return {
      traces: spans.map((span, index) => ({ method: methods[index] as string, traceparent: formatTraceparent(span.context) })),
      opened(exchangeId) {
        try {
          for (const [index, span] of spans.entries()) span.setAttribute(ATTR.requestId, outgoingId(exchangeId, index))
        } catch (error) {
          failed(log, error)
        }
      },
      end(outcome) {
        try {
          spans.forEach((span, index) => {
            if ('answers' in outcome) {
              // The client's error: its code only (its message is the client's text, not recorded).
              const answer = outcome.answers[index]
              if (answer && 'error' in answer) span.fail(String(answer.error.code))
            } else if (outcome.cancelled) span.fail(CANCELLED)
            else if (isMcpError(outcome.error)) span.fail(String(outcome.error.code), outcome.error.message)
            else span.fail(OTHER)
            span.end()
          })
          telemetry.flush().catch(NOOP)
        } catch (error) {
          failed(log, error)
        }
      },
    }
  } catch (error) {
    failed(log, error)
    return undefined
  }
}

/**
 * The client's answer reached this isolate and was taken: its SERVER span, a child of the
 * question's span (wherever that was). Returns the send to keep alive (`waitUntil`), or nothing
 * when the question was not traced here.
 */
export function traceAnswer(
  telemetry: Telemetry | undefined,
  asked: AskedTrace | undefined,
  answer: { id: string; answer: ClientAnswer; sessionId: string | undefined },
  log: Log,
): Promise<void> | undefined {
  const parent = parseTraceparent(asked?.traceparent)
  if (!telemetry || !asked || !parent) return undefined
  try {
    const span = telemetry.startSpan(`answer ${asked.method}`, {
      kind: 'server',
      parent,
      attributes: { [ATTR.method]: asked.method, [ATTR.requestId]: answer.id, [ATTR.era]: 'legacy' },
    })
    if (answer.sessionId !== undefined) span.setAttribute(ATTR.sessionId, answer.sessionId)
    if ('error' in answer.answer) span.fail(String(answer.answer.error.code))
    span.end()
    const flushing = telemetry.flush()
    flushing.catch(NOOP)
    return flushing
  } catch (error) {
    failed(log, error)
    return undefined
  }
}
