#!/usr/bin/env node
// `npm test`: build the library, typecheck every program, check that the generated types and the
// API reference are current, lint, run every Vitest project (unit, inside workerd, over HTTP with
// wrangler dev, interop, conformance, each template's own tests; the benchmark's smoke run beside
// them all, niced), then the pack check. Vitest's global setup starts and stops the servers.
// Ends with one plain line, `N passed, N failed`, which CI reads.
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROGRAMS } from './typecheck.mjs'

const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_LOG_PATH: process.env.WRANGLER_LOG_PATH ?? mkdtempSync(join(tmpdir(), 'mcp-edge-logs-')),
}
let passed = 0
let failed = 0
const skipped = []

function step(name, command, args) {
  console.log(`\n> ${name}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { stdio: 'inherit', env })
  if (result.status === 0) passed++
  else {
    failed++
    console.log(`✗ ${name} failed (exit ${result.status})`)
  }
}

// The library first: the demo, the fixtures' Workers and the templates use it as users do, built.
step('build the mcp-edge package', 'npm', ['run', 'build'])
// The durable template's view (a static asset its own tests read); `wrangler dev` builds the demo's.
step("build the durable template's view", process.execPath, ['templates/durable/view/build.mjs'])
// The benchmark's smoke run beside everything that follows, at the lowest CPU priority (`nice -n
// 19`), its output kept for the end. It is minutes of wrangler builds and workerd processes: run
// as one more vitest project it ran past its timeout on two cores and slowed every other file;
// niced, it takes only the CPU the rest leaves (the http project's files run one at a time and
// wait on servers much of theirs). `MCP_EDGE_BENCH_SMOKE=after` runs it after the others instead.
const args = process.argv.slice(2)
// With file filters given, the bench project may have nothing to run; without, it must.
const benchArgs = ['--project', 'bench', ...(args.length > 0 ? ['--passWithNoTests'] : []), ...args]
const BENCH_NAME = 'vitest run (bench: npm run bench with tiny counts)'
/** How long the background run may take from its start (its test's own timeout is 25 minutes). */
const BACKGROUND_LIMIT_MS = 30 * 60_000
const after = process.env.MCP_EDGE_BENCH_SMOKE === 'after'
const bench = after ? undefined : startVitest(BENCH_NAME, benchArgs, { background: true })

for (const [name, project] of PROGRAMS) step(`typecheck (${name})`, 'npx', ['tsc', '-p', project])
step('generated types are current (wrangler types --check)', process.execPath, ['scripts/types.mjs', '--check'])
step('the API reference is current (docs/reference.md)', process.execPath, ['tools/reference/generate.mjs', '--check'])
step('the public API is as reviewed (packages/mcp-edge/api/, npm run api)', process.execPath, ['tools/reference/api-report.mjs'])
step('lint and format', 'npx', ['biome', 'ci', '.'])
step('the workflows (actionlint)', process.execPath, ['scripts/actionlint.mjs'])

vitest('vitest run (unit, workers, workers-aux, http, templates)', ['--project', '!bench', ...args])
if (bench) await finishVitest(bench)
else vitest(BENCH_NAME, benchArgs)

/** A vitest run to its end, its output on this process's. */
function vitest(name, vitestArgs) {
  const run = startVitest(name, vitestArgs)
  countReport(run)
}

/**
 * Start `vitest run` with its JSON report to a file: to its end, its output inherited; or with
 * `background`, at the lowest CPU priority, its output to a file (finishVitest prints it).
 */
function startVitest(name, vitestArgs, { background = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-edge-vitest-'))
  const report = join(dir, 'report.json')
  const command = ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs]
  if (!background) {
    console.log(`\n> ${name}`)
    return { name, report, status: spawnSync('npx', command, { stdio: 'inherit', env }).status }
  }
  const log = join(dir, 'output.log')
  console.log(`\n> ${name}: started in the background (niced); its output, printed after the other projects': ${log}`)
  const out = openSync(log, 'w')
  // Its own process group, so that it and every workerd under it go with this run.
  const child = spawn('nice', ['-n', '19', 'npx', ...command], { stdio: ['ignore', out, out], env, detached: true })
  closeSync(out)
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // ended already
    }
  }
  process.on('exit', stop)
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stop()
      process.exit(1)
    })
  }
  const exited = new Promise((resolve) => {
    child.on('exit', (code) => resolve(code))
    child.on('error', (error) => {
      console.log(`✗ ${name} could not start: ${error.message}`)
      resolve(null)
    })
  })
  return { name, report, log, exited, stop, startedAt: Date.now() }
}

/** The background run's end (stopped, and counted failed, past `BACKGROUND_LIMIT_MS`), its output, its counts. */
async function finishVitest(run) {
  let timer
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, run.startedAt + BACKGROUND_LIMIT_MS - Date.now()))
  })
  let status = await Promise.race([run.exited, late])
  clearTimeout(timer)
  console.log(`\n> ${run.name} (ran in the background)`)
  process.stdout.write(readFileSync(run.log, 'utf8'))
  if (status === 'late') {
    run.stop()
    console.log(`✗ ${run.name} was still running ${BACKGROUND_LIMIT_MS / 60_000} minutes after it started: stopped`)
    status = null
  }
  countReport({ ...run, status })
}

function countReport({ report, status }) {
  try {
    const summary = JSON.parse(readFileSync(report, 'utf8'))
    // A file that failed outside its tests (its setup threw, it did not import) reports its tests as
    // skipped: count each such file as a failure, so it cannot pass for a skip.
    const brokenFiles = summary.testResults.filter(
      (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
    )
    const vitestFailed = summary.numFailedTests + brokenFiles.length
    passed += summary.numPassedTests
    failed += vitestFailed
    for (const file of brokenFiles) console.log(`✗ ${file.name} failed outside its tests: ${file.message ?? ''}`)
    skipped.push(
      ...summary.testResults.flatMap((file) =>
        file.assertionResults.filter((test) => test.status === 'skipped').map((test) => test.fullName),
      ),
    )
    if (status !== 0 && vitestFailed === 0) failed++ // a failure outside any file (global setup)
  } catch {
    failed++
    console.log(`✗ vitest produced no report (exit ${status})`)
  }
}

// What users install, as they install it: tarballs, scaffolds outside the repository, real clients.
step('pack check (npm pack, create-mcp-edge scaffolds, their tests, real clients)', process.execPath, ['scripts/pack-check.mjs'])

if (skipped.length > 0) console.log(`\n${skipped.length} skipped:\n${skipped.map((name) => `  - ${name}`).join('\n')}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
