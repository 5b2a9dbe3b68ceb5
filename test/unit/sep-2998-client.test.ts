/**
 * SEP-2998 client obligations, checked on the exported client helper (mcp-edge/client).
 */
import { describe, expect, it } from 'vitest'
import { PartialResultReader } from '../../packages/mcp-edge/src/client/partial-results.ts'

const chunk = (seq: number, token: string | number = 'prt') => ({
  partialResultToken: token,
  seq,
  content: [{ type: 'text', text: `c${seq}` }],
})
const seqs = (events: Array<{ type: string; seq?: number; from?: number; to?: number }>) =>
  events.map((event) => (event.type === 'partial' ? event.seq : `gap ${event.from}-${event.to}`))

describe('PartialResultReader (SEP-2998 client rules)', () => {
  it('sep-2998-client-order: applies chunks in seq order, buffering early ones', () => {
    const reader = new PartialResultReader('prt')
    expect(seqs(reader.accept(chunk(1)))).toEqual([])
    expect(seqs(reader.accept(chunk(2)))).toEqual([])
    expect(seqs(reader.accept(chunk(0)))).toEqual([0, 1, 2])
    expect(reader.nextSeq).toBe(3)
  })

  it('sep-2998-client-gaps: tolerates missing chunks, reporting the gap instead of waiting forever', () => {
    const reader = new PartialResultReader('prt', { maxBuffered: 2 })
    reader.accept(chunk(0))
    expect(seqs(reader.accept(chunk(3)))).toEqual([])
    expect(seqs(reader.accept(chunk(4)))).toEqual([])
    expect(seqs(reader.accept(chunk(5)))).toEqual(['gap 1-2', 3, 4, 5])
    reader.accept(chunk(7))
    expect(seqs(reader.finish())).toEqual(['gap 6-6', 7])
  })

  it('sep-2998-client-foreign-token: ignores chunks carrying a token it did not issue', () => {
    const reader = new PartialResultReader('prt')
    expect(reader.accept(chunk(0, 'someone-else'))).toEqual([])
    expect(reader.accept(chunk(0, 7))).toEqual([])
    expect(reader.dropped).toBe(2)
    expect(seqs(reader.accept(chunk(0)))).toEqual([0])
  })

  it('sep-2998-client-duplicates: never applies the same seq twice', () => {
    const reader = new PartialResultReader('prt')
    reader.accept(chunk(0))
    reader.accept(chunk(2))
    expect(reader.accept(chunk(0))).toEqual([])
    expect(reader.accept(chunk(2))).toEqual([])
    expect(reader.dropped).toBe(2)
    expect(seqs(reader.accept(chunk(1)))).toEqual([1, 2])
  })
})
