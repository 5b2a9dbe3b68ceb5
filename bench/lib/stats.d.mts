// Types of stats.mjs, for the test that imports it (test/unit/bench-stats.test.ts).
export declare function percentile(values: ArrayLike<number>, p: number): number
export declare function median(values: ArrayLike<number> & Iterable<number>): number
export declare function sum(values: number[]): number
export declare const MIN_RESAMPLED: number
export declare function medianInterval(
  values: number[],
  options?: { level?: number; resamples?: number; seed?: number },
): [number, number]
