/**
 * The spread of recent runs: each run appends its targets' measured values to history.json next
 * to results.json (full runs: bench/; quick runs: a temp dir), keeping the last KEEP runs. The
 * report shows, per target, the smallest and largest value over them, so one lucky or disturbed
 * run is seen for what it is.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const KEEP = 10

/** Other processes using more than this share of the machine during a run disturb the figures. */
export const DISTURBED_SHARE = 0.1
/** The largest share of the machine other processes used during one of a round's runs. */
export const othersShare = (round) => Math.max(...Object.values(round).map((run) => run.othersShare))
/** Rounds of the floor during which other processes disturbed the figures. */
export const disturbedRounds = (rounds) => rounds.filter((round) => othersShare(round) > DISTURBED_SHARE).length

/** Append this run to `<dir>/history.json`; returns the kept runs with the same standard output, oldest first (this one last). */
export function appendHistory(dir, { machine, targets, floor, config }) {
  const file = join(dir, 'history.json')
  const runs = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : []
  runs.push({
    date: machine.date,
    commit: machine.commit,
    srcModified: machine.srcModified,
    quick: config.quick,
    disturbedRounds: disturbedRounds(floor.rounds),
    rounds: floor.rounds.length,
    // Where workerd's standard output went (workerd.mjs); runs before the field had the pipe.
    stdout: config.stdout,
    // Whether the fan-out Worker shared hub sockets (config.scaleShare); runs before the field did not.
    sharedSockets: config.scaleShare,
    // A target measured on the demo with telemetry off carries the as-shipped figure under its old id.
    targets: Object.fromEntries(
      targets.flatMap((target) => [
        [target.id, target.measured],
        ...(target.shipped ? [[target.shipped.id, target.shipped.measured]] : []),
      ]),
    ),
  })
  const kept = runs.slice(-KEEP)
  const sameOutput = (run) => (run.stdout ?? 'pipe') === config.stdout
  // Whether hub sockets were shared moves only the fan-out at scale's figures.
  const sameSharing = (run) => (run.sharedSockets ?? false) === config.scaleShare
  const alike = (run) =>
    sameSharing(run)
      ? run
      : { ...run, targets: Object.fromEntries(Object.entries(run.targets).filter(([id]) => !id.startsWith('scale'))) }
  mkdirSync(dir, { recursive: true })
  writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`)
  // The spread compares like with like: runs whose workerd wrote its output the same way, and for
  // the scale targets, runs whose hub sockets were shared or not alike.
  return kept.filter(sameOutput).map(alike)
}

/** Smallest and largest value of a target over the runs that measured it. */
export function spread(runs, id) {
  const values = runs.map((run) => run.targets[id]).filter((value) => Number.isFinite(value))
  return values.length === 0 ? undefined : { min: Math.min(...values), max: Math.max(...values), runs: values.length }
}
