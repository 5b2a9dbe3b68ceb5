/**
 * `tasks/get`, `tasks/update` and `tasks/cancel` (Tasks extension). They exist only when a task
 * backend is configured, need the extension declared on the request (-32021, checked before the
 * id is looked up), and treat a task of another principal exactly like an unknown one (-32602).
 * `tasks/result` and `tasks/list` are not in the table, so they are -32601.
 */
import { PARTIAL_LOG_META, TASKS_EXTENSION } from '../../protocol/constants.ts'
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import { readInputResponses } from '../input/input-round.ts'
import type { PartialLogQuery, TaskBackend } from '../tasks/tasks.ts'
import { subjectOf } from '../principal.ts'

const DEFAULT_LOG_LIMIT = 100
const MAX_LOG_LIMIT = 1000

function taskIdOf(call: Call): string {
  const taskId = call.params.taskId
  if (typeof taskId !== 'string' || taskId === '') throw new McpError('invalidParams', 'Invalid params: taskId must be a string')
  return taskId
}

function unknownTask(taskId: string): McpError {
  return new McpError('invalidParams', `Unknown task: ${taskId}`)
}

function logQuery(call: Call): PartialLogQuery | undefined {
  const query = call.meta.raw[PARTIAL_LOG_META]
  if (query === undefined) return undefined
  if (!isObject(query)) throw new McpError('invalidParams', `Invalid params: _meta["${PARTIAL_LOG_META}"] must be an object`)
  const from = query.from ?? 0
  const limit = query.limit ?? DEFAULT_LOG_LIMIT
  if (!Number.isInteger(from) || (from as number) < 0 || !Number.isInteger(limit) || (limit as number) < 1) {
    throw new McpError('invalidParams', `Invalid params: _meta["${PARTIAL_LOG_META}"] needs integer from >= 0 and limit >= 1`)
  }
  return { from: from as number, limit: Math.min(limit as number, MAX_LOG_LIMIT) }
}

function backendOf(call: Call): { backend: TaskBackend; principal: string | null } {
  return { backend: call.options.tasks as TaskBackend, principal: subjectOf(call.options.principal) }
}

const REQUIRES = `extensions.${TASKS_EXTENSION}` as const

export const tasksGet: MethodEntry = {
  era: 'modern',
  capability: 'tasks',
  requires: REQUIRES,
  inputRequired: false,
  async run(call) {
    const taskId = taskIdOf(call)
    const { backend, principal } = backendOf(call)
    const found = await backend.get(taskId, principal, logQuery(call))
    if (!found) throw unknownTask(taskId)
    return found.log ? { ...found.task, _meta: { [PARTIAL_LOG_META]: found.log } } : found.task
  },
}

export const tasksUpdate: MethodEntry = {
  era: 'modern',
  capability: 'tasks',
  requires: REQUIRES,
  inputRequired: false,
  async run(call) {
    const taskId = taskIdOf(call)
    const responses = readInputResponses(call.params.inputResponses)
    const { backend, principal } = backendOf(call)
    if (!(await backend.update(taskId, principal, responses))) throw unknownTask(taskId)
    return {}
  },
}

export const tasksCancel: MethodEntry = {
  era: 'modern',
  capability: 'tasks',
  requires: REQUIRES,
  inputRequired: false,
  async run(call) {
    const taskId = taskIdOf(call)
    const { backend, principal } = backendOf(call)
    if (!(await backend.cancel(taskId, principal))) throw unknownTask(taskId)
    return {}
  },
}
