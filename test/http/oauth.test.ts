/**
 * The OAuth template mode (src/worker-oauth.ts, oauth/wrangler.jsonc) under `wrangler dev`, driven
 * by the official MCP client's OAuth support (@modelcontextprotocol/client, pinned) with a
 * scripted user instead of a browser: 401 → RFC 9728 and RFC 8414 discovery → dynamic client
 * registration → PKCE S256 authorization → consent page → code exchange → tools/call. Then the
 * step-up to a scope a tool needs, the principal taken from what the consent stored, and every
 * wrong token: tampered, for another resource, expired. Tokens live 60 s here (KV's minimum), so
 * the expiry check waits out the first token's lifetime while the other checks run first.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { consent, REDIRECT_URI, ScriptedOAuthProvider } from '../support/oauth-client.ts'
import { rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const TOKEN_TTL_S = 60
let worker: WranglerServer
let origin: string

function newClient() {
  const client = new Client(
    { name: 'oauth-test', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }))
  return client
}

/** Connect; when the server asks for authorization, let `user` consent and connect again. */
async function connectAs(provider: ScriptedOAuthProvider, user: string): Promise<{ client: Client; page?: string }> {
  const first = newClient()
  const transport = new StreamableHTTPClientTransport(new URL(worker.url), { authProvider: provider })
  try {
    await first.connect(transport)
    return { client: first }
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || !provider.authorizationUrl) throw error
  }
  const { page, callback } = await consent(provider.authorizationUrl, user)
  await transport.finishAuth(callback)
  const client = newClient()
  await client.connect(new StreamableHTTPClientTransport(new URL(worker.url), { authProvider: provider }))
  return { client, page }
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

beforeAll(async () => {
  worker = await startWrangler({
    config: 'apps/demo/oauth/wrangler.jsonc',
    vars: (port) => ({ MCP_PUBLIC_URL: `http://127.0.0.1:${port}`, OAUTH_ACCESS_TOKEN_TTL: String(TOKEN_TTL_S) }),
  })
  origin = `http://127.0.0.1:${worker.port}`
}, 120_000)

afterAll(async () => {
  await worker?.stop()
})

describe('OAuth template mode with the official MCP client', () => {
  const ada = new ScriptedOAuthProvider()

  it('runs the whole flow (discovery, registration, PKCE, consent) and then calls a tool', async () => {
    const unauthenticated = await rpc(fetch, worker.url, 'tools/list')
    expect(unauthenticated.status).toBe(401)
    expect(unauthenticated.headers.get('www-authenticate')).toContain(
      `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    )
    const { client, page } = await connectAs(ada, 'ada')
    // The authorization request the client built: PKCE S256, bound to this resource (RFC 8707).
    const asked = ada.authorizationUrl as URL
    expect(asked.origin + asked.pathname).toBe(`${origin}/authorize`)
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256')
    expect(asked.searchParams.get('resource')).toBe(`${origin}/mcp`)
    expect(asked.searchParams.get('scope')).toBe('mcp')
    expect(page).toContain('<h1>Allow mcp-edge oauth test to use this MCP server as you?</h1>')
    expect(page).toContain('This sends access to an app on your computer.')
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).not.toContain('delete_record') // needs records:write
    await client.close()
  })

  it('answers a tool that needs more scope 403 insufficient_scope, and the client steps up through consent', async () => {
    const raw = await rpc(
      fetch,
      worker.url,
      'tools/call',
      { name: 'delete_record', arguments: { id: 'r1' } },
      {
        ...bearer(ada.accessToken),
        capabilities: { elicitation: {} },
      },
    )
    expect(raw.status).toBe(403)
    expect(raw.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", error="insufficient_scope", scope="mcp records:write", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    )
    const stepping = new ScriptedOAuthProvider('step-up test')
    await (await connectAs(stepping, 'ada')).client.close()
    const client = newClient()
    const transport = new StreamableHTTPClientTransport(new URL(worker.url), { authProvider: stepping })
    await client.connect(transport)
    stepping.authorizationUrl = undefined as URL | undefined
    await expect(client.callTool({ name: 'delete_record', arguments: { id: 'r1' } })).rejects.toBeInstanceOf(UnauthorizedError)
    const stepUp = stepping.authorizationUrl as URL | undefined
    expect(stepUp?.searchParams.get('scope')).toBe('mcp records:write')
    await transport.finishAuth((await consent(stepUp as URL, 'ada')).callback)
    const upgraded = newClient()
    await upgraded.connect(new StreamableHTTPClientTransport(new URL(worker.url), { authProvider: stepping }))
    expect(await upgraded.callTool({ name: 'delete_record', arguments: { id: 'r1' } })).toMatchObject({
      content: [{ type: 'text', text: 'Record r1 deleted.' }],
    })
    await client.close()
    await upgraded.close()
  })

  it('takes the principal from what the consent stored: a task ada creates is invisible to bob', async () => {
    const bob = new ScriptedOAuthProvider('second user')
    await (await connectAs(bob, 'bob')).client.close()
    const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
    const created = await rpc(
      fetch,
      worker.url,
      'tools/call',
      { name: 'generate_report', arguments: { subject: 'x', sections: 1 } },
      {
        ...bearer(ada.accessToken),
        capabilities: TASKS,
      },
    )
    const taskId = created.message.result.taskId as string
    const asAda = await rpc(fetch, worker.url, 'tasks/get', { taskId }, { ...bearer(ada.accessToken), capabilities: TASKS })
    expect(asAda.message.result.taskId).toBe(taskId)
    const asBob = await rpc(fetch, worker.url, 'tasks/get', { taskId }, { ...bearer(bob.accessToken), capabilities: TASKS })
    expect(asBob.message.error?.code).toBe(-32602)
  })

  it('refuses a tampered token with 401 invalid_token', async () => {
    const token = ada.accessToken
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`
    const { status, headers } = await rpc(fetch, worker.url, 'tools/list', {}, bearer(tampered))
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  it('shows no consent page to a request that came through a proxy (no passphrase, no provider: local browsers only)', async () => {
    for (const [name, value] of [
      ['x-forwarded-for', '203.0.113.9'],
      ['forwarded', 'for=203.0.113.9'],
      ['via', '1.1 tunnel'],
    ]) {
      const page = await fetch(`${origin}/authorize?response_type=code`, { headers: { [name as string]: value as string } })
      expect([name, page.status]).toEqual([name, 403])
      expect(await page.text()).toContain(
        '<p role="alert">Sign-in is not configured: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or MCP_OAUTH_PASSPHRASE.</p>',
      )
    }
  })

  it('escapes a client name chosen by an attacker on the consent page', async () => {
    const registered = await fetch(`${origin}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: '<img src=x onerror=alert(1)>',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
      }),
    })
    const { client_id } = (await registered.json()) as { client_id: string }
    const url = new URL(`${origin}/authorize`)
    for (const [key, value] of Object.entries({
      response_type: 'code',
      client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'mcp',
      resource: `${origin}/mcp`,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'x',
    }))
      url.searchParams.set(key, value)
    const page = await (await fetch(url)).text()
    expect(page).not.toContain('<img src=x') // the page's own images (the server's icon) are <img> too
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;')
  })

  it('refuses the first token once it has expired (401 invalid_token)', async () => {
    // KV's minimum lifetime is 60 s; waiting out the clock is the only way to see a real expiry.
    const expiresAt = ada.savedAt + TOKEN_TTL_S * 1000 + 1500
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now())))
    const { status, headers } = await rpc(fetch, worker.url, 'tools/list', {}, bearer(ada.accessToken))
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toContain('error="invalid_token"')
  }, 90_000)

  it('refuses a token issued for another resource (the same server moved to another origin)', async () => {
    const fresh = new ScriptedOAuthProvider('audience test')
    await (await connectAs(fresh, 'ada')).client.close()
    expect((await rpc(fetch, worker.url, 'tools/list', {}, bearer(fresh.accessToken))).status).toBe(200)
    const { port, persistTo } = worker
    await worker.stop()
    // Same storage, same port, but the resource is now http://localhost:<port>/mcp.
    worker = await startWrangler({
      config: 'apps/demo/oauth/wrangler.jsonc',
      port,
      persistTo,
      vars: { MCP_PUBLIC_URL: `http://localhost:${port}`, OAUTH_ACCESS_TOKEN_TTL: String(TOKEN_TTL_S) },
    })
    const moved = `http://localhost:${port}/mcp`
    const { status, headers } = await rpc(
      fetch,
      moved,
      'tools/list',
      {},
      { headers: { ...bearer(fresh.accessToken).headers, host: `localhost:${port}` } },
    )
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toContain('error="invalid_token"')
  }, 120_000)
})
