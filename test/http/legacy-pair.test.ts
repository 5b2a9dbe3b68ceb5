/**
 * The 2025-era lane across two isolates (`npm run dev:pair`, the template as two Workers sharing
 * their Durable Objects): a session id sealed by one isolate opens on the other, and a client's
 * answer to a server-to-client request, posted to the other isolate, reaches the call waiting in
 * the first through the `McpInputRelay` Durable Object, and a session ended on one isolate (DELETE)
 * is refused on the other within 0.5 s (the `McpSessionLedger` Durable Object); the SDK 1.x
 * client, subscribed on one isolate through its own GET stream, hears a note added on the other.
 * A session's changes on one isolate (a subscription, a newer stream, its end) apply to its open
 * stream on the other at once: they are announced through the event hub before their answer. Nothing about the session or the pending
 * request is shared in memory: each isolate has its own module state. Both isolates export their
 * spans to one OTLP collector: the question, its answer and an event's delivery are each one
 * trace across the two.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeCursor } from '../../packages/mcp-edge/src/server/events/event-log.ts'
import { answer, legacyConnect, legacyGet, legacyRpc, legacyStream } from '../support/legacy.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'
import { type CollectedSpan, type Collector, startCollector } from '../support/otlp-collector.ts'
import { type PairServer, startPair } from '../support/pair.ts'

/** The hub seq an SSE id names (one hub shard, as the demo has). */
function seqOf(id: string | undefined): number {
  const cursor = decodeCursor(id ?? '')
  expect(cursor?.size).toBe(1)
  return [...cursor!.values()][0]!
}

/** The SSE ids of the resource updates in a stream's text, in order. */
const updateIds = (text: string): string[] =>
  text
    .split('\n\n')
    .filter((block) => block.includes('notifications/resources/updated'))
    .map((block) => /^id: (.+)$/m.exec(block)?.[1] ?? '')

const CLIENT = { trace: '4bf92f3577b34da6a3ce929d0e0e4736', span: '00f067aa0ba902b7' }
const ROOT = resolve(import.meta.dirname, '../..')
const PYTHON = join(ROOT, '.venv-python/bin/python')

describe('the 2025-era lane on two isolates', () => {
  let pair: PairServer
  let collector: Collector

  beforeAll(async () => {
    collector = await startCollector()
    pair = await startPair({ config: 'apps/demo/wrangler.jsonc', vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint } })
  })
  afterAll(async () => {
    await pair?.stop()
    await collector?.close()
  })

  it("shares one hub socket among an isolate's listen streams of one caller and subscription, as the durable template does", async () => {
    const [a, b] = pair.urls
    const subscription = { notifications: { resourceSubscriptions: ['notes://all'] } }
    /**
     * What the publish of one add_note (called on b) counted: the hub sockets it reached. The
     * publish span is not in the call's trace, so it is told from the earlier ones by being new.
     */
    const publishReached = async (streams: Awaited<ReturnType<typeof openStream>>[]) => {
      const isPublish = (span: { name: string; attributes: Record<string, unknown> }) =>
        span.name === 'publish notifications/resources/updated' && span.attributes['mcp.resource.uri'] === 'notes://all'
      const before = new Set(
        collector
          .spans()
          .filter(isPublish)
          .map((span) => span.spanId),
      )
      await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'shared socket' } })
      for (const stream of streams) {
        expect(await stream.next()).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'notes://all' } })
      }
      const fresh = (await collector.waitFor((all) => all.some((span) => isPublish(span) && !before.has(span.spanId)))).filter(
        (span) => isPublish(span) && !before.has(span.spanId),
      )
      expect(fresh).toHaveLength(1)
      return fresh[0]?.attributes['mcp_edge.event.listeners'] as number
    }
    const listen = async () => {
      const stream = await openStream(fetch, buildRequest(a, 'subscriptions/listen', subscription))
      expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
      return stream
    }
    const first = await listen()
    let second: Awaited<ReturnType<typeof openStream>> | undefined
    try {
      // The first test of the file, so no other stream listens yet: one socket.
      expect(await publishReached([first])).toBe(1)
      second = await listen()
      // Both streams hear it, and the hub still reached one socket: the second joined the first's
      // (with a socket per stream, as cloudflareEventHub without shareSockets, two).
      expect(await publishReached([first, second])).toBe(1)
    } finally {
      await first.close()
      await second?.close()
    }
  })

  it('opens a session sealed by one isolate on the other, and refuses a changed one there too', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a, { capabilities: { elicitation: {} } })
    const listed = await legacyRpc(fetch, b, client, 'tools/list')
    expect(listed.message.result.tools.map((tool: { name: string }) => tool.name)).toContain('delete_record')
    const changed = { ...client, sessionId: `${client.sessionId}x` }
    expect((await legacyRpc(fetch, b, changed, 'tools/list')).status).toBe(404)
  })

  it('ends a session on DELETE: 404 at once on the isolate that answered, and on the other 0.5 s after', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a)
    // b has read the session's facts (not ended) and keeps them for up to 400 ms.
    expect((await legacyRpc(fetch, b, client, 'ping')).message.result).toEqual({})
    const ended = await fetch(a, { method: 'DELETE', headers: { 'mcp-session-id': client.sessionId as string } })
    const answeredAt = Date.now()
    expect(ended.status).toBe(204)
    expect((await legacyRpc(fetch, a, client, 'ping')).status).toBe(404)
    await new Promise((done) => setTimeout(done, Math.max(0, answeredAt + 500 - Date.now())))
    expect((await legacyRpc(fetch, b, client, 'ping')).status).toBe(404)
    expect((await fetch(b, { method: 'DELETE', headers: { 'mcp-session-id': client.sessionId as string } })).status).toBe(404)
  })

  it('tells an SDK 1.x client at its defaults, whose subscription was made on the other isolate, of a note added there', async () => {
    const [a, b] = pair.urls
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    const heard = new Promise<string>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => resolve(notification.params.uri))
    })
    // The client opens its GET stream by itself after initializing: its 200 is seen through fetch.
    let streamOpen!: () => void
    const opened = new Promise<void>((resolve) => {
      streamOpen = resolve
    })
    const transport = new StreamableHTTPClientTransport(new URL(a), {
      fetch: async (url, init) => {
        const response = await fetch(url, init)
        if (init?.method === 'GET' && response.status === 200) streamOpen()
        return response
      },
    })
    await client.connect(transport)
    try {
      expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true })
      await opened
      // Subscribed through b: the hub has b's announcement of the change before its answer, so a's
      // stream reads the session's subscriptions again before the note's update reaches it.
      const session = { version: transport.protocolVersion as string, sessionId: transport.sessionId as string }
      expect((await legacyRpc(fetch, b, session, 'resources/subscribe', { uri: 'notes://all' })).message.result).toEqual({})
      await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'from b' } })
      expect(await heard).toBe('notes://all')
    } finally {
      await transport.terminateSession()
      await client.close()
    }
  })

  // The official Python SDK (PyPI `mcp`), when .venv-python has it (.ci/run installs it).
  it.skipIf(!existsSync(PYTHON))(
    'tells the Python SDK’s ClientSession at its defaults, subscribed on one isolate, of a note added on the other',
    async () => {
      const [a, b] = pair.urls
      const child = spawn(PYTHON, [join(ROOT, 'test/support/python-client.py'), a, 'subscribe'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      child.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
      const line = async () => {
        const next = await lines.next()
        if (next.done) throw new Error(`python ended early: ${stderr}`)
        return JSON.parse(next.value)
      }
      try {
        // Printed once its own GET stream is open (the SDK logs it).
        expect(await line()).toEqual({ ready: true, subscribe: true })
        await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'for python' } })
        expect(await line()).toEqual({ updated: 'notes://all' })
      } finally {
        child.kill()
      }
    },
  )

  it('sends a session’s notifications to its newest stream only, across isolates: the older stops', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a)
    expect((await legacyRpc(fetch, a, client, 'resources/subscribe', { uri: 'notes://all' })).message.result).toEqual({})
    const older = await legacyGet(fetch, a, client)
    await older.raw()
    const newer = await legacyGet(fetch, b, client)
    await newer.raw()
    // b announced its stream before answering the GET: a's stream, told, reads that it is older.
    await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'once' } })
    expect((await newer.next()).params).toEqual({ uri: 'notes://all' })
    // It ends at once; its own end would be listenTimeoutMs (10 minutes) away, so 15 s tells them apart.
    expect(await older.endsWithin(15_000)).toBe(true)
    expect(older.messages()).toEqual([])
    newer.close()
  })

  it('applies a subscription and an unsubscribe made on one isolate to the session’s open stream on the other at once', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a)
    const stream = await legacyGet(fetch, a, client)
    await stream.raw()
    // Not subscribed yet: the update is not sent (and a's stream has just decided one with its facts).
    await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'before' } })
    const subscribe = async (method: string) =>
      expect((await legacyRpc(fetch, b, client, method, { uri: 'notes://all' })).message.result).toEqual({})
    // Each change, answered by b, applies to the very next update: no wait.
    await subscribe('resources/subscribe')
    await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'subscribed' } })
    const heard = await Promise.race([stream.next(), new Promise((done) => setTimeout(() => done('nothing'), 10_000))])
    expect(heard).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'notes://all' } })
    await subscribe('resources/unsubscribe')
    await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'unsubscribed' } })
    // The hub's head now (a fresh stream's priming id): at or past the update published while unsubscribed.
    const marker = await legacyGet(fetch, b, await legacyConnect(fetch, b))
    const mark = seqOf(/^id: (.+)$/m.exec(await marker.raw())?.[1])
    marker.close()
    await subscribe('resources/subscribe')
    await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'again' } })
    expect((await stream.next()).params).toEqual({ uri: 'notes://all' })
    // Two updates, not three: the second read is the one published after the mark, and the stream
    // (in the hub's order) holds nothing between: the one published while unsubscribed was not sent.
    const seqs = updateIds(await stream.raw()).map(seqOf)
    expect(seqs).toHaveLength(2)
    expect([seqs[0]! <= mark, seqs[1]! > mark]).toEqual([true, true])
    stream.close()
  })

  it('ends the session’s open stream on one isolate when a DELETE on the other ends the session, with no event', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a)
    const stream = await legacyGet(fetch, a, client)
    await stream.raw()
    expect((await fetch(b, { method: 'DELETE', headers: { 'mcp-session-id': client.sessionId as string } })).status).toBe(204)
    // Nothing is published: the announcement alone ends it (its own end is listenTimeoutMs, 10 minutes, away).
    expect(await stream.endsWithin(10_000)).toBe(true)
    expect(stream.messages()).toEqual([])
  })

  it('finishes a call on one isolate with the answer posted to the other', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a, { capabilities: { elicitation: {} } })
    const stream = await legacyStream(fetch, a, client, 'tools/call', {
      name: 'delete_record',
      arguments: { id: 'r-9' },
      _meta: { traceparent: `00-${CLIENT.trace}-${CLIENT.span}-01` },
    })
    const asked = await stream.next()
    expect(asked).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Delete record r-9? This cannot be undone.' },
    })
    const reply = await answer(fetch, b, client, asked.id, { action: 'accept', content: { confirm: true, reason: 'pair' } })
    expect(reply.status).toBe(202)
    const final = await stream.next()
    expect(final.result.content).toEqual([{ type: 'text', text: 'Record r-9 deleted (pair).' }])
    // Answered once: the same answer again, on either isolate, is refused.
    for (const url of [a, b]) expect((await answer(fetch, url, client, asked.id, { action: 'decline' })).status).toBe(400)

    // One trace: the call on a, its question (a CLIENT span), and the answer taken on b under it.
    // Each isolate exports its spans on its own schedule: wait for all three.
    const names = ['tools/call delete_record', 'elicitation/create', 'answer elicitation/create']
    const spans = await collector.waitFor((all) =>
      names.every((name) => all.some((span) => span.name === name && span.traceId === CLIENT.trace)),
    )
    const call = spans.find((span) => span.name === 'tools/call delete_record' && span.traceId === CLIENT.trace)
    const question = spans.find((span) => span.name === 'elicitation/create' && span.traceId === CLIENT.trace)
    const taken = spans.find((span) => span.name === 'answer elicitation/create' && span.traceId === CLIENT.trace)
    expect(call?.parentSpanId).toBe(CLIENT.span)
    expect(question).toMatchObject({ kind: 3, parentSpanId: call?.spanId, attributes: { 'jsonrpc.request.id': asked.id } })
    expect(taken).toMatchObject({ kind: 2, parentSpanId: question?.spanId, attributes: { 'jsonrpc.request.id': asked.id } })
    expect(taken?.attributes['mcp.session.id']).toBe(call?.attributes['mcp.session.id'])
    // The refused second answers took nothing: no span of theirs.
    expect(spans.filter((span) => span.name === 'answer elicitation/create' && span.traceId === CLIENT.trace)).toHaveLength(1)
  })

  it('traces an event from its publish on one isolate to its delivery on a listen stream of the other', async () => {
    const [a, b] = pair.urls
    // The first test's deliveries are in the collector already: this test's is the one not among them.
    const isDeliver = (span: { name: string }) => span.name === 'deliver notifications/resources/updated'
    const earlier = new Set(
      collector
        .spans()
        .filter(isDeliver)
        .map((span) => span.spanId),
    )
    const stream = await openStream(
      fetch,
      buildRequest(a, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['notes://all'] } }),
    )
    try {
      expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
      await rpc(fetch, b, 'tools/call', { name: 'add_note', arguments: { text: 'traced' } })
      expect(await stream.next()).toMatchObject({ method: 'notifications/resources/updated', params: { uri: 'notes://all' } })
    } finally {
      await stream.close()
    }
    // Each isolate exports its own spans when its request is done: the publishing one's may come
    // after the delivering one's, so both are waited for.
    const deliverIn = (all: CollectedSpan[]) => all.find((span) => isDeliver(span) && !earlier.has(span.spanId))
    const publishOf = (all: CollectedSpan[], deliver: CollectedSpan | undefined) =>
      all.find((span) => span.name === 'publish notifications/resources/updated' && span.spanId === deliver?.parentSpanId)
    const spans = await collector.waitFor((all) => publishOf(all, deliverIn(all)) !== undefined)
    const deliver = deliverIn(spans)
    const publish = publishOf(spans, deliver)
    expect(publish).toMatchObject({ kind: 4, traceId: deliver?.traceId, attributes: { 'mcp.resource.uri': 'notes://all' } })
    expect(publish?.attributes['mcp_edge.event.listeners']).toBeGreaterThanOrEqual(1)
    expect(deliver).toMatchObject({ kind: 5, attributes: { 'mcp.resource.uri': 'notes://all' } })
  })
})
