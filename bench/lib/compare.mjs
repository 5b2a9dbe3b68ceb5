/**
 * Side-by-side runs, alternated so that machine drift hits every lane alike: round 1 runs lanes A,
 * B, C, round 2 runs C, B, A, round 3 A, B, C again (so no lane always runs first or last). A lane is one kind of request to one running Worker
 * (the same Worker may serve two lanes, e.g. its 2026-07-28 and its 2025-era `tools/call`).
 * Figures are medians over rounds; a ratio is the median of the per-round ratios (each round's
 * lanes ran back to back), which is what every verdict uses, with a 95% interval by resampling
 * the rounds (`ratioInterval`).
 */
import { runLoad } from './load.mjs'
import { range } from './report-parts.mjs'
import { measureStartup } from './startup.mjs'
import { median, medianInterval } from './stats.mjs'

/** Median over rounds of `metric` for each lane. */
export function medians(rounds, metric) {
  const ids = Object.keys(rounds[0] ?? {})
  return Object.fromEntries(ids.map((id) => [id, median(rounds.map((round) => round[id][metric]))]))
}

/** The per-round ratios `a / b` of `metric`. */
const perRound = (rounds, metric, a, b) => rounds.map((round) => round[a][metric] / round[b][metric])

/** Median over rounds of the per-round ratio `a / b` of `metric`. */
export const ratio = (rounds, metric, a, b) => median(perRound(rounds, metric, a, b))

/** The smallest and largest per-round ratio (the spread behind a median). */
export function ratioRange(rounds, metric, a, b) {
  const values = perRound(rounds, metric, a, b)
  return [Math.min(...values), Math.max(...values)]
}

/** The 95% interval of that median (stats.mjs `medianInterval`): how far another run of as many rounds could put it. */
export const ratioInterval = (rounds, metric, a, b) => medianInterval(perRound(rounds, metric, a, b))

/** `a / b` of `metric` as printed by bench:ab and bench:telemetry: `1.248× (95% 1.21–1.29; per round 0.59–1.70)`. */
export function describeRatio(rounds, metric, a, b) {
  const interval = range(ratioInterval(rounds, metric, a, b))
  return `${ratio(rounds, metric, a, b).toFixed(3)}× (95% ${interval}; per round ${range(ratioRange(rounds, metric, a, b))})`
}

/** The order of a round: forwards in odd rounds, backwards in even ones. */
export const inTurn = (items, round) => (round % 2 === 1 ? items : [...items].reverse())

/**
 * Load lanes in alternating rounds. A lane: `{ id, target, request, expectBody, requests? }`;
 * every response under load must equal `expectBody` (the verified answer), byte for byte.
 */
export async function alternateLoad(lanes, { connections, rounds, requests, warmupRequests }, log) {
  for (const lane of lanes) {
    const amount = Math.max(connections, Math.ceil((warmupRequests * (lane.requests ?? requests)) / requests))
    await runLoad(lane.target, lane.request, { connections, amount, expectBody: lane.expectBody })
  }
  const results = []
  for (let round = 1; round <= rounds; round++) {
    const entry = {}
    for (const lane of inTurn(lanes, round)) {
      entry[lane.id] = await runLoad(lane.target, lane.request, {
        connections,
        amount: lane.requests ?? requests,
        expectBody: lane.expectBody,
      })
    }
    log(
      `  round ${round}/${rounds}: ` +
        lanes.map(({ id }) => `${id} ${entry[id].rps.toFixed(0)} req/s ${entry[id].cpuUsPerRequest.toFixed(0)} µs`).join(', '),
    )
    results.push(entry)
  }
  return results
}

/**
 * Fresh-workerd start-ups of each lane, alternated, after one untimed start of each (Miniflare's
 * first use is slower). A lane is a variant, or (`variantOf`) another script of one (ab.mjs).
 */
export async function alternateStartup(ids, scriptOf, repeats, log, variantOf = (id) => id) {
  const start = (id) => measureStartup(variantOf(id), scriptOf(id))
  for (const id of ids) await start(id)
  const results = []
  for (let repeat = 1; repeat <= repeats; repeat++) {
    const entry = {}
    for (const id of inTurn(ids, repeat)) entry[id] = await start(id)
    log(`  start-up ${repeat}/${repeats}: ${ids.map((id) => `${id} ${entry[id].cpuMs.toFixed(1)} ms CPU`).join(', ')}`)
    results.push(entry)
  }
  return results
}
