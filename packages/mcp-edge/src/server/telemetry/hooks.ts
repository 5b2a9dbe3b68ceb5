/**
 * The observer's hooks (audit, custom metrics): what they are told at a message's start and end,
 * and how they are called. A hook that throws is logged and ignored, never the request's failure.
 */
import type { Implementation } from '../../protocol/types.ts'
import type { Outcome } from './conventions.ts'
import type { Log } from './log.ts'

/** What a hook hears about a message. */
export interface RequestInfo {
  method: string
  /** The tool or prompt name. */
  target: string | undefined
  era: 'modern' | 'legacy'
  protocolVersion: string
  client: Implementation | undefined
  /** The principal's subject. */
  principal: string | null
  /** The trace the message's span is part of, when tracing. */
  traceId: string | undefined
}

export interface RequestEnd extends RequestInfo {
  outcome: Outcome
  durationMs: number
}

/** Audit and custom metrics. Called synchronously; an exception in a hook is logged and ignored. */
export interface McpHooks {
  onRequest?(info: RequestInfo): void
  onRequestEnd?(end: RequestEnd): void
  onToolCall?(info: RequestInfo): void
  onToolCallEnd?(end: RequestEnd): void
}

/** A message begins: `onToolCall` (for `tools/call`), then `onRequest`. */
export function hooksAtStart(log: Log, hooks: McpHooks, info: RequestInfo): void {
  call(
    log,
    () => (info.method === 'tools/call' ? hooks.onToolCall : undefined)?.(info),
    () => hooks.onRequest?.(info),
  )
}

/** A message ended: `onToolCallEnd` (for `tools/call`), then `onRequestEnd`. */
export function hooksAtEnd(log: Log, hooks: McpHooks, end: RequestEnd): void {
  call(
    log,
    () => (end.method === 'tools/call' ? hooks.onToolCallEnd : undefined)?.(end),
    () => hooks.onRequestEnd?.(end),
  )
}

/** Run hooks; one that throws is logged, never the request's failure. */
function call(log: Log, ...hooks: (() => void)[]): void {
  for (const hook of hooks) {
    try {
      hook()
    } catch (error) {
      log.error('hook failed', { error: String(error) })
    }
  }
}
