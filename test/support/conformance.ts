/**
 * The official conformance suite (@modelcontextprotocol/conformance, pinned) as a referee: the
 * scenarios each revision requires, and a run of scripts/conformance.mjs against a server with
 * each scenario's checks read back. Used by test/http/conformance.test.ts (the native fixture)
 * and test/http/sdk-conformance.test.ts (the SDK-style one).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** The scenarios 2026-07-28 requires. */
export const REQUIRED = [
  'server-stateless',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
  'server-sse-multiple-streams',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'sep-2164-resource-not-found',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
  'caching',
  'input-required-result-basic-elicitation',
  'input-required-result-basic-sampling',
  'input-required-result-basic-list-roots',
  'input-required-result-request-state',
  'input-required-result-multiple-input-requests',
  'input-required-result-multi-round',
  'input-required-result-missing-input-response',
  'input-required-result-non-tool-request',
  'input-required-result-result-type',
  'input-required-result-unsupported-methods',
  'input-required-result-tampered-state',
  'input-required-result-capability-check',
  'input-required-result-ignore-extra-params',
  'input-required-result-validate-input',
]
/** Expected to warn, by decision (issue 37): see test/conformance/expected-failures.yml. */
export const IGNORED_UNASKED_ANSWERS = 'input-required-result-ignore-extra-params'
export const PENDING = ['json-schema-2020-12', 'http-header-validation', 'http-custom-header-server-validation']
/** The server scenarios 2025-11-25 requires. */
export const LEGACY_REQUIRED = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
]
/** Run at 2025-11-25 but not scored: added after release, and pending. */
export const LEGACY_UNSCORED = ['server-session-lifecycle', 'json-schema-2020-12', 'server-sse-polling']
/** The Tasks extension's scenarios, run beside 2026-07-28's. */
export const TASKS = [
  'tasks-lifecycle',
  'tasks-capability-negotiation',
  'tasks-wire-fields',
  'tasks-request-state-removal',
  'tasks-mrtr-input',
  'tasks-request-headers',
  'tasks-dispatch-and-envelope',
  'tasks-status-notifications',
  'tasks-required-task-error',
  'tasks-mrtr-composition',
]

export interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED'
  errorMessage?: string
  details?: unknown
}

export interface Run {
  checks: Map<string, Check[]>
  exitCode: number | null
  output: string
}

/** scripts/conformance.mjs against `url` with `args`; each scenario's checks, by scenario. */
export async function runSuite(url: string, args: string[]): Promise<Run> {
  const outDir = mkdtempSync(join(tmpdir(), 'mcp-edge-conformance-'))
  const root = resolve(import.meta.dirname, '../..')
  const child = spawn(process.execPath, ['scripts/conformance.mjs', url, '-o', outDir, ...args], { cwd: root })
  let output = ''
  child.stdout.on('data', (chunk) => {
    output += chunk
  })
  child.stderr.on('data', (chunk) => {
    output += chunk
  })
  const exitCode = await new Promise<number | null>((done) => child.on('exit', done))
  const checks = new Map<string, Check[]>()
  for (const entry of readdirSync(outDir)) {
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '')
    checks.set(scenario, JSON.parse(readFileSync(join(outDir, entry, 'checks.json'), 'utf8')) as Check[])
  }
  return { checks, exitCode, output }
}

/** The checks that failed or warned, as `id: message`. */
export function bad(reported: Check[]): string[] {
  return reported
    .filter((check) => check.status === 'FAILURE' || check.status === 'WARNING')
    .map((check) => `${check.id}: ${check.errorMessage}`)
}
