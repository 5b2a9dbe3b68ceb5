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
import type { Handled } from '../server/server.ts'
import type { Lane, Run } from './lane.ts'
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

function newRun<Env>(lane: Lane<Env>): Run {
  // With the enable_request_signal flag, workerd aborts request.signal when the client goes away.
  return { outbox: new Outbox(lane.respond.stream), cancel: new LazyAbort(lane.request.signal ?? undefined) }
}

/**
 * Run one request and answer it.
 *
 * @example
 * return respond(lane, (run) => server.handle(message, meta, handleOptions(lane, run)))
 */
export async function respond<Env>(lane: Lane<Env>, handle: (run: Run) => Promise<Handled>): Promise<Response> {
  const run = newRun(lane)
  const done = handle(run)
  const first = await Promise.race([done, run.outbox.firstMessage])
  if (first !== undefined) {
    run.outbox.close()
    return jsonResponse(first.message, first.status, lane.challenge(first.message, first.status))
  }
  const final = done.then(({ message }) => [message])
  void final.then(() => run.outbox.close())
  return sseResponse(run.outbox, final, run.cancel, lane.respond.keepaliveMs)
}

/**
 * Run every request of a batch on one stream and answer with all their responses (2025-03-26
 * "Batching"); `undefined` entries (notifications, answers) have none.
 */
export async function respondBatch<Env>(
  lane: Lane<Env>,
  handles: ((run: Run) => Promise<Handled | undefined>)[],
): Promise<Response> {
  const run = newRun(lane)
  const final = Promise.all(handles.map((handle) => handle(run))).then((all) =>
    all.filter((handled): handled is Handled => handled !== undefined).map((handled) => handled.message),
  )
  const first = await Promise.race([final, run.outbox.firstMessage])
  if (first !== undefined) {
    run.outbox.close()
    return first.length === 0 ? new Response(null, { status: 202 }) : jsonResponse(first, 200)
  }
  void final.then(() => run.outbox.close())
  return sseResponse(run.outbox, final, run.cancel, lane.respond.keepaliveMs)
}
