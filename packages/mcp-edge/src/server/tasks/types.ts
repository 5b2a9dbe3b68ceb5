/**
 * The Tasks extension's shapes and the interfaces a host implements (mcp-edge's are Durable
 * Objects, in src/cloudflare/): the task as `tasks/get` shows it, a stored call, the partial-log
 * query, the `TaskBackend` and the `NonceLedger`. Types and one guard only, so every layer can
 * import them without importing the engine (tasks.ts re-exports them).
 */
import type { JsonRpcErrorObject } from '../../protocol/errors.ts'
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { ClientCapabilities, Implementation } from '../../protocol/types.ts'
import type { InputRequest } from '../input/input.ts'
import type { Principal } from '../types.ts'

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}

export interface Task {
  taskId: string
  status: TaskStatus
  statusMessage?: string
  createdAt: string
  lastUpdatedAt: string
  ttlMs: number | null
  pollIntervalMs?: number
}

/** `tasks/get`: the variant for the current status. */
export interface DetailedTask extends Task {
  inputRequests?: Record<string, InputRequest>
  result?: object
  error?: JsonRpcErrorObject
}

/** Everything needed to run a `tools/call` later, in another place. JSON-serialisable. */
export interface TaskCall {
  tool: string
  arguments: unknown
  prepared: unknown
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation
  principal?: Principal
  ttlMs: number | null
  pollIntervalMs: number
  /** The creating request declared `partialResults`: keep the task's partial-result log. */
  partialLog: boolean
  partialResultToken?: string | number
  /** The creating `tools/call` span, as a W3C traceparent: each run's span links to it. */
  traceparent?: string
}

/** mcp-edge's `_meta` extension on `tasks/get` for reading the partial log (README). */
export interface PartialLogQuery {
  from: number
  limit: number
}

export interface PartialLogPage {
  items: Record<string, unknown>[]
  /** The `from` of the next read. */
  nextSeq: number
  /** The task is terminal and every item has been read. */
  complete: boolean
}

/** Where tasks live. Every method is scoped to the calling principal (others see nothing). */
export interface TaskBackend {
  /** Durably create and start a task; resolves once `tasks/get` for it would succeed. */
  create(call: TaskCall): Promise<Task>
  get(
    taskId: string,
    principal: string | null,
    log?: PartialLogQuery,
  ): Promise<{ task: DetailedTask; log?: PartialLogPage } | undefined>
  /** Answer outstanding input requests; `false` when the task is unknown to this principal. */
  update(taskId: string, principal: string | null, responses: Record<string, unknown>): Promise<boolean>
  cancel(taskId: string, principal: string | null): Promise<boolean>
  /**
   * Stream `notifications/tasks` of these tasks (each task's current state first) and, with
   * `partials`, their partial results to `sink`, until `signal` aborts. A task's watch ends when
   * the task is terminal (after its last notification) or deleted. Resolves with the ids
   * actually watched (known and owned) and a promise that settles when every watch has ended.
   */
  watch(
    taskIds: string[],
    principal: string | null,
    options: { partials: boolean; signal: AbortSignal },
    sink: (message: JsonRpcNotification) => void,
  ): Promise<TaskWatch>
}

export interface TaskWatch {
  taskIds: string[]
  ended: Promise<void>
}

/** Single-use redemption of sealed states. */
export interface NonceLedger {
  /** `true` the first time a nonce is redeemed before `expiresAt`, `false` on every replay. */
  redeem(nonce: string, expiresAt: number): Promise<boolean>
}
