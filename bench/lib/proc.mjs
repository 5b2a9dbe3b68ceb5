/**
 * CPU and memory accounting of a workerd process from /proc (Linux only). CPU time is the sum of
 * the scheduler's on-CPU time of every thread (/proc/<pid>/task/<tid>/schedstat, nanoseconds),
 * far finer than utime + stime of /proc/<pid>/stat (clock ticks, 10 ms here), which matters for
 * short spans such as a start-up. workerd's threads live as long as the process, so no thread's
 * time leaves the sum during a measurement. Machine-wide figures come from /proc/stat (ticks).
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

/** CPU time (all threads) the process has used since it started, in ms (ns resolution). */
export function cpuMs(pid) {
  let ns = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {
      // The thread ended while we looked.
    }
  }
  return ns / 1e6
}

/** Resident set size of the process, in bytes. */
export function rssBytes(pid) {
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  return Number(kib) * 1024
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
