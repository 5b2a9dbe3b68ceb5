/**
 * The Worker side of tasks: a `TaskBackend` that routes each task id to its own Durable Object
 * (the `Mcp-Name: <taskId>` header exists for exactly this routing). Ids are random UUIDs:
 * 122 bits of entropy, because a task id is bearer-like (ext-tasks "Security").
 *
 * A watch reads the object's stream of notifications until the object ends it (the task is
 * terminal or deleted). If the stream breaks instead (the object restarted, for a deploy or an
 * eviction), it is opened again, up to WATCH_REOPENS times; the object sends the task's current
 * state first, so a status change made meanwhile is not missed.
 */
import { McpError } from '../protocol/errors.ts'
import type { JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { TaskBackend } from '../server/tasks/tasks.ts'
import type { TaskObjectRpc } from './task-object.ts'

/** Longer ids are not ours; they are unknown without a lookup. */
const MAX_TASK_ID_LENGTH = 128
/** A broken watch stream is opened again this many times in a row at most. */
export const WATCH_REOPENS = 3

type TaskNamespace = DurableObjectNamespace
type Sink = (message: JsonRpcNotification) => void

function stubFor(namespace: TaskNamespace, taskId: string): TaskObjectRpc {
  return namespace.get(namespace.idFromName(taskId)) as unknown as TaskObjectRpc
}

/** Read one stream to its end; true when it ended cleanly, false when it broke or was stopped. */
async function pump(stream: ReadableStream<Uint8Array>, sink: Sink, signal: AbortSignal): Promise<boolean> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader()
  const stop = () => void reader.cancel().catch(() => {})
  // The listen request may already be gone: an abort event is not replayed for late listeners.
  if (signal.aborted) {
    stop()
    return false
  }
  signal.addEventListener('abort', stop, { once: true })
  let pending = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return !signal.aborted
      pending += value
      let newline = pending.indexOf('\n')
      while (newline >= 0) {
        sink(JSON.parse(pending.slice(0, newline)) as JsonRpcNotification)
        pending = pending.slice(newline + 1)
        newline = pending.indexOf('\n')
      }
    }
  } catch {
    return false
  } finally {
    signal.removeEventListener('abort', stop)
  }
}

/** Follow one task until its watch ends, opening the stream again when it breaks. */
async function follow(
  open: () => Promise<ReadableStream<Uint8Array> | null>,
  first: ReadableStream<Uint8Array>,
  sink: Sink,
  signal: AbortSignal,
) {
  let stream: ReadableStream<Uint8Array> | null = first
  for (let reopens = 0; stream; reopens++) {
    if ((await pump(stream, sink, signal)) || signal.aborted || reopens === WATCH_REOPENS) return
    stream = await open().catch(() => null)
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
      const outcome = await stubFor(namespace, taskId).create(taskId, call)
      if ('refused' in outcome) throw new McpError('invalidParams', outcome.refused)
      return outcome.task
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
    async watch(taskIds, principal, { partials, signal }, sink) {
      const wanted = [...new Set(taskIds)].filter((taskId) => taskId.length <= MAX_TASK_ID_LENGTH)
      const open = (taskId: string) => stubFor(namespace, taskId).watch(principal, partials)
      const streams = await Promise.all(wanted.map(open))
      const followed: Promise<void>[] = []
      const watched = wanted.filter((taskId, index) => {
        const stream = streams[index]
        if (stream) followed.push(follow(() => open(taskId), stream, sink, signal))
        return Boolean(stream)
      })
      return { taskIds: watched, ended: Promise.all(followed).then(() => {}) }
    },
  }
}
