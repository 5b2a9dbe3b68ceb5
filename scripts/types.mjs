#!/usr/bin/env node
/**
 * `npm run types`: regenerate the Env types of every Worker config with `wrangler types`, and
 * the Workers runtime types once. `npm run types -- --check` (a step of `npm test`) regenerates
 * nothing and fails when any of them is out of date, so a binding changed in a wrangler.jsonc
 * without `npm run types` fails the tests.
 *
 * Each config's Env types are `worker-configuration.d.ts` beside it. The repository's own Workers
 * (the demo, fixtures, bench) leave out the runtime types (`--include-runtime=false`): they share
 * one compatibility date and set of flags (test/unit/wrangler-configs.test.ts), so the runtime
 * types, 600 KiB of them, are generated once into types/workers-runtime.d.ts. A template is a
 * user's project: its file is what its own `npm run types` writes in its folder (runtime types
 * included, secrets from .dev.vars.example), so `npm run check` in a scaffolded copy agrees.
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
  // Not node_modules, dot folders, or create-mcp-edge's copy of the templates (made only while packing).
  const skip = (name) => name === 'node_modules' || name.startsWith('.') || name === 'packages/create-mcp-edge/templates'
  const configs = globSync('**/wrangler.jsonc', { cwd: ROOT, exclude: skip })
  return [
    ...configs.sort().map((config) =>
      config.startsWith('templates/')
        ? {
            cwd: dirname(config),
            out: join(dirname(config), 'worker-configuration.d.ts'),
            argv: ['--env-file', '.dev.vars.example'],
          }
        : {
            argv: ['-c', config, '--include-runtime=false', join(dirname(config), 'worker-configuration.d.ts')],
            out: join(dirname(config), 'worker-configuration.d.ts'),
          },
    ),
    {
      argv: ['-c', 'apps/demo/wrangler.jsonc', '--include-env=false', 'types/workers-runtime.d.ts'],
      out: 'types/workers-runtime.d.ts',
    },
  ]
}

function run({ cwd = '.', out, argv }) {
  // --check reads the options a file was generated with from its header: only the config and
  // the file are given again.
  const given = check
    ? [...argv.filter((arg, i) => arg === '-c' || argv[i - 1] === '-c' || arg.endsWith('.d.ts')), '--check']
    : argv
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WRANGLER, 'types', ...given], {
      cwd: join(ROOT, cwd),
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
