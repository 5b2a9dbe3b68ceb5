/**
 * mcp-edge/sdk's rejections that reach a client, inside workerd through `createMcpHandler` (and
 * McpAgent's static fetchers): each answers the JSON-RPC code and HTTP status it should, says what
 * to fix, and changes nothing else (the tool's side effect did not happen, the next request is
 * served). The ones that need a Durable Object of an agent run over `wrangler dev`
 * (test/http/sdk-adapter.test.ts); registration-time refusals are test/unit/sdk-registration.test.ts's.
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { AuthChallenge } from 'mcp-edge'
import {
  createMcpHandler,
  ErrorCode,
  getMcpAuthContext,
  inputRequired,
  McpAgent,
  McpError,
  McpServer,
  MissingRequiredClientCapabilityError,
} from 'mcp-edge/sdk'
import { buildRequest, readResponse } from '../support/mcp.ts'
import { MAX_ROUNDS_PER_CALL } from '../../packages/mcp-edge/src/sdk/input.ts'

const URL_ = 'http://127.0.0.1/mcp'
const ELICIT = { elicitation: {} }
const Sure = z.object({ sure: z.boolean() })

/** What each tool did, so a test can see that a refused call did nothing. */
const done: string[] = []

const server = new McpServer({ name: 'sdk-rejections', version: '1.0.0' })
server.registerTool('ping_client', {}, async (extra) => {
  await extra.sendRequest({ method: 'ping' })
  done.push('ping_client')
  return { content: [{ type: 'text', text: 'pinged' }] }
})
// Not destructive, so its state is not single-use: a refused answer leaves the state to answer again.
server.registerTool('confirm', { annotations: { destructiveHint: false } }, async (ctx) => {
  const answer = ctx.mcpReq.inputResponses?.sure as { action?: string } | undefined
  if (answer === undefined) {
    return inputRequired({ inputRequests: { sure: inputRequired.elicit({ message: 'Sure?', requestedSchema: Sure }) } })
  }
  done.push(`confirm:${answer.action}`)
  return { content: [{ type: 'text', text: String(answer.action) }] }
})
server.registerTool('needs_sampling', {}, async () => {
  throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } })
})
server.registerTool('ask_awaited', {}, async (extra) => {
  const answer = await extra.mcpReq.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } })
  done.push('ask_awaited')
  return { content: [{ type: 'text', text: answer.action }] }
})
server.registerTool('add', { inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: 'text', text: String(a + b) }],
}))
// Asks again whatever the answer (the agents conformance server's elicitation tool, answered "decline").
server.registerTool('insist', { annotations: { destructiveHint: false } }, async (ctx) => {
  const answer = ctx.mcpReq.inputResponses?.name as { action?: string } | undefined
  if (answer?.action === 'accept') return { content: [{ type: 'text', text: 'thanks' }] }
  return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: 'Name?', requestedSchema: Sure }) } })
})
// The same, awaited: asks until accepted, each question a round of its own.
server.registerTool('insist_awaited', { annotations: { destructiveHint: false } }, async (ctx) => {
  for (;;) {
    const answer = await ctx.mcpReq.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } })
    if (answer.action === 'accept') return { content: [{ type: 'text', text: 'thanks' }] }
  }
})
server.registerPrompt('throws', { argsSchema: { code: z.string() } }, ({ code }) => {
  throw new McpError(Number(code), `thrown with ${code}`)
})
const handler = createMcpHandler(server)

const call = (name: string, params: Record<string, unknown> = {}, on: unknown = env) =>
  handler
    .fetch(
      buildRequest(URL_, 'tools/call', { name, arguments: {}, ...params }, { capabilities: ELICIT }),
      on,
      createExecutionContext(),
    )
    .then(readResponse)

describe('questions an SDK-style handler cannot ask, or answers that do not fit', () => {
  it('sendRequest for a method mcp-edge does not ask a client is -32603 naming the ones it asks, and the tool goes no further', async () => {
    done.length = 0
    const { status, message } = await call('ping_client')
    expect(status).toBe(200)
    expect(message.error).toEqual({
      code: -32603,
      message:
        'A handler asked the client for ping, which mcp-edge/sdk does not ask: it asks elicitation/create, ' +
        'sampling/createMessage and roots/list (elicitInput, createMessage, listRoots)',
    })
    expect(done).toEqual([])
  })

  it('an answer of the wrong shape is -32602 naming the answer, and the handler is not run with it', async () => {
    done.length = 0
    const first = await call('confirm')
    expect(first.message.result).toMatchObject({ resultType: 'input_required', inputRequests: { sure: {} } })
    const requestState = (first.message.result as { requestState: string }).requestState
    const wrong = await call('confirm', { requestState, inputResponses: { sure: { accepted: true } } })
    expect(wrong.status).toBe(200)
    expect(wrong.message.error).toEqual({
      code: -32602,
      message: 'Invalid params: inputResponses["sure"] is not a valid answer to elicitation/create',
    })
    expect(done).toEqual([])
    // An accepted answer whose content is not an object (mrtr: a malformed answer is a JSON-RPC error).
    const notContent = await call('confirm', { requestState, inputResponses: { sure: { action: 'accept', content: 'yes' } } })
    expect(notContent.message.error).toEqual(wrong.message.error)
    expect(done).toEqual([])
    // The same state with a real answer still runs the tool: the refusal used nothing up.
    const right = await call('confirm', { requestState, inputResponses: { sure: { action: 'decline' } } })
    expect(right.message.result).toMatchObject({ content: [{ type: 'text', text: 'decline' }] })
    expect(done).toEqual(['confirm:decline'])
  })
})

// Before, an accepted form reached the handler as the client sent it: SDK code that relies on the
// SDKs' check (a boolean that is a boolean, a count within its bounds) acted on anything.
describe("an accepted form that does not match elicitInput's requestedSchema", () => {
  it('is an isError result naming what does not match, as in the SDKs, and the handler goes no further', async () => {
    const wipe = {
      message: 'Wipe?',
      requestedSchema: {
        type: 'object' as const,
        properties: {
          confirm: { type: 'boolean' as const },
          count: { type: 'integer' as const, maximum: 5 },
          mode: { type: 'string' as const, enum: ['soft', 'hard'] },
          email: { type: 'string' as const, format: 'email' },
        },
        required: ['confirm', 'count'],
      },
    }
    const checked = new McpServer({ name: 'sdk-form-check', version: '1.0.0' })
    // Not destructive, so its state is not single-use and each answer below can be tried on it.
    checked.registerTool('wipe', { annotations: { destructiveHint: false } }, async (extra) => {
      const answer = await extra.mcpReq.elicitInput(wipe)
      done.push(`wipe:${JSON.stringify(answer.content)}`)
      return { content: [{ type: 'text', text: answer.action }] }
    })
    const form = createMcpHandler(checked)
    const wipeCall = (params: Record<string, unknown> = {}) =>
      form
        .fetch(
          buildRequest(URL_, 'tools/call', { name: 'wipe', arguments: {}, ...params }, { capabilities: ELICIT }),
          env,
          createExecutionContext(),
        )
        .then(readResponse)
    done.length = 0
    const first = await wipeCall()
    const { requestState, inputRequests } = first.message.result as {
      requestState: string
      inputRequests: Record<string, unknown>
    }
    const [key] = Object.keys(inputRequests)
    const answer = (content: Record<string, unknown>) =>
      wipeCall({ requestState, inputResponses: { [key as string]: { action: 'accept', content } } })
    const wrong = await answer({ confirm: 'false', count: 1e9, mode: 'all', email: 7 })
    expect(wrong.message.result).toMatchObject({ isError: true })
    const said = (wrong.message.result as { content: { text: string }[] }).content[0]?.text ?? ''
    expect(said).toMatch(/^MCP error -32602: Elicitation response content does not match requested schema: /)
    for (const field of ['confirm', 'count', 'mode', 'email']) expect(said).toContain(`${field}: `)
    expect((await answer({ confirm: true })).message.result).toMatchObject({ isError: true })
    expect(done).toEqual([])
    // A format is an annotation (JSON Schema 2020-12): not checked, as the SDKs' validators take this one.
    const right = await answer({ confirm: true, count: 5, mode: 'soft', email: 'a!b@example.com', note: 'extra fields pass' })
    expect(right.message.result).toMatchObject({ content: [{ type: 'text', text: 'accept' }] })
    expect(
      (await wipeCall({ requestState, inputResponses: { [key as string]: { action: 'decline' } } })).message.result,
    ).toMatchObject({
      content: [{ type: 'text', text: 'decline' }],
    })
    expect(done).toHaveLength(2)
  })
})

// Before, the cap counted rounds within one request only: a 2025-era client's answer comes in a
// request of its own, so a client that declined each time was asked again without end (thousands
// of elicitation requests in one call).
describe('a handler that asks again whatever the answer', () => {
  it.each(['insist', 'insist_awaited'])(
    `is cut off after ${MAX_ROUNDS_PER_CALL} rounds of the call with -32603, counted across its requests (%s)`,
    async (tool) => {
      let answer = await call(tool)
      let rounds = 1
      for (; rounds <= MAX_ROUNDS_PER_CALL + 1 && answer.message.result; rounds++) {
        // Declined under the key each round asks it (`name`, then `name~2`, `name~3`…).
        const { requestState, inputRequests } = answer.message.result as { requestState: string; inputRequests: object }
        const inputResponses = Object.fromEntries(Object.keys(inputRequests).map((key) => [key, { action: 'decline' }]))
        answer = await call(tool, { requestState, inputResponses })
      }
      expect(rounds).toBe(MAX_ROUNDS_PER_CALL + 1)
      expect(answer.message.error).toEqual({
        code: -32603,
        message: `Internal error: the handler asked for input in more than ${MAX_ROUNDS_PER_CALL} rounds of one call`,
      })
    },
  )
})

describe('errors an SDK-style handler throws', () => {
  it('MissingRequiredClientCapabilityError is -32021 with HTTP 400 and the capability, not an isError result', async () => {
    const { status, message } = await call('needs_sampling')
    expect(status).toBe(400)
    expect(message.error).toEqual({
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: { sampling: {} } },
    })
  })

  // Before, a -32600 or -32601 a prompt threw took the HTTP status of a request the endpoint
  // refuses (400, 404), though the method ran and answered it.
  it('an McpError a prompt or resource handler throws is the JSON-RPC error it names, on a 200, whatever its code', async () => {
    for (const [code, name] of [
      [ErrorCode.MethodNotFound, 'method_not_found'],
      [ErrorCode.InvalidRequest, 'invalid_request'],
      [ErrorCode.InvalidParams, 'invalid_params'],
    ] as const) {
      const { status, message } = await readResponse(
        await handler.fetch(
          buildRequest(URL_, 'prompts/get', { name: 'throws', arguments: { code: String(code) } }),
          env,
          createExecutionContext(),
        ),
      )
      expect([name, status, message.error]).toEqual([name, 200, { code, message: `MCP error ${code}: thrown with ${code}` }])
    }
  })
})

describe('a Worker without MCP_STATE_KEYS', () => {
  it('an awaited elicitInput is 500 naming the secret and how to set it; a tool that does not ask still answers', async () => {
    done.length = 0
    const keyless = {}
    const asked = await call('ask_awaited', {}, keyless)
    expect(asked.status).toBe(500)
    expect(asked.message.error?.code).toBe(-32603)
    expect(asked.message.error?.message).toMatch(
      /^Server misconfigured: a tool asked the client for input, which needs the MCP_STATE_KEYS secret\. .*wrangler secret put MCP_STATE_KEYS/,
    )
    expect(done).toEqual([])
    expect((await call('add', { arguments: { a: 1, b: 2 } }, keyless)).message.result).toMatchObject({
      content: [{ type: 'text', text: '3' }],
    })
  })
})

// Before, such props passed as no authentication at all: a deployed request got 401 "no
// authentication is configured", though an OAuth provider in front had admitted the caller.
describe('a grant whose props name no one, handed to createMcpHandler', () => {
  it('is a JSON-RPC 500 (-32603) naming the fields and the principal option; with the option, served', async () => {
    const request = () => buildRequest('https://mcp.example.com/mcp', 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } })
    // What @cloudflare/workers-oauth-provider hands its API handler: the grant's props on ctx.
    const granted = () => Object.assign(createExecutionContext(), { props: { bearerToken: 'tok_123' } })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const refused = await readResponse(await handler.fetch(request(), env, granted()))
    await handler.fetch(request(), env, granted())
    // Said in the operator's log once per isolate, the token nowhere.
    const said = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('name no one'))
    warn.mockRestore()
    expect(said).toHaveLength(1)
    expect(said[0]).toContain("createMcpHandler answers 500: the grant's props name no one")
    expect(said[0]).not.toContain('tok_123')
    expect(refused.status).toBe(500)
    expect(refused.message).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32603,
        message:
          "Server misconfigured: the grant's props name no one: give them one of sub, userId, user_id, login, email, username, id or userEmail, at their top or under claims, user or account, or pass createMcpHandler()'s principal option (docs/migrate.md)",
      },
    })
    expect(JSON.stringify(refused.message)).not.toContain('tok_123')
    const named = createMcpHandler(server, { principal: (props) => ({ subject: `token:${String(props.bearerToken).length}` }) })
    const served = await readResponse(await named.fetch(request(), env, granted()))
    expect(served.message.result).toMatchObject({ content: [{ type: 'text', text: '5' }] })
    // authContext's props are the grant's too (agents' option); empty ones are none, as agents reads them.
    const given = createMcpHandler(server, { authContext: { props: { team: 'red' } } })
    expect((await readResponse(await given.fetch(request(), env, createExecutionContext()))).status).toBe(500)
    // A server that chose to serve anyone serves such a caller as anonymous.
    const open = createMcpHandler(server, { allowAnonymous: true })
    expect((await readResponse(await open.fetch(request(), env, granted()))).message.result).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    const empty = createMcpHandler(server, { authContext: { props: {} }, allowAnonymous: true })
    expect((await readResponse(await empty.fetch(request(), env, createExecutionContext()))).message.result).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    // Another path is 404, as without props; a foreign page's request 403, as without props.
    const elsewhere = buildRequest('https://mcp.example.com/other', 'tools/list')
    expect((await handler.fetch(elsewhere, env, granted())).status).toBe(404)
    const foreign = request()
    foreign.headers.set('origin', 'https://evil.example')
    const forbidden = await handler.fetch(foreign, env, granted())
    expect(forbidden.status).toBe(403)
    expect(forbidden.headers.get('access-control-allow-origin')).toBeNull()
    // An allowed page's browser client reads the 500 (without CORS headers it sees a network error).
    const page = request()
    page.headers.set('origin', 'http://localhost:5173')
    const told = await handler.fetch(page, env, granted())
    expect(told.status).toBe(500)
    expect(told.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(await told.json()).toEqual(refused.message)
  })
})

// Before, props took the place of a check the options configured: authenticate was never called
// for a request that carried props (an authContext, an OAuth provider's grant), so a hook that
// refuses everyone let them through, and app data in authContext answered 500.
describe("a grant's props beside authenticate or resourceServer", () => {
  const whoServer = new McpServer({ name: 'sdk-props-beside-auth', version: '1.0.0' })
  whoServer.registerTool('who', {}, async (extra) => ({
    content: [
      { type: 'text', text: JSON.stringify({ subject: extra.authInfo?.extra?.subject, props: getMcpAuthContext()?.props }) },
    ],
  }))
  const request = (token?: string) => {
    const built = buildRequest('https://mcp.example.com/mcp', 'tools/call', { name: 'who', arguments: {} })
    if (token) built.headers.set('authorization', `Bearer ${token}`)
    return built
  }
  const granted = () => Object.assign(createExecutionContext(), { props: { login: 'from-props' } })

  it('are read, not taken for the caller: the configured check names the caller, or refuses with 401', async () => {
    const checked = createMcpHandler(whoServer, {
      authenticate: (incoming) => (incoming.headers.get('authorization') === 'Bearer good' ? { subject: 'checked-user' } : null),
      authContext: { props: { tenant: 'acme', login: 'from-context' } },
    })
    const refused = await readResponse(await checked.fetch(request(), env, createExecutionContext()))
    expect(refused.status).toBe(401)
    const served = await readResponse(await checked.fetch(request('good'), env, createExecutionContext()))
    const text = (served.message.result as { content: { text: string }[] }).content[0]?.text ?? ''
    expect(JSON.parse(text)).toEqual({ subject: 'checked-user', props: { tenant: 'acme', login: 'from-context' } })
    // The same with a resource server (an object of functions) and an OAuth provider's grant on ctx.
    const resourceServer = {
      authenticate: async (incoming: Request) => {
        if (incoming.headers.get('authorization') !== 'Bearer jwt') throw new AuthChallenge('Unauthorized')
        return { subject: 'token-user' }
      },
      challenge: () => ({ resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource', scopes: [] }),
    }
    const viaResource = createMcpHandler(whoServer, { resourceServer })
    expect((await readResponse(await viaResource.fetch(request(), env, granted()))).status).toBe(401)
    const read = await readResponse(await viaResource.fetch(request('jwt'), env, granted()))
    const said = (read.message.result as { content: { text: string }[] }).content[0]?.text ?? ''
    expect(JSON.parse(said)).toEqual({ subject: 'token-user', props: { login: 'from-props' } })
  })

  it('a principal option that throws is a JSON-RPC 500 naming the option, its message in the log only', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const throwing = createMcpHandler(whoServer, {
        principal: () => {
          throw new Error('props.user is undefined (secret-detail)')
        },
      })
      const refused = await readResponse(await throwing.fetch(request(), env, granted()))
      expect(refused.status).toBe(500)
      expect(refused.message.error).toEqual({
        code: -32603,
        message: "Server misconfigured: createMcpHandler()'s principal option threw; see the server logs",
      })
      expect(JSON.stringify(refused.message)).not.toContain('secret-detail')
      expect(error.mock.calls.map(([line]) => String(line)).join('\n')).toContain("createMcpHandler's principal option threw")
    } finally {
      error.mockRestore()
    }
  })
})

describe('a server factory that throws', () => {
  it('is a JSON-RPC 500 (-32603) that does not leak its message, and the next request builds again', async () => {
    let failing = 1
    const flaky = createMcpHandler(() => {
      if (failing-- > 0) throw new Error('the database password is hunter2')
      return server
    })
    const request = () => buildRequest(URL_, 'tools/call', { name: 'add', arguments: { a: 2, b: 2 } })
    // From a browser client's page (a loopback origin: allowed), which reads it with CORS headers.
    const page = request()
    page.headers.set('origin', 'http://localhost:5173')
    const failed = await flaky.fetch(page, env, createExecutionContext())
    expect(failed.status).toBe(500)
    expect(failed.headers.get('content-type')).toBe('application/json')
    expect(failed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const body = await failed.json()
    expect(body).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32603,
        message: 'Server misconfigured: the server factory given to createMcpHandler threw; see the server logs',
      },
    })
    expect(JSON.stringify(body)).not.toContain('hunter2')
    const { message } = await readResponse(await flaky.fetch(request(), env, createExecutionContext()))
    expect(message.result).toMatchObject({ content: [{ type: 'text', text: '4' }] })
  })
})

describe('options mcp() refuses, given to createMcpHandler with a server', () => {
  it("are a JSON-RPC 500 (-32603) carrying mcp-edge's own message, which names the fix", async () => {
    const resourceServer = {
      authenticate: async () => ({ subject: 'x' }),
      challenge: () => ({ resourceMetadataUrl: '', scopes: [] }),
    }
    const both = createMcpHandler(server, { route: '/both', authenticate: () => undefined, resourceServer })
    const response = await both.fetch(buildRequest('http://127.0.0.1/both', 'tools/list'), env, createExecutionContext())
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Server misconfigured: mcp(): set either authenticate or resourceServer, not both' },
    })
  })
})

class Agent extends McpAgent {
  server = new McpServer({ name: 'agent', version: '1.0.0' })
  async init() {}
}

describe("McpAgent's SSE transport and its helpers outside a handler", () => {
  it.each(['serveSSE', 'mount'] as const)('%s answers every request 410, naming serve() with the same path', async (method) => {
    const response = await Agent[method]('/sse').fetch(new Request('http://127.0.0.1/sse'), env, createExecutionContext())
    expect(response.status).toBe(410)
    expect(response.headers.get('content-type')).toBe('application/json')
    expect(await response.json()).toEqual({
      error: 'sse_transport_removed',
      message:
        "The HTTP+SSE transport is not served by mcp-edge: export default Agent.serve('/sse') instead (Streamable HTTP, which current clients speak); see docs/migrate.md",
    })
  })

  // Found porting GitMCP, whose Worker sends every GET to serveSSE: a Streamable HTTP client's GET
  // for its optional stream got 410, and Inspector then listed no tools; that transport reads 405
  // as "no stream here".
  it("answers a Streamable HTTP client's GET (it names its session or version) 405, allowing POST", async () => {
    const get = (headers: Record<string, string>) =>
      Agent.serveSSE('/sse').fetch(new Request('http://127.0.0.1/sse', { headers }), env, createExecutionContext())
    const named: Record<string, string>[] = [
      { 'mcp-session-id': 's1.x', 'mcp-protocol-version': '2025-11-25' },
      { 'mcp-protocol-version': '2025-06-18' },
    ]
    for (const headers of named) {
      const response = await get({ accept: 'text/event-stream', ...headers })
      expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST'])
    }
    expect((await get({ accept: 'text/event-stream' })).status).toBe(410)
  })
})
