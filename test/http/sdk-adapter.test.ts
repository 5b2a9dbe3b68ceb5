/**
 * mcp-edge/sdk against real clients: the adapter's test Worker (test/adapter/worker.ts), written
 * as SDK code, under `wrangler dev`. The SDK 1.x client (2025 era, a session) and the 2.x client
 * pinned to 2026-07-28 (stateless, multi-round-trip) call the same tools: awaited elicitation and
 * an `inputRequired` confirmation in both eras, progress, a thrown error as an `isError` result,
 * a handle disabled and enabled, a template's `list` and `complete`, the grant's props
 * (`getMcpAuthContext()`) in tools, reads and completions, and an McpAgent's state per 2025
 * session and per principal.
 */
import { readFileSync } from 'node:fs'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitRequestSchema,
  McpError as McpErrorV1,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initializeRequest } from '../support/legacy.ts'
import { buildRequest, rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer
let base: string

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/adapter/wrangler.jsonc' })
  base = worker.url.replace(/\/mcp$/, '')
}, 120_000)

afterAll(async () => {
  await worker?.stop()
})

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text

/** An SDK 1.x client at its defaults (2025-11-25), answering elicitations with `answers` in turn. */
async function sdk1(
  path: string,
  answers: object[] = [],
): Promise<{ client: Client; asked: unknown[]; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'sdk-1x', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  const asked: unknown[] = []
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params)
    const answer = answers.shift() ?? { action: 'cancel' }
    // An Error is the client's error answer (a dialog the user closed), as the SDK's client sends a thrown one.
    if (answer instanceof Error) throw answer
    return answer as never
  })
  const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`))
  await client.connect(transport)
  return { client, asked, transport }
}

/** The 2.x client pinned to 2026-07-28, answering elicitations with `answers` in turn. */
async function sdk2(path: string, answers: object[] = []): Promise<{ client: ClientV2; asked: unknown[] }> {
  const client = new ClientV2(
    { name: 'client-2x', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  const asked: unknown[] = []
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params)
    return (answers.shift() ?? { action: 'cancel' }) as never
  })
  await client.connect(new TransportV2(new URL(`${base}${path}`)))
  return { client, asked }
}

describe('createMcpHandler with an SDK-style server', () => {
  it('lists the tools with their schemas, calls them and reports a thrown error as an isError result (2025 era)', async () => {
    const { client, transport } = await sdk1('/mcp')
    try {
      expect(transport.sessionId).toMatch(/^s1\./)
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual([
        'add',
        'echo',
        'whoami',
        'auth_info',
        'fail',
        'count_down',
        'book_table',
        'impatient',
        'deploy',
        'insist',
        'bbox',
        'rename',
        'rename_or_keep',
        'lookup',
        'tally',
        'toggle_beta',
      ])
      expect(tools[0]).toMatchObject({
        title: 'Add',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        annotations: { readOnlyHint: true },
      })
      expect(text(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }))).toBe('42')
      expect(text(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toMatch(/^hi \(request \d+\)$/)
      expect(await client.callTool({ name: 'fail', arguments: {} })).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'the tool failed on purpose' }],
      })
      const progress: number[] = []
      const counted = await client.callTool({ name: 'count_down', arguments: { from: 3 } }, undefined, {
        onprogress: (update) => progress.push(update.progress),
      })
      expect([text(counted), progress]).toEqual(['lift-off', [1, 2, 3]])
    } finally {
      await client.close()
    }
  })

  it('asks a 2025 client on the call stream: awaited elicitInput and an inputRequired confirmation asked again after a decline', async () => {
    const { client, asked } = await sdk1('/mcp', [
      { action: 'accept', content: { confirm: true } },
      { action: 'decline' },
      { action: 'accept', content: { confirm: true } },
    ])
    try {
      expect(text(await client.callTool({ name: 'book_table', arguments: { people: 4 } }))).toBe('Booked for 4.')
      expect(text(await client.callTool({ name: 'deploy', arguments: { env: 'prod' } }))).toBe('Deployed to prod.')
      expect(asked.map((params) => (params as { message: string }).message)).toEqual([
        'Book a table for 4?',
        'Deploy to prod?',
        'Deploy to prod?',
      ])
    } finally {
      await client.close()
    }
  })

  it("a tuple in an output schema passes SDK 1.x's client, which checks results with draft-07", async () => {
    const { client } = await sdk1('/mcp')
    try {
      const { tools } = await client.listTools()
      expect(tools.find((tool) => tool.name === 'bbox')?.outputSchema?.properties?.bbox).toEqual({
        type: 'array',
        prefixItems: [{ type: 'number' }, { type: 'number' }, { type: 'number' }, { type: 'number' }],
        minItems: 4,
        maxItems: 4,
      })
      const result = await client.callTool({ name: 'bbox', arguments: {} })
      expect(result.structuredContent).toEqual({ bbox: [-1, 50, 1, 52] })
    } finally {
      await client.close()
    }
  })

  // Before, a 2025 client that declined was asked again without end, each answer a request of
  // its own that ran the handler from its first round: thousands of questions in one call.
  it('cuts a 2025 client off after 32 rounds of a handler that asks again whatever the answer', async () => {
    const { client, asked } = await sdk1(
      '/mcp',
      Array.from({ length: 40 }, () => ({ action: 'decline' })),
    )
    try {
      await expect(client.callTool({ name: 'insist', arguments: {} })).rejects.toThrow(
        'the handler asked for input in more than 32 rounds of one call',
      )
      expect(asked).toHaveLength(32)
    } finally {
      await client.close()
    }
  })

  it('asks a 2026-07-28 client through input_required rounds, for the awaited and the returned style alike', async () => {
    const { client, asked } = await sdk2('/mcp', [
      { action: 'accept', content: { confirm: true } },
      { action: 'decline' },
      { action: 'decline' },
    ])
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      expect(text(await client.callTool({ name: 'book_table', arguments: { people: 2 } }))).toBe('Booked for 2.')
      // Declined twice: the handler's own requestState says it asked twice and gives up.
      expect(text(await client.callTool({ name: 'deploy', arguments: { env: 'staging' } }))).toBe('Not deployed.')
      expect(asked).toHaveLength(3)
    } finally {
      await client.close()
    }
  })

  it("keeps a handler's inputRequired round sealed: the first answer is an input_required result with requestState", async () => {
    const first = await rpc(
      fetch,
      `${base}/mcp`,
      'tools/call',
      { name: 'deploy', arguments: { env: 'eu' } },
      { capabilities: { elicitation: {} } },
    )
    expect(first.message.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { confirm: { method: 'elicitation/create' } },
    })
    const state = (first.message.result as { requestState: string }).requestState
    expect(state).toEqual(expect.any(String))
    const retry = await rpc(
      fetch,
      `${base}/mcp`,
      'tools/call',
      {
        name: 'deploy',
        arguments: { env: 'eu' },
        requestState: state,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      },
      { capabilities: { elicitation: {} } },
    )
    expect(text(retry.message.result as object)).toBe('Deployed to eu.')
    // The same state for other arguments is refused: it is bound to them.
    const moved = await rpc(
      fetch,
      `${base}/mcp`,
      'tools/call',
      {
        name: 'deploy',
        arguments: { env: 'us' },
        requestState: state,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      },
      { capabilities: { elicitation: {} } },
    )
    expect(moved.message.error).toMatchObject({ code: -32602 })
  })

  it('a disabled tool is absent until enabled, and back when disabled again', async () => {
    const { client } = await sdk2('/mcp')
    try {
      const names = async () => (await client.listTools()).tools.map((tool) => tool.name)
      expect(await names()).not.toContain('beta')
      expect((await client.callTool({ name: 'beta', arguments: {} }).catch((error: Error) => error)) as Error).toBeInstanceOf(
        Error,
      )
      await client.callTool({ name: 'toggle_beta', arguments: { on: true } })
      expect(await names()).toContain('beta')
      expect(text(await client.callTool({ name: 'beta', arguments: {} }))).toBe('beta')
      await client.callTool({ name: 'toggle_beta', arguments: { on: false } })
      expect(await names()).not.toContain('beta')
    } finally {
      await client.close()
    }
  })

  it("reads resources, lists a template's resources, completes its variable and a completable prompt argument", async () => {
    const { client } = await sdk2('/mcp')
    try {
      expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([
        { uri: 'docs://readme', text: '# Read me' },
      ])
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual([
        'docs://readme',
        'users://ada',
        'users://alan',
        'users://grace',
      ])
      // Listed under the template's metadata, as the SDKs list them.
      const listed = (await client.listResources()).resources.find((resource) => resource.uri === 'users://ada')
      expect(listed).toMatchObject({ name: 'ada', description: 'A user' })
      expect((await client.readResource({ uri: 'users://grace' })).contents).toEqual([
        { uri: 'users://grace', text: 'user grace' },
      ])
      const users = await client.complete({
        ref: { type: 'ref/resource', uri: 'users://{id}' },
        argument: { name: 'id', value: 'a' },
      })
      expect(users.completion.values).toEqual(['ada', 'alan'])
      const languages = await client.complete({
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'language', value: 'r' },
      })
      expect(languages.completion.values).toEqual(['rust'])
      const prompt = await client.getPrompt({ name: 'review', arguments: { language: 'go', code: 'x := 1' } })
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Review this go: x := 1' } }])
    } finally {
      await client.close()
    }
  })
})

describe("the grant's props in SDK-style code (getMcpAuthContext)", () => {
  it('reaches tools, resource reads and completion callbacks of a request given authContext, and no other request', async () => {
    for (const [path, login] of [
      ['/signed', 'ada'],
      ['/mcp', 'nobody'],
    ] as const) {
      const { client } = await sdk2(path)
      try {
        const whoami = text(await client.callTool({ name: 'whoami', arguments: {} }))
        expect(JSON.parse(whoami ?? '')).toEqual(login === 'ada' ? { login } : null)
        expect((await client.readResource({ uri: 'mine://x' })).contents).toEqual([{ uri: 'mine://x', text: login }])
        const owners = await client.complete({
          ref: { type: 'ref/resource', uri: 'mine://{owner}' },
          argument: { name: 'owner', value: '' },
        })
        expect(owners.completion.values).toEqual([login])
      } finally {
        await client.close()
      }
    }
  })
})

describe('McpAgent', () => {
  it('keeps state per 2025 session: two sessions count apart, each across its calls', async () => {
    const one = await sdk1('/agent')
    const two = await sdk1('/agent')
    try {
      expect(text(await one.client.callTool({ name: 'increment', arguments: { by: 2 } }))).toBe('2')
      expect(text(await one.client.callTool({ name: 'increment', arguments: {} }))).toBe('3')
      expect(text(await two.client.callTool({ name: 'increment', arguments: { by: 10 } }))).toBe('10')
      expect(text(await one.client.callTool({ name: 'count', arguments: {} }))).toBe('3')
      expect(one.transport.sessionId).not.toBe(two.transport.sessionId)
    } finally {
      await Promise.all([one.client.close(), two.client.close()])
    }
  })

  it('ends a 2025 session on DELETE where McpSessionLedger is bound as MCP_SESSIONS: 204, then 404', async () => {
    const { client, transport } = await sdk1('/agent')
    try {
      expect(text(await client.callTool({ name: 'increment', arguments: { by: 1 } }))).toBe('1')
      const headers = { 'mcp-session-id': transport.sessionId as string, 'mcp-protocol-version': '2025-11-25' }
      const ended = await fetch(`${base}/agent`, { method: 'DELETE', headers })
      expect(ended.status).toBe(204)
      const after = await fetch(`${base}/agent`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: {} } }),
      })
      expect(after.status).toBe(404)
      expect((await after.json()).error.message).toBe('Session not found: send initialize again')
    } finally {
      await client.close()
    }
  })

  it("offers agents' this.sql and this.elicitInput", async () => {
    const { client } = await sdk1('/agent', [{ action: 'accept', content: { yes: true } }])
    try {
      await client.callTool({ name: 'increment', arguments: { by: 3 } })
      expect(text(await client.callTool({ name: 'double', arguments: {} }))).toBe('6')
      expect(text(await client.callTool({ name: 'remember', arguments: { word: 'edge' } }))).toBe('1 words')
      expect(text(await client.callTool({ name: 'remember', arguments: { word: 'mcp' } }))).toBe('2 words')
      // Before (porting round S), SQLite's own error, without agents' prefix, name or query.
      expect(text(await client.callTool({ name: 'forget', arguments: { word: 'mcp' } }))).toBe(
        'true SqlError: SQL query failed: no such table: no_such_table: SQLITE_ERROR (DELETE FROM no_such_table WHERE word = ?)',
      )
    } finally {
      await client.close()
    }
  })

  it('keeps state per principal for 2026-07-28 clients, which have no session', async () => {
    const first = await sdk2('/agent')
    const second = await sdk2('/agent')
    try {
      const before = Number(text(await first.client.callTool({ name: 'count', arguments: {} })))
      await first.client.callTool({ name: 'increment', arguments: { by: 5 } })
      // Another connection of the same (local, anonymous) principal sees the same state.
      expect(Number(text(await second.client.callTool({ name: 'count', arguments: {} })))).toBe(before + 5)
    } finally {
      await Promise.all([first.client.close(), second.client.close()])
    }
  })

  it('routes a 2026-07-28 request that carries a session id to its caller, not to that session', async () => {
    const session = await sdk1('/agent')
    try {
      await session.client.callTool({ name: 'increment', arguments: { by: 1000 } })
      const sessionId = session.transport.sessionId as string
      // The same caller, stateless, naming the session: served by its principal object.
      const stateless = await rpc(
        fetch,
        `${base}/agent`,
        'tools/call',
        { name: 'count', arguments: {} },
        {
          headers: { 'mcp-session-id': sessionId },
        },
      )
      expect(Number(text(stateless.message.result))).toBeLessThan(1000)
      expect(text(await session.client.callTool({ name: 'count', arguments: {} }))).toBe('1000')
    } finally {
      await session.client.close()
    }
  })

  it('answers a browser preflight before authentication, with the CORS headers', async () => {
    const preflight = await fetch(`${base}/agent`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
  })

  it('serveSSE answers 410 naming serve()', async () => {
    const response = await fetch(`${base}/sse`)
    expect(response.status).toBe(410)
    expect((await response.json()).message).toContain("Counter.serve('/sse')")
    // With the binding it was given (porting round T: the call it suggested looked for MCP_OBJECT).
    const bound = await fetch(`${base}/sse-bound`)
    expect((await bound.json()).message).toContain("Counter.serve('/sse-bound', { binding: 'COUNTER_OBJECT' })")
  })

  it('a request that forges the internal header cannot choose its principal', async () => {
    const forged = await rpc(
      fetch,
      `${base}/agent`,
      'tools/call',
      { name: 'props', arguments: {} },
      {
        headers: { 'x-mcp-edge-agent': JSON.stringify({ principal: { subject: 'mallory' }, props: { login: 'mallory' } }) },
      },
    )
    // The Worker replaces the header: the call runs as the local caller it is, with no grant.
    expect(forged.status).toBe(200)
    expect(text(forged.message.result as object)).toBe('null')
  })

  it("a request that reaches the agent's object by another route cannot choose its principal either", async () => {
    const claim = { principal: { subject: 'alice' }, props: { login: 'alice' }, route: 'principal', binding: 'MCP_OBJECT' }
    for (const header of [JSON.stringify(claim), `k1.AAAA.${btoa(JSON.stringify(claim))}`, null]) {
      const forged = await fetch(
        buildRequest(
          `${base}/agent-direct`,
          'tools/call',
          { name: 'props', arguments: {} },
          { headers: { 'x-mcp-edge-agent': header } },
        ),
      )
      // The object serves only the header its Worker's serve() sealed with MCP_STATE_KEYS (none: 404 too).
      expect(forged.status).toBe(404)
      await forged.body?.cancel()
    }
  })
})

describe('what mcp-edge adds, from SDK-style code', () => {
  const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

  it('runs a tool registered with the SDK task option as a durable task built from mcp-edge steps', async () => {
    const created = await rpc(
      fetch,
      `${base}/mcp`,
      'tools/call',
      { name: 'tally', arguments: { upTo: 4 } },
      { capabilities: TASKS },
    )
    expect(created.message.result).toMatchObject({ resultType: 'task' })
    const taskId =
      (created.message.result as { task?: { taskId: string }; taskId?: string }).task?.taskId ??
      (created.message.result as { taskId: string }).taskId
    const deadline = Date.now() + 20_000
    let task: Record<string, unknown> = {}
    while (Date.now() < deadline) {
      task = (await rpc(fetch, `${base}/mcp`, 'tasks/get', { taskId }, { capabilities: TASKS })).message.result as Record<
        string,
        unknown
      >
      if (task.status !== 'working') break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(task).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'sum 10' }] } })
  })

  // Found porting the SDK's toolWithSampleServer and elicitationFormExample: a 2025 client's error
  // answer failed the whole call with -32603, where the SDKs reject the question in the handler.
  it("a 2025 client's error answer rejects the question in the handler, which may catch it; uncaught, an isError result", async () => {
    const refusal = () => new McpErrorV1(-1, 'User closed the dialog')
    const { client, asked } = await sdk1('/mcp', [refusal(), refusal(), { action: 'accept', content: { name: 'Porto' } }])
    try {
      expect(text(await client.callTool({ name: 'rename_or_keep', arguments: { from: 'Lisbon' } }))).toBe(
        'Lisbon kept its name (-1: MCP error -1: MCP error -1: User closed the dialog)',
      )
      expect(await client.callTool({ name: 'rename', arguments: { from: 'Faro' } })).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'MCP error -1: MCP error -1: User closed the dialog' }],
      })
      // The session goes on: the next question is asked and answered.
      expect(text(await client.callTool({ name: 'rename_or_keep', arguments: { from: 'Braga' } }))).toBe('Braga: accept')
      expect(asked).toHaveLength(3)
    } finally {
      await client.close()
    }
  })

  // Porting round Q (chat-ui's impatient_confirm): the option was dropped, and a tool written to
  // give up waited for the answer and acted on it.
  it("a question's timeout: past it, the question rejects with -32001 where it was asked (a 2025 call ends then), in both eras", async () => {
    const gaveUp = { isError: true, content: [{ type: 'text', text: 'gave up: MCP error -32001: Request timed out' }] }
    let answered = 0
    const dropped: boolean[] = []
    const slowly = async (_request: unknown, extra?: { signal?: AbortSignal }) => {
      await new Promise((resolve) => setTimeout(resolve, 600))
      answered++
      dropped.push(extra?.signal?.aborted === true)
      return { action: 'accept' as const, content: { ok: true } }
    }
    const v1 = new Client({ name: 'slow-1x', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    v1.setRequestHandler(ElicitRequestSchema, slowly)
    await v1.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
    try {
      expect(await v1.callTool({ name: 'impatient', arguments: { ms: 300 } })).toMatchObject(gaveUp)
      // The call ended at the deadline, before the client answered; the client was told to drop
      // the question (notifications/cancelled, as the SDKs send at a timeout), so it sends no answer.
      expect(answered).toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 700))
      expect(dropped).toEqual([true])
      expect(text(await v1.callTool({ name: 'impatient', arguments: { ms: 10_000 } }))).toBe('answered: accept')
      expect(dropped).toEqual([true, false])
    } finally {
      await v1.close()
    }
    const v2 = new ClientV2(
      { name: 'slow-2x', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    )
    v2.setRequestHandler('elicitation/create', slowly as never)
    await v2.connect(new TransportV2(new URL(`${base}/mcp`)))
    try {
      // The retry comes after the deadline: its answer is refused as the SDKs' request times out.
      expect(await v2.callTool({ name: 'impatient', arguments: { ms: 300 } })).toMatchObject(gaveUp)
      expect(text(await v2.callTool({ name: 'impatient', arguments: { ms: 10_000 } }))).toBe('answered: accept')
    } finally {
      await v2.close()
    }
  })

  it('an SDK McpError thrown in a tool is an isError result; sendRequest with ElicitResultSchema asks in both eras', async () => {
    const { client } = await sdk1('/mcp', [{ action: 'accept', content: { name: 'Lisboa' } }])
    try {
      expect(await client.callTool({ name: 'lookup', arguments: { city: 'Atlantis' } })).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'MCP error -32602: Unknown city: Atlantis' }],
      })
      expect(text(await client.callTool({ name: 'rename', arguments: { from: 'Lisbon' } }))).toBe('Lisbon is now Lisboa')
    } finally {
      await client.close()
    }
    const modern = await sdk2('/mcp', [{ action: 'decline' }])
    try {
      expect(text(await modern.client.callTool({ name: 'rename', arguments: { from: 'Porto' } }))).toBe('Porto kept its name')
    } finally {
      await modern.client.close()
    }
  })

  it('a tool that asks on a Worker without MCP_STATE_KEYS fails with 500 naming the secret', async () => {
    const keyless = await startWrangler({ config: 'test/adapter/wrangler.jsonc', vars: { MCP_STATE_KEYS: '' } })
    try {
      const asked = await rpc(
        fetch,
        keyless.url,
        'tools/call',
        { name: 'deploy', arguments: { env: 'x' } },
        { capabilities: { elicitation: {} } },
      )
      expect(asked.status).toBe(500)
      expect(asked.message.error).toMatchObject({ code: -32603, message: expect.stringContaining('MCP_STATE_KEYS') })
      // A tool that does not ask still works there.
      expect(
        text((await rpc(fetch, keyless.url, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } })).message.result as object),
      ).toBe('2')
      // An McpAgent keeps state per session, so it needs the secret for every request: 500 saying how to set it.
      const agent = await rpc(fetch, keyless.url.replace(/\/mcp$/, '/agent'), 'tools/call', { name: 'count', arguments: {} })
      expect(agent.status).toBe(500)
      expect(agent.message.error?.code).toBe(-32603)
      expect(agent.message.error?.message).toMatch(
        /^Server misconfigured: MCP_STATE_KEYS is not set\. .*wrangler secret put MCP_STATE_KEYS/,
      )
    } finally {
      await keyless.stop()
    }
  }, 120_000)
})

describe('McpAgent confirmations', () => {
  it("redeems an unannotated tool's confirmation once, in the agent's own storage when no ledger is bound", async () => {
    const call = (params: Record<string, unknown>) =>
      rpc(
        fetch,
        `${base}/agent`,
        'tools/call',
        { name: 'reset', arguments: {}, ...params },
        { capabilities: { elicitation: {} } },
      )
    const asked = await call({})
    expect(asked.message.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { sure: { method: 'elicitation/create' } },
    })
    const answer = {
      requestState: (asked.message.result as { requestState: string }).requestState,
      inputResponses: { sure: { action: 'accept', content: { sure: true } } },
    }
    expect(text((await call(answer)).message.result as object)).toBe('reset')
    const replayed = await call(answer)
    expect(replayed.message.error).toMatchObject({ code: -32602 })
    // Nor through another object: a made-up session id (no MCP-Protocol-Version header, so the
    // Worker would route by it) does not open, and the Worker answers 404 before any object is
    // made. (Before, it reached a new object, whose core refused the 2026-07-28 body: -32020.)
    const elsewhere = await rpc(
      fetch,
      `${base}/agent`,
      'tools/call',
      { name: 'reset', arguments: {}, ...answer },
      { capabilities: { elicitation: {} }, headers: { 'mcp-session-id': 's1.made-up', 'mcp-protocol-version': null } },
    )
    expect([elsewhere.status, elsewhere.message.error]).toEqual([
      404,
      { code: -32600, message: 'Session not found: send initialize again' },
    ])
  })
})

describe('rejection paths of the adapter over HTTP', () => {
  const call = (path: string) => rpc(fetch, `${base}${path}`, 'tools/call', { name: 'toggle_beta', arguments: { on: false } })

  it('a factory that throws fails that request, and the next request builds again', async () => {
    const failed = await fetch(buildRequest(`${base}/flaky`, 'tools/call', { name: 'toggle_beta', arguments: { on: false } }))
    expect(failed.status).toBe(500)
    await failed.body?.cancel()
    const { status, message } = await call('/flaky')
    expect(status).toBe(200)
    expect(text(message.result)).toBe('beta off')
  })

  it('an McpAgent without its binding is 500 naming the binding; props naming no one, 500 naming the fields; another path, 404', async () => {
    const unbound = await call('/agent-unbound')
    expect(unbound.status).toBe(500)
    expect(unbound.message).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32603,
        message:
          'Server misconfigured: the Durable Object binding NO_SUCH_BINDING is missing: bind the agent class in wrangler.jsonc (docs/migrate.md)',
      },
    })
    const nameless = await call('/agent-nameless')
    expect(nameless.status).toBe(500)
    expect(nameless.message.error?.code).toBe(-32603)
    expect(nameless.message.error?.message).toMatch(
      /^Server misconfigured: the grant's props name no one: give them one of sub, /,
    )
    // And in the operator's log, where the client's 500 does not reach.
    await expect
      .poll(() => readFileSync(worker.logFile, 'utf8'), { timeout: 5000 })
      .toContain("McpAgent.serve answers 500: the grant's props name no one")
    expect((await fetch(`${base}/agent/elsewhere`, { method: 'POST', body: '{}' })).status).toBe(404)
  })

  it('an McpAgent whose init() throws answers a JSON-RPC 500 naming init(), without the error itself, and runs init() again next time', async () => {
    const count = () => rpc(fetch, `${base}/agent-broken`, 'tools/call', { name: 'count', arguments: {} })
    const failed = await count()
    expect(failed.status).toBe(500)
    expect(failed.message).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Server misconfigured: Counter.init() threw; see the server logs' },
    })
    const served = await count()
    expect([served.status, text(served.message.result)]).toEqual([200, '0'])
  })

  it("an McpAgent's this.elicitInput outside a handler (here in init()) throws saying where it works", async () => {
    const { message } = await rpc(fetch, `${base}/agent`, 'tools/call', { name: 'ask_outside', arguments: {} })
    expect(text(message.result)).toBe('this.elicitInput works inside a tool, prompt or resource handler only')
  })

  it("an McpAgent refuses a caller its authenticate option does not know: 401 with the challenge, the caller's state unchanged", async () => {
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
    const count = async () =>
      text((await rpc(fetch, `${base}/agent-auth`, 'tools/call', { name: 'count', arguments: {} }, as('good'))).message.result)
    const before = await count()
    for (const options of [{}, as('bad')]) {
      const refused = await rpc(fetch, `${base}/agent-auth`, 'tools/call', { name: 'increment', arguments: { by: 7 } }, options)
      expect(refused.status).toBe(401)
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="mcp"')
      expect(refused.message).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: 'Unauthorized' } })
    }
    expect(await count()).toBe(before)
  })

  // Before, serve() took these options and its object served with the defaults: a 2025 client was
  // served and a large body read.
  it("an McpAgent's object acts on serve()'s lane and limit options: legacy 'reject' refuses a 2025 client, maxBodyBytes a larger body", async () => {
    const url = `${base}/agent-strict`
    const initialize = await fetch(initializeRequest(url))
    expect(initialize.status).toBe(400)
    expect(initialize.headers.get('mcp-session-id')).toBeNull()
    expect(((await initialize.json()) as { error: { code: number } }).error.code).toBe(-32022)
    const small = await rpc(fetch, url, 'tools/call', { name: 'count', arguments: {} })
    expect(small.status).toBe(200)
    const large = await rpc(fetch, url, 'tools/call', { name: 'increment', arguments: { by: 1 }, pad: 'x'.repeat(700) })
    expect(large.status).toBe(413)
    expect(text((await rpc(fetch, url, 'tools/call', { name: 'count', arguments: {} })).message.result)).toBe(
      text(small.message.result),
    )
  })

  it('an McpAgent refuses a foreign Origin with 403 before its object runs anything', async () => {
    const count = async () =>
      text((await rpc(fetch, `${base}/agent`, 'tools/call', { name: 'count', arguments: {} })).message.result)
    const before = await count()
    const refused = await rpc(
      fetch,
      `${base}/agent`,
      'tools/call',
      { name: 'increment', arguments: { by: 7 } },
      { headers: { origin: 'https://evil.example' } },
    )
    expect(refused.status).toBe(403)
    expect(refused.message).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Forbidden: origin https://evil.example is not allowed' },
    })
    expect(await count()).toBe(before)
  })
})

describe("SDK 2.x's handler shape, fetch(request, { authInfo, parsedBody })", () => {
  it("serves the caller the app's middleware verified, with the body it had already read", async () => {
    const { status, message } = await rpc(fetch, `${base}/sdk2-auth`, 'tools/call', { name: 'auth_info', arguments: {} })
    expect(status).toBe(200)
    expect(JSON.parse(text(message.result) ?? '')).toEqual({
      token: 'opaque',
      clientId: 'app-1',
      scopes: ['read'],
      extra: { sub: 'sam' },
    })
  })
})

describe('a factory whose parameter list does not show that it reads its context', () => {
  it("is built for each caller once it reads the context, so no caller is served another's server", async () => {
    const hello = async (client: string) => {
      const headers = { 'x-test-client': client }
      const { message } = await rpc(fetch, `${base}/rest-factory`, 'tools/call', { name: 'hello', arguments: {} }, { headers })
      return text(message.result)
    }
    expect(await hello('alice')).toBe('hello alice')
    expect(await hello('bob')).toBe('hello bob')
    expect(await hello('alice')).toBe('hello alice')
  })
})

describe('a factory that reads getMcpAuthContext() while it builds', () => {
  it("builds each caller's own server, as agents runs the factory in the request's context", async () => {
    const hello = async (login?: string) => {
      const headers: Record<string, string> = login === undefined ? {} : { 'x-test-login': login }
      const { message } = await rpc(fetch, `${base}/per-user`, 'tools/call', { name: 'hello', arguments: {} }, { headers })
      return text(message.result)
    }
    expect(await hello('ada')).toBe('hello ada')
    expect(await hello('bob')).toBe('hello bob')
    expect(await hello()).toBe('hello stranger')
    expect(await hello('ada')).toBe('hello ada')
  })
})

describe('list changes from SDK-style handles', () => {
  it.each(['/mcp', '/plain'])(
    'a 2025 session on %s hears tools/list_changed on its GET stream when a handle is enabled and disabled',
    async (path) => {
      let opened: () => void = () => {}
      const streamOpen = new Promise<void>((resolve) => {
        opened = resolve
      })
      const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
        fetch: async (input, init) => {
          const response = await fetch(input, init)
          if (init?.method === 'GET' && response.status === 200) opened()
          return response
        },
      })
      const listener = new Client({ name: 'listener', version: '1.0.0' })
      const heard: string[] = []
      let next: () => void = () => {}
      listener.setNotificationHandler(ToolListChangedNotificationSchema, (note) => {
        heard.push(note.method)
        next()
      })
      const hear = () =>
        new Promise<void>((resolve, reject) => {
          next = resolve
          setTimeout(() => reject(new Error('no tools/list_changed within 10 s')), 10_000)
        })
      await listener.connect(transport)
      try {
        await Promise.race([
          streamOpen,
          new Promise((_, reject) => setTimeout(() => reject(new Error('the GET stream did not open within 10 s')), 10_000)),
        ])
        const on = hear()
        await rpc(fetch, `${base}${path}`, 'tools/call', { name: 'toggle_beta', arguments: { on: true } })
        await on
        const off = hear()
        await rpc(fetch, `${base}${path}`, 'tools/call', { name: 'toggle_beta', arguments: { on: false } })
        await off
        expect(heard).toEqual(['notifications/tools/list_changed', 'notifications/tools/list_changed'])
      } finally {
        await transport.terminateSession().catch(() => {})
        await listener.close()
      }
    },
  )
})
