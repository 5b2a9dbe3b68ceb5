#!/usr/bin/env node
/**
 * `npm run typecheck`: every TypeScript program of the repository, one `tsc -p` each. Each Worker
 * is its own program because each has its own generated Env (tsconfig.base.json says why). The
 * demo, the JWT fixture and the templates import `mcp-edge` as users do, from its built
 * declarations (`npm run build` first). Exits non-zero if any fails; `npm test` runs the same list.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const PROGRAMS = [
  ['the library', 'packages/mcp-edge/tsconfig.json'],
  ['the demo Worker', 'apps/demo/tsconfig.json'],
  ['the demo in OAuth mode', 'apps/demo/oauth/tsconfig.json'],
  ['the playground page', 'apps/demo/playground/tsconfig.json'],
  ['the conformance fixture and the workerd tests', 'test/fixture/tsconfig.json'],
  ['the JWT fixture', 'test/fixture/jwt/tsconfig.json'],
  ["the adapter's test Worker (mcp-edge/sdk)", 'test/adapter/tsconfig.json'],
  ['the minimal template', 'templates/minimal/tsconfig.json'],
  ['the durable template', 'templates/durable/tsconfig.json'],
  ["the durable template's view", 'templates/durable/view/tsconfig.json'],
  ['the oauth template', 'templates/oauth/tsconfig.json'],
  ["the bench's mcp-edge/sdk Worker", 'bench/workers/edge-sdk/tsconfig.json'],
  ['Node: tests, bench, scripts', 'tsconfig.node.json'],
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
