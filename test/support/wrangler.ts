/**
 * Start and stop `wrangler dev` for black-box tests: bound to 127.0.0.1 on a free port, state
 * persisted to a directory the caller chooses, no metrics, logs out of the home directory. The
 * process runs in its own group so stopping it also stops its workerd children.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { groupSignaller, startTogether } from './process-group.ts'

const ROOT = resolve(import.meta.dirname, '../..')
const WRANGLER = join(ROOT, 'node_modules/wrangler/bin/wrangler.js')

export interface WranglerServer {
  url: string
  port: number
  pid: number
  /** wrangler's inspector (DevTools protocol, the Worker's isolate), on 127.0.0.1. */
  inspectorPort: number
  persistTo: string
  logFile: string
  stop(): Promise<void>
}

export interface WranglerOptions {
  /** wrangler.jsonc path, relative to the repository root. */
  config: string
  persistTo?: string
  port?: number
  /** Extra `--var NAME:VALUE` bindings; a function gets the port first (for URLs naming it). */
  vars?: Record<string, string> | ((port: number) => Record<string, string>)
  /** wrangler's `--log-level` (default `warn`; `info` shows the Worker's console.log lines). */
  logLevel?: 'warn' | 'info' | 'log'
  /** More environment for wrangler, such as NODE_EXTRA_CA_CERTS (test/support/tls.ts). */
  env?: Record<string, string>
}

/**
 * The keys under `prefix` of a Worker's KV namespace in its local state, unexpired, in key order,
 * as `wrangler kv key list --local` lists them: read from the SQLite file miniflare keeps the
 * namespace in (`<persistTo>/v3/kv/miniflare-KVNamespaceObject/<id>.sqlite`, table
 * `_mf_entries`), which is what that command reads, without its 2 s wrangler start (a dozen of
 * them in oauth-ema.test.ts). Opened read-only beside the running workerd (SQLite's WAL mode
 * lets both). The Workers read here bind one KV namespace; a state with more, or laid out
 * otherwise (another miniflare), throws rather than answer for the wrong one.
 */
export function kvKeys(server: WranglerServer, prefix: string): string[] {
  const dir = join(server.persistTo, 'v3/kv/miniflare-KVNamespaceObject')
  // Miniflare makes the folder and its metadata.sqlite when the Worker starts, and each namespace's
  // file beside it on the first write; without them, KV is kept some other way now.
  if (!existsSync(join(dir, 'metadata.sqlite')))
    throw new Error(`kvKeys: no ${dir}/metadata.sqlite: where does miniflare keep KV now?`)
  const files = readdirSync(dir).filter((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite')
  if (files.length > 1) throw new Error(`kvKeys: ${files.length} KV namespaces in ${dir}, which one is meant?`)
  const [file] = files
  if (file === undefined) return [] // nothing written yet
  // Loaded here, not imported: node:sqlite needs no flag from Node 22.13, and the http project runs on 22.12 too.
  const sqlite = process.getBuiltinModule('node:sqlite')
  if (!sqlite) throw new Error(`kvKeys needs node:sqlite (Node 22.13 or later), not in Node ${process.version}`)
  const db = new sqlite.DatabaseSync(join(dir, file), { readOnly: true })
  try {
    const rows = db
      .prepare('SELECT key FROM _mf_entries WHERE substr(key, 1, ?) = ? AND (expiration IS NULL OR expiration > ?) ORDER BY key')
      .all(prefix.length, prefix, Date.now()) as { key: string }[]
    return rows.map((row) => row.key)
  } finally {
    db.close()
  }
}

/**
 * The kernel's ephemeral ports start here (`ip_local_port_range`): `listen(0)` and every outgoing
 * connection's own port come from above it, so a port picked below it is not taken by the bench's
 * workerd processes or by a client's connection between the pick and wrangler's bind.
 */
const EPHEMERAL_LOW = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768
  } catch {
    return 32768
  }
})()
// Where the ephemeral range starts too low to leave room below it (some containers start it at
// 1024), ports are picked from a fixed span, and a race is left to startWrangler's retries.
const [PICK_FROM, PICK_TO] =
  EPHEMERAL_LOW - 1024 >= 4000 ? [Math.max(1024, EPHEMERAL_LOW - 12_000), EPHEMERAL_LOW] : [20_000, 30_000]
/**
 * The part of that range this process picks from: npm test runs two vitest processes side by side
 * (scripts/test.mjs), each with its own MCP_EDGE_TEST_LANE, 0 or 1, and each takes its own half,
 * so neither takes a port the other picked and has not bound yet. Alone, the whole range.
 */
const [PICK_LOW, PICK_HIGH] = (() => {
  const lane = process.env.MCP_EDGE_TEST_LANE
  if (lane !== '0' && lane !== '1') return [PICK_FROM, PICK_TO]
  const middle = Math.floor((PICK_FROM + PICK_TO) / 2)
  return lane === '0' ? [PICK_FROM, middle] : [middle, PICK_TO]
})()

/** Whether a server can listen on `port` of 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A free port of 127.0.0.1 below the ephemeral range (EPHEMERAL_LOW says why). */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = PICK_LOW + Math.floor(Math.random() * (PICK_HIGH - PICK_LOW))
    if (await canListen(port)) return port
  }
  throw new Error(`no free port between ${PICK_LOW} and ${PICK_HIGH} in 50 tries`)
}

const DISCOVER = JSON.stringify({
  jsonrpc: '2.0',
  id: 'ready',
  method: 'server/discover',
  params: {
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
})

async function waitReady(url: string, child: ChildProcess, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}; see ${logFile}`)
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        },
        body: DISCOVER,
        signal: AbortSignal.timeout(2000),
      })
      // Up: an answer, a refusal, or a misconfigured server's 500 that says what to fix.
      const misconfigured = response.status === 500 && (await response.text()).includes('Server misconfigured')
      if (response.status === 200 || response.status === 401 || misconfigured) return
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 250))
  }
  throw new Error(`wrangler dev did not become ready within ${timeoutMs} ms; see ${logFile}`)
}

/**
 * @example
 * const fixture = await startWrangler({ config: 'test/fixture/wrangler.jsonc' })
 * await fetch(fixture.url, ...)
 * await fixture.stop()
 */
export async function startWrangler(options: WranglerOptions): Promise<WranglerServer> {
  // A free port can be taken by another process between picking it and wrangler binding it
  // (several servers start at once): only that race is retried, with a fresh port, or with the
  // given one after a pause.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options)
    } catch (error) {
      const log = (error as { logFile?: string }).logFile
      const raced = log !== undefined && readFileSync(log, 'utf8').includes('Address already in use')
      if (!raced || attempt === 3) throw error
      // A given port is one a stopped server held (a restart): its process may not have let go of
      // it yet on a loaded machine, so wait a moment and try it again.
      if (options.port !== undefined) await new Promise((done) => setTimeout(done, 2000))
    }
  }
}

async function startOnce(options: WranglerOptions): Promise<WranglerServer> {
  const port = options.port ?? (await freePort())
  const inspectorPort = await freePort()
  const persistTo = options.persistTo ?? mkdtempSync(join(tmpdir(), 'mcp-edge-state-'))
  const logDir = mkdtempSync(join(tmpdir(), 'mcp-edge-wrangler-'))
  const logFile = join(logDir, 'wrangler.log')
  const out = openSync(logFile, 'a')
  const args = [
    WRANGLER,
    'dev',
    '-c',
    join(ROOT, options.config),
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-ip',
    '127.0.0.1',
    '--inspector-port',
    String(inspectorPort),
    '--persist-to',
    persistTo,
    '--show-interactive-dev-session=false',
    '--log-level',
    options.logLevel ?? 'warn',
  ]
  const vars = typeof options.vars === 'function' ? options.vars(port) : (options.vars ?? {})
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`)
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, ...options.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: logDir, CI: '1' },
  })
  const pid = child.pid as number
  const url = `http://127.0.0.1:${port}/mcp`
  const signal = groupSignaller(child)
  const stop = () => signal('SIGTERM')
  try {
    await waitReady(url, child, logFile, 90_000)
  } catch (error) {
    await stop()
    throw Object.assign(error as Error, { logFile })
  }
  return { url, port, pid, inspectorPort, persistTo, logFile, stop }
}

/** Start several `wrangler dev` at once; if one fails, the others are stopped. */
export function startAll(options: WranglerOptions[]): Promise<WranglerServer[]> {
  return startTogether(options.map((option) => () => startWrangler(option)))
}
