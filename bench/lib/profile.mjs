/**
 * Where the time goes, written for each missed target (or all, with BENCH_PROFILE=1). Profiling
 * only: no figure in the comparisons comes from here.
 *
 * - In workerd: the Worker, built like the measured one but unminified (so the profile keeps
 *   function names), runs in a workerd with the inspector on; V8's sampling profiler (100 µs)
 *   records the Worker's isolate while the same workload runs (the `tools/call` load, or a
 *   stream of partial results), after one unprofiled warm-up run. Read by profile-analyse.mjs.
 * - Start-up in Node: workerd starts a Worker before an inspector can attach, so the start-up
 *   profile is Node's (`node --cpu-prof`): the Worker module bundled with a `cloudflare:workers`
 *   shim, imported (module evaluation, registration) and called once (profile-driver.mjs).
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { configPath } from './build.mjs'
import { bundle } from './bundle.mjs'
import { BENCH_DIR, TMP } from './env.mjs'
import { startInspected } from './heap.mjs'
import { runLoad } from './load.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect, verifyCall } from './mcp.mjs'
import { analyse } from './profile-analyse.mjs'
import { streamWorkload } from './streaming.mjs'
import { VARIANTS } from './variants.mjs'

/** The workloads each kind of target is profiled with: [profile name, variant, workload]. */
function plans({ profileRequests, connections, streamChunks }) {
  const load = (request) => async (target) => {
    await runLoad(target, request ?? VARIANTS[target.variant].call.request, { connections, amount: profileRequests })
    return profileRequests
  }
  const legacyLoad = async (target) => load(legacyAddCall(await legacyConnect(target.endpoint)))(target)
  const stream = (target) => streamWorkload(target, streamChunks)
  return {
    floor: [
      ['mcp-edge tools/call', 'edge', load(ADD_CALL)],
      ['mcp-edge tools/call, 2025-era client', 'edge', legacyLoad],
      ['SDK v2 tools/call', 'sdk', load(ADD_CALL)],
      ['Hono floor tools/call', 'hono', load(ADD_CALL)],
    ],
    stream: [
      ['mcp-edge partial results', 'extras', stream],
      ['bare SSE writer', 'sse-bare', stream],
    ],
    tools: [
      ['mcp-edge tools/call, 200 tools', 'tools-200', load()],
      ['mcp-edge tools/call, 5 tools', 'tools-5', load()],
    ],
  }
}

/** CPU profile of one variant's isolate while `workload(target)` runs; the workload returns its units (requests, chunks). */
async function profileInWorkerd(name, variant, scriptPath, workload) {
  const inspected = await startInspected(variant, scriptPath)
  try {
    const { call } = VARIANTS[variant]
    if (call) await verifyCall(inspected.target.endpoint, call.request, call.answer)
    await workload(inspected.target)
    await inspected.cdp.send('Profiler.enable')
    await inspected.cdp.send('Profiler.setSamplingInterval', { interval: 100 })
    await inspected.cdp.send('Profiler.start')
    const units = await workload(inspected.target)
    const { profile } = await inspected.cdp.send('Profiler.stop')
    const file = join(TMP, `${variant}-${name.replace(/\W+/g, '-')}.cpuprofile`)
    writeFileSync(file, JSON.stringify(profile))
    return { name, variant, units, file, ...analyse(profile, scriptPath) }
  } finally {
    await inspected.dispose()
  }
}

async function nodeBundle(variant) {
  const { main } = unstable_getMiniflareWorkerOptions(configPath(VARIANTS[variant].worker))
  return bundle(main, `node-${variant}`, { shimCloudflare: true })
}

function driver(variant, path, nodeArgs) {
  const args = [...nodeArgs, join(BENCH_DIR, 'lib/profile-driver.mjs'), path, variant]
  const env = { ...process.env, BENCH_BINDINGS: JSON.stringify(VARIANTS[variant].bindings ?? {}) }
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', env })
  if (run.status !== 0) throw new Error(`Node start-up of ${variant} failed: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1))
}

/** Node CPU profile of importing a Worker module and answering its first call. */
async function profileStartupInNode(name, variant) {
  const path = await nodeBundle(variant)
  const dir = join(TMP, `startup-${variant}`)
  const { startupMs } = driver(variant, path, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=50'])
  const file = join(
    dir,
    readdirSync(dir).find((entry) => entry.endsWith('.cpuprofile')),
  )
  return { name, variant, units: 1, file, startupMs, ...analyse(JSON.parse(readFileSync(file, 'utf8')), path) }
}

/** Profiles for the given targets, one set per kind of target. */
export async function profileMissed(targets, scriptOf, config) {
  const kinds = [...new Set(targets.map((target) => target.profile).filter(Boolean))]
  const all = plans(config)
  const out = { workerd: [], startup: [] }
  for (const kind of kinds) {
    if (kind === 'startup') {
      for (const variant of ['edge', 'hono', 'tools-200', 'tools-5']) {
        out.startup.push(await profileStartupInNode(`${VARIANTS[variant].label}: import and first call`, variant))
      }
      continue
    }
    for (const [name, variant, workload] of all[kind]) {
      out.workerd.push(await profileInWorkerd(name, variant, scriptOf(variant, 'raw'), workload))
    }
  }
  return out
}
