/**
 * A small SSE reader for clients (browsers, Workers, Node): turns a `text/event-stream` body into
 * events, per the WHATWG rules we rely on (`event:`, multi-line `data:`, blank-line dispatch,
 * comments ignored). Runtime-neutral: Web streams only.
 */

export interface SseEvent {
  event: string
  data: string
}

/**
 * @example
 * for await (const event of readSse(response.body!)) console.log(event.event, JSON.parse(event.data))
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let event = 'message'
  let data: string[] = []
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buffer += decoder.decode(value, { stream: true })
      let newline = buffer.search(/\r\n|\r|\n/)
      while (newline >= 0) {
        const line = buffer.slice(0, newline)
        buffer = buffer.slice(buffer[newline] === '\r' && buffer[newline + 1] === '\n' ? newline + 2 : newline + 1)
        newline = buffer.search(/\r\n|\r|\n/)
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') }
          event = 'message'
          data = []
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const rest = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = rest
        else if (field === 'data') data.push(rest)
      }
    }
  } finally {
    reader.releaseLock()
  }
}
