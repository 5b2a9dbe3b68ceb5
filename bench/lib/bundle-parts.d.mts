// Types of bundle-parts.mjs, for the test that imports it (test/unit/bench-bundle-parts.test.ts).
export interface SourceRun {
  source: string
  start: number
  end: number
}
export interface PartShare {
  part: string
  bytes: number
  gzipShare: number
}
export declare function sourceRuns(code: string, map: { sources: string[]; mappings: string }): SourceRun[]
export declare function partShares(
  code: string,
  runs: SourceRun[],
  partOf: (source: string) => string,
): { gzipBytes: number; rows: PartShare[] }
export declare function templatePart(source: string, depth?: number): string
