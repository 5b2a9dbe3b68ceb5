#!/usr/bin/env node
/**
 * `npm run types`: regenerate the Env types of every Worker config with `wrangler types`, and
 * the Workers runtime types once. `npm run types -- --check` (a step of `npm test`) writes
 * nothing and fails when any file is not what `wrangler types` would write now, so a binding
 * changed in a wrangler.jsonc without `npm run types` fails the tests.
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
import { existsSync, globSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { experimental_generateTypes as generateTypes } from 'wrangler'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js')
const check = process.argv.includes('--check')

/**
 * Every Worker config, and the runtime types (from the demo's config, whose date and flags all
 * share): each as `wrangler types` arguments (`argv`, run in `cwd`) and as the same options of
 * wrangler's `experimental_generateTypes` (`options`), the function behind that command.
 */
export function typeTargets() {
  // Not node_modules, dot folders, or create-mcp-edge's copy of the templates (made only while packing).
  const skip = (name) => name === 'node_modules' || name.startsWith('.') || name === 'packages/create-mcp-edge/templates'
  const configs = globSync('**/wrangler.jsonc', { cwd: ROOT, exclude: skip })
  return [
    ...configs.sort().map((config) => {
      const out = join(dirname(config), 'worker-configuration.d.ts')
      return config.startsWith('templates/')
        ? {
            cwd: dirname(config),
            out,
            argv: ['--env-file', '.dev.vars.example'],
            options: { envFile: ['.dev.vars.example'], path: 'worker-configuration.d.ts' },
          }
        : {
            out,
            argv: ['-c', config, '--include-runtime=false', out],
            options: { config, includeRuntime: false, path: out },
          }
    }),
    {
      out: 'types/workers-runtime.d.ts',
      argv: ['-c', 'apps/demo/wrangler.jsonc', '--include-env=false', 'types/workers-runtime.d.ts'],
      options: { config: 'apps/demo/wrangler.jsonc', includeEnv: false, path: 'types/workers-runtime.d.ts' },
    },
  ]
}

/** `wrangler types`, writing one target's file. */
function write({ cwd = '.', out, argv }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WRANGLER, 'types', ...argv], {
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

/**
 * Whether one target's file is what `wrangler types` would write now, byte for byte: generated
 * in this process by the function behind that command (one wrangler start for all 40-odd files,
 * against 2 s of CPU each as `wrangler types --check`), in the folder the command runs in.
 */
async function isCurrent({ cwd = '.', out, options }) {
  process.chdir(join(ROOT, cwd))
  try {
    const { content } = await generateTypes(options)
    const ok = existsSync(options.path) && readFileSync(options.path, 'utf8') === content
    return { out, ok, output: ok ? '' : `${out} differs from what \`wrangler types\` writes now` }
  } catch (error) {
    return { out, ok: false, output: String(error) }
  } finally {
    process.chdir(ROOT)
  }
}

const targets = typeTargets()
const results = []
if (check) {
  for (const target of targets) results.push(await isCurrent(target))
} else {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(availableParallelism(), targets.length) }, async () => {
      while (next < targets.length) results.push(await write(targets[next++]))
    }),
  )
}
const failed = results.filter((result) => !result.ok)
for (const result of failed) console.error(`✗ ${result.out}\n${result.output.trim()}\n`)
const verb = check ? 'up to date' : 'written'
console.log(`${results.length - failed.length} of ${results.length} type files ${verb}`)
if (failed.length > 0) {
  if (check) console.error('Run `npm run types` after changing a wrangler.jsonc, and commit the result.')
  process.exit(1)
}
