/**
 * The clients that run as processes, driven at their defaults as people run them: MCP Inspector's
 * CLI (one method per run), mcp-remote over stdio as a desktop host drives it (answering
 * elicitation as the host would), and the official Python SDK's client script where
 * `.venv-python` holds it. Used by test/http/clients.test.ts and the SDK-style fixtures' tests.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'

const ROOT = resolve(import.meta.dirname, '../..')
const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')
/** The Python SDK's interpreter; `.ci/run` installs it, elsewhere its tests skip. */
export const PYTHON = join(ROOT, '.venv-python/bin/python')
export const hasPython = existsSync(PYTHON)

/** A client's own HOME (its config and caches), made fresh per process. */
export const clientHome = (): string => mkdtempSync(join(tmpdir(), 'mcp-edge-client-home-'))

/** Remove the HOME `env` gave `child` once the process has closed: each run left one in /tmp before. */
export function removeHomeOnClose<C extends ChildProcess>(child: C, env: NodeJS.ProcessEnv): C {
  const home = env.HOME
  // A file the client left open elsewhere (a helper still writing) keeps the directory: never a failure of the test.
  const remove = () => {
    try {
      rmSync(home as string, { recursive: true, force: true, maxRetries: 3 })
    } catch {}
  }
  if (home?.includes('mcp-edge-client-home-')) child.once('close', remove)
  return child
}

/** A child's environment: its own HOME, no proxy (Inspector's undici cannot load one on Node 20). */
export function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: clientHome() }
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy']) delete env[name]
  return env
}

/** Run a client process to its end ('close': after its output has been read whole). */
export function run(
  command: string,
  args: string[],
  timeout?: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const env = childEnv()
  const child = removeHomeOnClose(spawn(command, args, { env, timeout }), env)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  return new Promise((done, fail) => {
    child.on('error', fail)
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }))
  })
}

/** One Inspector CLI run against `url` (its default era), its JSON result parsed. */
export async function inspect(url: string, ...args: string[]): Promise<{ code: number | null; result: any; stderr: string }> {
  const { code, stdout, stderr } = await run(process.execPath, [INSPECTOR, '--cli', url, ...args, '--format', 'json'])
  return { code, result: stdout.trim() ? JSON.parse(stdout).result : undefined, stderr }
}

export interface McpRemote {
  request(method: string, params: object): Promise<any>
  notify(method: string): void
  /** The elicitation requests mcp-remote forwarded to the host. */
  asked: any[]
  close(): void
}

/** mcp-remote proxying `url` over stdio; elicitation requests are answered with `answer`. */
export function startMcpRemote(url: string, answer: object): McpRemote {
  const env = childEnv()
  const child: ChildProcessWithoutNullStreams = removeHomeOnClose(
    spawn(process.execPath, [join(ROOT, 'node_modules/mcp-remote/dist/proxy.js'), url], { env }),
    env,
  )
  const waiting = new Map<unknown, (message: any) => void>()
  const asked: any[] = []
  let nextId = 1
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
  child.stderr.resume()
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line)
    if (message.method === 'elicitation/create' && message.id !== undefined) {
      asked.push(message.params)
      send({ jsonrpc: '2.0', id: message.id, result: answer })
    } else if (message.id !== undefined) waiting.get(message.id)?.(message)
  })
  return {
    asked,
    request: (method, params) =>
      new Promise<any>((done) => {
        const id = nextId++
        waiting.set(id, done)
        send({ jsonrpc: '2.0', id, method, params })
      }),
    notify: (method) => send({ jsonrpc: '2.0', method }),
    close: () => {
      child.stdin.end()
      child.kill()
    },
  }
}

/**
 * test/support/python-client.py against `url` (`session` or `client`), exercising the demo's
 * tools or (`low-level`) test/fixture-sdk/low-level's; killed after 50 s.
 */
export async function pythonClient(
  url: string,
  how: 'session' | 'client',
  exercise: 'demo' | 'low-level' = 'demo',
): Promise<any> {
  const script = join(ROOT, 'test/support/python-client.py')
  const extra = exercise === 'low-level' ? ['low-level'] : []
  const { code, signal, stdout, stderr } = await run(PYTHON, [script, url, how, ...extra], 50_000)
  if (code !== 0) throw new Error(`python exited with ${signal ?? code}: ${stderr}`)
  try {
    return JSON.parse(stdout)
  } catch {
    throw new Error(`python printed no JSON: ${stdout}${stderr}`)
  }
}

/**
 * What python-client.py prints (beside `protocolVersion`) for a server with the demo's `add`,
 * `get_weather`, `delete_record`, `info://server` and `summarize`, whose tools are `tools`.
 */
export function pythonSeen(tools: string[]) {
  return {
    tools,
    add: ['5'],
    resource: { uri: 'info://server', mimeType: 'text/plain' },
    prompt: 'Summarize this:\n\nMCP',
    delete: ['Record r-1 deleted (cleanup).'],
    asked: ['Delete record r-1? This cannot be undone.'],
    weather: { city: 'Oslo', tempC: 23, conditions: 'cloudy' },
  }
}
