#!/usr/bin/env node
// `npm test`: build the library, typecheck every program, check that the generated types and the
// API reference are current, lint, run every Vitest project (unit, inside workerd, over HTTP with
// wrangler dev, interop, conformance, each template's own tests; then the benchmark's smoke run
// alone), then the pack check. Vitest's global setup starts and stops the servers.
// Ends with one plain line, `N passed, N failed`, which CI reads.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
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
for (const [name, project] of PROGRAMS) step(`typecheck (${name})`, 'npx', ['tsc', '-p', project])
step('generated types are current (wrangler types --check)', process.execPath, ['scripts/types.mjs', '--check'])
step('the API reference is current (docs/reference.md)', process.execPath, ['tools/reference/generate.mjs', '--check'])
step('the public API is as reviewed (packages/mcp-edge/api/, npm run api)', process.execPath, ['tools/reference/api-report.mjs'])
step('lint and format', 'npx', ['biome', 'ci', '.'])
step('the workflows (actionlint)', process.execPath, ['scripts/actionlint.mjs'])

// Every project but the benchmark's smoke run, then that one alone (vitest.config.ts says why).
const args = process.argv.slice(2)
vitest('vitest run (unit, workers, workers-aux, http, templates)', ['--project', '!bench', ...args])
// With file filters given, the bench project may have nothing to run; without, it must.
const noTests = args.length > 0 ? ['--passWithNoTests'] : []
vitest('vitest run (bench: npm run bench with tiny counts, alone)', ['--project', 'bench', ...noTests, ...args])

function vitest(name, vitestArgs) {
  const report = join(mkdtempSync(join(tmpdir(), 'mcp-edge-vitest-')), 'report.json')
  console.log(`\n> ${name}`)
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
    { stdio: 'inherit', env },
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
    for (const file of brokenFiles) console.log(`✗ ${file.name} failed outside its tests: ${file.message ?? ''}`)
    skipped.push(
      ...summary.testResults.flatMap((file) =>
        file.assertionResults.filter((test) => test.status === 'skipped').map((test) => test.fullName),
      ),
    )
    if (run.status !== 0 && vitestFailed === 0) failed++ // a failure outside any file (global setup)
  } catch {
    failed++
    console.log(`✗ vitest produced no report (exit ${run.status})`)
  }
}

// What users install, as they install it: tarballs, scaffolds outside the repository, real clients.
step('pack check (npm pack, create-mcp-edge scaffolds, their tests, real clients)', process.execPath, ['scripts/pack-check.mjs'])

if (skipped.length > 0) console.log(`\n${skipped.length} skipped:\n${skipped.map((name) => `  - ${name}`).join('\n')}`)
console.log(`\n${passed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
