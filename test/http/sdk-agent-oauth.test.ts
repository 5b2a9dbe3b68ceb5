/**
 * Fixture (c), an `McpAgent` as the API handler of `@cloudflare/workers-oauth-provider`, signing
 * people in with GitHub (the stand-in on loopback, test/support/github-stand-in.ts), its imports
 * changed to `mcp-edge/sdk` and nothing else (test/fixture-sdk/agent-oauth), under `wrangler dev`.
 * The official 2.x client signs in at its defaults (the person has authorized the app at GitHub
 * before, so GitHub redirects at once); the grant's props reach the tools as `this.props`: the
 * GitHub login and name, and the GitHub token, with which a tool reads GitHub's API. The same
 * token serves a 2025-era client; no token, no tools.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGithubStandIn } from '../support/github-stand-in.ts'
import type { GithubStandIn } from '../support/github-stand-in.ts'
import { authorizationRequest, newOAuthClient } from '../support/oauth-browser.ts'
import { REDIRECT_URI, ScriptedOAuthProvider } from '../support/oauth-client.ts'
import { freePort, startWrangler, type WranglerServer } from '../support/wrangler.ts'

const USER = { id: 583231, login: 'octocat', name: 'The Octocat', email: null }

let worker: WranglerServer
let github: GithubStandIn

beforeAll(async () => {
  const port = await freePort()
  github = await startGithubStandIn({ user: USER })
  worker = await startWrangler({
    config: 'test/fixture-sdk/agent-oauth/wrangler.jsonc',
    port,
    vars: {
      MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
      GITHUB_WEB: github.webOrigin,
      GITHUB_API: github.apiOrigin,
      GITHUB_CLIENT_ID: github.clientId,
      GITHUB_CLIENT_SECRET: github.clientSecret,
    },
  })
}, 120_000)
afterAll(async () => {
  await Promise.all([worker?.stop(), github?.close()])
})

/** Follow the authorization's redirects (ours → GitHub → our callback) back to the MCP client. */
async function signIn(authorizationUrl: URL): Promise<URLSearchParams> {
  let next = authorizationUrl.href
  for (let hop = 0; hop < 5; hop++) {
    if (next.startsWith(REDIRECT_URI)) return new URL(next).searchParams
    const response = await fetch(next, { redirect: 'manual' })
    const location = response.headers.get('location')
    if (response.status !== 302 || !location) throw new Error(`${next}: HTTP ${response.status}: ${await response.text()}`)
    next = new URL(location, next).href
  }
  throw new Error(`no redirect back to the client after 5 hops (last: ${next})`)
}

const text = (result: object) => ((result as { content?: { text: string }[] }).content ?? [])[0]?.text

describe('McpAgent behind workers-oauth-provider with GitHub sign-in', () => {
  const provider = new ScriptedOAuthProvider('sdk agent oauth')

  it('signs in through GitHub and gives the tools this.props from the grant (2026-07-28 client)', async () => {
    const transport = await authorizationRequest(worker.url, provider)
    const callback = await signIn(provider.authorizationUrl as URL)
    expect(callback.get('error')).toBeNull()
    await transport.finishAuth(callback)
    const client = newOAuthClient('sdk agent oauth')
    await client.connect(new TransportV2(new URL(worker.url), { authProvider: provider }))
    try {
      expect(JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })) as string)).toEqual({
        login: 'octocat',
        name: 'The Octocat',
      })
      // The GitHub token travels in the props: the tool reads GitHub's API as the Octocat.
      expect(text(await client.callTool({ name: 'github_profile', arguments: {} }))).toBe('octocat (583231)')
      expect(text(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toBe('3')
    } finally {
      await client.close()
    }
    expect(provider.accessToken).not.toMatch(/^ghu_/)
  })

  it('gives the same props to a 2025-era client holding the token (the SDK 1.x client)', async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(worker.url), {
      requestInit: { headers: { authorization: `Bearer ${provider.accessToken}` } },
    })
    await client.connect(transport)
    try {
      expect(transport.protocolVersion).toBe('2025-11-25')
      expect(JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} })) as string)).toMatchObject({
        login: 'octocat',
      })
    } finally {
      await client.close()
    }
  })

  it("serves a stateless server given to the provider as another API handler, with the grant's props", async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL('/plain', worker.url), {
      requestInit: { headers: { authorization: `Bearer ${provider.accessToken}` } },
    })
    await client.connect(transport)
    try {
      expect(text(await client.callTool({ name: 'login', arguments: {} }))).toBe('octocat')
    } finally {
      await client.close()
    }
  })

  it('refuses a client without a token with 401 and the resource metadata to sign in with', async () => {
    const client = new ClientV2({ name: 'anonymous', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await expect(client.connect(new TransportV2(new URL(worker.url)))).rejects.toThrow()
    const response = await fetch(worker.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toMatch(/resource_metadata="[^"]+"/)
  })
})
