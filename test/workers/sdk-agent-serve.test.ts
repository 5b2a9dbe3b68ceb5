/**
 * The Worker half of mcp-edge/sdk's `McpAgent.serve(path)`: what it answers itself, before any
 * request reaches the agent's Durable Object. A request to another path gets a 404 that names the
 * path served, in the words `createMcpHandler` uses. (The agent's objects, sessions and state
 * are tested under `wrangler dev`: test/http/sdk-agent.test.ts, sdk-adapter.test.ts.)
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { McpAgent, McpServer } from 'mcp-edge/sdk'

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
      expect(await response.text()).toBe("404 Not Found: this MCP server is served at /mcp (NotesMCP.serve's path)")
    }
  })
})
