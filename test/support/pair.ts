/**
 * Start and stop `npm run dev:pair` (scripts/dev-pair.mjs) for black-box tests: one Worker as two
 * isolates sharing its Durable Objects, on two free loopback ports, state persisted to a
 * directory the caller chooses (so a test can kill the pair and start it again on the same
 * state). The process runs in its own group; `stop` ends it gracefully, `kill` with SIGKILL (a
 * crash), both for the whole group, workerd included.
 */
import { spawn } from 'node:child_process'
import { createWriteStream, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { groupSignaller } from './process-group.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const DEV_PAIR = join(ROOT, 'scripts/dev-pair.mjs')
const READY = '[dev:pair] ready '
const START_TIMEOUT_MS = 90_000

export interface PairServer {
  /** The two isolates' MCP endpoints: `urls[0]` owns the Durable Objects, `urls[1]` binds them. */
  urls: [string, string]
  pid: number
  persistTo: string
  logFile: string
  /** SIGTERM to the group, then SIGKILL to whatever is left. */
  stop(): Promise<void>
  /** SIGKILL to the group at once: nothing gets to clean up (a crash). */
  kill(): Promise<void>
}

export interface PairOptions {
  /** wrangler.jsonc path, relative to the repository root (default: the template's). */
  config?: string
  persistTo?: string
  vars?: Record<string, string>
}

/**
 * @example
 * const pair = await startPair({ config: 'apps/demo/wrangler.jsonc' })
 * await fetch(pair.urls[1], ...)
 * await pair.stop()
 */
export async function startPair(options: PairOptions = {}): Promise<PairServer> {
  const persistTo = options.persistTo ?? mkdtempSync(join(tmpdir(), 'mcp-edge-pair-state-'))
  const logFile = join(mkdtempSync(join(tmpdir(), 'mcp-edge-pair-log-')), 'dev-pair.log')
  const log = createWriteStream(logFile)
  const args = [DEV_PAIR, '--port', '0', '--persist-to', persistTo, '--log-level', 'warn']
  if (options.config) args.push('--config', options.config)
  for (const [name, value] of Object.entries(options.vars ?? {})) args.push('--var', `${name}:${value}`)
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1' },
  })
  const pid = child.pid as number
  child.stderr.pipe(log, { end: false })
  const signal = groupSignaller(child)

  const ready = new Promise<{ urls: [string, string] }>((resolveReady, reject) => {
    let pending = ''
    const timer = setTimeout(
      () => reject(new Error(`dev:pair not ready within ${START_TIMEOUT_MS} ms; see ${logFile}`)),
      START_TIMEOUT_MS,
    )
    child.stdout.on('data', (chunk: Buffer) => {
      log.write(chunk)
      pending += chunk.toString('utf8')
      const line = pending.split('\n').find((candidate) => candidate.startsWith(READY))
      if (line === undefined) return
      clearTimeout(timer)
      resolveReady(JSON.parse(line.slice(READY.length)) as { urls: [string, string] })
      pending = ''
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`dev:pair exited with ${code} before it was ready; see ${logFile}`))
    })
  })
  try {
    const { urls } = await ready
    return {
      urls: urls.map((origin) => `${origin}/mcp`) as [string, string],
      pid,
      persistTo,
      logFile,
      stop: () => signal('SIGTERM'),
      kill: () => signal('SIGKILL'),
    }
  } catch (error) {
    await signal('SIGKILL')
    throw error
  }
}
