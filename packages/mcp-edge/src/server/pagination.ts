/**
 * Cursor pagination for the list methods (server/utilities/pagination). Cursors are opaque
 * base64url offsets; anything that does not decode to an offset inside the list is -32602.
 * Registration order is the list order, so pages are deterministic.
 */
import { decodeBase64Url, encodeBase64Url } from '../protocol/base64.ts'
import { McpError } from '../protocol/errors.ts'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export interface Page<T> {
  items: T[]
  nextCursor?: string
}

/**
 * @example
 * const { items, nextCursor } = paginate(allTools, params.cursor, 50)
 */
export function paginate<T>(all: readonly T[], cursor: unknown, pageSize: number): Page<T> {
  const start = cursor === undefined || cursor === '' ? 0 : decodeCursor(cursor, all.length)
  const items = all.slice(start, start + pageSize)
  const end = start + items.length
  return end < all.length ? { items, nextCursor: encodeBase64Url(encoder.encode(`o${end}`)) } : { items }
}

function decodeCursor(cursor: unknown, length: number): number {
  const bytes = typeof cursor === 'string' ? decodeBase64Url(cursor) : undefined
  const match = bytes ? /^o(\d{1,9})$/.exec(decoder.decode(bytes)) : null
  const offset = match ? Number(match[1]) : Number.NaN
  if (!(offset >= 0 && offset <= length)) throw new McpError('invalidParams', 'Invalid params: invalid cursor')
  return offset
}
