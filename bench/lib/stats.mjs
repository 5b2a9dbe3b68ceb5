/** Small statistics helpers: medians, percentiles and a median's confidence interval, of plain number arrays. */

export function percentile(values, p) {
  if (values.length === 0) return Number.NaN
  const sorted = Float64Array.from(values).sort()
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[rank]
}

export const median = (values) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export const sum = (values) => values.reduce((total, value) => total + value, 0)

/** The fewest values `medianInterval` resamples. */
export const MIN_RESAMPLED = 5

/**
 * A confidence interval of the median of `values` (by default 95%): the percentile bootstrap,
 * `resamples` medians of as many values drawn with replacement, and their 2.5th and 97.5th
 * percentiles. The draws come from a fixed seed, so the same values always give the same
 * interval (a report read twice says the same). With alternated rounds, `values` are per-round
 * ratios: the interval says how far another run of as many rounds could put the median. Below
 * `MIN_RESAMPLED` values it is `[NaN, NaN]`.
 */
export function medianInterval(values, { level = 0.95, resamples = 2000, seed = 1 } = {}) {
  // Fewer values than this (a quick run's two rounds) resample into their own range: no interval.
  if (values.length < MIN_RESAMPLED) return [Number.NaN, Number.NaN]
  const random = mulberry32(seed)
  const sample = new Float64Array(values.length)
  const medians = new Float64Array(resamples)
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < values.length; i++) sample[i] = values[Math.floor(random() * values.length)]
    medians[r] = median(sample)
  }
  const tail = ((1 - level) / 2) * 100
  return [percentile(medians, tail), percentile(medians, 100 - tail)]
}

/** A small seeded generator of uniform numbers in [0, 1) (Mulberry32): reproducible draws, not secrets. */
function mulberry32(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
