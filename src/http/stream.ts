/**
 * The SSE response of one request: a pull-based `ReadableStream` over the request's outbox, so it
 * moves at the reader's pace and a stalled reader holds at most the outbox's bounded queue. The
 * final JSON-RPC response ends the stream (streamable-http: "The final JSON-RPC response SHOULD
 * terminate the stream"). Keepalive comments fill silences. A reader that goes away cancels the
 * stream, which aborts the handler (closing the stream is cancellation) and drops what is queued.
 */
import type { JsonRpcResponse } from '../protocol/jsonrpc.ts'
import type { Outbox } from '../server/outbox.ts'
import { encodeEvent, KEEPALIVE } from './sse.ts'

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
}

/**
 * @param final the response (or, for a 2025-03-26 batch, the responses) that end the stream.
 */
export function sseResponse(
  outbox: Outbox,
  final: Promise<readonly JsonRpcResponse[]>,
  abort: { abort(): void },
  keepaliveMs: number,
): Response {
  let finished = false
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (finished) return
        const next = await outbox.nextWithin(keepaliveMs)
        if (finished) return
        if (next === null) {
          controller.enqueue(KEEPALIVE)
          return
        }
        if (next !== undefined) {
          controller.enqueue(encodeEvent(JSON.stringify(next)))
          return
        }
        // Outbox closed and drained: the handler is done; its response is the last event.
        finished = true
        for (const message of await final) controller.enqueue(encodeEvent(JSON.stringify(message)))
        controller.close()
      },
      cancel() {
        finished = true
        abort.abort()
        outbox.discard()
      },
    },
    { highWaterMark: 0 },
  )
  return new Response(body, { status: 200, headers: SSE_HEADERS })
}
