/**
 * The bench's verdict arithmetic (bench/lib/stats.mjs, compare.mjs, targets.mjs): the 95% interval
 * of a median of per-round ratios, by resampling the rounds, and whether a target's verdict is
 * settled by it. Checked on known distributions: an interval that is too narrow or too wide, or
 * percentiles taken at the wrong ends, fail the coverage test.
 */
import { describe, expect, it } from 'vitest'
import { describeRatio, ratioInterval } from '../../bench/lib/compare.mjs'
import { peerTargets } from '../../bench/lib/peers.mjs'
import { MIN_RESAMPLED, median, medianInterval } from '../../bench/lib/stats.mjs'
import {
  judge,
  scaleTargets,
  startupOverFloorTarget,
  startupSchemasGap,
  WORKERS_STARTUP_LIMIT_MS,
} from '../../bench/lib/targets.mjs'

/** The test's own seeded draws (a linear congruential generator), independent of the bench's. */
function draws(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 4294967296
  }
}

describe('medianInterval', () => {
  it('is a point for constant values, and no interval for fewer values than it resamples', () => {
    expect(medianInterval([1.2, 1.2, 1.2, 1.2, 1.2])).toEqual([1.2, 1.2])
    expect(MIN_RESAMPLED).toBe(5)
    for (const few of [[], [1.1], [1.1, 1.3, 1.2, 1.25]]) expect(medianInterval(few).every(Number.isNaN)).toBe(true)
  })

  it('holds the median, is neither the whole range nor a point, and is the same on every reading', () => {
    const values = Array.from({ length: 99 }, (_, i) => i + 1)
    const [low, high] = medianInterval(values)
    expect(low).toBeLessThan(median(values))
    expect(high).toBeGreaterThan(median(values))
    // The median of 99 uniform values moves by about ±10 at 95%: far from the range's ±49.
    expect(high - low).toBeGreaterThan(8)
    expect(high - low).toBeLessThan(30)
    expect(medianInterval(values)).toEqual([low, high])
  })

  it('narrows as rounds are added', () => {
    const random = draws(7)
    const few = Array.from({ length: 15 }, () => 1 + random())
    const many = Array.from({ length: 90 }, () => 1 + random())
    const width = ([low, high]: number[]) => (high as number) - (low as number)
    expect(width(medianInterval(many))).toBeLessThan(width(medianInterval(few)))
  })

  it('covers the true median about 95% of the time', () => {
    // Samples of 31 from a uniform distribution on [1, 2): the true median is 1.5.
    const random = draws(42)
    const trials = 300
    let covered = 0
    for (let t = 0; t < trials; t++) {
      const sample = Array.from({ length: 31 }, () => 1 + random())
      const [low, high] = medianInterval(sample, { resamples: 1000, seed: t + 1 })
      if (low <= 1.5 && 1.5 <= high) covered++
    }
    // A percentile bootstrap of a median of 31 covers a little under its level (about 93%).
    expect(covered / trials).toBeGreaterThan(0.88)
    expect(covered / trials).toBeLessThan(0.995)
  })
})

describe('ratios of alternated rounds', () => {
  const rounds = [1.1, 1.2, 1.3, 1.25, 1.15].map((r) => ({ tree: { cpu: 100 * r }, floor: { cpu: 100 } }))

  it('resamples the per-round ratios', () => {
    const [low, high] = ratioInterval(rounds, 'cpu', 'tree', 'floor')
    expect(low).toBeGreaterThanOrEqual(1.1)
    expect(high).toBeLessThanOrEqual(1.3)
    expect(low).toBeLessThan(high)
  })

  it('prints the median, its interval and the range', () => {
    expect(describeRatio(rounds, 'cpu', 'tree', 'floor')).toMatch(/^1\.200× \(95% 1\.\d\d–1\.\d\d; per round 1\.10–1\.30\)$/)
  })
})

describe('judge', () => {
  const atMost = { limit: 1.15, atMost: true }

  it('is settled when the interval lies on the verdict side of the limit', () => {
    expect(judge({ ...atMost, measured: 1.05, interval: [1.0, 1.11] })).toEqual({ met: true, missedBy: 0, settled: true })
    const missed = judge({ ...atMost, measured: 1.248, interval: [1.21, 1.29] })
    expect(missed).toMatchObject({ met: false, settled: true })
    expect(missed.missedBy).toBeCloseTo(0.085, 3)
  })

  it('is not settled when the limit is inside the interval, either way', () => {
    expect(judge({ ...atMost, measured: 1.12, interval: [1.05, 1.2] })).toMatchObject({ met: true, settled: false })
    expect(judge({ ...atMost, measured: 1.2, interval: [1.1, 1.3] })).toMatchObject({ met: false, settled: false })
    expect(judge({ limit: 2, atMost: false, measured: 2.1, interval: [1.9, 2.3] })).toMatchObject({ met: true, settled: false })
    expect(judge({ limit: 2, atMost: false, measured: 1.8, interval: [1.7, 1.9] })).toMatchObject({ met: false, settled: true })
  })

  it('takes a ratio of too few rounds as not settled, either way', () => {
    const few = [Number.NaN, Number.NaN] as [number, number]
    expect(judge({ ...atMost, measured: 1.05, interval: few })).toMatchObject({ met: true, settled: false })
    expect(judge({ ...atMost, measured: 1.5, interval: few })).toMatchObject({ met: false, settled: false })
    const rounds = [1.1, 1.2].map((r) => ({ tree: { cpu: r }, floor: { cpu: 1 } }))
    expect(describeRatio(rounds, 'cpu', 'tree', 'floor')).toBe('1.150× (95% –; per round 1.10–1.20)')
  })

  it('takes a figure without an interval as settled', () => {
    expect(judge({ limit: 48, atMost: true, measured: 51.8 })).toMatchObject({ met: false, settled: true })
    expect(judge({ limit: 0, atMost: true, measured: 0 })).toEqual({ met: true, missedBy: 0, settled: true })
  })
})

describe('scaleTargets', () => {
  const point = (listeners: number, lastP99Ms: number) => ({ listeners, sessions: listeners / 5, isolates: 4, lastP99Ms })

  it('judges the last delivery p99 at 1,000 and 10,000 listen streams, and nothing else', () => {
    const targets = scaleTargets({ points: [point(1000, 240), point(2000, 900), point(10_000, 1500)] })
    expect(targets.map((t) => [t.id, t.limit, t.met])).toEqual([
      ['scaleLastP99At1000', 250, true],
      ['scaleLastP99At10000', 1000, false],
    ])
    expect(targets[1]?.gap).toBe('500 ms over')
  })

  it('gives a skipped point no verdict, and a failed one a miss that says why', () => {
    const skipped = { ...point(10_000, Number.NaN), failed: 'skipped: …', skipped: true }
    const failed = { ...point(1000, Number.NaN), failed: 'opening listen streams: other side closed' }
    const targets = scaleTargets({ points: [failed, skipped] })
    expect(targets.map((t) => t.id)).toEqual(['scaleLastP99At1000'])
    expect(targets[0]?.met).toBe(false)
    expect(targets[0]?.gap).toBe('the point failed: opening listen streams: other side closed')
  })
})

describe('start-up of 500 zod tools against Workers’ limit', () => {
  const rounds = (overs: number[]) =>
    overs.map((over, i) => ({ hono: { cpuMs: 100 + i }, 'tools-500-eager': { cpuMs: 100 + i + over } }))

  it('is the median per-round CPU above the floor, in ms, against a quarter of the 1 s limit', () => {
    expect(WORKERS_STARTUP_LIMIT_MS).toBe(1000)
    const target = startupOverFloorTarget(rounds([150, 170, 160, 400, 165]))
    expect(target).toMatchObject({ id: 'tools500StartupMs', limit: 250, measured: 165, range: [150, 400], unit: ' ms' })
    expect(judge(target).met).toBe(true)
    const missed = startupOverFloorTarget(rounds([260, 270, 280, 290, 300]))
    expect(judge(missed).met).toBe(false)
    expect(missed.gap()).toBe('≈ 30.0 ms to cut')
  })

  it("words a zod-tool miss with the schemas' own floor (hono-zod-<count>), or without it when a round lacks it", () => {
    const round = (floor: number, tools: number) => ({
      hono: { cpuMs: 100 },
      'hono-zod-200': { cpuMs: 100 + floor },
      'tools-200-eager': { cpuMs: 100 + floor + tools },
    })
    const gap = startupSchemasGap([round(58, 16), round(60, 15), round(57, 17)], 200)
    expect(gap(3.5, 111.8)).toBe(
      "≈ 3.5 ms to cut at the 5-tool server's 111.8 ms; the 200 schemas alone, built by the bare floor with no MCP runtime, " +
        'take 58.0 ms above it (the limit leaves 55.9 ms above the 5-tool server), mcp-edge with the 200 tools 16.0 ms more than that floor',
    )
    expect(startupSchemasGap([{ hono: { cpuMs: 100 } }], 500)(1, 100)).toBe("≈ 1.0 ms to cut at the 5-tool server's 100.0 ms")
  })
})

describe('peer CPU targets against the log-line floor', () => {
  // Each target's own miss wording, with the ratio arithmetic left to `ratioTarget` (tested above).
  const shortOf = (peers: { rounds: Record<string, Record<string, number>>[]; lanes: string[] }) =>
    peerTargets(peers, (_rounds, _metric, _a, _b, fields) => fields)
      .filter((target) => target.id.startsWith('peerCpu:'))
      .map((target) => target.short(20, 700))

  it('says where the limit falls against the floor with a log line: over it, or at or under it', () => {
    const round = (logFloor: number) => ({ 'hono-log': { cpuUsPerRequest: logFloor } })
    const peers = (logFloor: number) => ({
      rounds: [round(logFloor), round(logFloor)],
      lanes: ['hono', 'hono-log', 'edge', 'sdk'],
    })
    expect(shortOf(peers(340))).toEqual([
      "≈ 20 µs/call to cut at sdk's 700 µs; the limit, 350 µs, is 3% over the log-line floor's 340 µs",
    ])
    expect(shortOf(peers(360))).toEqual([
      "≈ 20 µs/call to cut at sdk's 700 µs; the limit, 350 µs, is at or under the log-line floor's 360 µs",
    ])
  })

  it('words a miss without the clause when the rounds have no log-line floor', () => {
    expect(shortOf({ rounds: [{}], lanes: ['hono', 'edge', 'sdk'] })).toEqual(["≈ 20 µs/call to cut at sdk's 700 µs"])
  })
})
