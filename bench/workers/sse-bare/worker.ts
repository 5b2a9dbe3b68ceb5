/**
 * Bench Worker, the streaming floor: answers a `tools/call` of `stream` by writing `count`
 * `notifications/tools/partial_result` messages as SSE events by hand, with the same params as
 * the extras Worker's `stream` tool (token, seq, text `chunk i`, structuredContent `{ i, t }`),
 * then the final response. No validation, no queue, no MCP runtime: what any Worker streaming these
 * notifications at least spends. Each write is awaited, as a producer that respects backpressure
 * does.
 */
interface StreamCall {
  id: string | number
  params: { arguments: { count: number }; _meta: { partialResultToken: string | number } }
}

const encoder = new TextEncoder()

export default {
  async fetch(request: Request): Promise<Response> {
    const call = (await request.json()) as StreamCall
    const { count } = call.params.arguments
    const token = call.params._meta.partialResultToken
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>()
    const writer = writable.getWriter()
    const write = (message: unknown) => writer.write(encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`))
    const produce = async () => {
      for (let i = 0; i < count; i++) {
        const params = {
          partialResultToken: token,
          seq: i,
          content: [{ type: 'text', text: `chunk ${i}` }],
          structuredContent: { i, t: Date.now() },
        }
        await write({ jsonrpc: '2.0', method: 'notifications/tools/partial_result', params })
      }
      await write({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: `${count} chunks` }] } })
      await writer.close()
    }
    void produce()
    return new Response(readable, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  },
}
