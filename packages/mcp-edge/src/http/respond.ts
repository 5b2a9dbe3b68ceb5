/**
 * Turning a run of the server into an HTTP answer, for both eras (streamable-http): JSON unless a
 * message must go out before the response, then an SSE stream opened at the first one. A 2025-03-26
 * batch is answered the same way with all its responses (a JSON array, or every response as its
 * own event). Rejections before a run are id-less or id-echoing JSON-RPC errors.
 */
import { isMcpError, McpError } from '../protocol/errors.ts'
import { errorResponse } from '../protocol/jsonrpc.ts'
import type { JsonRpcResponse, RequestId } from '../protocol/jsonrpc.ts'
import { LazyAbort } from '../server/cancellation.ts'
import { Outbox } from '../server/outbox.ts'
import type { Handled } from '../server/server.ts'
import type { Lane, Run } from './lane.ts'
import { sseResponse } from './stream.ts'
import { errorFields, libraryLog } from '../server/telemetry/log.ts'

const JSON_HEADERS = { 'content-type': 'application/json' }
/**
 * The same, as one `Headers` of the isolate: a response copies a `Headers` it is given natively,
 * where a plain object is read property by property through the runtime's bindings.
 */
let jsonHeaders: Headers | undefined

export function jsonResponse(
  body: JsonRpcResponse | JsonRpcResponse[],
  status: number,
  extra?: Record<string, string>,
): Response {
  if (extra) return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...extra } })
  jsonHeaders ??= new Headers(JSON_HEADERS)
  return new Response(JSON.stringify(body), { status, headers: jsonHeaders })
}

export function rejection(error: McpError, id: RequestId | undefined, extra?: Record<string, string>): Response {
  return jsonResponse(errorResponse(id, error.toJSON()), error.status, extra)
}

/** What a request that threw is answered with: its McpError, or -32603 for anything else, logged and not leaked. */
export function failure(error: unknown, what = 'request'): McpError {
  if (isMcpError(error)) return error
  libraryLog.error('request failed', { method: what, ...errorFields(error) })
  return new McpError('internalError')
}

/** A run's stream queue, which calls `onFirstMessage` at its first message, and its cancellation. */
export function newRun<Env>(lane: Lane<Env>, onFirstMessage: () => void = () => {}): Run {
  // With the enable_request_signal flag, workerd aborts request.signal when the client goes away.
  return {
    outbox: new Outbox(lane.respond.stream, onFirstMessage),
    cancel: new LazyAbort(lane.request.signal ?? undefined),
  }
}

/**
 * Run one request and answer it. A run that fails before anything streamed rejects (the handler
 * answers it); one that fails while streaming ends its stream with the error response for `id`.
 * `prelude`: the SSE text a stream opens with, should the answer stream (a 2025-11-25 priming event).
 *
 * @example
 * return respond(lane, message.id, (run) => server.handle(message, meta, handleOptions(lane, run)))
 */
export async function respond<Env>(
  lane: Lane<Env>,
  id: RequestId,
  handle: (run: Run) => Promise<Handled>,
  prelude?: () => string,
): Promise<Response> {
  let run!: Run
  let done!: Promise<Handled>
  // The handler's answer, or `undefined` as soon as it pushes a message (then the answer streams).
  const first = await new Promise<Handled | undefined>((resolve, reject) => {
    run = newRun(lane, () => resolve(undefined))
    done = handle(run)
    done.then(resolve, reject)
  })
  if (first !== undefined) {
    run.outbox.close()
    return jsonResponse(first.message, first.status, lane.challenge(first.message, first.status))
  }
  const final = done.then(
    ({ message }) => [message],
    (error) => [errorResponse(id, failure(error).toJSON())],
  )
  void final.then(() => run.outbox.close())
  return sseResponse(run.outbox, final, run.cancel, lane.respond.keepaliveMs, prelude?.())
}

/**
 * Run every request of a batch on one stream and answer with all their responses (2025-03-26
 * "Batching"); `undefined` entries (notifications, answers) have none. While nothing needs a
 * stream, the answer is one JSON array; once a message must go out first, it is an SSE stream on
 * which each response goes out as soon as its request is done.
 */
export async function respondBatch<Env>(
  lane: Lane<Env>,
  handles: ((run: Run) => Promise<Handled | undefined>)[],
): Promise<Response> {
  let run!: Run
  let streaming = false
  // Responses done before the stream opened, in request order (a JSON array keeps the batch's order).
  const ready: (JsonRpcResponse | undefined)[] = []
  let all!: Promise<unknown>
  const first = await new Promise<'done' | 'stream'>((resolve, reject) => {
    run = newRun(lane, () => resolve('stream'))
    all = Promise.all(
      handles.map(async (handle, index) => {
        const handled = await handle(run)
        if (!handled) return
        if (streaming) run.outbox.push(handled.message)
        else ready[index] = handled.message
      }),
    )
    all.then(() => resolve('done'), reject)
  })
  const inOrder = () => ready.filter((message): message is JsonRpcResponse => message !== undefined)
  if (first === 'done') {
    run.outbox.close()
    const responses = inOrder()
    return responses.length === 0 ? new Response(null, { status: 202 }) : jsonResponse(responses, 200)
  }
  streaming = true
  for (const message of inOrder()) run.outbox.push(message)
  // Each item answers its own failure (legacy.ts); should one still throw, the stream ends all the same.
  const final = all.then(
    () => [],
    (error) => {
      failure(error, 'batch')
      return []
    },
  )
  void final.then(() => run.outbox.close())
  return sseResponse(run.outbox, final, run.cancel, lane.respond.keepaliveMs)
}
