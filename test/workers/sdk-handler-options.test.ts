/**
 * mcp-edge/sdk's `createMcpHandler` as agents' and SDK 2.x's code uses it. It takes the `legacy` option as agents' `agents/mcp/server` and
 * SDK 2.x's `createMcpHandler` write it: `'stateless'` (their default) serves 2025-era clients
 * (on mcp-edge's own lane), `'reject'` refuses them. Before, `'stateless'` was a type error
 * (test/fixture/tsconfig.json typechecks this file), though it ran. SDK 2.x's `handler.notify`
 * (an in-process bus, as the SDK 2.x resources example publishes on) is refused when called, naming
 * the replacement; before, it was undefined.
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { createMcpHandler, McpServer } from 'mcp-edge/sdk'

const initialize = () =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } },
    }),
  })

const factory = () => new McpServer({ name: 'legacy-option', version: '1.0.0' })

describe("createMcpHandler's legacy option, as agents and SDK 2.x write it", () => {
  it("'stateless' serves a 2025-era client's initialize", async () => {
    const response = await createMcpHandler(factory, { legacy: 'stateless' }).fetch(initialize(), env, createExecutionContext())
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      result: { protocolVersion: '2025-11-25', serverInfo: { name: 'legacy-option' } },
    })
  })

  it("'reject' refuses it", async () => {
    const response = await createMcpHandler(factory, { legacy: 'reject' }).fetch(initialize(), env, createExecutionContext())
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ error: { code: expect.any(Number) } })
  })
})

describe("SDK 2.x's handler.notify", () => {
  it('refuses each notice naming why and what to call instead', () => {
    const handler = createMcpHandler(factory)
    expect(() => handler.notify.resourceUpdated('counter://value')).toThrow(
      /^handler\.notify\.resourceUpdated is not supported by mcp-edge\/sdk: .*in-process bus.*sendResourceUpdated/,
    )
    expect(() => handler.notify.toolsChanged()).toThrow(/^handler\.notify\.toolsChanged is not supported/)
  })
})
