#!/usr/bin/env node
/**
 * `npm run types`: regenerate the Env types of every Worker config with `wrangler types`, and
 * the Workers runtime types once. `npm run types -- --check` (a step of `npm test`) regenerates
 * nothing and fails when any of them is out of date, so a binding changed in a wrangler.jsonc
 * without `npm run types` fails the tests.
 *
 * Each config's Env types are `worker-configuration.d.ts` beside it, without the runtime types
 * (`--include-runtime=false`): every Worker here shares one compatibility date and set of flags
 * (test/unit/wrangler-configs.test.ts), so the runtime types, 600 KiB of them, are generated once
 * into types/workers-runtime.d.ts and each tsconfig includes that file beside its Worker's Env.
 * Every wrangler.jsonc under the repository is found, so a new one cannot be forgotten.
 */
import { spawn } from 'node:child_process'
import { globSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js')
const check = process.argv.includes('--check')

/** Every Worker config, and the runtime types (from the template's config, whose date and flags all share). */
export function typeTargets() {
  const configs = globSync('**/wrangler.jsonc', { cwd: ROOT, exclude: (name) => name === 'node_modules' || name.startsWith('.') })
  return [
    ...configs.sort().map((config) => ({
      config,
      out: join(dirname(config), 'worker-configuration.d.ts'),
      args: ['--include-runtime=false'],
    })),
    { config: 'wrangler.jsonc', out: 'types/workers-runtime.d.ts', args: ['--include-env=false'] },
  ]
}

function run({ config, out, args }) {
  // --check reads the options a file was generated with from its header, so it takes none.
  const argv = [WRANGLER, 'types', '-c', config, ...(check ? ['--check'] : args), out]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (code) => resolve({ out, ok: code === 0, output }))
  })
}

const targets = typeTargets()
const results = []
let next = 0
await Promise.all(
  Array.from({ length: Math.min(availableParallelism(), targets.length) }, async () => {
    while (next < targets.length) results.push(await run(targets[next++]))
  }),
)
const failed = results.filter((result) => !result.ok)
for (const result of failed) console.error(`✗ ${result.out}\n${result.output.trim()}\n`)
const verb = check ? 'up to date' : 'written'
console.log(`${results.length - failed.length} of ${results.length} type files ${verb}`)
if (failed.length > 0) {
  if (check) console.error('Run `npm run types` after changing a wrangler.jsonc, and commit the result.')
  process.exit(1)
}
