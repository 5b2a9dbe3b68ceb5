/**
 * `tools/list` and `tools/call` (server/tools.mdx). A call: unknown tool, or one hidden from this
 * caller by its `visible` predicate → -32602 (the same error, so a hidden tool's existence shows
 * nowhere); arguments that
 * fail the schema → an `isError` result naming the problem (SEP-1303); with an output schema, the
 * structured content is checked and mirrored as text. Task-capable tools become tasks when the
 * request declared the Tasks extension; partial results stream when it declared `partialResults`.
 */
import { TASKS_EXTENSION } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isLegacyVersion } from '../../protocol/legacy.ts'
import type { CallToolResult } from '../../protocol/types.ts'
import { missingCapabilities, supports } from '../capabilities.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import { ToolError } from '../errors.ts'
import type { ToolEntry } from '../tool-entry.ts'
import { asArguments } from '../schema/schema.ts'
import { streamPartials } from '../scope.ts'
import type { RequestScope } from '../scope.ts'
import type { Awaitable } from '../types.ts'
import { createTask, isTerminal } from '../tasks/tasks.ts'
import type { Task, TaskBackend } from '../tasks/tasks.ts'
import type { TaskSlot } from '../limits.ts'
import { subjectOf } from '../principal.ts'
import { finishResult, parseArguments, toolError } from '../tool-result.ts'
import { spillingPartials, spillResult } from '../results/spill.ts'
import { isVisible, listMethod, requireScopes, viewerOf } from './access.ts'
import { runWithInput } from './context.ts'
import type { InputTarget } from './context.ts'

export const toolsList = listMethod('tools', 'tools', 'tools')

/**
 * Tasks extension: should this call become a task? A required one needs the extension (-32021).
 * A 2025-era client has no tasks of this extension: every task tool runs inline for it.
 */
function wantsTask(tool: ToolEntry, call: Call): boolean {
  if (tool.task.mode === 'never' || isLegacyVersion(call.meta.protocolVersion)) return false
  const declared = supports(call.meta.clientCapabilities, `extensions.${TASKS_EXTENSION}`)
  if (tool.task.mode === 'always' && !declared)
    throw missingCapabilities([`extensions.${TASKS_EXTENSION}`], `Tool "${tool.name}" (a task)`)
  if (declared && !call.options.tasks) {
    // Without a backend the extension is not advertised; an optional tool simply runs inline.
    if (tool.task.mode === 'optional') return false
    throw new Error(`Tool "${tool.name}" runs only as a task, but no task backend is configured (mcp options.services)`)
  }
  return declared
}

async function invoke(tool: ToolEntry, args: unknown, scope: RequestScope, call: Call): Promise<CallToolResult> {
  const { meta, options } = call
  const token = meta.partialResultToken
  if (token !== undefined && options.outbox && supports(meta.clientCapabilities, 'partialResults')) {
    const sink = streamPartials(options.outbox, token)
    scope.setPartials(spillingPartials(sink, call.server.results, tool.maxResultBytes, subjectOf(options.principal)))
  }
  // A 2025-era client never gets partial results (their capability is a 2026 draft), so the
  // final result of a streaming tool always carries what was streamed.
  if (tool.assemble || (tool.streaming && isLegacyVersion(meta.protocolVersion))) scope.assembled = []
  try {
    const result = await tool.handler(args as never, scope)
    const shaped = finishResult(tool, result, scope.assembled)
    const finished = shaped instanceof Promise ? await shaped : shaped
    // Without a result policy nothing is cut: no promise of spillResult's own to wait for.
    if (call.server.results === undefined) return finished
    return await spillResult(
      call.server.results,
      tool.maxResultBytes,
      finished,
      subjectOf(call.options.principal),
      tool.output !== undefined,
    )
  } catch (error) {
    if (error instanceof ToolError) return toolError(error.message)
    throw error
  }
}

export const toolsCall: MethodEntry = {
  capability: 'tools',
  inputRequired: true,
  /**
   * Not async: an inline call's answer is runWithInput's own promise (an async function that
   * returns a promise waits two more turns for it). A refusal throws at once, into the `try` of
   * the server's dispatch (server.ts), which awaits this.
   */
  run(call) {
    const { params } = call
    const name = params.name
    if (typeof name !== 'string') throw new McpError('invalidParams', 'Invalid params: name must be a string')
    const tool = call.server.tools.get(name)
    if (!tool || !isVisible(tool, viewerOf(call))) throw new McpError('invalidParams', `Unknown tool: ${name}`)
    requireScopes(call.options.principal, tool.scopes, `Tool "${name}"`)
    const args = asArguments(params.arguments, 'arguments')
    const missing = tool.requires.filter((path) => !supports(call.meta.clientCapabilities, path))
    if (missing.length > 0) throw missingCapabilities(missing, `Tool "${name}"`)
    const target = { target: name, args, singleUse: tool.singleUseState }
    if (wantsTask(tool, call)) return runAsTask(call, tool, args, target)
    return runWithInput(call, target, (scope) => withArguments(tool, args, scope, (value) => invoke(tool, value, scope, call)))
  },
}

/**
 * The arguments parsed (bad ones answer an `isError` result) and the tool's `prepare` run, then
 * `go` with them. Without `prepare`, `go`'s own answer, with no promise of this function's.
 */
function withArguments(
  tool: ToolEntry,
  args: Record<string, unknown>,
  scope: RequestScope,
  go: (value: unknown) => Awaitable<object>,
): Awaitable<object> {
  const parsed = parseArguments(tool, args)
  if (parsed instanceof Promise) return parsed.then((awaited) => withParsed(tool, awaited, scope, go))
  return withParsed(tool, parsed, scope, go)
}

function withParsed(
  tool: ToolEntry,
  parsed: Awaited<ReturnType<typeof parseArguments>>,
  scope: RequestScope,
  go: (value: unknown) => Awaitable<object>,
): Awaitable<object> {
  if (!parsed.ok) return parsed.result
  const { prepare } = tool
  if (!prepare) return go(parsed.value)
  return (async () => {
    scope.prepared = await prepare(parsed.value as never, scope)
    return await go(parsed.value)
  })()
}

/**
 * A call that becomes a task. Per-principal cap on live tasks in this isolate: the slot is
 * reserved before anything is redeemed or created, so a 429 spends no single-use confirmation.
 */
async function runAsTask(call: Call, tool: ToolEntry, args: Record<string, unknown>, target: InputTarget): Promise<object> {
  const slot = await reserveTaskSlot(call)
  try {
    return await runWithInput(call, target, (scope) =>
      withArguments(tool, args, scope, async (value) => {
        const task = (await createTask(call, tool, value, scope.prepared)) as Task
        slot.commit(task.taskId, Date.parse(task.createdAt) + (task.ttlMs ?? call.server.taskLimits.maxLifeMs))
        return task
      }),
    )
  } finally {
    slot.release()
  }
}

function reserveTaskSlot(call: Call): Promise<TaskSlot> {
  const subject = subjectOf(call.options.principal)
  const backend = call.options.tasks as TaskBackend
  return call.server.limits.reserveTask(subject, async (taskId) => {
    const found = await backend.get(taskId, subject)
    return found !== undefined && !isTerminal(found.task.status)
  })
}
