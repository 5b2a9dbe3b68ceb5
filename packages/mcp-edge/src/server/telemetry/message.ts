/**
 * One MCP message as the observer sees it: where it came from (the HTTP lane's `MessageScope`),
 * what it is (method and target, `_OTHER` where the client named something the server does not
 * have), and its partial-result counters at the end. Shared by the observer's parts (observe.ts,
 * request-span.ts, request-line.ts).
 */
import type { RequestMeta } from '../../protocol/types.ts'
import { OTHER, targetOf } from './conventions.ts'
import type { SpanContext } from './trace-context.ts'

/** Where a message came from, as the HTTP lane knows it. */
export interface MessageScope {
  era: 'modern' | 'legacy'
  /** A 2025 session's public identity (never the sealed id). */
  sessionId?: string | undefined
  /** The HTTP request's own `traceparent` header. */
  transport?: SpanContext | undefined
  principal: string | null
  /** The host's `waitUntil`: exporting happens after the response, within it. */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined
}

/** A call's partial results so far (the outbox's counters). */
export interface PartialStats {
  /** Chunks the handler emitted. */
  emitted: number
  /** Their size (text and data characters of their content, JSON of the rest). */
  emittedBytes: number
  /** The longest time between two of them, in ms. */
  maxGapMs: number
  /** Chunks dropped unsent for a slow reader (each leaves a gap in the seq the client sees). */
  dropped: number
}

/** What the observer keeps of a message from its start to its end. */
export interface ObservedMessage {
  scope: MessageScope
  /** The method, or `_OTHER`. */
  method: string
  /** The tool or prompt, `_OTHER`, or none. */
  target: string | undefined
  meta: RequestMeta
}

/** The message's method and target, each `_OTHER` where the server does not have it (a client chooses them). */
export function observedMessage(
  scope: MessageScope,
  given: string,
  params: Record<string, unknown>,
  meta: RequestMeta,
  known: (method: string, name?: string) => boolean,
): ObservedMessage {
  const method = known(given) ? given : OTHER
  const named = targetOf(method, params)
  const target = named === undefined || known(method, named) ? named : OTHER
  return { scope, method, target, meta }
}
