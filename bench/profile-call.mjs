/**
 * Where a `tools/call add`'s JavaScript goes inside the template as shipped (telemetry on): the
 * loop-edge Worker built unminified, in a workerd with the inspector on, a warm-up of the
 * in-isolate loop, then a V8 CPU profile (50 µs) over N calls of the lane (2026-07-28, or the
 * 2025-era call with `--legacy`). Profiling only, no figure for the comparisons; the profile is
 * written to the temp dir. `node bench/profile-call.mjs [calls] [--legacy]`.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from './lib/build.mjs'
import { TMP } from './lib/env.mjs'
import { startInspected } from './lib/heap.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect } from './lib/mcp.mjs'
import { analyse } from './lib/profile-analyse.mjs'

const legacy = process.argv.includes('--legacy')
const calls = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 20000)
const { scriptPath } = build('loop-edge', { minify: false })
const inspected = await startInspected('loop-edge', scriptPath)
try {
  const { target, cdp } = inspected
  const { headers, body } = legacy ? legacyAddCall(await legacyConnect(target.endpoint)) : ADD_CALL
  const url = 'http://127.0.0.1:8787/mcp'
  const loop = { url, headers: { ...headers, host: '127.0.0.1:8787', 'content-length': String(Buffer.byteLength(body)) }, body }
  const post = async (n) => {
    const response = await fetch(new URL(`/bench/loop?n=${n}`, target.origin), { method: 'POST', body: JSON.stringify(loop) })
    const text = await response.text()
    if (!response.ok) throw new Error(`loop failed: ${response.status} ${text}`)
    return text
  }
  loop.expect = await post(1)
  await post(2000)
  await cdp.send('Profiler.enable')
  await cdp.send('Profiler.setSamplingInterval', { interval: 50 })
  await cdp.send('Profiler.start')
  await post(calls)
  const { profile } = await cdp.send('Profiler.stop')
  const file = join(TMP, `call${legacy ? '-legacy' : ''}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
  console.log(JSON.stringify({ calls, profile: file, ...analyse(profile, scriptPath) }, null, 1))
} finally {
  await inspected.dispose()
}
