/**
 * The SSE response of one request: a pull-based `ReadableStream` over the request's outbox, so it
 * moves at the reader's pace and a stalled reader holds at most the outbox's bounded queue. The
 * final JSON-RPC response ends the stream (streamable-http: "The final JSON-RPC response SHOULD
 * terminate the stream"). Keepalive comments fill silences. A reader that goes away cancels the
 * stream, which aborts the handler (closing the stream is cancellation) and drops what is queued.
 */
import type { JsonRpcResponse } from '../protocol/jsonrpc.ts'
import type { Outbox } from '../server/outbox.ts'
import { jsonEvent, KEEPALIVE } from './sse.ts'

const encoder = new TextEncoder()
/** Most text one write carries when several messages are queued (a bound on what leaves the queue at once). */
const BATCH_CHARS = 64 * 1024

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
}

/**
 * @param final the response (or, for a 2025-03-26 batch, the responses) that end the stream.
 * @param prelude SSE text sent first (a 2025 session stream's `retry` and priming event).
 */
export function sseResponse(
  outbox: Outbox,
  final: Promise<readonly JsonRpcResponse[]>,
  abort: { abort(): void },
  keepaliveMs: number,
  prelude?: string,
): Response {
  let finished = false
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (prelude) controller.enqueue(encoder.encode(prelude))
      },
      async pull(controller) {
        if (finished) return
        const next = await outbox.nextText(keepaliveMs)
        if (finished) return
        if (next === null) {
          controller.enqueue(KEEPALIVE)
          return
        }
        if (next !== undefined) {
          // What else is queued now leaves in the same write (up to BATCH_CHARS): fewer, larger
          // chunks for the runtime to move, and no wait added to any message.
          let text = jsonEvent(next.json, next.id)
          while (text.length < BATCH_CHARS) {
            const more = outbox.pollText()
            if (more === undefined) break
            text += jsonEvent(more.json, more.id)
          }
          controller.enqueue(encoder.encode(text))
          return
        }
        // Outbox closed and drained: the handler is done; its response is the last event.
        finished = true
        for (const message of await final) controller.enqueue(encoder.encode(jsonEvent(JSON.stringify(message))))
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
