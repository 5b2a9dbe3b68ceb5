/**
 * The three-Worker comparison: mcp-edge (the template), the SDK Worker and the Hono floor,
 * alternated A, B, C, A, B, C, … so that machine drift hits all three alike. Figures are medians
 * over rounds; ratios are medians of the per-round ratios (each round's Workers ran back to back).
 */
import { runLoad } from './load.mjs'
import { ADD_CALL, verifyAdd } from './mcp.mjs'
import { median } from './stats.mjs'
import { measureStartup } from './startup.mjs'

export const WORKERS = ['edge', 'sdk', 'hono']
const FLOOR = 'hono'
const SDK = 'sdk'

/** Median of each metric over rounds, plus the median per-round ratio to the floor and the SDK. */
export function summarize(rounds, metrics) {
  const out = {}
  for (const worker of WORKERS) {
    out[worker] = {}
    for (const metric of metrics) {
      const values = rounds.map((round) => round[worker][metric])
      out[worker][metric] = {
        median: median(values),
        vsFloor: median(rounds.map((round) => round[worker][metric] / round[FLOOR][metric])),
        vsSdk: median(rounds.map((round) => round[worker][metric] / round[SDK][metric])),
      }
    }
  }
  return out
}

export async function compareLoad(targets, { connections, rounds, requests, warmupRequests }, log) {
  // Every response under load must be byte-identical to this verified answer.
  const expected = {}
  for (const worker of WORKERS) {
    expected[worker] = await verifyAdd(targets[worker].endpoint)
    await runLoad(targets[worker], ADD_CALL, { connections, amount: warmupRequests, expectBody: expected[worker] })
  }
  const results = []
  for (let round = 1; round <= rounds; round++) {
    const entry = {}
    for (const worker of WORKERS) {
      entry[worker] = await runLoad(targets[worker], ADD_CALL, { connections, amount: requests, expectBody: expected[worker] })
    }
    for (const worker of WORKERS) entry[worker].cpuOverFloorUs = entry[worker].cpuUsPerRequest - entry[FLOOR].cpuUsPerRequest
    log(
      `  round ${round}/${rounds}: ` +
        WORKERS.map((w) => `${w} ${entry[w].rps.toFixed(0)} req/s ${entry[w].cpuUsPerRequest.toFixed(0)} µs CPU`).join(', '),
    )
    results.push(entry)
  }
  return { rounds: results, summary: summarize(results, ['rps', 'p50Ms', 'p99Ms', 'cpuUsPerRequest', 'cpuOverFloorUs']) }
}

export async function compareStartup(builds, repeats, log) {
  // A throwaway round: the first start of each kind of Worker in this process is slower.
  for (const worker of WORKERS) await measureStartup(worker, builds[worker].min.scriptPath)
  const results = []
  for (let repeat = 1; repeat <= repeats; repeat++) {
    const entry = {}
    for (const worker of WORKERS) entry[worker] = await measureStartup(worker, builds[worker].min.scriptPath)
    log(`  start-up ${repeat}/${repeats}: ${WORKERS.map((w) => `${w} ${entry[w].totalMs.toFixed(0)} ms`).join(', ')}`)
    results.push(entry)
  }
  return { repeats: results, summary: summarize(results, ['totalMs', 'readyMs', 'firstCallMs', 'cpuMs']) }
}
