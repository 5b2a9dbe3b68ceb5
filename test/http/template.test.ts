/**
 * The template Worker (src/worker.ts) as a user runs it with `npm run dev`: its example tools
 * over real HTTP, bearer authentication when MCP_BEARER_TOKEN is set, and a clear start-up
 * failure when the requestState keys are missing.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { readToolCall } from '../../packages/mcp-edge/src/client/partial-results.ts'
import { legacyConnect, legacyRpc } from '../support/legacy.ts'
import { buildRequest, rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const url = () => inject('templateUrl')
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

describe('template Worker examples', () => {
  it('delete_record asks for confirmation first, then acts on the retry', async () => {
    const first = await rpc(
      fetch,
      url(),
      'tools/call',
      { name: 'delete_record', arguments: { id: 'r1' } },
      { capabilities: { elicitation: {} } },
    )
    expect(first.message.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Delete record r1? This cannot be undone.' } },
      },
    })
    const schema = first.message.result.inputRequests.confirm.params.requestedSchema
    expect(schema).toEqual({
      type: 'object',
      properties: { confirm: { type: 'boolean' }, reason: { type: 'string' } },
      required: ['confirm'],
    })
    const retry = await rpc(
      fetch,
      url(),
      'tools/call',
      {
        name: 'delete_record',
        arguments: { id: 'r1' },
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        requestState: first.message.result.requestState,
      },
      { capabilities: { elicitation: {} } },
    )
    expect(retry.message.result?.content).toEqual([{ type: 'text', text: 'Record r1 deleted.' }])
  })

  it('delete_record answers -32021 to a client that cannot show a form', async () => {
    const { status, message } = await rpc(fetch, url(), 'tools/call', { name: 'delete_record', arguments: { id: 'r1' } })
    expect(status).toBe(400)
    expect(message.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: { form: {} } } } })
  })

  it('write_story streams sentences as partial results and returns the whole story', async () => {
    const response = await fetch(
      buildRequest(
        url(),
        'tools/call',
        { name: 'write_story', arguments: { topic: 'rain', sentences: 3 } },
        { capabilities: { partialResults: {} }, meta: { partialResultToken: 's' } },
      ),
    )
    const chunks: string[] = []
    const call = readToolCall(response, { partialResultToken: 's' })
    let step = await call.next()
    while (!step.done) {
      if (step.value.type === 'partial') chunks.push((step.value.content[0] as { text: string }).text)
      step = await call.next()
    }
    expect(chunks).toHaveLength(3)
    expect((step.value as any).result.content).toEqual([{ type: 'text', text: chunks.join('') }])
  })

  it('generate_report runs as a task and logs each section', async () => {
    const { message } = await rpc(
      fetch,
      url(),
      'tools/call',
      { name: 'generate_report', arguments: { subject: 'edge', sections: 2 } },
      { capabilities: { ...TASKS, partialResults: {} } },
    )
    expect(message.result?.resultType).toBe('task')
    const taskId = message.result.taskId as string
    let task: any
    for (let attempt = 0; attempt < 100; attempt++) {
      task = (
        await rpc(
          fetch,
          url(),
          'tasks/get',
          { taskId },
          { capabilities: TASKS, meta: { 'dev.mcp-edge/partialLog': { from: 0, limit: 10 } } },
        )
      ).message.result
      if (task.status === 'completed') break
      await new Promise((done) => setTimeout(done, 100))
    }
    expect(task.status).toBe('completed')
    const items = task._meta['dev.mcp-edge/partialLog'].items
    expect(items.map((item: any) => item.content[0].text)).toEqual([
      '## Section 1\nFindings about edge, part 1.\n',
      '## Section 2\nFindings about edge, part 2.\n',
    ])
    expect(task.result.content[0].text).toBe(items.map((item: any) => item.content[0].text).join(''))
  })

  it('draft_article asks to approve its outline mid-task, then writes on that outline', async () => {
    const capabilities = { ...TASKS, elicitation: {} }
    const created = await rpc(
      fetch,
      url(),
      'tools/call',
      { name: 'draft_article', arguments: { topic: 'tides' } },
      { capabilities },
    )
    const taskId = created.message.result.taskId as string
    const getTask = async () => (await rpc(fetch, url(), 'tasks/get', { taskId }, { capabilities })).message.result
    let task = await getTask()
    for (const deadline = Date.now() + 20_000; task.status === 'working' && Date.now() < deadline; ) {
      await new Promise((done) => setTimeout(done, 50))
      task = await getTask()
    }
    expect(task.status).toBe('input_required')
    expect(task.inputRequests.approval.params.message).toBe(
      'Write the article on this outline?\n1. Why tides matters\n2. How tides works\n3. What to do next',
    )
    const answer = { approval: { action: 'accept', content: { approve: true, note: 'short' } } }
    await rpc(fetch, url(), 'tasks/update', { taskId, inputResponses: answer }, { capabilities })
    for (const deadline = Date.now() + 20_000; task.status !== 'completed' && Date.now() < deadline; ) {
      await new Promise((done) => setTimeout(done, 50))
      task = await getTask()
    }
    expect(task.status).toBe('completed')
    expect(task.result.content[0].text).toBe(
      ['Why tides matters', 'How tides works', 'What to do next']
        .map((title) => `## ${title}\n(short) A paragraph about tides.`)
        .join('\n\n'),
    )
  })
})

describe('template Worker configuration', () => {
  let locked: WranglerServer

  beforeAll(async () => {
    locked = await startWrangler({
      config: 'apps/demo/wrangler.jsonc',
      vars: { MCP_BEARER_TOKEN: 's3cret-token-for-the-template-test' },
    })
  }, 120_000)

  afterAll(async () => {
    await locked?.stop()
  })

  it('requires the bearer token when MCP_BEARER_TOKEN is set: 401 with WWW-Authenticate otherwise', async () => {
    for (const authorization of [null, 'Bearer wrong', 'Basic czNjcmV0LXRva2VuLWZvci10aGUtdGVtcGxhdGUtdGVzdA==']) {
      const { status, headers, message } = await rpc(
        fetch,
        locked.url,
        'tools/call',
        { name: 'add', arguments: { a: 1, b: 2 } },
        { headers: { authorization } },
      )
      expect(status).toBe(401)
      expect(headers.get('www-authenticate')).toBe('Bearer realm="mcp"')
      expect(message.error?.code).toBe(-32600)
    }
    const ok = await rpc(
      fetch,
      locked.url,
      'tools/call',
      { name: 'add', arguments: { a: 1, b: 2 } },
      { headers: { authorization: 'Bearer s3cret-token-for-the-template-test' } },
    )
    expect(ok.message.result?.content).toEqual([{ type: 'text', text: '3' }])
  })

  it('requires the bearer token of a 2025-era client too, then binds its session to it', async () => {
    const refused = await legacyRpc(fetch, locked.url, {}, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    })
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="mcp"'])
    // The support client sends `Authorization: Bearer <principal>`.
    const client = await legacyConnect(fetch, locked.url, { principal: 's3cret-token-for-the-template-test' })
    expect(client.sessionId).toMatch(/^s1\./)
    const added = await legacyRpc(fetch, locked.url, client, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })
    expect(added.message.result?.content).toEqual([{ type: 'text', text: '3' }])
    // The session alone is no credential.
    const anonymous = { version: client.version, sessionId: client.sessionId }
    expect((await legacyRpc(fetch, locked.url, anonymous, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).status).toBe(
      401,
    )
  })

  it('starts without MCP_STATE_KEYS, or with a short one, and answers each request 500 saying how to set it', async () => {
    for (const keys of ['', 'k1:c2hvcnQ=']) {
      const server = await startWrangler({ config: 'apps/demo/wrangler.jsonc', vars: { MCP_STATE_KEYS: keys } })
      try {
        const { status, message } = await rpc(fetch, server.url, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })
        expect(status).toBe(500)
        expect(message.error?.code).toBe(-32603)
        expect(message.error?.message).toMatch(
          keys === '' ? /MCP_STATE_KEYS is not set/ : /key "k1" has 5 bytes; at least 32 are required/,
        )
        expect(message.error?.message).toContain('npx wrangler secret put MCP_STATE_KEYS')
      } finally {
        await server.stop()
      }
    }
  }, 240_000)
})
