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

/** Write the wrapper (dumps into the temp dir's `callgrind/`, emptied here) and point Miniflare at it; returns that dir. */
export function useCallgrind() {
  const dumps = join(TMP, 'callgrind')
  rmSync(dumps, { recursive: true, force: true })
  mkdirSync(join(dumps, 'bin'), { recursive: true })
  const wrapper = join(dumps, 'bin', 'workerd')
  const workerd = join(ROOT, 'node_modules/@cloudflare/workerd-linux-64/bin/workerd')
  writeFileSync(
    wrapper,
    `#!/bin/bash\nvalgrind --tool=callgrind --callgrind-out-file=${dumps}/cg.%p --dump-line=no ${workerd} "$@" <&0 2>>${dumps}/valgrind.log &\n` +
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

/** Zero the counters of callgrind process `valgrind`. */
export const zeroCounts = (valgrind) => execFileSync('callgrind_control', ['-z', valgrind], { stdio: 'ignore' })

/** Dump the counters of callgrind process `valgrind` (since its start or the last zeroing) and read their total instructions. */
export function dumpInstructions(dumps, valgrind) {
  execFileSync('callgrind_control', ['-d', valgrind], { stdio: 'ignore' })
  const dump = readdirSync(dumps)
    .filter((file) => file.startsWith(`cg.${valgrind}.`))
    .sort((a, b) => Number(a.split('.').at(-1)) - Number(b.split('.').at(-1)))
    .at(-1)
  const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dumps, dump), 'utf8'))
  if (!totals) throw new Error(`callgrind: no totals in ${dump}`)
  return { instructions: Number(totals[1]), dump }
}
