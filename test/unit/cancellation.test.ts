/**
 * The lazy abort signal a handler sees as `ctx.signal` (src/server/cancellation.ts): made on first
 * use, the same object at every read (a streaming tool reads it per chunk), aborted by its own
 * `abort()` or its parent's, whether that came before or after the first read.
 */
import { describe, expect, it } from 'vitest'
import { LazyAbort } from '../../packages/mcp-edge/src/server/cancellation.ts'
import type { PartialChunk } from '../../packages/mcp-edge/src/server/outbox.ts'
import { emptyStats } from '../../packages/mcp-edge/src/server/outbox.ts'
import { RequestScope } from '../../packages/mcp-edge/src/server/scope.ts'

/** A parent whose `aborted` reads are counted. */
const countedParent = () => {
  const parent = new AbortController()
  const counted = { parent, reads: 0 }
  const read = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')?.get as () => boolean
  Object.defineProperty(parent.signal, 'aborted', {
    get() {
      counted.reads++
      return read.call(this)
    },
  })
  return counted
}

describe('LazyAbort', () => {
  it('gives the same signal at every read', () => {
    const cancel = new LazyAbort()
    const signal = cancel.signal
    expect(cancel.signal).toBe(signal)
    expect(signal.aborted).toBe(false)
  })

  it('aborts the signal it already gave, and one read only after the abort', () => {
    const early = new LazyAbort()
    const signal = early.signal
    early.abort()
    expect(signal.aborted).toBe(true)
    expect(early.signal).toBe(signal)

    const late = new LazyAbort()
    late.abort()
    expect(late.aborted).toBe(true)
    expect(late.signal.aborted).toBe(true)
  })

  it('follows its parent, before and after the first read', () => {
    const parent = new AbortController()
    const cancel = new LazyAbort(parent.signal)
    const signal = cancel.signal
    parent.abort()
    expect(signal.aborted).toBe(true)
    expect(cancel.aborted).toBe(true)

    const aborted = new AbortController()
    aborted.abort()
    const late = new LazyAbort(aborted.signal)
    expect(late.signal.aborted).toBe(true)
    expect(late.aborted).toBe(true)
  })

  it("once watching (ctx.partial), knows of the parent's abort without reading the parent or making a signal", () => {
    const counted = countedParent()
    const cancel = new LazyAbort(counted.parent.signal)
    cancel.watch()
    counted.reads = 0
    for (let i = 0; i < 3; i++) expect(cancel.aborted).toBe(false)
    counted.parent.abort()
    expect(cancel.aborted).toBe(true)
    expect(counted.reads).toBe(0)
    // The signal made afterwards is aborted already, and one made before follows the abort.
    expect(cancel.signal.aborted).toBe(true)
    const early = new LazyAbort(counted.parent.signal)
    early.watch()
    expect(early.aborted).toBe(true)
    const other = new AbortController()
    const before = new LazyAbort(other.signal)
    before.watch()
    const signal = before.signal
    other.abort()
    expect(signal.aborted).toBe(true)
  })

  it("once its signal is made, knows of the parent's abort without reading the parent again", () => {
    const counted = countedParent()
    const parent = counted.parent
    const cancel = new LazyAbort(parent.signal)
    expect(cancel.aborted).toBe(false)
    expect(counted.reads).toBe(1)
    const signal = cancel.signal
    counted.reads = 0
    for (let i = 0; i < 3; i++) expect(cancel.aborted).toBe(false)
    parent.abort()
    expect(cancel.aborted).toBe(true)
    expect(signal.aborted).toBe(true)
    expect(counted.reads).toBe(0)
  })
})

describe('ctx.partial and cancellation', () => {
  /** A scope whose partial results land in `sent`, cancelled through `cancel`. */
  const scopeOf = (cancel: LazyAbort | { signal: AbortSignal }, sent: PartialChunk[]) =>
    new RequestScope({
      requestId: 1,
      method: 'tools/call',
      meta: {} as never,
      env: {},
      principal: undefined,
      cancel,
      input: undefined as never,
      state: {},
      round: 0,
      partials: { push: async (chunk) => void sent.push(chunk), stats: emptyStats },
    })

  it('sends nothing once the parent aborted, whether or not the tool made ctx.signal', async () => {
    for (const made of [false, true]) {
      const parent = new AbortController()
      const cancel = new LazyAbort(parent.signal)
      const sent: PartialChunk[] = []
      const ctx = scopeOf(cancel, sent)
      if (made) expect(ctx.signal.aborted).toBe(false)
      await ctx.partial('before')
      parent.abort()
      await ctx.partial('after')
      expect(sent.map((chunk) => chunk.content)).toEqual([[{ type: 'text', text: 'before' }]])
    }
  })

  it('reads the parent signal once for a stream of chunks, though the tool never made ctx.signal', async () => {
    const counted = countedParent()
    const sent: PartialChunk[] = []
    const ctx = scopeOf(new LazyAbort(counted.parent.signal), sent)
    for (let i = 0; i < 5; i++) await ctx.partial(`chunk ${i}`)
    expect(sent).toHaveLength(5)
    expect(counted.reads).toBeLessThanOrEqual(1)
  })

  it('checks a plain signal (a task run) at each chunk', async () => {
    const controller = new AbortController()
    const sent: PartialChunk[] = []
    const ctx = scopeOf({ signal: controller.signal }, sent)
    await ctx.partial('before')
    controller.abort()
    await ctx.partial('after')
    expect(sent).toHaveLength(1)
  })

  it('sends nothing after its own abort (notifications/cancelled)', async () => {
    const cancel = new LazyAbort()
    const sent: PartialChunk[] = []
    const ctx = scopeOf(cancel, sent)
    cancel.abort()
    await ctx.partial('after')
    expect(sent).toEqual([])
  })
})
