import { describe, expect, it } from 'vitest'
import { encodeBase64Url } from '../../packages/mcp-edge/src/protocol/base64.ts'
import { paginate } from '../../packages/mcp-edge/src/server/pagination.ts'
import { caught } from './support.ts'

const items = (count: number) => Array.from({ length: count }, (_, index) => `item-${index}`)
const cursorOf = (text: string) => encodeBase64Url(new TextEncoder().encode(text))

describe('paginate', () => {
  it('returns the first page and a cursor when more items follow', () => {
    const page = paginate(items(10), undefined, 3)
    expect(page.items).toEqual(['item-0', 'item-1', 'item-2'])
    expect(typeof page.nextCursor).toBe('string')
  })

  it('walks every item exactly once, in order, and the last page has no cursor', () => {
    const all = items(10)
    const seen: string[] = []
    const pageSizes: number[] = []
    let cursor: string | undefined
    do {
      const page = paginate(all, cursor, 3)
      seen.push(...page.items)
      pageSizes.push(page.items.length)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    expect(seen).toEqual(all)
    expect(pageSizes).toEqual([3, 3, 3, 1])
  })

  it('gives no cursor when the list ends exactly at a page boundary', () => {
    const first = paginate(items(6), undefined, 3)
    const second = paginate(items(6), first.nextCursor, 3)
    expect(second).toEqual({ items: ['item-3', 'item-4', 'item-5'] })
  })

  it('returns everything without a cursor when one page holds it', () => {
    expect(paginate(items(2), undefined, 50)).toEqual({ items: ['item-0', 'item-1'] })
    expect(paginate([], undefined, 50)).toEqual({ items: [] })
  })

  it('treats the empty-string cursor as a valid cursor for the start', () => {
    expect(paginate(items(5), '', 2)).toEqual(paginate(items(5), undefined, 2))
  })

  it('accepts a cursor that points at the end of the list (the list shrank)', () => {
    expect(paginate(items(3), cursorOf('o3'), 2)).toEqual({ items: [] })
  })

  it('rejects a cursor it did not issue with -32602', () => {
    for (const cursor of [
      'garbage!!',
      'AAAA',
      cursorOf('o4'),
      cursorOf('o-1'),
      cursorOf('x1'),
      cursorOf('o1 '),
      `${cursorOf('o1')}=`,
      3,
      null,
      {},
    ]) {
      const error = caught(() => paginate(items(3), cursor, 2))
      expect(error.kind).toBe('invalidParams')
      expect(error.code).toBe(-32602)
      expect(error.message).toBe('Invalid params: invalid cursor')
    }
  })
})
