/**
 * The one SSE formatter. `data` is split on every line break so a payload can never end an
 * event early, and an event name may not carry CR or LF (no injection of extra fields).
 * JSON-RPC messages serialise to a single line, but the formatter does not rely on it.
 */

const encoder = new TextEncoder()
const LINE_BREAK = /[\r\n]/
/** An id with a NUL is ignored by the reader (WHATWG SSE), one with a line break would end the field. */
const BAD_ID = /[\r\n\0]/

/** `:` comment line that keeps proxies from closing an idle stream (streamable-http keep-alive). */
export const KEEPALIVE = encoder.encode(':\n\n')

/**
 * Format one SSE event.
 *
 * @example
 * formatEvent(JSON.stringify(message))          // 'event: message\ndata: {...}\n\n'
 * formatEvent(JSON.stringify(message), 'message', 'ev:0-3') // 'id: ev:0-3\nevent: message\ndata: {...}\n\n'
 */
export function formatEvent(data: string, event = 'message', id?: string): string {
  if (LINE_BREAK.test(event)) throw new Error('SSE event names must not contain line breaks')
  if (id !== undefined && BAD_ID.test(id)) throw new Error('SSE ids must not contain line breaks or NUL')
  const lines = LINE_BREAK.test(data) ? data.split(/\r\n|\r|\n/).join('\ndata: ') : data
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${lines}\n\n`
}

/**
 * A `message` event whose data is JSON text (JSON.stringify output): JSON escapes every control
 * character, so the text holds no line break to split, and it needs no scan for one. Equal to
 * `formatEvent(json, 'message', id)`.
 *
 * @example
 * jsonEvent(JSON.stringify(message)) // 'event: message\ndata: {...}\n\n'
 */
export function jsonEvent(json: string, id?: string): string {
  if (id === undefined) return `event: message\ndata: ${json}\n\n`
  if (BAD_ID.test(id)) throw new Error('SSE ids must not contain line breaks or NUL')
  return `id: ${id}\nevent: message\ndata: ${json}\n\n`
}

export function encodeEvent(data: string, event?: string): Uint8Array {
  return encoder.encode(formatEvent(data, event))
}
