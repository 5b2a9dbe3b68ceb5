/**
 * Keeps `npm run bench` from rotting: the whole benchmark with tiny counts (BENCH_QUICK=1),
 * which still builds every Worker, checks every answer and measures every figure (the inspector
 * steps included), and profiles every kind of target (BENCH_PROFILE=1) as a full run profiles a
 * missed one (one Worker of each kind, where a full run profiles several). It asserts that the run completes and reports each section, never a timing.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { median } from '../../bench/lib/stats.mjs'

describe('npm run bench (quick)', () => {
  it('completes and reports every section', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-edge-bench-smoke-'))
    onTestFinished(() => rmSync(out, { recursive: true, force: true }))
    const child = spawn(process.execPath, ['bench/run.mjs'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { ...process.env, BENCH_QUICK: '1', BENCH_OUT: out, BENCH_PROFILE: '1', WRANGLER_SEND_METRICS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, so that a run the test gives up on (its timeout) is stopped whole:
      // before, the bench and the workerd it started ran on after a timed-out test.
      detached: true,
    })
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
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
    const sections = [
      'machine',
      'bundles',
      'startup',
      'floor',
      'peers',
      'manyTools',
      'streaming',
      'tasks',
      'state',
      'engines',
      'heap',
      'memory',
      'fanout',
      'scale',
    ]
    for (const section of [...sections, 'targets', 'history']) {
      expect(results, section).toHaveProperty(section)
    }
    expect(results.bundles.oauth.min.gzipBytes).toBeGreaterThan(results.bundles.edge.min.gzipBytes)
    // The floor targets' build of the demo, with telemetry off, leaves the OTLP exporter out.
    expect(results.bundles['edge-off'].min.gzipBytes).toBeLessThan(results.bundles.edge.min.gzipBytes)
    for (const round of results.floor.rounds) {
      expect(Object.keys(round).sort()).toEqual([
        'edge',
        'edge-legacy',
        'edge-off',
        'edge-off-legacy',
        'edge-token',
        'hono',
        'hono-log',
        'hono-token',
        'sdk',
        'sdk-legacy',
      ])
    }
    // Each floor target is measured with telemetry off and carries the figure as the templates ship it.
    const floorTargets = (results.targets as { id: string; shipped?: { id: string; measured: number } }[]).filter(
      (t) => t.shipped,
    )
    expect(floorTargets.map((t) => [t.id, t.shipped?.id])).toEqual([
      ['cpuVsFloorOff', 'cpuVsFloor'],
      ['legacyCpuVsFloorOff', 'legacyCpuVsFloor'],
      ['cpuVsSdkOff', 'cpuVsSdk'],
      ['rpsVsSdkOff', 'rpsVsSdk'],
    ])
    // …each from its own lanes: the target on the telemetry-off build, `shipped` on the demo (a
    // ratio is the median of per-round ratios; stats.mjs, not compare.mjs, whose imports would set
    // this process's workerd up as the bench's own and hand that to the bench it starts).
    type Round = Record<string, Record<string, number>>
    const ratio = (rounds: Round[], metric: string, a: string, b: string) =>
      median(rounds.map((round) => (round[a]?.[metric] as number) / (round[b]?.[metric] as number)))
    const lanes = {
      cpuVsFloor: ['cpuUsPerRequest', 'edge', 'hono'],
      legacyCpuVsFloor: ['cpuUsPerRequest', 'edge-legacy', 'hono'],
      cpuVsSdk: ['cpuUsPerRequest', 'edge', 'sdk'],
      rpsVsSdk: ['rps', 'edge', 'sdk'],
    } as const
    for (const target of floorTargets as {
      id: string
      measured: number
      shipped: { id: keyof typeof lanes; measured: number }
    }[]) {
      const [metric, lane, of] = lanes[target.shipped.id]
      expect(target.measured, target.id).toBe(ratio(results.floor.rounds, metric, lane.replace('edge', 'edge-off'), of))
      expect(target.shipped.measured, target.shipped.id).toBe(ratio(results.floor.rounds, metric, lane, of))
    }
    // Every peer ran its lanes, each era it serves, in every round.
    for (const round of results.peers.rounds) {
      expect(Object.keys(round).sort()).toEqual([
        'agents',
        'agents-legacy',
        'edge',
        'edge-legacy',
        'edge-sdk',
        'edge-sdk-legacy',
        'hono',
        'hono-log',
        'hono-mcp-legacy',
        'mcp-handler',
        'mcp-handler-legacy',
        'sdk',
        'sdk-legacy',
        'tmcp',
      ])
    }
    // …and inside the isolate, each in its own isolate of one workerd.
    for (const round of results.peers.isolate.rounds) {
      expect(Object.keys(round).sort()).toEqual([
        'agents',
        'edge',
        'edge-legacy',
        'edge-sdk',
        'edge-sdk-legacy',
        'hono',
        'hono-mcp',
        'mcp-handler',
        'sdk',
        'tmcp',
      ])
    }
    // The 2025 fan-out lane: its sessions all heard every round, and the idle cost of a stream was taken.
    expect(results.fanout, 'fanout.legacy').toHaveProperty('legacy')
    // The scale curve ran both ways: streams over HTTP and held inside workerd by the driver
    // Worker (a failed point is kept in the curve with what it reached, so check each ran).
    for (const transport of ['http', 'binding']) {
      const points = results.scale.points.filter((point: { transport: string }) => point.transport === transport)
      expect(points.length, transport).toBeGreaterThan(0)
      for (const point of points) expect(point.failed, transport).toBeUndefined()
    }
    // The in-isolate loop ran every lane in every round (its answers were checked in the Worker).
    expect(results.floor.isolate.rounds.length).toBeGreaterThan(0)
    for (const round of results.floor.isolate.rounds) {
      expect(Object.keys(round).sort()).toEqual(['edge', 'edge-legacy', 'hono', 'hono-log'])
      for (const lane of Object.values(round)) expect((lane as { cpuUsPerCall: number }).cpuUsPerCall).toBeGreaterThan(0)
    }
    // Start-up profiles come from workerd (the module imported on the first request): every
    // profiled Worker has samples, and the template's own functions are among them.
    // A start is kept only if the sampler saw it from its beginning (bench/lib/profile.mjs).
    const startup = results.profile.startup as {
      variant: string
      totalMs: number
      moduleMs: number
      srcCharged: { function: string }[]
    }[]
    // A quick run profiles one Worker of each kind (bench/lib/profile.mjs); a full run, more.
    expect(startup.map((profile) => profile.variant)).toEqual(['edge-token'])
    for (const profile of startup) {
      expect(profile.totalMs, profile.variant).toBeGreaterThan(0)
      // The module's evaluation and the first call are both in the profile. (A kept start has a
      // sample under the import, test/unit/bench-profile.test.ts; that frame's self time is not
      // asserted: Hono's top-level code is a few samples a start, which two starts once missed.)
      expect(profile.moduleMs, profile.variant).toBeGreaterThan(0)
      expect(profile.moduleMs, profile.variant).toBeLessThan(profile.totalMs)
    }
    const template = startup.find((profile) => profile.variant === 'edge-token')
    expect(template?.srcCharged.some((item) => item.function.includes(' packages/mcp-edge/dist/server/'))).toBe(true)
    expect(results.profile.workerd.length).toBeGreaterThan(0)
    const markdown = readFileSync(join(out, 'results.md'), 'utf8')
    for (const heading of [
      '## Targets',
      '## The floor',
      '### The same call inside one isolate, without HTTP',
      '## Start-up and bundles',
      '## Many tools',
      '## Streaming',
      '## Memory under load',
      '### Notification fan-out',
      "2025-11-25 sessions' GET streams",
      '### Fan-out at scale',
      'The demo in OAuth mode',
      'The templates: minimal',
      '## Where the time goes',
      '### mcp-edge, MCP_BEARER_TOKEN set: module and first call',
    ]) {
      expect(markdown).toContain(heading)
    }
  })
})
