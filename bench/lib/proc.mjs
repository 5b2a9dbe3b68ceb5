/**
 * CPU accounting of a workerd process from /proc (Linux only). utime + stime of /proc/<pid>/stat
 * cover every thread of the process, in clock ticks (CLK_TCK = 100 here, so 10 ms per tick).
 */
import { readdirSync, readFileSync } from 'node:fs'

export const MS_PER_TICK = 10

function statFields(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const close = stat.lastIndexOf(')')
  return { comm: stat.slice(stat.indexOf('(') + 1, close), rest: stat.slice(close + 2).split(' ') }
}

/** Pids of the workerd processes that are direct children of `parentPid`. */
export function workerdChildren(parentPid = process.pid) {
  const pids = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const { comm, rest } = statFields(entry)
      if (comm === 'workerd' && Number(rest[1]) === parentPid) pids.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return pids
}

/** CPU time (user + system, all threads) the process has used since it started, in ms. */
export function cpuMs(pid) {
  const { rest } = statFields(pid)
  return (Number(rest[11]) + Number(rest[12])) * MS_PER_TICK
}

export function isAlive(pid) {
  try {
    readFileSync(`/proc/${pid}/stat`)
    return true
  } catch {
    return false
  }
}

/** CPU time the whole machine has spent busy (all cores, every process), in ms. */
export function machineBusyMs() {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const [user, nice, system, , , irq, softirq, steal] = fields
  return (user + nice + system + irq + softirq + steal) * MS_PER_TICK
}
