/**
 * The OAuth 2.1 resource server over real HTTP: the template's tools behind `jwtResourceServer`
 * (test/fixture/jwt) under `wrangler dev`, trusting a local issuer this test runs with keys it
 * generates. RFC 9728 metadata, 401 challenges, every way a token can be wrong, scopes with
 * step-up, key rotation through the cached JWKS, and the per-principal rate limit binding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { issuerKey, type LocalIssuer, startIssuer } from '../support/issuer.ts'
import { legacyConnect, legacyRpc } from '../support/legacy.ts'
import { buildRequest, rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let issuer: LocalIssuer
let worker: WranglerServer
let resource: string
let metadataUrl: string

beforeAll(async () => {
  issuer = await startIssuer()
  worker = await startWrangler({
    config: 'test/fixture/jwt/wrangler.jsonc',
    vars: (port) => ({
      MCP_RESOURCE: `http://127.0.0.1:${port}/mcp`,
      JWT_ISSUER: issuer.url,
      JWT_JWKS_URL: issuer.jwksUrl,
    }),
  })
  resource = worker.url
  metadataUrl = `http://127.0.0.1:${worker.port}/.well-known/oauth-protected-resource/mcp`
}, 120_000)

afterAll(async () => {
  await worker?.stop()
  await issuer?.close()
})

const token = (claims: Record<string, unknown> = {}, expiresIn: string | number = '5m') =>
  issuer.sign({ sub: 'alice', aud: resource, scope: 'mcp', ...claims }, { expiresIn })
const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } })
const add = (options: Parameters<typeof rpc>[4]) =>
  rpc(fetch, resource, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, options)

describe('JWT resource server (RFC 9728, RFC 8707, RFC 6750)', () => {
  it('publishes protected resource metadata at the well-known path outside the endpoint', async () => {
    const response = await fetch(metadataUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(await response.json()).toEqual({
      resource,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp'],
      resource_name: 'mcp-edge template (JWT)',
    })
  })

  it('answers a request without a token 401 with the metadata URL and the baseline scope', async () => {
    const { status, headers, message } = await add({})
    expect(status).toBe(401)
    expect(headers.get('www-authenticate')).toBe(`Bearer realm="mcp", scope="mcp", resource_metadata="${metadataUrl}"`)
    expect(message.error).toEqual({ code: -32600, message: 'Unauthorized: a bearer token is required' })
  })

  it('serves a valid token: the subject is the principal, the scopes limit what is listed', async () => {
    const { message } = await add(bearer(await token()))
    expect(message.result?.content).toEqual([{ type: 'text', text: '5' }])
    const list = await rpc(fetch, resource, 'tools/list', {}, bearer(await token()))
    expect(list.message.result.tools.map((tool: { name: string }) => tool.name)).not.toContain('delete_record')
    expect(list.message.result.cacheScope).toBe('private')
    // Issuers that do not follow RFC 9068 send `JWT` or no type: still access tokens by default.
    for (const typ of ['JWT', 'application/at+jwt', null]) {
      const plain = await issuer.sign({ sub: 'alice', aud: resource, scope: 'mcp' }, { expiresIn: '5m', typ })
      expect((await add(bearer(plain))).message.result?.content, String(typ)).toEqual([{ type: 'text', text: '5' }])
    }
  })

  it('refuses every bad token with 401 invalid_token', async () => {
    const stranger = await issuerKey('key-unknown')
    const good = await token()
    const [header, payload, signature] = good.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'mallory' })).toString('base64url')}.${signature}`
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`
    const cases: Record<string, string> = {
      'wrong audience (a token for another resource)': await token({ aud: 'http://127.0.0.1:1/mcp' }),
      'wrong issuer': await issuer.sign({ iss: 'https://evil.example', sub: 'alice', aud: resource }, { expiresIn: '5m' }),
      expired: await token({}, Math.floor(Date.now() / 1000) - 3600),
      'not yet valid': await token({ nbf: Math.floor(Date.now() / 1000) + 3600 }),
      tampered,
      'alg none': unsigned,
      'signed by a key the issuer does not publish': await issuer.sign(
        { sub: 'alice', aud: resource },
        { key: stranger, expiresIn: '5m' },
      ),
      'no subject': await issuer.sign({ aud: resource }, { expiresIn: '5m' }),
      // RFC 9068 §4: a JWT of another type the same issuer signed is no access token.
      'another type of JWT (typ logout+jwt)': await issuer.sign(
        { sub: 'alice', aud: resource, scope: 'mcp' },
        { expiresIn: '5m', typ: 'logout+jwt' },
      ),
      'an ID-JAG (typ oauth-id-jag+jwt)': await issuer.sign(
        { sub: 'alice', aud: resource, scope: 'mcp' },
        { expiresIn: '5m', typ: 'oauth-id-jag+jwt' },
      ),
      'not a JWT': 'opaque-token',
    }
    for (const [name, value] of Object.entries(cases)) {
      const { status, headers, message } = await add(bearer(value))
      expect(status, name).toBe(401)
      expect(headers.get('www-authenticate'), name).toBe(
        `Bearer realm="mcp", error="invalid_token", scope="mcp", resource_metadata="${metadataUrl}"`,
      )
      expect(message.error, name).toEqual({ code: -32600, message: 'Unauthorized: invalid token' })
    }
    const malformed = await add({ headers: { authorization: 'Bearer a b' } })
    expect(malformed.status).toBe(401)
    expect(malformed.headers.get('www-authenticate')).toContain('error="invalid_request"')
  })

  it('answers a call without the tool scope 403 insufficient_scope naming it, and serves it after step-up', async () => {
    const call = (value: string) =>
      rpc(
        fetch,
        resource,
        'tools/call',
        { name: 'delete_record', arguments: { id: 'r1' } },
        {
          ...bearer(value),
          capabilities: { elicitation: {} },
        },
      )
    const refused = await call(await token({ sub: 'bob' }))
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer realm="mcp", error="insufficient_scope", scope="mcp records:write", resource_metadata="${metadataUrl}"`,
    )
    expect(refused.message.error).toMatchObject({ code: -32600, data: { requiredScopes: ['records:write'] } })
    const stepped = await call(await token({ sub: 'bob', scope: 'mcp records:write' }))
    expect(stepped.status).toBe(200)
    expect(stepped.message.result.resultType).toBe('input_required')
  })

  it('refuses a sealed state at another endpoint of the same server sharing its keys, and opens it where it was sealed', async () => {
    const auth = bearer(await token({ scope: 'mcp records:write' }))
    const call = (url: string, extra: Record<string, unknown> = {}) =>
      rpc(
        fetch,
        url,
        'tools/call',
        { name: 'delete_record', arguments: { id: 'r9' }, ...extra },
        {
          ...auth,
          capabilities: { elicitation: {} },
        },
      )
    const asked = await call(resource)
    expect(asked.message.result.resultType).toBe('input_required')
    const retry = {
      requestState: asked.message.result.requestState,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    }
    const elsewhere = await call(`http://127.0.0.1:${worker.port}/again/mcp`, retry)
    expect(elsewhere.message.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
    expect((await call(resource, retry)).message.result.content).toEqual([{ type: 'text', text: 'Record r9 deleted.' }])
  })

  it('follows key rotation: a token from a newly published key is accepted after one JWKS refetch', async () => {
    await add(bearer(await token({ sub: 'carol' })))
    const before = issuer.fetches
    await add(bearer(await token({ sub: 'carol' })))
    expect(issuer.fetches).toBe(before) // the JWKS is cached
    const next = await issuerKey('key-2')
    issuer.published = [...issuer.published, next]
    const rotated = await issuer.sign({ sub: 'carol', aud: resource, scope: 'mcp' }, { key: next, expiresIn: '5m' })
    expect((await add(bearer(rotated))).message.result?.content).toEqual([{ type: 'text', text: '5' }])
    expect(issuer.fetches).toBe(before + 1)
  })

  it('rate-limits per principal through the Rate Limiting binding: 429 with Retry-After', async () => {
    const flood = await token({ sub: 'flood' })
    const statuses: number[] = []
    for (let i = 0; i < 25; i++) statuses.push((await add(bearer(flood))).status)
    expect(statuses.slice(0, 20).every((status) => status === 200)).toBe(true)
    const refused = await add(bearer(flood))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('60')
    expect(refused.message.error).toEqual({ code: -32600, message: 'Too many requests: rate limit reached, retry later' })
    expect((await add(bearer(await token({ sub: 'calm' })))).status).toBe(200)
  })
})

describe('Hono jwk middleware in front of mcp(): the principal from the verified claims', () => {
  const honoEndpoint = () => `http://127.0.0.1:${worker.port}/hono/mcp`
  const as = async (scope: string) => bearer(await token({ sub: 'carol', scope }))
  const call = async (method: string, params: Record<string, unknown>, scope: string) =>
    rpc(fetch, honoEndpoint(), method, params, await as(scope))

  it('refuses a request without a token, or with a token for another audience, before mcp() runs', async () => {
    expect((await fetch(buildRequest(honoEndpoint(), 'tools/list', {}))).status).toBe(401)
    const foreign = await token({ aud: 'https://other.example/mcp' })
    expect((await fetch(buildRequest(honoEndpoint(), 'tools/list', {}, bearer(foreign)))).status).toBe(401)
  })

  it('hands mcp() the subject and scopes of the token the middleware verified', async () => {
    const { message } = await call('tools/call', { name: 'whoami', arguments: {} }, 'mcp notes:admin')
    expect(JSON.parse(message.result.content[0].text)).toEqual({ subject: 'carol', scopes: ['mcp', 'notes:admin'] })
  })

  it('lists only the resources and prompts the scopes allow, privately cached', async () => {
    const names = (result: { resources?: { name: string }[]; prompts?: { name: string }[] }) =>
      (result.resources ?? result.prompts ?? []).map((item) => item.name)
    const plain = await call('resources/list', {}, 'mcp')
    expect(names(plain.message.result)).toEqual(['public'])
    expect(plain.message.result.cacheScope).toBe('private')
    expect(names((await call('resources/list', {}, 'mcp notes:admin')).message.result)).toEqual(['public', 'secret'])
    expect(names((await call('prompts/list', {}, 'mcp')).message.result)).toEqual([])
    expect(names((await call('prompts/list', {}, 'mcp notes:write')).message.result)).toEqual(['summarize'])
  })

  it('answers a 2025 session’s subscription to a resource without its scope 403 insufficient_scope, and keeps it with the scope', async () => {
    const subscribe = async (scope: string) => {
      const client = await legacyConnect(fetch, honoEndpoint(), { principal: (await as(scope)).headers.authorization.slice(7) })
      return legacyRpc(fetch, honoEndpoint(), client, 'resources/subscribe', { uri: 'notes://secret' })
    }
    const refused = await subscribe('mcp')
    expect(refused.status).toBe(403)
    expect(refused.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    expect(refused.message.error).toMatchObject({ code: -32600, data: { requiredScopes: ['notes:admin'] } })
    expect((await subscribe('mcp notes:admin')).message.result).toEqual({})
  })

  it('answers a read or a prompt without its scope 403 insufficient_scope naming it, and serves it with the scope', async () => {
    const secret = await call('resources/read', { uri: 'notes://secret' }, 'mcp')
    expect(secret.status).toBe(403)
    expect(secret.headers.get('www-authenticate')).toContain('error="insufficient_scope"')
    expect(secret.message.error).toMatchObject({ code: -32600, data: { requiredScopes: ['notes:admin'] } })
    expect((await call('resources/read', { uri: 'notes://secret' }, 'mcp notes:admin')).message.result.contents).toEqual([
      { uri: 'notes://secret', text: 'secret' },
    ])
    const prompt = await call('prompts/get', { name: 'summarize' }, 'mcp')
    expect(prompt.status).toBe(403)
    expect(prompt.message.error).toMatchObject({ data: { requiredScopes: ['notes:write'] } })
    expect((await call('prompts/get', { name: 'summarize' }, 'mcp notes:write')).message.result.messages).toEqual([])
  })
})
