#!/usr/bin/env node
// `npm run conformance [-- URL [--requirements 2025-11-25]]`: the official MCP conformance suite
// (pinned 0.2.0-alpha.12) against a running server, by default the fixture of `npm run fixture` at
// http://127.0.0.1:8788/mcp. Runs every scenario the revision requires (2026-07-28 unless
// `--requirements` names another), plus the ones the requirements file lists as not scored
// (pending, added after release, the Tasks extension), against test/conformance/expected-failures.yml.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const url = process.argv[2] ?? 'http://127.0.0.1:8788/mcp'
const rest = process.argv.slice(3)
const args = [
  'node_modules/@modelcontextprotocol/conformance/dist/index.js',
  'server',
  '--url',
  url,
  ...(rest.includes('--requirements') ? [] : ['--requirements', '2026-07-28']),
  '--expected-failures',
  'test/conformance/expected-failures.yml',
  ...rest,
]
const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
process.exit(result.status ?? 1)
