/**
 * Bench Worker, the streaming floor: answers a `tools/call` of `stream` by writing `count`
 * `notifications/tools/partial_result` messages as SSE events by hand, with the same params as
 * the extras Worker's `stream` tool (token, seq, text `chunk i`, structuredContent `{ i, t }`),
 * then the final response. No validation, no MCP runtime: what any Worker streaming these
 * notifications at least spends.
 *
 * Written as a careful author would, and as mcp-edge's stream is (http/stream.ts): a pull-based
 * `ReadableStream` that, at each pull, writes every event queued since the last one in one
 * chunk of at most 64 KiB of text, so the runtime moves few large writes rather than one per
 * event. The producer awaits each event as a producer that respects backpressure does: the
 * event is queued at once while fewer than 256 are waiting, else once a pull has taken them.
 * (Until issue 38 this floor awaited one write per event while mcp-edge batched, which flattered
 * mcp-edge's ratios.)
 */
interface StreamCall {
  id: string | number
  params: { arguments: { count: number }; _meta: { partialResultToken: string | number } }
}

const encoder = new TextEncoder()
const BATCH_CHARS = 64 * 1024
const MAX_QUEUED = 256
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`

export default {
  async fetch(request: Request): Promise<Response> {
    const call = (await request.json()) as StreamCall
    const { count } = call.params.arguments
    const token = call.params._meta.partialResultToken
    const queue: string[] = []
    let done = false
    // The pull waiting for an event, and the producer waiting for room.
    let wakeReader: (() => void) | undefined
    let wakeProducer: (() => void) | undefined
    const push = (message: unknown): Promise<void> => {
      queue.push(event(message))
      wakeReader?.()
      if (queue.length < MAX_QUEUED) return Promise.resolve()
      return new Promise((resolve) => {
        wakeProducer = resolve
      })
    }
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          while (queue.length === 0 && !done) {
            await new Promise<void>((resolve) => {
              wakeReader = resolve
            })
            wakeReader = undefined
          }
          let text = ''
          let taken = 0
          while (taken < queue.length && text.length < BATCH_CHARS) text += queue[taken++]
          queue.splice(0, taken)
          if (text) controller.enqueue(encoder.encode(text))
          if (queue.length < MAX_QUEUED && wakeProducer) {
            const wake = wakeProducer
            wakeProducer = undefined
            wake()
          }
          if (done && queue.length === 0) controller.close()
        },
      },
      { highWaterMark: 0 },
    )
    const produce = async () => {
      for (let i = 0; i < count; i++) {
        const params = {
          partialResultToken: token,
          seq: i,
          content: [{ type: 'text', text: `chunk ${i}` }],
          structuredContent: { i, t: Date.now() },
        }
        await push({ jsonrpc: '2.0', method: 'notifications/tools/partial_result', params })
      }
      queue.push(event({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: `${count} chunks` }] } }))
      done = true
      wakeReader?.()
    }
    void produce()
    return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  },
}
