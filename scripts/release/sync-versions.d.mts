/** Declarations for sync-versions.mjs (test/unit/release.test.ts imports it). */
export function syncVersions(root?: string, options?: { check?: boolean }): { version: string; stale: string[] }
