/**
 * mcp-edge/sdk's `createMcpHandler` as agents' and SDK 2.x's code uses it. It takes the `legacy` option as agents' `agents/mcp/server` and
 * SDK 2.x's `createMcpHandler` write it: `'stateless'` (their default) serves 2025-era clients
 * (on mcp-edge's own lane), `'reject'` refuses them. Before, `'stateless'` was a type error
 * (test/fixture/tsconfig.json typechecks this file), though it ran. SDK 2.x's `handler.notify`
 * (an in-process bus there, as the SDK 2.x resources example publishes on) publishes through the
 * Worker's `MCP_EVENTS` hub, here before the factory built any server; before, it was refused.
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { cloudflareEventHub } from 'mcp-edge/cloudflare'
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
  it("publishes through the Worker's MCP_EVENTS hub, heard by a listener of that hub", async () => {
    const uri = `counter://value-${crypto.randomUUID()}`
    const heard: unknown[] = []
    let wake = () => {}
    const stop = new AbortController()
    const topics = new Set([`resource:${uri}`, 'list:tools'])
    await cloudflareEventHub({ binding: 'MCP_EVENTS' }).listen(
      { topics, principal: null },
      (event) => {
        heard.push(event)
        wake()
      },
      stop.signal,
    )
    const handler = createMcpHandler(() => new McpServer({ name: 'notify', version: '1.0.0' }))
    await handler.notify.resourceUpdated(uri)
    await handler.notify.toolsChanged()
    while (heard.length < 2) await new Promise<void>((resolve) => (wake = resolve))
    stop.abort()
    expect(heard).toMatchObject([
      { type: 'resourceUpdated', uri },
      { type: 'listChanged', list: 'tools' },
    ])
  })
})
