/**
 * Fixture (g), the SDK 2.x bearer-auth-web example as a Worker (test/fixture-sdk/bearer-auth):
 * its own `requireBearerAuth` gate and DNS-rebinding guards in front, then
 * `handler.fetch(request, { authInfo })`, whose `authInfo` the factory reads. Driven under
 * `wrangler dev` by the 2.x client pinned to 2026-07-28 and the SDK 1.x client (2025 era), each
 * sending the example's token, and by raw requests for the refusals the SDK answers.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const TOKEN = { headers: { authorization: 'Bearer demo-token' } }
const CALL = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/bearer-auth/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

const post = (headers: Record<string, string>) =>
  fetch(worker.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(CALL),
  })

describe('the SDK 2.x bearer-auth-web example on mcp-edge/sdk', () => {
  it('the 2.x client (2026-07-28) with the token: the factory’s ctx.authInfo is the verified one', async () => {
    const client = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new TransportV2(new URL(worker.url), { requestInit: TOKEN }))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([
        { type: 'text', text: 'client=demo-client' },
      ])
    } finally {
      await client.close()
    }
  })

  it('the SDK 1.x client (2025 era) with the token: the same', async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(worker.url), { requestInit: TOKEN })
    await client.connect(transport)
    try {
      expect(transport.protocolVersion).toBe('2025-11-25')
      expect((await client.callTool({ name: 'whoami', arguments: {} })).content).toEqual([
        { type: 'text', text: 'client=demo-client' },
      ])
    } finally {
      await client.close()
    }
  })

  it('refuses no token and an unknown one with 401, the challenge and the OAuth error body', async () => {
    const missing = await post({})
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe(
      'Bearer error="invalid_token", error_description="Missing Authorization header", scope="mcp"',
    )
    expect(await missing.json()).toEqual({ error: 'invalid_token', error_description: 'Missing Authorization header' })
    const unknown = await post({ authorization: 'Bearer other' })
    expect(unknown.status).toBe(401)
    expect(await unknown.json()).toEqual({ error: 'invalid_token', error_description: 'unknown token' })
  })

  it('refuses a foreign Origin with 403 before the token is looked at', async () => {
    // With no token at all: a 401 here would mean the token was looked at first.
    const tries: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', authorization: 'Bearer demo-token' },
    ]
    for (const headers of tries) {
      const response = await post(headers)
      expect(response.status).toBe(403)
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Invalid Origin: evil.example' },
        id: null,
      })
    }
  })
})
