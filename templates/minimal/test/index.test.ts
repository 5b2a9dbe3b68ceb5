/**
 * The server's own tests, inside workerd (@cloudflare/vitest-plugin): every tool called over /mcp
 * as a client would, and the refusal a deployed server without a token gives. `McpClient` from
 * mcp-edge/client talks to the Worker in-process through its `fetch` option.
 */
import { exports } from 'cloudflare:workers'
import { McpClient, McpClientError } from 'mcp-edge/client'
import { describe, expect, it } from 'vitest'
import { server } from '../src/index'

const client = (url: string) => new McpClient({ url, fetch: (request) => exports.default.fetch(request) })

describe('the MCP server', () => {
  const local = client('http://127.0.0.1/mcp')

  it('converts every tool’s and prompt’s schemas to JSON Schema (a bad schema fails here, not in a client’s list)', () => {
    expect(() => server.checkSchemas()).not.toThrow()
  })

  it('lists add first, callable by a client that declares no capabilities', async () => {
    const { tools } = (await local.request('tools/list', {})) as { tools: { name: string }[] }
    expect(tools[0]?.name).toBe('add')
  })

  it('says who it is: name, title, website and icon, as clients show them', async () => {
    const { _meta } = (await local.request('server/discover', {})) as { _meta: Record<string, Record<string, unknown>> }
    expect(_meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
      name: 'mcp-edge-minimal',
      title: expect.any(String),
      websiteUrl: expect.stringMatching(/^https:\/\//),
      icons: [expect.objectContaining({ src: expect.stringMatching(/^(https:|data:image\/)/) })],
    })
  })

  it('adds two numbers', async () => {
    const result = await local.callTool('add', { a: 2, b: 3 })
    expect(result.content).toEqual([{ type: 'text', text: '5' }])
  })

  it('refuses a request from elsewhere without credentials (401), saying how to configure them', async () => {
    const error = await client('https://mcp.example.com/mcp')
      .request('tools/list', {})
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(McpClientError)
    expect((error as McpClientError).status).toBe(401)
    expect((error as McpClientError).message).toMatch(/no authentication is configured/)
  })
})
