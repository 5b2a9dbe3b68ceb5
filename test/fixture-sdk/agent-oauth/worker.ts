/**
 * SDK-style fixture (c): an `McpAgent` behind `@cloudflare/workers-oauth-provider`, signing people
 * in with GitHub, as Cloudflare's remote-mcp-github-oauth demo does: the agent is the provider's
 * API handler, and the grant's props (GitHub login, name, token) reach the tools as `this.props`.
 * Only the import lines differ from that code (`// was:` names the original). GitHub here is the
 * test's stand-in on loopback (test/support/github-stand-in.ts), named by GITHUB_WEB and GITHUB_API.
 * Test-only (test/http/sdk-agent-oauth.test.ts).
 */
import OAuthProvider from '@cloudflare/workers-oauth-provider'
import { env } from 'cloudflare:workers'
import { McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import { McpAgent } from 'mcp-edge/sdk' // was: agents/mcp
import { createMcpHandler, getMcpAuthContext } from 'mcp-edge/sdk' // was: agents/mcp
import { z } from 'zod'
import { GitHubHandler } from './github-handler.ts'
import type { Props } from './github-handler.ts'

export class GitHubMCP extends McpAgent<Env, Record<string, never>, Props> {
  server = new McpServer({ name: 'sdk-github-fixture', version: '1.0.0' })

  async init() {
    this.server.registerTool('whoami', { description: 'Who signed in, from the OAuth grant' }, async () => {
      const me = { login: this.props?.login ?? '', name: this.props?.name ?? '' }
      return { content: [{ type: 'text', text: JSON.stringify(me) }] }
    })

    this.server.tool('add', 'Add two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))

    this.server.registerTool(
      'github_profile',
      { description: "The signed-in person's GitHub profile, read with their GitHub token" },
      async () => {
        const response = await fetch(`${this.env.GITHUB_API}/user`, {
          headers: { authorization: `Bearer ${this.props?.accessToken}`, 'user-agent': 'sdk-github-fixture' },
        })
        const profile = (await response.json()) as { login?: string; id?: number }
        return { content: [{ type: 'text', text: `${profile.login} (${profile.id})` }] }
      },
    )
  }
}

// Added for the test: a stateless server as another API handler, agents' `createMcpHandler` (as an
// object's fetch, which agents' handler, a function, needs there) reading the grant's props with
// `getMcpAuthContext()`.
const plain = new McpServer({ name: 'sdk-github-plain', version: '1.0.0' })
plain.registerTool('login', { description: 'The GitHub login of the grant' }, async () => ({
  content: [{ type: 'text', text: String(getMcpAuthContext()?.props.login ?? 'nobody') }],
}))

export default new OAuthProvider({
  apiHandlers: {
    '/sse': GitHubMCP.serveSSE('/sse'),
    '/mcp': GitHubMCP.serve('/mcp'),
    '/plain': { fetch: createMcpHandler(plain, { route: '/plain' }) },
  },
  authorizeEndpoint: '/authorize',
  clientRegistrationEndpoint: '/register',
  tokenEndpoint: '/token',
  defaultHandler: GitHubHandler,
  // The origin: it covers both API routes (/mcp and /sse).
  resourceMetadata: { resource: env.MCP_PUBLIC_URL },
})
