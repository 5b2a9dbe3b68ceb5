/**
 * Notifications across isolates, over real HTTP against `npm run dev:pair` (two isolates sharing
 * the event hub): the template's add_note on one isolate reaches a listen stream on the other;
 * 500 listen streams spread over both isolates all hear one change; a task (in its Durable
 * Object) publishes like a request does; a stream whose filter or principal excludes a
 * notification never receives it. Latency is measured by `npm run bench`, not here.
 *
 * "Never receives" is shown by order: one hub object orders everything it is sent, and each tool
 * call below publishes before it answers, so a stream that hears a later notification would have
 * heard an earlier one first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRequest, type MessageStream, openStream, rpc } from '../support/mcp.ts'
import { type PairServer, startPair } from '../support/pair.ts'
import { startTogether } from '../support/process-group.ts'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

let template: PairServer
let fixture: PairServer

beforeAll(async () => {
  ;[template, fixture] = (await startTogether([
    () => startPair(),
    () => startPair({ config: 'test/fixture/wrangler.jsonc' }),
  ])) as [PairServer, PairServer]
}, 180_000)

afterAll(async () => {
  await Promise.all([template?.stop(), fixture?.stop()])
})

async function listen(
  url: string,
  notifications: Record<string, unknown>,
  principal?: string,
  id?: string,
): Promise<MessageStream> {
  const headers: Record<string, string> = principal ? { authorization: `Bearer ${principal}` } : {}
  const stream = await openStream(
    fetch,
    buildRequest(url, 'subscriptions/listen', { notifications }, { headers, ...(id ? { id } : {}) }),
  )
  expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
  return stream
}

const call = (url: string, name: string, args: Record<string, unknown>) =>
  rpc(fetch, url, 'tools/call', { name, arguments: args })

describe('the template notes across two isolates', () => {
  it('a listen stream on one isolate hears the add_note made on the other, both ways', async () => {
    const [a, b] = template.urls
    const onA = await listen(a, { resourceSubscriptions: ['notes://all'] }, undefined, 'listen-on-a')
    const onB = await listen(b, { resourceSubscriptions: ['notes://all'] })
    try {
      const added = await call(b, 'add_note', { text: 'written on b' })
      expect(added.message.result?.content?.[0]?.text).toMatch(/^Note \d+ added to notes:\/\/all\.$/)
      expect((await onA.next()).params).toEqual({
        uri: 'notes://all',
        _meta: {
          'io.modelcontextprotocol/subscriptionId': 'listen-on-a',
          // Its place in the hub's log, to resume from (docs/notifications.md#resuming).
          'dev.mcp-edge/eventId': expect.stringMatching(/^ev:0-\d+$/),
        },
      })
      await call(a, 'add_note', { text: 'written on a' })
      // B hears both: its own isolate's change and the other's, through the same hub.
      expect((await onB.next()).params?.uri).toBe('notes://all')
      expect((await onB.next()).params?.uri).toBe('notes://all')
      const read = await rpc(fetch, a, 'resources/read', { uri: 'notes://all' })
      const notes = JSON.parse(read.message.result?.contents?.[0]?.text) as Array<{ text: string }>
      expect(notes.map((note) => note.text).slice(-2)).toEqual(['written on b', 'written on a'])
    } finally {
      await Promise.all([onA.close(), onB.close()])
    }
  })

  it('500 listen streams spread over both isolates all hear one add_note', async () => {
    const streams = await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        listen(template.urls[index % 2] as string, { resourceSubscriptions: ['notes://all'] }),
      ),
    )
    try {
      await call(template.urls[0], 'add_note', { text: 'to everyone' })
      const heard = await Promise.all(streams.map(async (stream) => (await stream.next()).params?.uri))
      expect(heard).toEqual(Array(500).fill('notes://all'))
    } finally {
      await Promise.all(streams.map((stream) => stream.close()))
    }
  }, 120_000)

  it('refuses an empty note with a tool error and notifies nobody', async () => {
    const { message } = await call(template.urls[1], 'add_note', { text: '' })
    expect(message.result?.isError).toBe(true)
  })
})

describe('who hears what, across two isolates (fixture)', () => {
  it('a stream whose filter or principal excludes a notification never receives it', async () => {
    const [a, b] = fixture.urls
    const base = `test://pair-${Date.now()}`
    const alice = await listen(a, { resourceSubscriptions: [base] }, 'alice')
    const bob = await listen(a, { resourceSubscriptions: [base] }, 'bob')
    const carol = await listen(b, { resourceSubscriptions: [`${base}-other`], promptsListChanged: true }, 'carol')
    try {
      await call(b, 'notify_resource', { uri: `${base}/secret`, audience: ['alice'] }) // bob's principal excludes it
      await call(b, 'notify_resource', { uri: `${base}-unrelated` }) // every filter excludes it
      await call(a, 'test_trigger_tool_change', {}) // nobody asked for tools
      await call(a, 'notify_resource', { uri: `${base}/public` })
      await call(a, 'notify_resource', { uri: `${base}-other` })
      expect((await alice.next()).params?.uri).toBe(`${base}/secret`)
      expect((await alice.next()).params?.uri).toBe(`${base}/public`)
      expect((await bob.next()).params?.uri).toBe(`${base}/public`)
      expect((await carol.next()).params?.uri).toBe(`${base}-other`)
    } finally {
      await Promise.all([alice.close(), bob.close(), carol.close()])
    }
  })

  it('a task publishes from its Durable Object to listeners on both isolates', async () => {
    const [a, b] = fixture.urls
    const uri = `test://from-task-${Date.now()}`
    const streams = await Promise.all([listen(a, { resourceSubscriptions: [uri] }), listen(b, { resourceSubscriptions: [uri] })])
    try {
      const created = await rpc(fetch, b, 'tools/call', { name: 'notify_from_task', arguments: { uri } }, { capabilities: TASKS })
      expect(created.message.result?.resultType).toBe('task')
      for (const stream of streams) expect((await stream.next()).params?.uri).toBe(uri)
    } finally {
      await Promise.all(streams.map((stream) => stream.close()))
    }
  })
})
