/** Declarations for api-report.mjs (test/unit/api-report.test.ts imports it). */
export function entryPoints(pkg: { exports: Record<string, unknown> }): Record<string, string>
export function report(name: string, entry: string, root?: string): string
export function compare(options?: { root?: string; out?: string; update?: boolean }): {
  entries: string[]
  problems: string[]
}
