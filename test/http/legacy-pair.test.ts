/**
 * The 2025-era lane across two isolates (`npm run dev:pair`, the template as two Workers sharing
 * their Durable Objects): a session id sealed by one isolate opens on the other, and a client's
 * answer to a server-to-client request, posted to the other isolate, reaches the call waiting in
 * the first through the `McpInputRelay` Durable Object. Nothing about the session or the pending
 * request is shared in memory: each isolate has its own module state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answer, legacyConnect, legacyRpc, legacyStream } from '../support/legacy.ts'
import { type PairServer, startPair } from '../support/pair.ts'

describe('the 2025-era lane on two isolates', () => {
  let pair: PairServer

  beforeAll(async () => {
    pair = await startPair({ config: 'apps/demo/wrangler.jsonc' })
  })
  afterAll(() => pair?.stop())

  it('opens a session sealed by one isolate on the other, and refuses a changed one there too', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a, { capabilities: { elicitation: {} } })
    const listed = await legacyRpc(fetch, b, client, 'tools/list')
    expect(listed.message.result.tools.map((tool: { name: string }) => tool.name)).toContain('delete_record')
    const changed = { ...client, sessionId: `${client.sessionId}x` }
    expect((await legacyRpc(fetch, b, changed, 'tools/list')).status).toBe(404)
  })

  it('finishes a call on one isolate with the answer posted to the other', async () => {
    const [a, b] = pair.urls
    const client = await legacyConnect(fetch, a, { capabilities: { elicitation: {} } })
    const stream = await legacyStream(fetch, a, client, 'tools/call', { name: 'delete_record', arguments: { id: 'r-9' } })
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
  })
})
