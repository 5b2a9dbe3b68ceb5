/** Declarations for pin-templates.mjs (test/unit/release.test.ts imports it). */
export function pinTemplates(root?: string, options?: { check?: boolean }): { version: string; stale: string[] }
