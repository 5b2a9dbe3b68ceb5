/**
 * A small 2026-07-28 client over Streamable HTTP for browsers, Workers and Node: every request
 * carries its own `_meta` and headers (no session, no handshake), answers are read whether they
 * come as JSON or as an SSE stream, and errors arrive as one `McpClientError` with the JSON-RPC
 * code, the HTTP status and any `WWW-Authenticate` challenge. `callTool` adds partial results
 * (SEP-2998), progress and the MRTR retry loop; `listen` reads a `subscriptions/listen` stream.
 * Not a full MCP client: no 2025-era handshake, no OAuth (see the playground for a browser flow).
 */
import { META, METHOD, PARTIAL_LOG_META } from '../protocol/constants.ts'
import type { InputRetry, InputRoundsOptions } from './input-rounds.ts'
import { resolveInput } from './input-rounds.ts'
import { readToolCall } from './partial-results.ts'
import type { ToolCallEvent } from './partial-results.ts'
import { createMcpRequest } from './request.ts'
import type { Implementation, JsonObject } from './request.ts'
import { readSse } from './sse.ts'

export interface McpClientOptions {
  url: string | URL
  /** Declared on every request unless a call passes its own. */
  capabilities?: JsonObject
  clientInfo?: Implementation
  /** The bearer token to send, read on every request (it may change after a sign-in). */
  token?: () => string | undefined
  fetch?: (request: Request) => Promise<Response>
}

export interface SendOptions {
  capabilities?: JsonObject
  meta?: JsonObject
  inputSchema?: JsonObject
  signal?: AbortSignal
}

export interface CallToolOptions extends SendOptions, InputRoundsOptions {
  /** Partial chunks, gaps and notifications (progress, logs) of each round, as they arrive. */
  onEvent?: (event: ToolCallEvent, round: number) => void
  /** Fulfil an `input_required` round; without it such a result is returned as is. */
  answer?: (inputRequests: JsonObject, round: number) => Promise<JsonObject>
}

export interface Notification {
  method: string
  params: JsonObject
}

/** A JSON-RPC error, or an HTTP failure without one (401 from an authorization server, 5xx). */
export class McpClientError extends Error {
  readonly status: number
  readonly code: number | undefined
  readonly data: unknown
  /** The `WWW-Authenticate` header of a 401 or 403. */
  readonly challenge: string | undefined

  constructor(message: string, details: { status: number; code?: number; data?: unknown; challenge?: string | null }) {
    super(message)
    this.name = 'McpClientError'
    this.status = details.status
    this.code = details.code
    this.data = details.data
    this.challenge = details.challenge ?? undefined
  }
}

const isSse = (response: Response) => (response.headers.get('content-type') ?? '').includes('text/event-stream')

/** The result of a final JSON-RPC message, or the error it carries. */
function resultOf(message: JsonObject | undefined, response: Response): JsonObject {
  const details = { status: response.status, challenge: response.headers.get('www-authenticate') }
  const error = message?.error
  if (error && typeof error === 'object') {
    const { code, message: text, data } = error as { code?: number; message?: string; data?: unknown }
    throw new McpClientError(String(text ?? 'Error'), { ...details, code, data })
  }
  // An OAuth error body (RFC 6750): { error: "invalid_token", error_description }.
  if (typeof error === 'string') throw new McpClientError(String(message?.error_description ?? error), details)
  if (!message || typeof message.result !== 'object' || message.result === null) {
    throw new McpClientError(`HTTP ${response.status}: no JSON-RPC result`, details)
  }
  return message.result as JsonObject
}

/** Refuse a body that is neither JSON nor SSE before reading it as either. */
async function checked(response: Response): Promise<Response> {
  if (isSse(response) || (response.headers.get('content-type') ?? '').includes('json')) return response
  const text = (await response.text()).slice(0, 300)
  throw new McpClientError(`HTTP ${response.status}${text ? `: ${text}` : ''}`, {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
  })
}

export class McpClient {
  readonly #options: McpClientOptions
  readonly #fetch: (request: Request) => Promise<Response>
  #nextId = 1

  constructor(options: McpClientOptions) {
    this.#options = options
    this.#fetch = options.fetch ?? ((request) => fetch(request))
  }

  /** Send one request; the raw response and the id it carried. */
  async send(method: string, params: JsonObject, options: SendOptions = {}): Promise<{ id: number; response: Response }> {
    const id = this.#nextId++
    const request = createMcpRequest(this.#options.url, method, params, {
      id,
      capabilities: options.capabilities ?? this.#options.capabilities,
      clientInfo: this.#options.clientInfo,
      meta: options.meta,
      inputSchema: options.inputSchema,
      token: this.#options.token?.(),
      signal: options.signal,
    })
    return { id, response: await checked(await this.#fetch(request)) }
  }

  /**
   * Send a request and return its result (notifications before it go to `onNotification`).
   *
   * @example
   * const { tools } = await client.request('tools/list', {})
   */
  async request(
    method: string,
    params: JsonObject,
    options: SendOptions & { onNotification?: (notification: Notification) => void } = {},
  ): Promise<JsonObject> {
    const { id, response } = await this.send(method, params, options)
    if (!isSse(response)) return resultOf((await response.json()) as JsonObject, response)
    let final: JsonObject | undefined
    for await (const message of messages(response)) {
      if (typeof message.method === 'string') options.onNotification?.(message as unknown as Notification)
      else if (message.id === id) final = message
    }
    return resultOf(final, response)
  }

  /**
   * Call a tool with partial results and progress on, running MRTR rounds through `answer`.
   * Returns the final result: complete, or a task handle (`resultType: "task"`).
   *
   * @example
   * const result = await client.callTool('write_story', { topic: 'owls' }, { onEvent: (event) => show(event) })
   */
  callTool(name: string, args: JsonObject, options: CallToolOptions = {}): Promise<JsonObject> {
    const round = async (retry: InputRetry, index: number): Promise<JsonObject> => {
      // Each round is a new request, so it gets its own tokens (SEP-2998: tokens are per call).
      const token = `call-${this.#nextId}`
      const meta = { [META.partialResultToken]: token, [META.progressToken]: token, ...options.meta }
      const { id, response } = await this.send(METHOD.toolsCall, { name, arguments: args, ...retry }, { ...options, meta })
      const events = readToolCall(response, { partialResultToken: token, requestId: id })
      try {
        for (let step = await events.next(); ; step = await events.next()) {
          if (step.done) return resultOf(step.value, response)
          options.onEvent?.(step.value, index)
          // A fetch whose body does not follow the signal (a Worker binding, in-process) stops here too.
          options.signal?.throwIfAborted()
        }
      } finally {
        // Closes the stream when the caller stopped early: for the server that is cancellation.
        await events.return(undefined)
      }
    }
    const answer = options.answer
    if (!answer) return round({}, 0)
    return resolveInput(round, answer, options)
  }

  /**
   * Open a `subscriptions/listen` stream: yields each notification (the acknowledgement first) and
   * returns the listen result when the server ends the subscription gracefully, `undefined` when
   * the stream dropped (listen again). Stop early by aborting `options.signal` or by `return()`.
   *
   * @example
   * for await (const note of client.listen({ taskIds: [taskId] })) if (note.method === 'notifications/tasks') show(note.params)
   */
  async *listen(filter: JsonObject, options: SendOptions = {}): AsyncGenerator<Notification, JsonObject | undefined> {
    const { id, response } = await this.send(METHOD.listen, { notifications: filter }, options)
    if (!isSse(response)) return resultOf((await response.json()) as JsonObject, response)
    for await (const message of messages(response)) {
      if (typeof message.method === 'string') yield message as unknown as Notification
      else if (message.id === id) return resultOf(message, response)
    }
    return undefined
  }

  /**
   * Read a task with a page of its partial-result log (mcp-edge's `dev.mcp-edge/partialLog`).
   *
   * @example
   * const { task, log } = await client.taskLog(taskId, 0)
   */
  async taskLog(taskId: string, from: number, limit = 1000, options: SendOptions = {}) {
    const meta = { ...options.meta, [PARTIAL_LOG_META]: { from, limit } }
    const task = await this.request(METHOD.tasksGet, { taskId }, { ...options, meta })
    const log = ((task._meta as JsonObject | undefined)?.[PARTIAL_LOG_META] ?? { items: [], nextSeq: from, complete: false }) as {
      items: JsonObject[]
      nextSeq: number
      complete: boolean
    }
    return { task, log }
  }
}

async function* messages(response: Response): AsyncGenerator<JsonObject> {
  if (!response.body) return
  for await (const event of readSse(response.body)) yield JSON.parse(event.data) as JsonObject
}
