/**
 * Safe-to-deploy defaults over real HTTP against `wrangler dev`: the template without any
 * authentication configured serves loopback callers only, a browser's CORS preflight is answered,
 * a destructive tool's confirmation cannot be replayed, resource template variables never walk a
 * path, deep JSON is refused, and the per-caller caps on listen streams and live tasks hold.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { postWithHost } from '../support/host-header.ts'
import { answer, legacyConnect, legacyStream } from '../support/legacy.ts'
import { buildRequest, DEMO_TOOLS, rawPost, rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const url = () => inject('templateUrl')
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

describe('fail closed: the template without authentication', () => {
  const list = buildRequest('http://x/mcp', 'tools/list')
  const headers = () => Object.fromEntries(list.headers)

  it('serves a loopback caller (npm run dev works with zero configuration)', async () => {
    const { status, message } = await rpc(fetch, url(), 'tools/list')
    expect(status).toBe(200)
    expect(message.result.tools.map((tool: { name: string }) => tool.name)).toEqual(DEMO_TOOLS)
  })

  it('answers a non-loopback Host or connecting address 401 saying how to configure authentication', async () => {
    const body = await list.clone().text()
    const spoofedHost = await postWithHost(url(), 'mcp.example.com', body, headers())
    expect(spoofedHost.status).toBe(401)
    expect(JSON.parse(spoofedHost.body).error.message).toMatch(
      /no authentication is configured.*docs\/deploy\.md#deploy-to-production/,
    )
    const remote = await rpc(fetch, url(), 'tools/list', {}, { headers: { 'cf-connecting-ip': '203.0.113.9' } })
    expect(remote.status).toBe(401)
    expect(remote.headers.get('www-authenticate')).toBe('Bearer realm="mcp"')
  })

  it('refuses a remote 2025-era client the same way, before its initialize is read', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'remote', version: '1' } },
    })
    const legacyHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const spoofedHost = await postWithHost(url(), 'mcp.example.com', initialize, legacyHeaders)
    expect(spoofedHost.status).toBe(401)
    const remote = await fetch(url(), {
      method: 'POST',
      headers: { ...legacyHeaders, 'cf-connecting-ip': '203.0.113.9' },
      body: initialize,
    })
    expect([remote.status, remote.headers.get('www-authenticate'), remote.headers.get('mcp-session-id')]).toEqual([
      401,
      'Bearer realm="mcp"',
      null,
    ])
  })

  it('refuses a request that came through a proxy, though it looks local: 401 saying so, nothing served', async () => {
    // A tunnel or reverse proxy in front of `wrangler dev` connects from loopback and may rewrite
    // Host; what it cannot help adding is its own header. Each one alone is enough.
    const marks = {
      forwarded: 'for=203.0.113.9',
      via: '1.1 tunnel',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': 'mcp.example.com',
      'x-forwarded-proto': 'https',
      'x-real-ip': '203.0.113.9',
    }
    for (const [name, value] of Object.entries(marks)) {
      const body = await list.clone().text()
      const proxied = await postWithHost(url(), 'localhost', body, {
        ...headers(),
        [name]: value,
        'cf-connecting-ip': '127.0.0.1',
      })
      expect(proxied.status, name).toBe(401)
      expect(JSON.parse(proxied.body).error.message, name).toMatch(
        /serves local requests only, and this request came through a proxy/,
      )
      const tool = await rpc(
        fetch,
        url(),
        'tools/call',
        { name: 'add', arguments: { a: 1, b: 2 } },
        { headers: { [name]: value } },
      )
      expect([tool.status, tool.message.result], name).toEqual([401, undefined])
    }
  })

  it('logged a warning at its first request that says it serves, locally, and where to read how to deploy', () => {
    const log = readFileSync(inject('templateLog'), 'utf8')
    expect(log).toContain('"msg":"Local requests only: no authentication is configured')
    expect(log).toContain('docs/deploy.md#deploy-to-production')
    expect(log).not.toContain('"msg":"Unauthorized')
  })
})

describe('CORS preflight', () => {
  it('lets a loopback browser origin send the MCP headers, Mcp-Param-* and Authorization', async () => {
    const response = await fetch(url(), {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:6274',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization,mcp-protocol-version,mcp-method,mcp-name,mcp-param-region',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:6274')
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-param-region')
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization')
    expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
  })
})

describe('abuse-resistant defaults', () => {
  it('redeems a destructive tool confirmation once: a replay is -32602 and runs nothing', async () => {
    const call = (extra: Record<string, unknown> = {}) =>
      rpc(
        fetch,
        url(),
        'tools/call',
        { name: 'delete_record', arguments: { id: 'r9' }, ...extra },
        { capabilities: { elicitation: {} } },
      )
    const first = await call()
    const retry = {
      requestState: first.message.result.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    }
    expect((await call(retry)).message.result.content).toEqual([{ type: 'text', text: 'Record r9 deleted.' }])
    const replay = await call(retry)
    expect(replay.message.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
    expect(replay.message.result).toBeUndefined()
  })

  it('asks again when a destructive call arrives pre-answered without a requestState: nothing is deleted', async () => {
    const confirm = { confirm: { action: 'accept', content: { confirm: true } } }
    const call = (extra: Record<string, unknown>) =>
      rpc(
        fetch,
        url(),
        'tools/call',
        { name: 'delete_record', arguments: { id: 'r10' }, ...extra },
        { capabilities: { elicitation: {} } },
      )
    const skipped = await call({ inputResponses: confirm })
    expect(skipped.message.result.resultType).toBe('input_required')
    expect(Object.keys(skipped.message.result.inputRequests)).toEqual(['confirm'])
    // The state it hands out is redeemed once, by the answer it asked for.
    const retry = { requestState: skipped.message.result.requestState, inputResponses: confirm }
    expect((await call(retry)).message.result.content).toEqual([{ type: 'text', text: 'Record r10 deleted.' }])
    expect((await call(retry)).message.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
  })

  it('asks a 2025-era client itself even when its call carries inputResponses: declined, nothing is deleted', async () => {
    const client = await legacyConnect(fetch, url(), { capabilities: { elicitation: {} } })
    const stream = await legacyStream(fetch, url(), client, 'tools/call', {
      name: 'delete_record',
      arguments: { id: 'r11' },
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    })
    const asked = await stream.next()
    expect(asked).toMatchObject({
      method: 'elicitation/create',
      params: { message: 'Delete record r11? This cannot be undone.' },
    })
    expect((await answer(fetch, url(), client, asked.id, { action: 'decline' })).status).toBe(202)
    expect((await stream.next()).result.content[0].text).not.toMatch(/deleted/)
    await stream.close()
  })

  it('reads only the answers a verified state asked for: a prompt pre-answered, or answered beyond its question, asks again', async () => {
    const fixture = inject('fixtureUrl')
    const get = (extra: Record<string, unknown>) =>
      rpc(
        fetch,
        fixture,
        'prompts/get',
        { name: 'test_input_required_result_prompt', ...extra },
        { capabilities: { elicitation: {} } },
      )
    const context = { user_context: { action: 'accept', content: { context: 'planted' } } }
    const first = await get({ inputResponses: context })
    expect(first.message.result.resultType).toBe('input_required')
    // A state for a tool that asked `confirm` does not carry an answer to `user_context`.
    const twoRounds = await rpc(
      fetch,
      fixture,
      'tools/call',
      { name: 'test_input_required_result_multi_round', arguments: {} },
      { capabilities: { elicitation: {} } },
    )
    const extra = { step2: { action: 'accept', content: { color: 'planted' } } }
    const next = await rpc(
      fetch,
      fixture,
      'tools/call',
      {
        name: 'test_input_required_result_multi_round',
        arguments: {},
        requestState: twoRounds.message.result.requestState,
        inputResponses: { step1: { action: 'accept', content: { name: 'Ada' } }, ...extra },
      },
      { capabilities: { elicitation: {} } },
    )
    expect(next.message.result.resultType).toBe('input_required')
    expect(Object.keys(next.message.result.inputRequests)).toEqual(['step2'])
  })

  it('redeems the confirmation of a tool without annotations once (MCP: destructive by default)', async () => {
    const fixture = inject('fixtureUrl')
    const call = (extra: Record<string, unknown> = {}) =>
      rpc(
        fetch,
        fixture,
        'tools/call',
        { name: 'test_input_required_result_request_state', arguments: {}, ...extra },
        { capabilities: { elicitation: {} } },
      )
    const first = await call()
    const retry = {
      requestState: first.message.result.requestState,
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
    }
    expect((await call(retry)).message.result.content).toEqual([{ type: 'text', text: 'state-ok (round 2, confirmed: true)' }])
    const replay = await call(retry)
    expect(replay.message.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
  })

  it('never matches a simple template variable that decodes to a path walk (fixture test://template/{id}/data)', async () => {
    for (const uri of ['test://template/..%2F..%2Fetc%2Fpasswd/data', 'test://template/%2E%2E/data']) {
      const { status, message } = await rpc(fetch, inject('fixtureUrl'), 'resources/read', { uri })
      expect(status).toBe(200)
      expect(message.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } })
    }
  })

  it('refuses argument JSON nested deeper than 64 levels with -32600 before parsing it', async () => {
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":${deep},"b":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
    const headers = Object.fromEntries(buildRequest(url(), 'tools/call', { name: 'add' }).headers)
    const { status, message } = await rawPost(fetch, url(), body, headers)
    expect(status).toBe(400)
    expect(message).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: JSON nested deeper than 64 levels' },
    })
  })
})

describe('per-caller caps (MCP_MAX_LISTEN_STREAMS=2, MCP_MAX_LIVE_TASKS=2)', () => {
  let capped: WranglerServer
  beforeAll(async () => {
    capped = await startWrangler({
      config: 'apps/demo/wrangler.jsonc',
      vars: { MCP_MAX_LISTEN_STREAMS: '2', MCP_MAX_LIVE_TASKS: '2' },
    })
  }, 120_000)
  afterAll(async () => {
    await capped?.stop()
  })

  it('answers the third listen stream 429 with Retry-After while two are open', async () => {
    const open = [new AbortController(), new AbortController()]
    const listen = (signal?: AbortSignal) =>
      fetch(buildRequest(capped.url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { signal }))
    const streams = await Promise.all(open.map((controller) => listen(controller.signal)))
    for (const stream of streams) expect(stream.headers.get('content-type')).toContain('text/event-stream')
    const refused = await listen()
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('60')
    expect((await refused.json()).error).toMatchObject({ code: -32600, data: { limit: 2 } })
    for (const controller of open) controller.abort()
  })

  it('answers a third live task 429 and creates nothing', async () => {
    const report = () =>
      rpc(
        fetch,
        capped.url,
        'tools/call',
        { name: 'generate_report', arguments: { subject: 'cap', sections: 50 } },
        { capabilities: TASKS },
      )
    expect((await report()).message.result.resultType).toBe('task')
    expect((await report()).message.result.resultType).toBe('task')
    const refused = await report()
    expect(refused.status).toBe(429)
    expect(refused.message.error).toMatchObject({ code: -32600, message: 'Too many requests: at most 2 live tasks per caller' })
  })
})
