/**
 * Turning a run of the server into an HTTP answer, for both eras (streamable-http): JSON unless a
 * message must go out before the response, then an SSE stream opened at the first one. A 2025-03-26
 * batch is answered the same way with all its responses (a JSON array, or every response as its
 * own event). Rejections before a run are id-less or id-echoing JSON-RPC errors.
 */
import type { McpError } from '../protocol/errors.ts'
import { errorResponse } from '../protocol/jsonrpc.ts'
import type { JsonRpcResponse, RequestId } from '../protocol/jsonrpc.ts'
import { LazyAbort } from '../server/cancellation.ts'
import { Outbox } from '../server/outbox.ts'
import type { OutboxOptions } from '../server/outbox.ts'
import type { Handled } from '../server/server.ts'
import { sseResponse } from './stream.ts'

const JSON_HEADERS = { 'content-type': 'application/json' }

export function jsonResponse(
  body: JsonRpcResponse | JsonRpcResponse[],
  status: number,
  extra?: Record<string, string>,
): Response {
  return new Response(JSON.stringify(body), { status, headers: extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS })
}

export function rejection(error: McpError, id: RequestId | undefined, extra?: Record<string, string>): Response {
  return jsonResponse(errorResponse(id, error.toJSON()), error.status, extra)
}

/** Where one run writes: its stream's queue and the signal its handler sees. */
export interface Run {
  outbox: Outbox
  cancel: LazyAbort
}

export interface RespondOptions {
  stream: OutboxOptions | undefined
  keepaliveMs: number
  /** Extra response headers (the 2025-era `Mcp-Session-Id` of `initialize`). */
  headers?: Record<string, string>
}

/**
 * Run one request and answer it.
 *
 * @example
 * return respond(request, options, (run) => server.handle(message, meta, { env, ...run }))
 */
export async function respond(
  request: Request,
  options: RespondOptions,
  handle: (run: Run) => Promise<Handled>,
): Promise<Response> {
  let run!: Run
  let done!: Promise<Handled>
  // The handler's answer, or `undefined` as soon as it pushes a message (then the answer streams).
  const first = await new Promise<Handled | undefined>((resolve, reject) => {
    run = open(request, options, () => resolve(undefined))
    done = handle(run)
    done.then(resolve, reject)
  })
  if (first !== undefined) {
    run.outbox.close()
    return jsonResponse(first.message, first.status, options.headers)
  }
  const final = done.then(({ message }) => [message])
  void final.then(() => run.outbox.close())
  return sseResponse(run.outbox, final, run.cancel, options.keepaliveMs, options.headers)
}

/**
 * Run every request of a batch on one stream and answer with all their responses (2025-03-26
 * "Batching"); `undefined` entries (notifications, answers) have none.
 */
export async function respondBatch(
  request: Request,
  options: RespondOptions,
  handles: ((run: Run) => Promise<Handled | undefined>)[],
): Promise<Response> {
  let run!: Run
  let final!: Promise<JsonRpcResponse[]>
  const first = await new Promise<JsonRpcResponse[] | undefined>((resolve, reject) => {
    run = open(request, options, () => resolve(undefined))
    final = Promise.all(handles.map((handle) => handle(run))).then((all) =>
      all.filter((handled): handled is Handled => handled !== undefined).map((handled) => handled.message),
    )
    final.then(resolve, reject)
  })
  if (first !== undefined) {
    run.outbox.close()
    return first.length === 0 ? new Response(null, { status: 202 }) : jsonResponse(first, 200, options.headers)
  }
  void final.then(() => run.outbox.close())
  return sseResponse(run.outbox, final, run.cancel, options.keepaliveMs, options.headers)
}

/** A run's stream queue and its cancellation (workerd aborts `request.signal` when the client goes away). */
function open(request: Request, options: RespondOptions, onFirstMessage: () => void): Run {
  return { outbox: new Outbox(options.stream, onFirstMessage), cancel: new LazyAbort(request.signal ?? undefined) }
}
