/**
 * Read a request body with a hard byte limit. A declared `Content-Length` over the limit is
 * refused before anything is read, and one within it is read natively; a body without a length
 * (chunked) is read chunk by chunk and abandoned the moment it passes the limit, so an unbounded
 * body is never buffered.
 */
import { HEADER } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

/**
 * @example
 * const text = await readBody(request, 1_000_000) // throws McpError('payloadTooLarge')
 */
export function readBody(request: Request, maxBytes: number, headers: Headers = request.headers): Promise<string> {
  const declared = headers.get(HEADER.contentLength)
  if (declared !== null) {
    if (Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes))
    // The runtime never hands over more than a declared length, so the fast native read is safe
    // (and, returned as it is, costs no promise of this function's own).
    return request.text()
  }
  return readChunks(request, maxBytes)
}

/** A body without a declared length, chunk by chunk, abandoned once past the limit. */
async function readChunks(request: Request, maxBytes: number): Promise<string> {
  if (request.body === null) return ''
  const reader = request.body.getReader()
  // A streaming decoder keeps a character split across chunks whole.
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    text += decoder.decode(value, { stream: true })
  }
}

function tooLarge(maxBytes: number): McpError {
  return new McpError('payloadTooLarge', `Request body too large: the limit is ${maxBytes} bytes`)
}
