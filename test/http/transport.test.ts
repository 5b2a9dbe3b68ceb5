/**
 * Streamable HTTP behaviour that needs a real connection: closing the response stream cancels
 * the handler (streamable-http: "Closing the SSE response stream MUST be treated by the server as
 * cancellation of that request"), and long silences on a stream are filled with SSE comments.
 */
import { describe, expect, inject, it } from 'vitest'
import { legacyConnect, legacyStream } from '../support/legacy.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'

const url = () => inject('fixtureUrl')
const text = async (name: string, args: Record<string, unknown>) =>
  (await rpc(fetch, url(), 'tools/call', { name, arguments: args })).message.result?.content?.[0]?.text

/** Poll abort_status until wait_for_abort saw its signal (or 20 s pass: a loaded machine is slow to tell). */
async function abortSeen(key: string): Promise<string> {
  let status = 'false'
  for (const deadline = Date.now() + 20_000; status === 'false' && Date.now() < deadline; ) {
    await new Promise((done) => setTimeout(done, 50))
    status = await text('abort_status', { key })
  }
  return status
}

describe('Streamable HTTP over a real connection', () => {
  it('aborts the handler’s ctx.signal when the client closes the stream', async () => {
    const key = `abort-${Date.now()}`
    const controller = new AbortController()
    const stream = await openStream(
      (request) => fetch(request, { signal: controller.signal }),
      buildRequest(url(), 'tools/call', { name: 'wait_for_abort', arguments: { key } }, { meta: { progressToken: 'wait' } }),
    )
    expect((await stream.next()).method).toBe('notifications/progress')
    expect(await text('abort_status', { key })).toBe('false')
    controller.abort()
    expect(await abortSeen(key)).toBe('true')
  })

  it('aborts it the same way for a 2025-era client', async () => {
    const key = `abort-legacy-${Date.now()}`
    const client = await legacyConnect(fetch, url())
    const stream = await legacyStream(fetch, url(), client, 'tools/call', {
      name: 'wait_for_abort',
      arguments: { key },
      _meta: { progressToken: 'wait' },
    })
    expect((await stream.next()).method).toBe('notifications/progress')
    expect(await text('abort_status', { key })).toBe('false')
    await stream.close()
    expect(await abortSeen(key)).toBe('true')
  })

  it('sends keepalive comments while a stream is silent, then the result', async () => {
    // The fixture's keepalive interval is 1 s; the tool is silent for 2.5 s after its first progress.
    const response = await fetch(
      buildRequest(
        url(),
        'tools/call',
        { name: 'slow_after_progress', arguments: { ms: 2500 } },
        { meta: { progressToken: 'slow' } },
      ),
    )
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    const raw = await response.text()
    const comments = raw.split('\n\n').filter((block) => block === ':').length
    expect(comments).toBeGreaterThanOrEqual(1)
    expect(raw.trimEnd().split('\n').at(-1)).toMatch(
      /^data: \{"jsonrpc":"2.0","id":\d+,"result":\{"content":\[\{"type":"text","text":"slow done"\}\]/,
    )
  })
})
