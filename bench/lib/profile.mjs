/**
 * Where the time goes, written for each missed target (or all, with BENCH_PROFILE=1). Profiling
 * only: no figure in the comparisons comes from here.
 *
 * - In workerd: the Worker, built like the measured one but unminified (so the profile keeps
 *   function names), runs in a workerd with the inspector on; V8's sampling profiler (100 µs)
 *   records the Worker's isolate while the same workload runs (the `tools/call` load, or a
 *   stream of partial results), after one unprofiled warm-up run. Read by profile-analyse.mjs.
 * - Start-up, also in workerd: workerd evaluates a Worker's module before an inspector can attach,
 *   so the profiled Worker is served from a second isolate that imports its module on the first
 *   request (workerd.mjs, `deferred`); the profile covers that import (the module's evaluation:
 *   registration, schemas, the app) and the first call, 50 µs sampling, merged over five starts
 *   (`profileStarts`) that the sampler saw from their beginning. What it cannot show is
 *   workerd compiling the script and setting up the isolate and its Durable Object bindings.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TMP } from './env.mjs'
import { startInspected } from './heap.mjs'
import { runLoad } from './load.mjs'
import { ADD_CALL, legacyAddCall, legacyConnect, verifyCall } from './mcp.mjs'
import { analyse, mergeProfiles, sampledFromTheStart } from './profile-analyse.mjs'
import { median } from './stats.mjs'
import { streamWorkload } from './streaming.mjs'
import { VARIANTS } from './variants.mjs'

/** The Workers whose start-up is profiled when a start-up target is missed. */
const STARTUP_PROFILED = ['edge', 'edge-token', 'minimal', 'hono', 'tools-200', 'tools-5', 'tools-500-eager']

/**
 * A quick run (the smoke test) profiles one Worker of each kind, the same way, and each workload
 * once (the floor's two: a call, and a 2025-era client's): enough to keep the profiling from
 * rotting, at a fifth of its minutes (each start-up profile is several workerd starts).
 */
const QUICK_PLANS = { floor: 2, stream: 1, tools: 1 }
const startupProfiled = (config) => (config.quick ? ['edge-token'] : STARTUP_PROFILED)

/** The workloads each kind of target is profiled with: [profile name, variant, workload]. */
function plans(config) {
  const { profileRequests, connections, streamChunks } = config
  const load = (request) => async (target) => {
    await runLoad(target, request ?? VARIANTS[target.variant].call.request, { connections, amount: profileRequests })
    return profileRequests
  }
  const legacyLoad = async (target) => load(legacyAddCall(await legacyConnect(target.endpoint)))(target)
  const stream = (target) => streamWorkload(target, streamChunks)
  const all = {
    // The floor targets are measured with telemetry off (targets.mjs); with the inspector on, a
    // log line per request would also be sent to it, and would dominate the profile.
    floor: [
      ['mcp-edge tools/call, telemetry off', 'edge-off', load(ADD_CALL)],
      ['mcp-edge tools/call, telemetry off, 2025-era client', 'edge-off', legacyLoad],
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
  if (!config.quick) return all
  return Object.fromEntries(Object.entries(all).map(([kind, list]) => [kind, list.slice(0, QUICK_PLANS[kind])]))
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

/** One start of a Worker, profiled from its module's evaluation to its first answer. */
async function profileOneStart(variant, scriptPath) {
  const inspected = await startInspected(variant, scriptPath, { deferred: true })
  try {
    const { call } = VARIANTS[variant]
    await inspected.cdp.send('Profiler.enable')
    await inspected.cdp.send('Profiler.setSamplingInterval', { interval: 50 })
    await inspected.cdp.send('Profiler.start')
    const started = performance.now()
    await verifyCall(inspected.target.endpoint, call.request, call.answer)
    const wallMs = performance.now() - started
    const { profile } = await inspected.cdp.send('Profiler.stop')
    // The first sample is taken as the profiler starts, before the call is sent: the time up to the
    // next one (which `analyse` would charge to it) is not the start's.
    if (profile.timeDeltas.length > 1) profile.timeDeltas[1] = 0
    return { profile, wallMs }
  } finally {
    await inspected.dispose()
  }
}

/**
 * workerd CPU profile of evaluating a Worker's module and answering its first call, merged over
 * `runs` fresh starts. The sampler sometimes begins late, inside the module's evaluation or after
 * it (or not at all, for a start as short as the floor's): here about one start in two. Such a
 * start is not kept, nor one whose inspector stopped answering, and another is made, up to five
 * times `runs` in all. The report says how many were kept of how many made.
 */
export async function profileStartup(name, variant, scriptPath, runs) {
  const kept = []
  let made = 0
  while (kept.length < runs && made < runs * 5) {
    made++
    // A start whose inspector did not answer is not kept either (another is made).
    const start = await profileOneStart(variant, scriptPath).catch(() => undefined)
    if (start && sampledFromTheStart(start.profile, scriptPath)) kept.push(start)
  }
  if (kept.length === 0) throw new Error(`no start of ${variant} was sampled from its beginning in ${made} tries`)
  const profile = mergeProfiles(kept.map((start) => start.profile))
  const file = join(TMP, `startup-${variant}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
  const startupMs = median(kept.map((start) => start.wallMs))
  return { name, variant, units: kept.length, made, unit: 'start', file, startupMs, ...analyse(profile, scriptPath) }
}

/** The variants profileMissed profiles for these targets (it reads their unminified builds). */
export function profiledVariants(targets, config) {
  const kinds = new Set(targets.map((target) => target.profile).filter(Boolean))
  const all = plans(config)
  const variants = [...kinds].flatMap((kind) =>
    kind === 'startup' ? startupProfiled(config) : all[kind].map(([, variant]) => variant),
  )
  return [...new Set(variants)]
}

/** Profiles for the given targets, one set per kind of target. */
export async function profileMissed(targets, scriptOf, config) {
  const kinds = [...new Set(targets.map((target) => target.profile).filter(Boolean))]
  const all = plans(config)
  const out = { workerd: [], startup: [] }
  for (const kind of kinds) {
    if (kind === 'startup') {
      for (const variant of startupProfiled(config)) {
        out.startup.push(
          await profileStartup(
            `${VARIANTS[variant].label}: module and first call`,
            variant,
            scriptOf(variant, 'raw'),
            config.profileStarts,
          ),
        )
      }
      continue
    }
    for (const [name, variant, workload] of all[kind]) {
      out.workerd.push(await profileInWorkerd(name, variant, scriptOf(variant, 'raw'), workload))
    }
  }
  return out
}
