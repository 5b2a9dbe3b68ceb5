/**
 * workerd under valgrind's callgrind, for the instruction counts of cg-startup.mjs and
 * cg-fanout.mjs: a wrapper named `workerd` (workerd.mjs finds the process it started by that
 * name) that Miniflare starts instead of workerd (`MINIFLARE_WORKERD_PATH`), passing on its
 * arguments and stdin, and the counters read back from a dump.
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, TMP } from './env.mjs'

/**
 * Write the wrapper (dumps into the temp dir's `callgrind/`, emptied here) and point Miniflare at
 * it; returns that dir. `separateThreads`: a dump per thread (`dumpInstructions` then reads the
 * first, workerd's main thread, where every isolate and object runs; V8's background compiler and
 * collector threads, whose share moves with timing, are left out). `stdout`: a file workerd's
 * standard output (a Worker's log lines) is appended to, instead of the pipe Miniflare prints from.
 */
export function useCallgrind({ separateThreads = false, stdout } = {}) {
  const dumps = join(TMP, 'callgrind')
  rmSync(dumps, { recursive: true, force: true })
  mkdirSync(join(dumps, 'bin'), { recursive: true })
  const wrapper = join(dumps, 'bin', 'workerd')
  const workerd = join(ROOT, 'node_modules/@cloudflare/workerd-linux-64/bin/workerd')
  writeFileSync(
    wrapper,
    `#!/bin/bash\nvalgrind --tool=callgrind --callgrind-out-file=${dumps}/cg.%p --dump-line=no${separateThreads ? ' --separate-threads=yes' : ''} ${workerd} "$@" <&0 2>>${dumps}/valgrind.log${stdout ? ` >>${stdout}` : ''} &\n` +
      "child=$!\ntrap 'kill -9 $child 2>/dev/null' TERM INT EXIT\nwait $child\n",
  )
  chmodSync(wrapper, 0o755)
  process.env.MINIFLARE_WORKERD_PATH = wrapper
  return dumps
}

/** The valgrind process under the wrapper Miniflare spawned (`pid`). */
export const valgrindOf = (pid) =>
  execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')[0]

/**
 * Dispose of a target started under the wrapper, and of the callgrind under it: Miniflare ends
 * the wrapper without its trap running, and the valgrind it started would go on running workerd
 * (a busy process per start, left behind).
 */
export async function disposeUnder(target) {
  let valgrind
  try {
    valgrind = valgrindOf(target.pid)
  } catch {
    // no valgrind under it (it ended already)
  }
  try {
    await target.dispose()
  } finally {
    if (valgrind) {
      try {
        process.kill(Number(valgrind), 'SIGKILL')
      } catch {
        // it ended with the wrapper
      }
    }
  }
}

/** Zero the counters of callgrind process `valgrind`. */
export const zeroCounts = (valgrind) => execFileSync('callgrind_control', ['-z', valgrind], { stdio: 'ignore' })

/** Dump the counters of callgrind process `valgrind` (since its start or the last zeroing) and read their total instructions. */
export function dumpInstructions(dumps, valgrind) {
  execFileSync('callgrind_control', ['-d', valgrind], { stdio: 'ignore' })
  // cg.<pid>.<n>, or cg.<pid>.<n>-<thread> per thread: the newest dump, its first thread.
  const order = (file) => file.slice(`cg.${valgrind}.`.length).split('-').map(Number)
  const dump = readdirSync(dumps)
    .filter((file) => file.startsWith(`cg.${valgrind}.`))
    .sort((a, b) => {
      const [x, y] = [order(a), order(b)]
      return x[0] - y[0] || (y[1] ?? 0) - (x[1] ?? 0)
    })
    .at(-1)
  const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dumps, dump), 'utf8'))
  if (!totals) throw new Error(`callgrind: no totals in ${dump}`)
  return { instructions: Number(totals[1]), dump }
}
