/**
 * Where a delivery's CPU goes on the fan-out path: the fan-out Worker built unminified, in one
 * isolate with the inspector on (which there also runs the hub and ledger objects), N listen
 * streams and N/5 2025 session streams, a warm-up round, then a V8 CPU profile over the rounds.
 * Profiling only, no figure for the comparisons; the profile is written to the temp dir (`fanout.cpuprofile`). `node bench/profile-fanout.mjs [streams] [rounds]`.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildAll } from './lib/build.mjs'
import { TMP } from './lib/env.mjs'
import { fanoutRounds, inBatches, openListener } from './lib/fanout.mjs'
import { openSession, openStream } from './lib/fanout-2025.mjs'
import { startInspected } from './lib/heap.mjs'
import { analyse } from './lib/profile-analyse.mjs'

const streams = Number(process.argv[2] ?? 500)
const sessions = Math.round(streams / 5)
const rounds = Number(process.argv[3] ?? 10)
const [bundle] = await buildAll([['fanout', { minify: false }]])
const inspected = await startInspected('fanout', bundle.scriptPath)
const open = []
try {
  const { endpoint } = inspected.target
  const fanout = fanoutRounds(endpoint, streams + sessions, 500)
  const opened = await inBatches(sessions, () => openSession(endpoint))
  open.push(...(await inBatches(sessions, (i) => openStream(opened[i], fanout.onUpdate))))
  open.push(...(await inBatches(streams, (i) => openListener(endpoint, `l${i}`, fanout.onUpdate))))
  await fanout.measure(inspected.target.pid, 1)
  await inspected.cdp.send('Profiler.enable')
  await inspected.cdp.send('Profiler.setSamplingInterval', { interval: 100 })
  await inspected.cdp.send('Profiler.start')
  const figures = await fanout.measure(inspected.target.pid, rounds)
  const { profile } = await inspected.cdp.send('Profiler.stop')
  const result = analyse(profile, bundle.scriptPath)
  const file = join(TMP, 'fanout.cpuprofile')
  writeFileSync(file, JSON.stringify(profile))
  console.log(JSON.stringify({ streams, sessions, ...figures, profile: file }, null, 1))
  console.log(JSON.stringify(result, null, 1))
} finally {
  await Promise.all(open.map((stream) => stream.close()))
  await inspected.dispose()
}
