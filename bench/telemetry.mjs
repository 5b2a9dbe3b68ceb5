#!/usr/bin/env node
/**
 * `npm run bench:telemetry -- [ref]`: what observability costs per `tools/call`, over HTTP, and
 * the bytes it adds. One Worker (workers/telemetry/worker.js, one `add` tool) in nine lanes, and
 * two floors, each its own workerd, in alternating rounds of the floor step's load (bench/README.md, "A/B"):
 *
 * - `hono`: the bare Hono floor; `hono-log`: the same with one hand-written JSON log line per
 *   request (workers/hono-log), what issue 38 judges the templates' setting against (≤ 1.10×);
 * - `ref`: the same Worker built against the library at git `ref` (default 74b4b15, the last
 *   commit before telemetry), where the telemetry option does not exist;
 * - `off` and `off-again`: telemetry off (`logs: 'off'`, no tracer): two identical workerds, whose
 *   ratio is the noise of this machine and this run, the band `off / ref` is read against;
 * - `logs`: the default, one JSON log line per message;
 * - `native`: plus `workersTracing()`, which mirrors a span only where the runtime traces the
 *   invocation; plain Miniflare traces none, so this lane pays the one call that asks;
 * - `otlp`: the templates' setting with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a sink on
 *   127.0.0.1 (answers 200, counts what it got): every request sampled, spans and the histogram
 *   exported after each response (`waitUntil`); the export's CPU is workerd's, so it is counted;
 * - `mirrored`: `otlp` as an invocation the runtime traces pays it (every span made, given its
 *   attributes and ended in the runtime; plain Miniflare's spans record nothing, so it is a lower
 *   bound of what a template deployed with `head_sampling_rate: 1` pays);
 * - `traced`: the OTLP export alone, every request sampled, without the log line or the mirror
 *   (what tracing itself costs).
 *
 * Then each template's bundle, gzip minified, as it is and with its `telemetry:` line removed (what
 * the OTLP exporter and the native mirror add; the per-message observer is in both).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { ROOT, TMP } from './lib/env.mjs'
import { build, configPath } from './lib/build.mjs'
import { alternateLoad, describeRatio, medians } from './lib/compare.mjs'
import { config } from './lib/config.mjs'
import { TEMPLATES } from './lib/more-bundles.mjs'
import { verifyCall, ADD_CALL } from './lib/mcp.mjs'
import { reportWorkerdWarnings, startWorker } from './lib/workerd.mjs'

const ref = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? '74b4b15'
const log = (line) => console.error(`[bench:telemetry] ${line}`)
const KIB = 1024

/** The telemetry Worker built against the library sources at `ref` (wrangler `alias`), its own node_modules. */
function buildRef() {
  const dir = join(TMP, 'telemetry-ref')
  mkdirSync(dir, { recursive: true })
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim()
  const archive = join(TMP, 'telemetry-ref.tar')
  execFileSync('git', ['archive', '-o', archive, commit, 'packages/mcp-edge/src'], { cwd: ROOT })
  execFileSync('tar', ['-xf', archive, '-C', dir])
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  cpSync(join(ROOT, 'bench/workers/telemetry/worker.js'), join(dir, 'worker.js'))
  const library = (entry) => `./packages/mcp-edge/src/${entry}`
  const jsonc = readFileSync(configPath('telemetry'), 'utf8').replace(
    '"main": "worker.js"',
    `"alias": { "mcp-edge/cloudflare": "${library('cloudflare/index.ts')}", "mcp-edge": "${library('index.ts')}" },\n  "main": "worker.js"`,
  )
  writeFileSync(join(dir, 'wrangler.jsonc'), jsonc)
  return { commit, ...build('telemetry-ref', { config: join(dir, 'wrangler.jsonc') }) }
}

/** An OTLP sink on 127.0.0.1: 200 for every POST, counting requests and bytes. */
async function startSink() {
  const got = { requests: 0, bytes: 0 }
  const server = createServer((request, response) => {
    request.on('data', (chunk) => {
      got.bytes += chunk.length
    })
    request.on('end', () => {
      got.requests++
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { got, endpoint: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) }
}

/** A template's bundle (gzip, minified) as it is, and with its `telemetry:` option removed. */
function templateBytes(template) {
  const sizes = {}
  for (const kind of ['with', 'without']) {
    const dir = join(TMP, `template-${template}-${kind}`)
    cpSync(join(ROOT, 'templates', template), dir, {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|\.wrangler|dist)$/.test(source),
    })
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
    if (kind === 'without') {
      const index = join(dir, 'src/index.ts')
      const source = readFileSync(index, 'utf8')
      const stripped = source.replace(/\n\s*telemetry: \{[^\n]*\},?\n/, '\n')
      if (stripped === source) throw new Error(`bench:telemetry: no telemetry line in templates/${template}/src/index.ts`)
      writeFileSync(index, stripped)
    }
    sizes[kind] = build(`template-${template}-${kind}`, { config: join(dir, 'wrangler.jsonc'), minify: 'force' }).gzipBytes
    rmSync(dir, { recursive: true, force: true })
  }
  return sizes
}

const LANES = ['hono', 'hono-log', 'ref', 'off', 'off-again', 'logs', 'native', 'otlp', 'mirrored', 'traced']
const targets = {}
let sink
async function stopAll() {
  await Promise.allSettled(Object.values(targets).map((target) => target.dispose()))
  await sink?.close()
}
process.on('SIGINT', () => void stopAll().finally(() => process.exit(130)))

/** `a / b` of CPU per call (compare.mjs `describeRatio`). */
const times = (rounds, a, b) => describeRatio(rounds, 'cpuUsPerRequest', a, b)

try {
  const built = { ref: buildRef(), tree: build('telemetry') }
  log(`ref ${ref} (${built.ref.commit}): ${built.ref.gzipBytes} bytes gzip; tree: ${built.tree.gzipBytes} bytes gzip`)
  sink = await startSink()
  targets.hono = await startWorker('hono', build('hono').scriptPath)
  targets['hono-log'] = await startWorker('hono-log', build('hono-log').scriptPath)
  targets.ref = await startWorker('telemetry-off', built.ref.scriptPath)
  for (const mode of ['off', 'logs', 'native', 'otlp', 'mirrored', 'traced']) {
    const bindings = ['otlp', 'mirrored', 'traced'].includes(mode) ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint } : {}
    targets[mode] = await startWorker(`telemetry-${mode}`, built.tree.scriptPath, { bindings })
  }
  targets['off-again'] = await startWorker('telemetry-off', built.tree.scriptPath)
  const lanes = []
  for (const id of LANES) {
    const target = targets[id]
    lanes.push({ id, target, request: ADD_CALL, expectBody: await verifyCall(target.endpoint) })
  }
  log(`${lanes.length} lanes, ${config.rounds} rounds × ${config.requests} requests after ${config.warmupRequests} each`)
  const rounds = await alternateLoad(lanes, config, log)
  const cpu = medians(rounds, 'cpuUsPerRequest')
  console.log(`\n| lane | CPU µs/call | ×floor | ×off |\n| --- | --- | --- | --- |`)
  for (const id of LANES) {
    const floor = id === 'hono' ? '' : times(rounds, id, 'hono')
    const off = id === 'hono' || id === 'off' ? '' : times(rounds, id, 'off')
    console.log(`| ${id} | ${cpu[id].toFixed(1)} | ${floor} | ${off} |`)
  }
  console.log(`\nnoise (off-again / off, identical workerds): ${times(rounds, 'off-again', 'off')}`)
  console.log(`off / ref (${built.ref.commit}, before telemetry): ${times(rounds, 'off', 'ref')}`)
  console.log(`otlp / off (every request sampled and exported): ${times(rounds, 'otlp', 'off')}`)
  // Issue 38: the templates' setting against the floor that writes the same line by hand.
  for (const id of ['logs', 'native', 'otlp', 'mirrored']) {
    console.log(`${id} / hono-log (the floor with a hand-written log line): ${times(rounds, id, 'hono-log')}`)
  }
  console.log(`mirrored / off (otlp in invocations the runtime traces): ${times(rounds, 'mirrored', 'off')}`)
  console.log(`traced / off (the OTLP export alone, every request sampled): ${times(rounds, 'traced', 'off')}`)
  console.log(`OTLP sink: ${sink.got.requests} requests, ${(sink.got.bytes / KIB / KIB).toFixed(1)} MiB`)
  console.log(`\n| template | gzip KiB minified | without its telemetry line | the line adds |\n| --- | --- | --- | --- |`)
  for (const template of TEMPLATES) {
    const sizes = templateBytes(template)
    const kib = (bytes) => (bytes / KIB).toFixed(2)
    console.log(`| ${template} | ${kib(sizes.with)} | ${kib(sizes.without)} | ${kib(sizes.with - sizes.without)} |`)
  }
} finally {
  await stopAll()
  reportWorkerdWarnings(log)
}
