/**
 * The log's clock text (telemetry/log.ts `isoTime`): exactly `Date.prototype.toISOString`'s, which
 * it replaces on the log's path because an isolate's first `toISOString` is dear.
 */
import { describe, expect, it } from 'vitest'
import { isoTime } from '../../packages/mcp-edge/src/server/telemetry/log.ts'

/** The first and the last millisecond of years 0–9999: the range isoTime formats itself. */
const FIRST = new Date(0).setUTCFullYear(0, 0, 1)
const LAST = new Date(0).setUTCFullYear(9999, 11, 31) + 86_399_999

describe('isoTime', () => {
  it("equals toISOString over years 0–9999, at random and at every field's edges", () => {
    // A fixed-seed generator, so a failure names a time that fails again.
    let seed = 38
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const times = [
      FIRST,
      LAST,
      0,
      -1,
      1,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(1900, 1, 28, 12),
      Date.UTC(2026, 11, 5, 4, 0, 0, 7),
    ]
    for (let i = 0; i < 100_000; i++) times.push(Math.floor(FIRST + random() * (LAST - FIRST)))
    // Every year's first and last millisecond: leap years, century rules, padding below year 1000.
    for (let year = 0; year <= 9999; year += 1) {
      const start = new Date(0).setUTCFullYear(year, 0, 1)
      times.push(start, start - 1, start + 59 * 86_400_000)
    }
    for (const ms of times.filter((t) => t >= FIRST && t <= LAST)) {
      if (isoTime(ms) !== new Date(ms).toISOString()) expect(isoTime(ms)).toBe(new Date(ms).toISOString())
    }
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z')
    expect(isoTime(FIRST)).toBe('0000-01-01T00:00:00.000Z')
    expect(isoTime(LAST)).toBe('9999-12-31T23:59:59.999Z')
  })

  it('leaves years outside 0–9999 and invalid times to toISOString', () => {
    expect(isoTime(FIRST - 1)).toBe('-000001-12-31T23:59:59.999Z')
    expect(isoTime(LAST + 1)).toBe('+010000-01-01T00:00:00.000Z')
    expect(() => isoTime(Number.NaN)).toThrow(RangeError)
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError)
  })
})
