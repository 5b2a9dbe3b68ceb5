/**
 * Where the time goes, for when a CPU or throughput target is missed. Profiling only: no figure
 * in the comparison comes from here.
 *
 * - In workerd: the template, built like the measured one but unminified (so the profile keeps
 *   function names), runs in a workerd with the inspector on; V8's sampling profiler (100 µs)
 *   records the Worker's isolate while autocannon sends the same `tools/call add` load.
 *   Samples are mapped to source lines through wrangler's source map. Per src/ function: self
 *   time, and self time plus the non-src code it calls (Hono, zod, Web APIs, natives), i.e.
 *   every sample charged to its nearest src/ frame.
 * - In Node: each Worker module (the template src/worker.ts, the SDK and Hono Workers) bundled
 *   with a `cloudflare:workers` shim and its `fetch` called in a loop (profile-driver.mjs): µs per
 *   call on the same V8 without workerd and Miniflare around it.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { createServer } from 'node:net'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { configPath } from './build.mjs'
import { bundle } from './bundle.mjs'
import { connectCdp } from './cdp.mjs'
import { BENCH_DIR, ROOT, TMP } from './env.mjs'
import { runLoad } from './load.mjs'
import { ADD_CALL, verifyAdd } from './mcp.mjs'
import { median } from './stats.mjs'
import { startWorker } from './workerd.mjs'

const TOP = 15

/** Where a profile frame's code lives: repo-relative source file and line, or a runtime bucket. */
function locator(scriptPath) {
  const map = new SourceMap(JSON.parse(readFileSync(`${scriptPath}.map`, 'utf8')))
  const script = basename(scriptPath)
  return ({ functionName, url, lineNumber, columnNumber }) => {
    if (url === script) {
      const entry = map.findEntry(lineNumber, columnNumber)
      if (!entry.originalSource) return { file: '(bundler helpers, e.g. __name)', line: 0 }
      return { file: relative(ROOT, resolve(dirname(scriptPath), entry.originalSource)), line: entry.originalLine + 1 }
    }
    if (functionName.startsWith('(')) return { file: functionName, line: 0 }
    return { file: url === '' ? '(native)' : url, line: 0 }
  }
}

function areaOf(file) {
  if (file.startsWith('src/')) return 'mcp-edge src/'
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)
  return pkg ? pkg[1] : file
}

/** Self time per function and area, and time charged to the nearest src/ frame, in ms. */
export function analyse(profile, scriptPath) {
  const locate = locator(scriptPath)
  const parents = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id)
  const nodes = new Map()
  for (const node of profile.nodes) {
    const { file, line } = locate(node.callFrame)
    const name = node.callFrame.functionName || '(anonymous)'
    const atRoot = profile.nodes.find((other) => other.id === parents.get(node.id))?.callFrame.functionName === '(root)'
    let key = file.startsWith('(') ? name : `${name} ${file}:${line}`
    // Native code straight under the root: workerd's own work on the isolate's thread.
    if (file === '(native)' && name === '(anonymous)' && atRoot) key = '(workerd, outside any JS function)'
    nodes.set(node.id, { key, file, parent: parents.get(node.id) })
  }
  const nearestSrc = (id) => {
    for (let node = nodes.get(id); node; node = nodes.get(node.parent)) if (node.file.startsWith('src/')) return node.key
    return undefined
  }
  const self = new Map()
  const charged = new Map()
  const areas = new Map()
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms)
  let totalMs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const node = nodes.get(profile.samples[i])
    if (node.file === '(idle)') continue
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    totalMs += ms
    add(self, node.key, ms)
    add(areas, areaOf(node.file), ms)
    const owner = nearestSrc(profile.samples[i])
    if (owner) add(charged, owner, ms)
  }
  const ranked = (map, filter = () => true) =>
    [...map]
      .filter(([key]) => filter(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([key, ms]) => ({ function: key, ms, share: ms / totalMs }))
  return {
    totalMs,
    areas: ranked(areas),
    srcSelf: ranked(self, (key) => key.includes(' src/')),
    srcCharged: ranked(charged),
    all: ranked(self),
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

/** CPU profile of a Worker's (unminified) build in workerd under the bench's load. */
export async function profileInWorkerd(worker, scriptPath, { requests, connections }) {
  const port = await freePort()
  const target = await startWorker(worker, scriptPath, { inspectorPort: port })
  try {
    await verifyAdd(target.endpoint)
    await runLoad(target, ADD_CALL, { connections, amount: requests })
    const cdp = await connectCdp(`ws://127.0.0.1:${port}/${target.name}`)
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 })
    await cdp.send('Profiler.start')
    await runLoad(target, ADD_CALL, { connections, amount: requests })
    const { profile } = await cdp.send('Profiler.stop')
    cdp.close()
    const file = join(TMP, `${worker}-workerd.cpuprofile`)
    writeFileSync(file, JSON.stringify(profile))
    return { requests, connections, file, ...analyse(profile, scriptPath) }
  } finally {
    await target.dispose()
  }
}

/** µs per `tools/call add` of each Worker module called in a loop in Node (median of alternated repeats). */
export async function nodeLoop(workers, iterations, repeats) {
  const bundles = {}
  const runs = Object.fromEntries(workers.map((worker) => [worker, []]))
  for (const worker of workers) {
    const { main } = unstable_getMiniflareWorkerOptions(configPath(worker))
    bundles[worker] = await bundle(main, `loop-${worker}`, { shimCloudflare: true })
  }
  for (let i = 0; i < repeats; i++) {
    for (const worker of workers) {
      const driver = [join(BENCH_DIR, 'lib/profile-driver.mjs'), bundles[worker], String(iterations)]
      const run = spawnSync(process.execPath, driver, { encoding: 'utf8' })
      if (run.status !== 0) throw new Error(`Node loop of ${worker} failed: ${run.stderr}`)
      runs[worker].push(JSON.parse(run.stdout.trim().split('\n').at(-1)).usPerCall)
    }
  }
  const usPerCall = Object.fromEntries(workers.map((worker) => [worker, median(runs[worker])]))
  return { iterations, repeats, usPerCall }
}
