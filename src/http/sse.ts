/**
 * The one SSE formatter. `data` is split on every line break so a payload can never end an
 * event early, and an event name may not carry CR or LF (no injection of extra fields).
 * JSON-RPC messages serialise to a single line, but the formatter does not rely on it.
 */

const encoder = new TextEncoder()

/** `:` comment line that keeps proxies from closing an idle stream (streamable-http keep-alive). */
export const KEEPALIVE = encoder.encode(':\n\n')

/**
 * Format one SSE event.
 *
 * @example
 * formatEvent(JSON.stringify(message))          // 'event: message\ndata: {...}\n\n'
 */
export function formatEvent(data: string, event = 'message'): string {
  if (/[\r\n]/.test(event)) throw new Error('SSE event names must not contain line breaks')
  return `event: ${event}\ndata: ${data.split(/\r\n|\r|\n/).join('\ndata: ')}\n\n`
}

export function encodeEvent(data: string, event?: string): Uint8Array {
  return encoder.encode(formatEvent(data, event))
}
