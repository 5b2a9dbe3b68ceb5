/**
 * A loopback HTTP forwarder that watches a client the test cannot hook (mcp-remote): it passes
 * every request to one target origin and every answer back byte for byte, SSE streams as they
 * arrive, and notes the 2025-era sessions the target assigns (the `mcp-session-id` of an answer
 * to a request that carried none) and which of them have had a GET answered 200, their standalone
 * stream, which the client opens by itself and does not report. Bound to 127.0.0.1; `close` ends
 * open streams too.
 */
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Forwarder {
  /** The forwarder's URL for the target URL's path. */
  url: string
  /** The session ids the target assigned, oldest first. */
  sessions: string[]
  /** Resolves once a GET of session `id` has been answered 200 (at once if one was). */
  streamOpened(id: string): Promise<void>
  /** Every GET that reached the forwarder, in order: its session and the `Last-Event-ID` it sent. */
  gets: Array<{ session: string | undefined; lastEventId: string | undefined }>
  /** Hold the next GETs (a client kept away) until the returned function is called; `held` resolves at the first. */
  hold(): { held: Promise<void>; release: () => void }
  close(): Promise<void>
}

/**
 * @example
 * const forwarder = await startForwarder('http://127.0.0.1:8788/mcp')
 * // point the client at forwarder.url; once it has initialized:
 * await forwarder.streamOpened(forwarder.sessions.at(-1) as string)
 * await forwarder.close()
 */
export async function startForwarder(target: string): Promise<Forwarder> {
  const origin = new URL(target)
  const sessions: string[] = []
  const streams = new Set<string>()
  const waiting = new Map<string, Array<() => void>>()
  const opened = (id: string) => {
    streams.add(id)
    for (const wake of waiting.get(id) ?? []) wake()
    waiting.delete(id)
  }
  const gets: Forwarder['gets'] = []
  let gate: Promise<void> = Promise.resolve()
  let arrived: () => void = () => {}
  const server = createServer(async (incoming, outgoing) => {
    const session = incoming.headers['mcp-session-id'] as string | undefined
    if (incoming.method === 'GET') {
      gets.push({ session, lastEventId: incoming.headers['last-event-id'] as string | undefined })
      arrived()
      await gate
    }
    const upstream = request(
      {
        host: origin.hostname,
        port: origin.port,
        path: incoming.url,
        method: incoming.method,
        headers: { ...incoming.headers, host: origin.host },
      },
      (answer) => {
        const assigned = answer.headers['mcp-session-id'] as string | undefined
        if (session === undefined && assigned !== undefined) sessions.push(assigned)
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        outgoing.flushHeaders()
        answer.pipe(outgoing)
        if (incoming.method === 'GET' && answer.statusCode === 200 && session !== undefined) opened(session)
      },
    )
    upstream.on('error', () => outgoing.destroy())
    // The client went: so does the request to the target (which sees its stream end).
    outgoing.on('close', () => upstream.destroy())
    incoming.pipe(upstream)
  })
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${origin.pathname}`,
    sessions,
    gets,
    hold() {
      let release!: () => void
      gate = new Promise((resolve) => {
        release = resolve
      })
      const held = new Promise<void>((resolve) => {
        arrived = resolve
      })
      return { held, release }
    },
    streamOpened: (id) =>
      streams.has(id) ? Promise.resolve() : new Promise((wake) => waiting.set(id, [...(waiting.get(id) ?? []), wake])),
    close: () =>
      new Promise((closed) => {
        server.closeAllConnections()
        server.close(() => closed())
      }),
  }
}
