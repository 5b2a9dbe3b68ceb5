/**
 * Stopping a server the tests started in its own process group (`detached: true`): the signal
 * goes to the whole group, so wrangler's or dev:pair's workerd children go too. Whatever is left
 * after the grace period is killed.
 */
import type { ChildProcess } from 'node:child_process'

const GRACE_MS = 8000

/**
 * @example
 * const signal = groupSignaller(spawn(process.execPath, args, { detached: true }))
 * await signal('SIGTERM') // stop; signal('SIGKILL') for a crash
 */
export function groupSignaller(child: ChildProcess): (name: NodeJS.Signals) => Promise<void> {
  const pid = child.pid as number
  const exited = new Promise<void>((done) => child.once('exit', () => done()))
  return async (name) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    try {
      process.kill(-pid, name)
    } catch {
      return
    }
    const gone = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((done) => setTimeout(() => done(false), GRACE_MS)),
    ])
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {
      // already gone
    }
    if (!gone) await exited
  }
}

/**
 * Start several servers at once. If any fails, the ones that started are stopped before the
 * error is thrown, so nothing outlives a failed setup.
 *
 * @example
 * const [a, b] = await startTogether([() => startPair(), () => startWrangler({ config: 'apps/demo/wrangler.jsonc' })])
 */
export async function startTogether<T extends { stop(): Promise<void> }>(starts: Array<() => Promise<T>>): Promise<T[]> {
  const started = await Promise.allSettled(starts.map((start) => start()))
  const failure = started.find((result) => result.status === 'rejected')
  if (!failure) return started.map((result) => (result as PromiseFulfilledResult<T>).value)
  await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)))
  throw failure.reason
}
