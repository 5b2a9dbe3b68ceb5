/**
 * A task's run in its Durable Object, observed: a CONSUMER span `task.run {tool}` linked to the
 * span of the `tools/call` that created the task (its context is stored with the task, so the
 * link holds across restarts and in every later run), a child span `task.step {name}` for each
 * step the run executes (replayed steps are not run, so they have none; each is sent when it
 * ends), and one log line per run. Names and attributes: docs/observability.md ("Tasks").
 */
import { ATTR } from './conventions.ts'
import { errorFields } from './log.ts'
import type { Log } from './log.ts'
import type { ObserverCache } from './setup.ts'
import { parseTraceparent } from './trace-context.ts'
import type { Telemetry } from './tracer.ts'

export interface RunInfo {
  taskId: string
  tool: string
  /** 1 for the task's first run. */
  run: number
  /** The creating `tools/call` span's context, as a W3C traceparent. */
  traceparent?: string | undefined
}

/** The task's status when the run ended (`working`: it continues in the next alarm), or `error` for a run that broke. */
export type RunStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' | 'error'

/** Neither method nor what `step` returns ever throws: telemetry never changes how a task runs. */
export interface ObservedRun {
  /** A step starts running; call what this returns when it ends, with what it threw, if anything. */
  step(name: string, index: number): (thrown?: unknown) => void
  end(status: RunStatus, error?: { code: number; message: string } | undefined, partial?: RunPartials): void
}

/** The partial results a run logged: how many, and their stored JSON's size. */
export interface RunPartials {
  chunks: number
  bytes: number
}

const NOOP = () => {}
/** What a step throws to end the run early, not as a failure: a pause, or a request for input. */
const CONTROL_FLOW = new Set(['TaskSuspended', 'InputRequired'])

/**
 * A task's run in its Durable Object, as the server's telemetry observes it for `env`: its span,
 * its steps' spans and its log line; `undefined` when nothing observes, or when setting that up
 * failed (logged: telemetry never stops a task).
 */
export function observeTaskRun(observers: ObserverCache, env: unknown, info: RunInfo): ObservedRun | undefined {
  try {
    return observeRun(observers.telemetry(env), observers.runLog, info)
  } catch (error) {
    observers.log.error('telemetry failed; the task ran without it', errorFields(error))
    return undefined
  }
}

/** `undefined` when there is neither a tracer nor a log to tell. */
function observeRun(telemetry: Telemetry | undefined, log: Log | undefined, info: RunInfo): ObservedRun | undefined {
  if (!telemetry && !log) return undefined
  const started = Date.now()
  const creator = parseTraceparent(info.traceparent)
  const span = telemetry?.startSpan(`task.run ${info.tool}`, {
    kind: 'consumer',
    links: creator ? [{ context: creator, attributes: { [ATTR.linkKind]: 'created_by' } }] : undefined,
    attributes: {
      [ATTR.operationName]: 'execute_tool',
      [ATTR.toolName]: info.tool,
      [ATTR.taskId]: info.taskId,
      [ATTR.taskRun]: info.run,
    },
  })
  const observed: ObservedRun = {
    step(name, index) {
      if (!telemetry || !span?.recording) return NOOP
      const step = telemetry.startSpan(`task.step ${name}`, {
        kind: 'internal',
        parent: span.context,
        attributes: { [ATTR.taskId]: info.taskId, [ATTR.taskStep]: index },
      })
      return (thrown) => {
        const name = thrown instanceof Error ? thrown.name : thrown === undefined ? undefined : typeof thrown
        if (name !== undefined && !CONTROL_FLOW.has(name)) step.fail(name)
        step.end()
        // Sent now rather than at the run's end: a step can be long, and a run can be lost.
        telemetry.flush().catch(NOOP)
      }
    },
    end(status, error, partial) {
      const chunks = partial && partial.chunks > 0 ? partial : undefined
      if (telemetry && span) {
        span.setAttribute(ATTR.taskStatus, status)
        if (chunks) {
          span.setAttribute(ATTR.partialChunks, chunks.chunks)
          span.setAttribute(ATTR.partialBytes, chunks.bytes)
        }
        if (error) span.fail(String(error.code), error.message)
        else if (status === 'error') span.fail('_OTHER')
        span.end()
        telemetry.flush().catch(NOOP)
      }
      log?.[status === 'failed' || status === 'error' ? 'warn' : 'info']('task run', {
        trace_id: span?.context.traceId,
        span_id: span?.context.spanId,
        task_id: info.taskId,
        tool: info.tool,
        run: info.run,
        status,
        error_code: error?.code,
        duration_ms: Date.now() - started,
        chunks: chunks?.chunks,
        chunk_bytes: chunks?.bytes,
      })
    },
  }
  // Guarded: a failure in telemetry (a user's exporter, the runtime's tracing) is logged once.
  let warned = false
  const guard =
    <A extends unknown[], R>(fn: (...args: A) => R, fallback: R) =>
    (...args: A): R => {
      try {
        return fn(...args)
      } catch (error) {
        if (!warned) {
          warned = true
          log?.error('telemetry failed; the task ran on without it', { task_id: info.taskId, error: String(error) })
        }
        return fallback
      }
    }
  return {
    step: guard((name: string, index: number) => guard(observed.step(name, index), undefined), NOOP),
    end: guard(observed.end, undefined),
  }
}
