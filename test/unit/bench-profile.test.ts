/**
 * The bench's reading of a start-up profile (bench/lib/profile-analyse.mjs) on profiles made by
 * hand: which starts the sampler saw from their beginning, and the time under the module's
 * evaluation. The bench's smoke run covers real profiles, where a wrong rule would not show.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { analyse, sampledFromTheStart } from '../../bench/lib/profile-analyse.mjs'

const dir = mkdtempSync(join(tmpdir(), 'mcp-edge-profile-'))
const script = join(dir, 'worker.js')
writeFileSync(`${script}.map`, JSON.stringify({ version: 3, sources: [], names: [], mappings: '' }))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const frame = (functionName: string, url = '', lineNumber = -1) => ({
  functionName,
  url,
  lineNumber,
  columnNumber: 0,
  scriptId: '1',
})
/** workerd names the script by its file name; its top-level frame has no line. */
const NODES = {
  root: { id: 1, callFrame: frame('(root)'), children: [2, 3, 6, 7, 8] },
  program: { id: 2, callFrame: frame('(program)') },
  entry: { id: 3, callFrame: frame('', 'deferred-entry.js', 4), children: [4] },
  topLevel: { id: 4, callFrame: frame('', 'worker.js'), children: [5] },
  register: { id: 5, callFrame: frame('register', 'worker.js', 10) },
  fetch: { id: 6, callFrame: frame('fetch', 'worker.js', 20) },
  idle: { id: 7, callFrame: frame('(idle)') },
  gc: { id: 8, callFrame: frame('(garbage collector)') },
}
const { idle, program, entry, topLevel, register, fetch, gc } = Object.fromEntries(
  Object.entries(NODES).map(([name, node]) => [name, node.id]),
) as Record<keyof typeof NODES, number>

/** A profile of these samples; sample i lasts `deltas[i + 1]` µs (V8's layout: a delta precedes its sample). */
const profile = (samples: number[], deltas = samples.map(() => 100)) => ({
  nodes: Object.values(NODES),
  samples,
  timeDeltas: deltas,
  startTime: 0,
  endTime: deltas.reduce((sum, delta) => sum + delta, 0),
})

describe("the bench's start-up profiles", () => {
  it('keep a start the sampler saw before the import, then inside it', () => {
    expect(sampledFromTheStart(profile([idle, program, entry, topLevel, register, fetch]), script)).toBe(true)
  })

  it('refuse a start whose first sample with code is already inside the script (the sampler joined late)', () => {
    expect(sampledFromTheStart(profile([idle, register, topLevel, fetch]), script)).toBe(false)
    expect(sampledFromTheStart(profile([fetch, entry, topLevel]), script)).toBe(false)
  })

  it('refuse a start with no sample under the import (the sampler joined after it)', () => {
    expect(sampledFromTheStart(profile([program, entry, fetch, fetch]), script)).toBe(false)
  })

  it("look past the collector's ticks, which can come anywhere, but not past V8's own work before the import", () => {
    expect(sampledFromTheStart(profile([gc, register, topLevel, fetch]), script)).toBe(false)
    expect(sampledFromTheStart(profile([gc, entry, register]), script)).toBe(true)
    // (program): V8 outside any JavaScript, as when it compiles the script before evaluating it.
    expect(sampledFromTheStart(profile([program, gc, register, fetch]), script)).toBe(true)
  })

  it("charge the module's evaluation with everything under its top-level frame, and nothing else", () => {
    // Samples: program, entry, topLevel, register, register, fetch, idle (the idle one counts for nothing).
    const samples = [program, entry, topLevel, register, register, fetch, idle]
    const result = analyse(profile(samples, [0, 10, 20, 30, 40, 50, 60]), script)
    // Each sample lasts the delta after it: program 10, entry 20, topLevel 30, register 40 + 50, fetch 60, idle 0.
    expect(result.moduleMs).toBeCloseTo((30 + 40 + 50) / 1000, 9)
    expect(result.totalMs).toBeCloseTo((10 + 20 + 30 + 40 + 50 + 60) / 1000, 9)
    expect(result.areas.find((area: { function: string }) => area.function === "(the module's top-level code)")?.ms).toBeCloseTo(
      0.03,
      9,
    )
  })
})
