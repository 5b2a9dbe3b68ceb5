/**
 * The Worker side of tasks: a `TaskBackend` that routes each task id to its own Durable Object
 * (the `Mcp-Name: <taskId>` header exists for exactly this routing). Ids are random UUIDs:
 * 122 bits of entropy, because a task id is bearer-like (ext-tasks "Security").
 */
import type { JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { TaskBackend } from '../server/tasks.ts'
import type { TaskObjectRpc } from './task-object.ts'

/** Longer ids are not ours; they are unknown without a lookup. */
const MAX_TASK_ID_LENGTH = 128

type TaskNamespace = DurableObjectNamespace

function stubFor(namespace: TaskNamespace, taskId: string): TaskObjectRpc {
  return namespace.get(namespace.idFromName(taskId)) as unknown as TaskObjectRpc
}

async function pump(
  stream: ReadableStream<Uint8Array>,
  sink: (message: JsonRpcNotification) => void,
  signal: AbortSignal,
): Promise<void> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader()
  const stop = () => void reader.cancel().catch(() => {})
  // The listen request may already be gone: an abort event is not replayed for late listeners.
  if (signal.aborted) return stop()
  signal.addEventListener('abort', stop, { once: true })
  let pending = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      pending += value
      let newline = pending.indexOf('\n')
      while (newline >= 0) {
        sink(JSON.parse(pending.slice(0, newline)) as JsonRpcNotification)
        pending = pending.slice(newline + 1)
        newline = pending.indexOf('\n')
      }
    }
  } catch {
    // The watcher or the task object went away; the listen stream simply hears no more.
  }
}

/**
 * @example
 * const tasks = durableTasks(env.MCP_TASKS)
 */
export function durableTasks(namespace: TaskNamespace): TaskBackend {
  return {
    async create(call) {
      const taskId = crypto.randomUUID()
      return stubFor(namespace, taskId).create(taskId, call)
    },
    async get(taskId, principal, log) {
      if (taskId.length > MAX_TASK_ID_LENGTH) return undefined
      return stubFor(namespace, taskId).get(principal, log)
    },
    async update(taskId, principal, responses) {
      return taskId.length <= MAX_TASK_ID_LENGTH && stubFor(namespace, taskId).update(principal, responses)
    },
    async cancel(taskId, principal) {
      return taskId.length <= MAX_TASK_ID_LENGTH && stubFor(namespace, taskId).cancel(principal)
    },
    async watch(taskIds, principal, sink, signal) {
      const wanted = [...new Set(taskIds)].filter((taskId) => taskId.length <= MAX_TASK_ID_LENGTH)
      const streams = await Promise.all(wanted.map((taskId) => stubFor(namespace, taskId).watch(principal)))
      return wanted.filter((_taskId, index) => {
        const stream = streams[index]
        if (stream) void pump(stream, sink, signal)
        return Boolean(stream)
      })
    },
  }
}
