/**
 * Builds a bench Worker exactly as a deploy would (`wrangler deploy --dry-run --outdir`) and
 * measures the bundle: raw bytes and gzip bytes (zlib level 6, the figure wrangler prints as
 * "Total Upload … / gzip …"). `minify: false` overrides the `minify = true` of the config.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join, resolve } from 'node:path'
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
