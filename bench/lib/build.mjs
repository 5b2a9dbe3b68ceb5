/**
 * Builds a bench Worker exactly as a deploy would (`wrangler deploy --dry-run --outdir`) and
 * measures the bundle: raw bytes and gzip bytes (zlib level 6, the figure wrangler prints as
 * "Total Upload … / gzip …"). `minify: false` overrides the `minify = true` of the config.
 */
import { spawn, spawnSync } from 'node:child_process'
import { copyFileSync, cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { gzipSync } from 'node:zlib'
import { BENCH_DIR, ROOT, TMP } from './env.mjs'

const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js')

export function configPath(worker) {
  return join(BENCH_DIR, 'workers', worker, 'wrangler.jsonc')
}

/**
 * `config`: another wrangler config to build instead of the Worker's own (ab.mjs: the template at
 * a git ref; the templates). `minify`: true keeps the config's own setting (every bench Worker's
 * is on), false turns it off, 'force' turns it on.
 */
export function build(worker, options = {}) {
  const { args, outdir, cwd } = buildCommand(worker, options)
  const run = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  if (run.status !== 0) throw new Error(`wrangler build of ${worker} failed:\n${run.stdout}\n${run.stderr}`)
  return measure(worker, options, outdir)
}

/**
 * Several builds at once, as many as the machine has cores (each is a wrangler process, mostly
 * its start-up and esbuild): `jobs` is [worker, options] pairs; the results come back in order.
 */
export async function buildAll(jobs) {
  const results = new Array(jobs.length)
  let next = 0
  const lane = async () => {
    while (next < jobs.length) {
      const index = next++
      const [worker, options = {}] = jobs[index]
      const { args, outdir, cwd } = buildCommand(worker, options)
      await new Promise((done, fail) => {
        const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
        let output = ''
        child.stdout.on('data', (chunk) => (output += chunk))
        child.stderr.on('data', (chunk) => (output += chunk))
        child.on('error', fail)
        child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`wrangler build of ${worker} failed:\n${output}`))))
      })
      results[index] = measure(worker, options, outdir)
    }
  }
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), jobs.length) }, lane))
  return results
}

function buildCommand(worker, { minify = true, config = configPath(worker) }) {
  const outdir = join(TMP, 'build', `${worker}-${minify ? 'min' : 'raw'}`)
  const path = resolve(ROOT, config)
  const args = [WRANGLER, 'deploy', '--dry-run', '--outdir', outdir, '-c', path]
  if (!minify) args.push('--minify=false')
  if (minify === 'force') args.push('--minify')
  // In the config's folder: wrangler runs a config's build command (the durable template's view
  // build, `node view/build.mjs`) where it was started, not where the config is.
  return { args, outdir, cwd: dirname(path) }
}

function measure(worker, { minify = true }, outdir) {
  const file = readdirSync(outdir).find((name) => name.endsWith('.js'))
  if (!file) throw new Error(`wrangler wrote no .js into ${outdir}`)
  const scriptPath = join(outdir, file)
  const bytes = readFileSync(scriptPath)
  return { worker, minify, scriptPath, rawBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 6 }).length }
}

/**
 * A wrangler config that builds `worker` (`edge`, or `loop-edge`: the demo behind the in-isolate
 * loop) from a copy of the demo with telemetry off: its one `telemetry:` line set to
 * `{ logs: 'off' }`, so no log line is written and no span made, as neither the floor nor the SDK
 * Worker does. The copy (apps/demo/src, its tsconfig and templates/, beside a link to the
 * repository's node_modules) resolves `mcp-edge` as the demo does, to the built package. Returns
 * the config's path.
 */
export function telemetryOffConfig(worker) {
  const dir = join(TMP, `telemetry-off-${worker}`)
  rmSync(dir, { recursive: true, force: true })
  // Sources only: no installed packages, wrangler state or build output of a template.
  const skipped = new Set(['node_modules', '.wrangler', 'dist'])
  const copy = (path) =>
    cpSync(join(ROOT, path), join(dir, path), {
      recursive: true,
      filter: (from) =>
        !relative(ROOT, from)
          .split(sep)
          .some((segment) => skipped.has(segment)),
    })
  // With the tsconfig files esbuild reads for the demo, so it is compiled as the demo is.
  for (const path of ['apps/demo/src', 'apps/demo/tsconfig.json', 'tsconfig.base.json', 'templates']) copy(path)
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const demo = join(dir, 'apps/demo/src/worker.ts')
  const source = readFileSync(demo, 'utf8')
  const lines = source.match(/^ {2}telemetry: .*,$/gm) ?? []
  if (lines.length !== 1) throw new Error(`the demo needs one \`  telemetry: …,\` line to turn off, found ${lines.length}`)
  writeFileSync(demo, source.replace(lines[0], "  telemetry: { logs: 'off' },"))
  let entry = 'apps/demo/src/worker.ts'
  const jsonc = readFileSync(configPath(worker), 'utf8')
  if (worker === 'loop-edge') entry = writeLoopEntry(dir, entry, jsonc)
  const main = /"main": "[^"]*"/
  if (!main.test(jsonc)) throw new Error(`no \`"main": …\` line in ${configPath(worker)}`)
  const config = join(dir, 'wrangler.jsonc')
  writeFileSync(config, jsonc.replace(main, `"main": "${entry}"`))
  return config
}

/**
 * In `dir`, the demo at `entry` behind the bench's in-isolate loop, exporting what
 * workers/loop-edge/worker.js does: the Durable Object classes the config binds, and the loop.
 * Returns the new entry's name.
 */
export function writeLoopEntry(dir, entry, jsonc) {
  copyFileSync(join(BENCH_DIR, 'workers', 'loop.js'), join(dir, 'loop.js'))
  const classes = [...new Set([...jsonc.matchAll(/"class_name": "(\w+)"/g)].map((match) => match[1]))]
  const lines = [
    `import template from './${entry}'`,
    `import { withLoop } from './loop.js'`,
    `export { ${classes.join(', ')} } from './${entry}'`,
    'export default withLoop(template)',
  ]
  writeFileSync(join(dir, 'loop-entry.js'), `${lines.join('\n')}\n`)
  return 'loop-entry.js'
}
