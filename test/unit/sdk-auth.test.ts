/**
 * mcp-edge/sdk's account of who calls (a review's findings): the scopes and token an OAuth provider
 * in front granted (`ctx.auth`), `authInfo` as agents builds it, the `authInfo` SDK 2.x code hands
 * over, McpAgent's forwarded caller sealed for its Durable Object, and `requireBearerAuth` as the
 * SDK compares resources. In Node.
 */
import { describe, expect, it, vi } from 'vitest'
import { requireBearerAuth } from '../../packages/mcp-edge/src/sdk/web/bearer-auth.ts'
import { authInfoOf } from '../../packages/mcp-edge/src/sdk/context.ts'
import { openForwarded, sealForwarded } from '../../packages/mcp-edge/src/sdk/agent/forward.ts'
import { fromAuthInfo, grantOf, principalFromProps } from '../../packages/mcp-edge/src/sdk/principal.ts'
import { RequestHost } from '../../packages/mcp-edge/src/sdk/request-store.ts'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'
import { sendAs } from './support.ts'

type ToolAnswer = { content: { type: string; text: string }[]; isError?: boolean }

const call = (server: McpServer, name: string, principal: { subject: string; scopes?: readonly string[] }) =>
  sendAs<ToolAnswer>(server.edge, 'tools/call', { name, arguments: {} }, principal as { subject: string; scopes?: string[] })

/** What workers-oauth-provider 1.2 puts on the execution context beside the props. */
const providerContext = (scope: unknown = ['read:user']) => ({
  props: { login: 'octocat', accessToken: 'gh-token' },
  auth: {
    token: 'mcp-token',
    audience: 'https://mcp.example.com/mcp',
    expiresAt: 1_900_000_000,
    scope,
    userId: 'octocat',
    clientId: 'client-1',
  },
})

describe('the grant of an OAuth provider in front (ctx.auth)', () => {
  it('reads the token, scopes, client, expiry and resource, and nothing from a context without them', () => {
    expect(grantOf(providerContext())).toEqual({
      token: 'mcp-token',
      scopes: ['read:user'],
      clientId: 'client-1',
      expiresAt: 1_900_000_000,
      resource: 'https://mcp.example.com/mcp',
    })
    expect(grantOf({ props: { login: 'octocat' } })).toBeUndefined()
    expect(grantOf(undefined)).toBeUndefined()
    expect(grantOf(providerContext('read:user'))).toBeUndefined()
    expect(grantOf({ auth: { scope: [] } })).toBeUndefined()
  })

  it("gives the principal the token's scopes, only those also named where its props (or the principal option) name some", () => {
    const { props } = providerContext()
    const grant = grantOf(providerContext())
    expect(principalFromProps(props, undefined, grant)).toEqual({
      client_id: 'client-1',
      subject: 'octocat',
      scopes: ['read:user'],
    })
    // Where the props (or the principal option) name scopes too, only those the token was also granted.
    expect(principalFromProps({ ...props, scopes: ['admin', 'read:user'] }, undefined, grant)?.scopes).toEqual(['read:user'])
    expect(principalFromProps(props, (p) => ({ subject: String(p.login) }), grant)?.scopes).toEqual(['read:user'])
    expect(principalFromProps(props, (p) => ({ subject: String(p.login), scopes: ['own'] }), grant)?.scopes).toEqual([])
    expect(principalFromProps({ ...props, scopes: ['admin'] })?.scopes).toEqual(['admin'])
    expect(principalFromProps(props)).toEqual({ subject: 'octocat' })
  })

  it("so a tool's scopes hold against a token granted fewer", async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    server.registerTool('purge', { scopes: ['admin'] }, async () => ({ content: [{ type: 'text', text: 'purged' }] }))
    const granted = (scope: string[]) =>
      principalFromProps(providerContext().props, undefined, grantOf(providerContext(scope))) as {
        subject: string
        scopes: string[]
      }
    const refused = await call(server, 'purge', granted(['read:user']))
    expect(refused.result).toBeUndefined()
    expect(refused.error).toMatchObject({ code: -32600, message: 'Forbidden: Tool "purge" needs scope admin' })
    expect((await call(server, 'purge', granted(['read:user', 'admin']))).result?.content[0]?.text).toBe('purged')
  })

  it('makes authInfo as agents does: the provider token, client, scopes, expiry, resource, and extra.props', () => {
    const ctx = providerContext()
    const grant = grantOf(ctx)
    const principal = principalFromProps(ctx.props, undefined, grant)
    const request = new Request('https://mcp.example.com/mcp', { headers: { authorization: 'Bearer mcp-token' } })
    const host = new RequestHost(request, ctx.props, principal, undefined, {}, false, { grant })
    expect(authInfoOf(principal, host)).toEqual({
      token: 'mcp-token',
      clientId: 'client-1',
      scopes: ['read:user'],
      expiresAt: 1_900_000_000,
      resource: new URL('https://mcp.example.com/mcp'),
      extra: { client_id: 'client-1', subject: 'octocat', scopes: ['read:user'], ...ctx.props, props: ctx.props },
    })
  })
})

describe('the authInfo SDK 2.x code hands over (handler.fetch(request, { authInfo }))', () => {
  const authInfo = { token: 'opaque', clientId: 'app-1', scopes: ['read'], resource: new URL('https://mcp.example.com/mcp') }

  it("is the caller its extra (or agents' extra.props) names, with the token's scopes and client", () => {
    const { props, grant } = fromAuthInfo({ ...authInfo, extra: { sub: 'sam' } })
    expect(props).toEqual({ sub: 'sam' })
    expect(grant).toEqual({
      token: 'opaque',
      scopes: ['read'],
      clientId: 'app-1',
      expiresAt: undefined,
      resource: 'https://mcp.example.com/mcp',
    })
    expect(principalFromProps(props, undefined, grant)).toEqual({ client_id: 'app-1', subject: 'sam', scopes: ['read'] })
    expect(fromAuthInfo({ ...authInfo, extra: { props: { login: 'ada' } } }).props).toEqual({ login: 'ada' })
  })

  it('is the client, apart from any user, when nothing names a user', () => {
    const { props, grant } = fromAuthInfo(authInfo)
    expect(principalFromProps(props, undefined, grant)?.subject).toBe('client:app-1')
    // A user whose subject is the client's id is still someone else.
    expect(principalFromProps(fromAuthInfo({ ...authInfo, extra: { sub: 'app-1' } }).props)?.subject).toBe('app-1')
  })
})

describe("McpAgent's forwarded caller (Worker → its Durable Object)", () => {
  const secret = `k1:${btoa('a 32-byte key for the unit tests!')}`
  const other = `k9:${btoa('another 32-byte key, not the one.')}`
  const claim = { principal: { subject: 'alice' }, route: 'principal' }

  it('opens what serve() sealed with the same secret, and nothing forged, altered, foreign or stale', async () => {
    const header = await sealForwarded(secret, claim)
    expect(await openForwarded(secret, header)).toMatchObject(claim)
    const [kid, mac, body] = header.split('.')
    const mallory = btoa(JSON.stringify({ ...claim, principal: { subject: 'mallory' }, exp: Date.now() + 60_000 }))
    expect(await openForwarded(secret, `${kid}.${mac}.${mallory.replace(/=+$/, '')}`)).toBeUndefined()
    expect(await openForwarded(secret, JSON.stringify(claim))).toBeUndefined()
    expect(await openForwarded(other, header)).toBeUndefined()
    expect(await openForwarded(secret, `${kid}.${mac}`)).toBeUndefined()
    expect(body).toBeDefined()
    vi.useFakeTimers({ now: Date.now() + 61_000 })
    try {
      expect(await openForwarded(secret, header)).toBeUndefined()
    } finally {
      vi.useRealTimers()
    }
  })

  it('refuses to seal without MCP_STATE_KEYS, saying how to set it', async () => {
    await expect(sealForwarded(undefined, claim)).rejects.toThrow(/MCP_STATE_KEYS is not set/)
  })
})

describe('requireBearerAuth, as the SDK compares resources and reports its metadata URL', () => {
  const resource = new URL('https://mcp.example.com/mcp')
  const gateFor = (reported: string) =>
    requireBearerAuth({
      verifier: {
        verifyAccessToken: async () => ({
          token: 't',
          clientId: 'app',
          scopes: [],
          expiresAt: 4_000_000_000,
          resource: new URL(reported),
        }),
      },
      expectedResource: resource,
      resourceMetadataUrl: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    })
  const request = new Request('https://mcp.example.com/mcp', { headers: { authorization: 'Bearer t' } })

  it('takes the resource with a trailing slash or a fragment, and adds the metadata URL to authInfo', async () => {
    for (const reported of ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp#x']) {
      const auth = await gateFor(reported)(request)
      expect(auth).not.toBeInstanceOf(Response)
      expect((auth as { resourceMetadataUrl?: string }).resourceMetadataUrl).toBe(
        'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      )
    }
  })

  it('refuses a token issued for another resource: 401 with the challenge', async () => {
    const refused = (await gateFor('https://mcp.example.com/other')(request)) as Response
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Bearer error="invalid_token", error_description="Token was not issued/,
    )
  })
})
