/**
 * Keeps `npm run bench` from rotting: the whole benchmark with tiny counts (BENCH_QUICK=1),
 * which still builds the three Workers, checks every answer and measures every figure. It
 * asserts that the run completes and reports each section, never a timing.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('npm run bench (quick)', () => {
  it('completes and reports every section', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-edge-bench-smoke-'))
    const child = spawn(process.execPath, ['bench/run.mjs'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { ...process.env, BENCH_QUICK: '1', BENCH_OUT: out, BENCH_PROFILE: '0', WRANGLER_SEND_METRICS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    const code = await new Promise((done) => child.on('exit', done))
    expect(code, output.slice(-2000)).toBe(0)
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    for (const section of ['machine', 'bundles', 'startup', 'load', 'streaming', 'tasks', 'state', 'engines', 'fanout']) {
      expect(results, section).toHaveProperty(section)
    }
    expect(results.bundles.oauth.min.gzipBytes).toBeGreaterThan(results.bundles.edge.min.gzipBytes)
    expect(readFileSync(join(out, 'results.md'), 'utf8')).toContain('## Targets')
    expect(readFileSync(join(out, 'results.md'), 'utf8')).toContain('The template in OAuth mode')
  }, 240_000)
})
