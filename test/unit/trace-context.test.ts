/**
 * W3C Trace Context as mcp-edge reads it (server/telemetry/trace-context.ts): strict, and a
 * malformed value is ignored, never an error.
 */
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import {
  extractContext,
  formatTraceparent,
  parseTraceparent,
  parseTracestate,
  randomId,
} from '../../packages/mcp-edge/src/server/telemetry/trace-context.ts'

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'

describe('traceparent', () => {
  it('reads version 00, and a later version with more fields after the flags', () => {
    expect(parseTraceparent(VALID)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
    })
    expect(parseTraceparent(`cc${VALID.slice(2)}-what-the-future-holds`)?.traceFlags).toBe(1)
    expect(formatTraceparent(parseTraceparent(VALID)!)).toBe(VALID)
  })

  it.each([
    ['version ff', `ff${VALID.slice(2)}`],
    ['version 00 with more fields', `${VALID}-extra`],
    ['a later version without a dash after the flags', `01${VALID.slice(2)}x`],
    ['uppercase hex', VALID.toUpperCase()],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['an all-zero span id', `00-4bf92f3577b34da6a3ce929d0e0e4736-${'0'.repeat(16)}-01`],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['wrong separators', VALID.replaceAll('-', '_')],
    ['non-hex flags', `${VALID.slice(0, 53)}zz`],
    ['an empty string', ''],
    ['a number', 42],
    ['something very long', `01${VALID.slice(2)}-${'a'.repeat(600)}`],
  ])('ignores %s', (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined()
  })

  it('never throws, whatever it is given (10,000 generated values)', () => {
    const hexChars = fc.constantFrom(...'0123456789abcdefABCDEF-x'.split(''))
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: hexChars, maxLength: 80 }), fc.anything()), (value) => {
        const parsed = parseTraceparent(value)
        if (parsed) expect(formatTraceparent(parsed)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
      }),
      { numRuns: 10_000 },
    )
  })
})

describe('tracestate', () => {
  it('keeps a well-formed list, and drops all of it when one member is malformed or a key repeats', () => {
    expect(parseTracestate('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE')).toBe('rojo=00f067aa0ba902b7,congo=t61rcWkgMzE')
    expect(parseTracestate('vendor@tenant=x')).toBe('vendor@tenant=x')
    expect(parseTracestate('rojo=1,Congo=2')).toBeUndefined()
    expect(parseTracestate('rojo=1,rojo=2')).toBeUndefined()
    expect(parseTracestate('rojo=a=b')).toBeUndefined()
    expect(parseTracestate(Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(','))).toBeUndefined()
  })

  it('is read only beside a valid traceparent', () => {
    expect(extractContext({ traceparent: VALID, tracestate: 'rojo=1' })?.traceState).toBe('rojo=1')
    expect(extractContext({ traceparent: 'nonsense', tracestate: 'rojo=1' })).toBeUndefined()
    expect(extractContext(undefined)).toBeUndefined()
  })
})

describe('ids', () => {
  it('are lowercase hex of the right length', () => {
    expect(randomId(16)).toMatch(/^[0-9a-f]{32}$/)
    expect(randomId(8)).toMatch(/^[0-9a-f]{16}$/)
  })

  it('never repeat across many refills of the random pool, and draw it once per kilobyte', () => {
    const draws = vi.spyOn(crypto, 'getRandomValues')
    const ids = Array.from({ length: 3000 }, (_, i) => randomId(i % 2 === 0 ? 16 : 8))
    expect(new Set(ids).size).toBe(ids.length)
    // 3000 ids of 16 and 8 bytes: 36,000 bytes, 1024 a draw.
    expect(draws.mock.calls.length).toBeGreaterThanOrEqual(35)
    expect(draws.mock.calls.length).toBeLessThanOrEqual(37)
    draws.mockRestore()
  })

  it("spell the pool's bytes in order, two digits each, and skip an id of zeros", () => {
    // A pool whose first 16 bytes are zero (an invalid trace id) and whose next ones are known.
    const byteAt = (i: number) => (i < 16 ? 0 : (i * 37) & 255)
    const draws = vi.spyOn(crypto, 'getRandomValues').mockImplementation((array) => {
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength)
      for (let i = 0; i < bytes.length; i++) bytes[i] = byteAt(i)
      return array
    })
    let id = ''
    // Ids from the pool already drawn, up to the one made right after the (mocked) refill.
    while (draws.mock.calls.length === 0) id = randomId(16)
    const hex = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => byteAt(from + i))
        .map((byte) => byte.toString(16).padStart(2, '0'))
        .join('')
    expect(id).toBe(hex(16, 16))
    expect(randomId(8)).toBe(hex(32, 8))
    draws.mockRestore()
  })
})
