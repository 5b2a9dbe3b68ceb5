// Types of targets.mjs, for the test that imports it (test/unit/bench-stats.test.ts).
export declare const BUNDLE_BUDGET_KIB: number
export declare const TOOLS_HEAP_BUDGET_BYTES: number
export declare function evaluateTargets(results: Record<string, unknown>): Record<string, unknown>[]
export declare function judge(target: {
  measured: number
  limit: number
  atMost: boolean
  interval?: [number, number] | undefined
}): { met: boolean; missedBy: number; settled: boolean }
export declare const SCALE_LAST_P99_MS: Record<number, number>
export declare function scaleTargets(scale: unknown): Record<string, unknown>[]
export declare const WORKERS_STARTUP_LIMIT_MS: number
export declare function startupOverFloorTarget(rounds: Record<string, { cpuMs: number }>[]): {
  id: string
  name: string
  limit: number
  measured: number
  interval: [number, number]
  range: [number, number]
  atMost: boolean
  unit: string
  gap: () => string
}
export declare function startupSchemasGap(
  rounds: Record<string, { cpuMs: number }>[],
  count: number,
): (cut: number, tools5Startup: number) => string
