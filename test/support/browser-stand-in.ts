/**
 * A STAND-IN for the person's browser launcher, nothing more: run as `$BROWSER <url>` (node runs
 * this file as is) by the `xdg-open` that mcp-remote's bundled `open` package starts on Linux with
 * no display, it hands the URL to the test by POSTing it to `BROWSER_STAND_IN_SINK` (a loopback
 * URL the test listens on; see `listenForBrowserLaunches`), with the command line of the process
 * that ran it (Linux /proc), so the test can check which opener did. The test then opens the URL
 * in a real Chromium. Exits 0 once the test has the URL (xdg-open then reports success), else 1.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request to open a browser: the URL, and the command line of the process that ran `$BROWSER`. */
export interface BrowserLaunch {
  url: string
  by: string[]
}

/** What the test passes to the launched process: `BROWSER` and the sink the script posts to. */
export interface BrowserLaunches {
  env: { BROWSER: string; BROWSER_STAND_IN_SINK: string }
  /** The next URL a program asked the stand-in to open. */
  next(timeoutMs: number): Promise<BrowserLaunch>
  close(): Promise<void>
}

/**
 * Listen on 127.0.0.1 for the URLs this script is asked to open.
 *
 * @example
 * const launches = await listenForBrowserLaunches()
 * spawn(process.execPath, [proxy, url], { env: { ...process.env, ...launches.env } })
 * await page.goto((await launches.next(20_000)).url)
 */
export async function listenForBrowserLaunches(): Promise<BrowserLaunches> {
  const opened: BrowserLaunch[] = []
  const waiting: Array<(launch: BrowserLaunch) => void> = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      response.end('opened')
      const launch = JSON.parse(body) as BrowserLaunch
      const wake = waiting.shift()
      if (wake) wake(launch)
      else opened.push(launch)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const sink = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  return {
    // xdg-open runs `$BROWSER "$url"` unquoted: node's path and this file's must have no spaces.
    env: { BROWSER: `${process.execPath} ${import.meta.filename}`, BROWSER_STAND_IN_SINK: sink },
    next(timeoutMs) {
      const ready = opened.shift()
      if (ready !== undefined) return Promise.resolve(ready)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no browser launch within ${timeoutMs} ms`)), timeoutMs)
        waiting.push((launch) => {
          clearTimeout(timer)
          resolve(launch)
        })
      })
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

// Run as the launcher: `node browser-stand-in.ts <url>`.
if (process.argv[1] === import.meta.filename) {
  const [url] = process.argv.slice(2)
  const sink = process.env.BROWSER_STAND_IN_SINK
  if (!url || !sink) process.exit(1)
  let by: string[] = []
  try {
    by = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8').split('\0').filter(Boolean)
  } catch {
    // not Linux: the opener is unknown
  }
  const body = JSON.stringify({ url, by })
  const response = await fetch(sink, { method: 'POST', body, signal: AbortSignal.timeout(5000) }).catch(() => undefined)
  process.exit(response?.ok ? 0 : 1)
}
