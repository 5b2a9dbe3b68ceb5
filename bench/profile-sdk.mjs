#!/usr/bin/env node
/**
 * `node bench/profile-sdk.mjs [calls]`: where a `tools/call` goes through mcp-edge/sdk, beside the
 * same tool on the native API. Each of loop-native and loop-sdk (the Workers of bench:sdk and
 * cg-sdk.mjs), built unminified so the profile keeps function names, runs alone in a workerd with
 * the inspector on; after a warm-up loop, V8's sampling profiler (50 µs) records a loop of `calls`
 * 2026-07-28 calls (default 100,000), then as many 2025-era ones. Prints, per Worker and era, µs a
 * call by area and the mcp-edge functions by time under them (inclusive, the adapter's first),
 * and writes each profile to the temp dir. `node bench/profile-sdk.mjs 5000 factory` profiles the
 * 22-tool server built per request instead, on mcp-edge/sdk and on SDK 1.x + agents (loop-sdk-factory,
 * loop-agents-factory; the SDK's 2025-era call only). Profiling only (the inspector is on, the machine
 * shared): no figure for a comparison; cg-sdk.mjs counts.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from './lib/build.mjs'
import { TMP } from './lib/env.mjs'
import { startInspected } from './lib/heap.mjs'
import { post, prepareLoop } from './lib/isolate-loop.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect } from './lib/mcp.mjs'
import { analyse, inclusive, LIBRARY } from './lib/profile-analyse.mjs'
import { VARIANTS } from './lib/variants.mjs'

const calls = Number(process.argv[2] ?? 100_000)
// `factory` as the second argument: the 22-tool server built per request (loop-sdk-factory) instead.
const factory = process.argv[3] === 'factory'
const WARMUP = factory ? 2_000 : 20_000
const TOP = 30

for (const variant of factory ? ['loop-sdk-factory', 'loop-agents-factory'] : ['loop-native', 'loop-sdk']) {
  const { scriptPath } = build(variant, { minify: false })
  const inspected = await startInspected(variant, scriptPath)
  try {
    const target = { ...inspected.target, id: variant }
    const sessionId = await legacyConnect(target.endpoint)
    const eras = VARIANTS[variant].eras ?? ['modern', 'legacy']
    for (const [era, request] of [
      ...(eras.includes('modern') ? [['2026-07-28', ADD_CALL]] : []),
      ['2025-era', legacyAddCall(sessionId)],
    ]) {
      const lane = { id: `${variant} ${era}`, target, request }
      await prepareLoop(lane)
      await post(target, WARMUP, lane.loop)
      await inspected.cdp.send('Profiler.enable')
      await inspected.cdp.send('Profiler.setSamplingInterval', { interval: 50 })
      await inspected.cdp.send('Profiler.start')
      await post(target, calls, lane.loop)
      const { profile } = await inspected.cdp.send('Profiler.stop')
      const file = join(TMP, `${variant}-${era}.cpuprofile`)
      writeFileSync(file, JSON.stringify(profile))
      const perCall = (ms) => ((ms * 1000) / calls).toFixed(2)
      const { totalMs, areas } = analyse(profile, scriptPath)
      console.log(`\n## ${lane.id}: ${perCall(totalMs)} µs a call sampled (${file})`)
      console.log(`areas: ${areas.map((area) => `${area.function} ${perCall(area.ms)}`).join(', ')}`)
      const under = inclusive(profile, scriptPath)
      const adapterFirst = [...under].sort((a, b) => Number(b.key.includes('/src/sdk/')) - Number(a.key.includes('/src/sdk/')))
      console.log('| µs a call, inclusive | self | function |\n| --- | --- | --- |')
      for (const { key, ms, selfMs } of adapterFirst.filter((entry) => entry.key.includes(LIBRARY)).slice(0, TOP))
        console.log(`| ${perCall(ms)} | ${perCall(selfMs)} | ${key} |`)
    }
  } finally {
    await inspected.dispose()
  }
}
