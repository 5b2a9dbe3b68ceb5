/**
 * mcp-edge/sdk's request context across awaits, in workerd: SDK-style code reads its request through
 * module-level functions (`getMcpAuthContext()`) and the shared server (`server.server.getClientVersion()`),
 * not through an argument, so the adapter keeps each handler run in an async context of its own
 * (src/sdk/request-store.ts). Two calls of one shared server, with different props and clients,
 * interleaved: each suspends, the other starts, and each reads its request after its awaits, released
 * in the reverse order of their starts. A context kept anywhere but per run (a module-level "current
 * request", a context entered only until the first await, one reused between runs) answers the later
 * start's caller to the earlier one, and this fails.
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { createMcpHandler, getMcpAuthContext, McpServer } from 'mcp-edge/sdk'
import type { McpRequestContext } from 'mcp-edge/sdk'
import { buildRequest, readResponse } from '../support/mcp.ts'

/** A promise and its resolve, for the test to pace the handlers. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {}
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

const entered = new Map<string, ReturnType<typeof deferred>>()
const released = new Map<string, ReturnType<typeof deferred>>()

const server = new McpServer({ name: 'context-concurrency', version: '1.0.0' })
server.registerTool('who', { description: 'Who is calling, read after awaits' }, async () => {
  const seen: unknown[] = []
  // The gate this call waits at is named by the client it says it is (its first read, before any await).
  const gate = String(server.server.getClientVersion()?.name)
  entered.get(gate)?.resolve()
  await released.get(gate)?.promise
  seen.push(getMcpAuthContext()?.props.login, server.server.getClientVersion()?.name)
  await Promise.resolve()
  seen.push(getMcpAuthContext()?.props.login, server.server.getClientVersion()?.name)
  return { content: [{ type: 'text', text: JSON.stringify(seen) }] }
})

/** One call of `who` as client `name`, with the grant's props `{ login }`, served by a shared handler. */
function call(name: string, login: string): Promise<unknown> {
  const request = buildRequest(
    'http://127.0.0.1/mcp',
    'tools/call',
    { name: 'who', arguments: {} },
    { meta: { 'io.modelcontextprotocol/clientInfo': { name, version: '1.0.0' } } },
  )
  const handler = createMcpHandler(server, { authContext: { props: { login } } })
  return handler(request, env, createExecutionContext()).then(async (response) => {
    const { message } = await readResponse(response)
    return JSON.parse((message.result as { content: { text: string }[] }).content[0]?.text ?? 'null')
  })
}

describe("SDK-style code's request context, two calls interleaved", () => {
  it('each call reads its own props and client after its awaits, whichever finishes first', async () => {
    for (const gate of ['first', 'second']) {
      entered.set(gate, deferred())
      released.set(gate, deferred())
    }
    const first = call('first', 'ada')
    await entered.get('first')?.promise
    const second = call('second', 'bob')
    await entered.get('second')?.promise
    // Both are suspended inside their handlers now: the later one resumes first.
    released.get('second')?.resolve()
    expect(await second).toEqual(['bob', 'second', 'bob', 'second'])
    released.get('first')?.resolve()
    expect(await first).toEqual(['ada', 'first', 'ada', 'first'])
  })
})

describe("a factory's context, read by a tool of the server the isolate keeps", () => {
  // `(ctx = {}) =>` takes the context without naming a parameter (its length is 0), so the server
  // is built once and kept; a tool that reads the context later must see the call it serves.
  const factory = (ctx: McpRequestContext = {} as McpRequestContext) => {
    const built = new McpServer({ name: 'factory-context', version: '1.0.0' })
    built.registerTool('token', { description: "The caller's token, as the factory's context gives it" }, async () => {
      await Promise.resolve()
      return { content: [{ type: 'text', text: String(ctx.authInfo?.token) }] }
    })
    return built
  }
  const handler = createMcpHandler(factory)
  const callAs = async (token: string) => {
    const request = buildRequest('http://127.0.0.1/mcp', 'tools/call', { name: 'token', arguments: {} })
    const response = await handler.fetch(request, { authInfo: { token, clientId: `client-${token}`, scopes: [] } })
    const { message } = await readResponse(response)
    return (message.result as { content: { text: string }[] }).content[0]?.text
  }

  it("gives each call its own caller's authInfo, never the first caller's", async () => {
    expect(factory.length).toBe(0)
    expect(await callAs('tok-alice')).toBe('tok-alice')
    expect(await callAs('tok-bob')).toBe('tok-bob')
    expect(await Promise.all([callAs('tok-carol'), callAs('tok-dave')])).toEqual(['tok-carol', 'tok-dave'])
  })
})
