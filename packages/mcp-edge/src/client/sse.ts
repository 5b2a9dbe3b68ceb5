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
  /** Split complete lines off the buffer. A trailing CR waits: its LF may be in the next chunk. */
  const lines = (final: boolean): string[] => {
    const out: string[] = []
    for (let end = buffer.search(/\r\n|\r|\n/); end >= 0; end = buffer.search(/\r\n|\r|\n/)) {
      if (!final && buffer[end] === '\r' && end === buffer.length - 1) break
      out.push(buffer.slice(0, end))
      buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1)
    }
    return out
  }
  try {
    for (let done = false; !done; ) {
      const chunk = await reader.read()
      done = chunk.done
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true })
      for (const line of lines(done)) {
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
    // A consumer that stops early closes the stream: for the server that is cancellation.
    await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
