/**
 * The lazy abort signal a handler sees as `ctx.signal` (src/server/cancellation.ts): made on first
 * use, the same object at every read (a streaming tool reads it per chunk), aborted by its own
 * `abort()` or its parent's, whether that came before or after the first read.
 */
import { describe, expect, it } from 'vitest'
import { LazyAbort } from '../../packages/mcp-edge/src/server/cancellation.ts'

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
    expect(new LazyAbort(aborted.signal).signal.aborted).toBe(true)
  })
})
