#!/usr/bin/env node
/**
 * `npm run typecheck`: every TypeScript program of the repository, one `tsc -p` each. Each Worker
 * is its own program because each has its own generated Env (tsconfig.base.json says why).
 * Exits non-zero if any fails; `npm test` runs the same list (scripts/test.mjs imports it).
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const PROGRAMS = [
  ['the template Worker and the library', 'tsconfig.json'],
  ['the OAuth mode', 'oauth/tsconfig.json'],
  ['the conformance fixture and the workerd tests', 'test/fixture/tsconfig.json'],
  ['the JWT fixture', 'test/fixture/jwt/tsconfig.json'],
  ['Node: tests, bench, scripts', 'tsconfig.node.json'],
  ['the playground page', 'playground/tsconfig.json'],
]

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let failed = 0
  for (const [name, project] of PROGRAMS) {
    const run = spawnSync('npx', ['tsc', '-p', project], { stdio: 'inherit' })
    if (run.status !== 0) {
      failed++
      console.error(`✗ typecheck of ${name} (${project}) failed`)
    }
  }
  process.exit(failed === 0 ? 0 : 1)
}
