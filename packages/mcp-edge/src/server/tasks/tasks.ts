/**
 * The Tasks extension (SEP-2663) as the server layer sees it: `createTask` for `tools/call`, and
 * `runTaskCall`, which runs a stored call with the same handler
 * context as a direct call. Inside a task, `ctx.ask` suspends until `tasks/update` answers, and
 * `ctx.partial` appends to the task's log instead of a stream.
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import { isMcpError, McpError } from '../../protocol/errors.ts'
import type { CallToolResult, RequestMeta } from '../../protocol/types.ts'
import { supports } from '../capabilities.ts'
import type { Call } from '../dispatch.ts'
import { ToolError, toErrorObject } from '../errors.ts'
import type { InputRequest } from '../input/input.ts'
import { InputRound } from '../input/input-round.ts'
import type { ToolEntry } from '../tool-entry.ts'
import { RequestScope } from '../scope.ts'
import { formatTraceparent } from '../telemetry/trace-context.ts'
import type { ServerCore } from '../dispatch.ts'
import type { TaskReplay } from './replay.ts'
import { finishResult, toolError } from '../tool-result.ts'
import { subjectOf } from '../principal.ts'
import { spillingPartials, spillResult } from '../results/spill.ts'

export type {
  DetailedTask,
  NonceLedger,
  PartialLogPage,
  PartialLogQuery,
  Task,
  TaskBackend,
  TaskCall,
  TaskStatus,
  TaskWatch,
} from './types.ts'
export { isTerminal } from './types.ts'
import type { TaskBackend, TaskCall } from './types.ts'

/** `tools/call` → `CreateTaskResult` (resultType `task`), after the task is durably created. */
export async function createTask(call: Call, tool: ToolEntry, args: unknown, prepared: unknown): Promise<object> {
  const { meta, options } = call
  const backend = options.tasks as TaskBackend
  const stored: TaskCall = {
    tool: tool.name,
    arguments: args,
    prepared,
    protocolVersion: meta.protocolVersion,
    clientCapabilities: meta.clientCapabilities,
    ttlMs: tool.task.ttlMs,
    pollIntervalMs: tool.task.pollIntervalMs,
    partialLog: supports(meta.clientCapabilities, 'partialResults'),
  }
  if (meta.clientInfo) stored.clientInfo = meta.clientInfo
  if (options.principal) stored.principal = options.principal
  if (meta.partialResultToken !== undefined) stored.partialResultToken = meta.partialResultToken
  if (call.span) stored.traceparent = formatTraceparent(call.span.context)
  const task = await backend.create(stored)
  return { ...task, resultType: 'task' }
}

/** How one run of a stored call ended. */
export type RunEnd =
  | { kind: 'completed'; result: object }
  | { kind: 'failed'; error: JsonRpcErrorObject; statusMessage: string }
  /** The handler asked for input that is not stored yet: the task waits for `tasks/update`. */
  | { kind: 'input'; requests: Record<string, InputRequest> }
  /** Paused between steps, to continue in the next alarm. */
  | { kind: 'yield' }
  /** The task stopped meanwhile (cancelled, expired, deleted): the run's end does not count. */
  | { kind: 'stopped' }

export interface TaskHost {
  taskId: string
  /** Aborts when the task is cancelled or expires, and when the run ends. */
  signal: AbortSignal
  /** Every answer stored so far, by input key. */
  answers: Record<string, unknown>
  /** Steps and the partial-result log of this run. */
  replay: TaskReplay
}

function taskMeta(call: TaskCall): RequestMeta {
  const meta: RequestMeta = {
    protocolVersion: call.protocolVersion,
    clientCapabilities: call.clientCapabilities,
    raw: {},
  }
  if (call.clientInfo) meta.clientInfo = call.clientInfo
  if (call.partialResultToken !== undefined) meta.partialResultToken = call.partialResultToken
  return meta
}

/**
 * Run a stored call once, from the top, over the stored answers and steps (the replay model).
 * Tool failures are `completed` with `isError` (SEP-2663: `failed` is only for protocol errors);
 * protocol errors and crashes are `failed`; a question without a stored answer ends the run
 * with the open questions, as a multi-round-trip request would.
 */
export async function runTaskCall<Env>(server: ServerCore<Env>, call: TaskCall, env: Env, host: TaskHost): Promise<RunEnd> {
  const tool = server.tools.get(call.tool) as ToolEntry<unknown> | undefined
  if (!tool) {
    const message = `The tool "${call.tool}" of this task no longer exists`
    return failed(new McpError('invalidParams', message).toJSON(), message)
  }
  const meta = taskMeta(call)
  const input = new InputRound('tools/call', host.answers, {}, meta.clientCapabilities)
  const assembled = tool.assemble ? [] : undefined
  host.replay.assembled = assembled
  const scope = new RequestScope<unknown>({
    requestId: host.taskId,
    method: 'tools/call',
    meta,
    env,
    principal: call.principal,
    cancel: { signal: host.signal },
    input,
    state: {},
    round: 1,
    task: { id: host.taskId },
    steps: host.replay,
    ...(call.partialLog
      ? { partials: spillingPartials(host.replay.partials, server.results, tool.maxResultBytes, subjectOf(call.principal)) }
      : {}),
  })
  scope.prepared = call.prepared
  scope.assembled = assembled
  let result: CallToolResult | undefined
  let thrown: unknown
  try {
    result = await tool.handler(call.arguments as never, scope)
  } catch (error) {
    thrown = error
  }
  // What stopped the run wins over whatever the handler did with the error it got.
  const stop = host.replay.stop
  if (stop?.reason === 'changed') return failed(new McpError('internalError', stop.message).toJSON(), stop.message)
  if (stop) return { kind: stop.reason }
  if (host.signal.aborted) return { kind: 'stopped' }
  if (input.pending) return { kind: 'input', requests: input.pending }
  if (thrown === undefined) {
    try {
      const finished = await finishResult(tool, result as CallToolResult, assembled)
      const shaped = await spillResult(
        server.results,
        tool.maxResultBytes,
        finished,
        subjectOf(call.principal),
        tool.output !== undefined,
      )
      return { kind: 'completed', result: server.decorate(shaped) }
    } catch (error) {
      thrown = error
    }
  }
  if (thrown instanceof ToolError) return { kind: 'completed', result: server.decorate(toolError(thrown.message)) }
  return failed(toErrorObject(thrown, `task ${host.taskId}`), isMcpError(thrown) ? thrown.message : 'Internal error')
}

function failed(error: JsonRpcErrorObject, statusMessage = error.message): RunEnd {
  return { kind: 'failed', error, statusMessage }
}
