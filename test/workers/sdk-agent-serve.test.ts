/**
 * The Worker half of mcp-edge/sdk's `McpAgent.serve(path)`: what it answers itself, before any
 * request reaches the agent's Durable Object. A request to another path gets a 404 that names the
 * path served, in the words `createMcpHandler` uses; a DELETE without a session ledger bound, a
 * 405 that names the binding which ends sessions. (The agent's objects, sessions and state
 * are tested under `wrangler dev`: test/http/sdk-agent.test.ts, sdk-adapter.test.ts.)
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import { createMcpHandler, McpAgent, McpServer } from 'mcp-edge/sdk'
import type { MessageExtraInfo, StatelessMcpHandler } from 'mcp-edge/sdk'
import { createKeyRing, RequestStateCodec } from 'mcp-edge'
import { LegacySessions } from '../../packages/mcp-edge/src/server/legacy/session.ts'
import { legacyRequest } from '../support/legacy.ts'

class NotesMCP extends McpAgent {
  server = new McpServer({ name: 'notes', version: '1.0.0' })
  async init() {}
}

const post = (path: string) =>
  new Request(`http://127.0.0.1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  })

describe('McpAgent.serve', () => {
  it('answers a request to another path with a 404 that names the path it serves', async () => {
    for (const path of ['/', '/sse', '/mcp/', '/mcpx']) {
      const response = await NotesMCP.serve('/mcp').fetch(post(path), env, createExecutionContext())
      expect(response.status).toBe(404)
      expect(await response.text()).toBe(
        `404 Not Found: this MCP server is served at /mcp (NotesMCP.serve's path); it was asked at ${path}`,
      )
    }
  })

  // agents' serve takes a URL pattern, '/' meaning every path (Sentry's and GitMCP's servers serve
  // '/*'). Before, the path was compared as it was written: serve('/*') answered 404 to everything.
  it("serves every path a pattern matches ('/repo/*', and '/' as every path), and 404 names the pattern elsewhere", async () => {
    const reached = async (handler: ReturnType<typeof NotesMCP.serve>, path: string) => {
      const response = await handler.fetch(post(path), {}, createExecutionContext())
      return response.status === 404 ? await response.text() : 'past the path check'
    }
    const repo = NotesMCP.serve('/repo/*')
    for (const path of ['/repo/a', '/repo/acme/widgets', '/repo/']) expect(await reached(repo, path)).toBe('past the path check')
    for (const path of ['/repo', '/mcp', '/'])
      expect(await reached(repo, path)).toBe(
        `404 Not Found: this MCP server is served at /repo/* (NotesMCP.serve's path); it was asked at ${path}`,
      )
    for (const path of ['/', '/mcp', '/a/b']) expect(await reached(NotesMCP.serve('/'), path)).toBe('past the path check')
    expect(await reached(NotesMCP.serve('/mcp/:org'), '/mcp/acme')).toBe('past the path check')
    expect(await reached(NotesMCP.serve('/mcp/:org'), '/mcp/acme/x')).toMatch(/^404 Not Found/)
    expect(() => NotesMCP.serve('/mcp/(')).toThrow(/^NotesMCP\.serve: '\/mcp\/\(' is not a URL pattern's path/)
  })

  // With the ledger bound, DELETE reaches the session's object and ends it (204, then 404):
  // test/http/sdk-adapter.test.ts; without it, the session keeps working: test/http/sdk-agent.test.ts.
  it('answers DELETE without a session ledger with a 405 that names the binding which ends sessions', async () => {
    const request = new Request('http://127.0.0.1/mcp', { method: 'DELETE', headers: { 'mcp-session-id': 's1.any' } })
    const response = await NotesMCP.serve('/mcp').fetch(request, {}, createExecutionContext())
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('POST')
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message:
          "Method not allowed: sessions end on DELETE only with a session ledger. Bind McpSessionLedger as MCP_SESSIONS (export { McpSessionLedger } from 'mcp-edge/cloudflare'; docs/migrate.md)",
      },
    })
  })

  // The Worker answers these itself, before the agent's binding is used: a stand-in for it.
  const bound = { MCP_OBJECT: {} }
  const preflight = (origin: string) =>
    new Request('https://notes.example.com/mcp', {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-notes-team' },
    })

  it("answers a preflight as agents' options say: 403 from an origin not allowed, CORS with the server's own header from one allowed", async () => {
    const handler = NotesMCP.serve('/mcp', { corsOptions: { origin: 'https://notes-app.example.com', headers: 'x-notes-team' } })
    const refused = await handler.fetch(preflight('https://evil.example'), bound, createExecutionContext())
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Forbidden: origin https://evil.example is not allowed' },
    })
    const allowed = await handler.fetch(preflight('https://notes-app.example.com'), bound, createExecutionContext())
    expect(allowed.status).toBe(204)
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://notes-app.example.com')
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-notes-team')
  })

  it("names serve()'s options that cannot act, once, at the first request: onerror, which the agent's object is out of reach of", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const handler = NotesMCP.serve('/mcp', { onerror: () => {}, keepAliveMs: 1000 })
      expect(warn).not.toHaveBeenCalled()
      for (let i = 0; i < 2; i++) await handler.fetch(preflight('http://localhost:5173'), bound, createExecutionContext())
      const said = warn.mock.calls.map(([line]) => String(line))
      expect(said.filter((line) => line.includes("McpAgent.serve's onerror option does nothing"))).toHaveLength(1)
      expect(said.filter((line) => line.includes('McpAgent.serve option keepAliveMs does nothing'))).toHaveLength(1)
    } finally {
      warn.mockRestore()
    }
  })

  it('refuses a POST from an origin not allowed with 403, before authentication and the agent', async () => {
    const request = post('/mcp')
    const foreign = new Request('https://notes.example.com/mcp', {
      method: 'POST',
      headers: { ...Object.fromEntries(request.headers), origin: 'https://evil.example' },
      body: await request.text(),
    })
    const response = await NotesMCP.serve('/mcp', { allowedOriginHostnames: ['notes-app.example.com'] }).fetch(
      foreign,
      bound,
      createExecutionContext(),
    )
    expect(response.status).toBe(403)
  })

  // Found by a review: a made-up session id was routed as it was, so an object was made for it and
  // its init() run, only for the object to answer 404.
  it('answers a 2025 session id that does not open here (made up, sealed with other keys, or another caller’s) with 404, reaching no object', async () => {
    const keyRing = () => `k1:${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`
    const keys = keyRing()
    const mint = (secret: string, principal: string | null) =>
      new LegacySessions(new RequestStateCodec(createKeyRing(secret))).mint({
        server: 'notes /mcp',
        protocolVersion: '2025-11-25',
        clientCapabilities: {},
        principal,
      })
    const named: string[] = []
    const binding = {
      idFromName: (name: string) => {
        named.push(name)
        return name
      },
      get: () => ({ fetch: async () => new Response('reached the object') }),
    }
    const withSession = (session: string) =>
      legacyRequest(
        'http://127.0.0.1/mcp',
        { version: '2025-11-25', sessionId: session },
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      )
    const serve = NotesMCP.serve('/mcp')
    const bound = { MCP_OBJECT: binding, MCP_STATE_KEYS: keys }
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      for (const session of ['made-up', await mint(keyRing(), null), await mint(keys, 'user:bob')]) {
        const response = await serve.fetch(withSession(session), bound, createExecutionContext())
        expect([response.status, await response.json()]).toEqual([
          404,
          { jsonrpc: '2.0', error: { code: -32600, message: 'Session not found: send initialize again' } },
        ])
      }
      expect(named).toEqual([])
      const session = await mint(keys, null)
      expect(await (await serve.fetch(withSession(session), bound, createExecutionContext())).text()).toBe('reached the object')
      expect(named).toEqual([`session:${JSON.stringify([null, session])}`])
    } finally {
      warn.mockRestore()
    }
  })

  // Without CORS headers a browser client sees a network error, not the challenge or the fix.
  it("answers what the Worker refuses itself with CORS headers for an allowed page's client: 401, props naming no one, a missing binding", async () => {
    const serve = NotesMCP.serve('/mcp', { allowedOriginHostnames: ['notes-app.example.com'] })
    const from = async (origin: string) => {
      const request = post('/mcp')
      return new Request('https://notes.example.com/mcp', {
        method: 'POST',
        headers: { ...Object.fromEntries(request.headers), origin },
        body: await request.text(),
      })
    }
    const granted = (props: Record<string, unknown>) => Object.assign(createExecutionContext(), { props })
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const answers = [
      await serve.fetch(await from('https://notes-app.example.com'), bound, createExecutionContext()),
      await serve.fetch(await from('https://notes-app.example.com'), bound, granted({ token: 't' })),
      await serve.fetch(await from('https://notes-app.example.com'), {}, createExecutionContext()),
    ]
    warn.mockRestore()
    expect(answers.map((answer) => answer.status)).toEqual([401, 500, 500])
    for (const answer of answers) {
      expect(answer.headers.get('access-control-allow-origin')).toBe('https://notes-app.example.com')
      expect(answer.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate')
    }
    expect((await answers[1]?.json()) as unknown).toMatchObject({ error: { message: expect.stringContaining('name no one') } })
    expect((await answers[2]?.json()) as unknown).toMatchObject({
      error: { message: expect.stringContaining('MCP_OBJECT is missing') },
    })
    // A foreign page's is refused 403 first, with none (props or no binding make no difference).
    for (const env of [bound, {}]) {
      const refused = await serve.fetch(await from('https://evil.example'), env, granted({ token: 't' }))
      expect(refused.status).toBe(403)
      expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  // What docs/migrate.md tells a server that agents served to any page: allowedOriginHostnames '*'.
  it("lets any origin's preflight through with allowedOriginHostnames '*', as agents' serve did, and refuses it by default", async () => {
    const open = NotesMCP.serve('/mcp', { allowedOriginHostnames: '*' })
    const allowed = await open.fetch(preflight('https://anywhere.example'), bound, createExecutionContext())
    expect(allowed.status).toBe(204)
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://anywhere.example')
    const refused = await NotesMCP.serve('/mcp').fetch(preflight('https://anywhere.example'), bound, createExecutionContext())
    expect(refused.status).toBe(403)
  })
})

// Found porting agents' TestMcpAgent and conformance server: names their code uses that
// mcp-edge/sdk lacked (type errors with only the imports changed). A type check (typecheck.mjs).
describe("agents' and the SDKs' names for what ported code types", () => {
  it('compile: elicitInput with its options, StatelessMcpHandler, MessageExtraInfo', () => {
    const ask = (agent: McpAgent, requestId: number) =>
      agent.elicitInput(
        { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
        { relatedRequestId: requestId },
      )
    const handler: StatelessMcpHandler = createMcpHandler(new McpServer({ name: 'typed', version: '1.0.0' }))
    const info: MessageExtraInfo = { requestInfo: { headers: { accept: ['a', 'b'] }, url: new URL('https://x.test/mcp') } }
    expect([typeof ask, typeof handler.fetch, info.requestInfo?.url?.pathname]).toEqual(['function', 'function', '/mcp'])
  })
})
