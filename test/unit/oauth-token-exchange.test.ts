/**
 * mcp-edge/oauth's `exchangeToken` (RFC 8693, client side) against oidc-provider 9 on loopback.
 * oidc-provider has no built-in RFC 8693 grant: the token-exchange grant handler below is OURS,
 * test code registered with `provider.registerGrantType`. It does what an authorization server
 * would: it finds the subject token (`provider.AccessToken.find`), refuses one it does not know or
 * that has expired (invalid_grant), issues only for an allowed audience (invalid_target), and
 * issues a real opaque access token for that audience, which the provider's introspection then
 * describes. So this tests our request and our reading of the answer, not a vendor's exchange.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { exchangeToken, UpstreamError } from '../../packages/mcp-edge/src/oauth/index.ts'
import type { TokenExchangeOptions } from '../../packages/mcp-edge/src/oauth/index.ts'
import type { GrantContext } from 'oidc-provider'
import { issueTokens, metadataOf, startOidcProvider } from '../support/oidc-provider.ts'
import type { TestOidcProvider } from '../support/oidc-provider.ts'
import { refusal } from '../support/upstream-refusal.ts'

const RESOURCE = 'http://127.0.0.1:9/mcp'
const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback'
const API = 'https://api.example'
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token'
const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt'

/** Our RFC 8693 grant handler (test code): what each request asked is kept for the assertions. */
const received: Record<string, string | undefined>[] = []
async function exchangeGrant(ctx: GrantContext): Promise<void> {
  const { params } = ctx.oidc
  received.push({ ...params })
  const refuse = (error: string) => {
    ctx.status = 400
    ctx.body = { error }
  }
  if (params.subject_token_type !== ACCESS_TOKEN_TYPE) return refuse('invalid_request')
  const subject = await ctx.oidc.provider.AccessToken.find(params.subject_token ?? '')
  if (!subject?.isValid) return refuse('invalid_grant')
  const audience = params.audience ?? params.resource
  if (audience !== API) return refuse('invalid_target')
  const token = new ctx.oidc.provider.AccessToken({
    accountId: subject.accountId,
    client: ctx.oidc.client,
    scope: 'api:read',
    gty: 'token-exchange',
    expiresIn: 60,
    resourceServer: { audience, accessTokenFormat: 'opaque', identifier: () => audience, scope: 'api:read' },
  })
  const issuedType = params.requested_token_type === JWT_TYPE ? JWT_TYPE : ACCESS_TOKEN_TYPE
  ctx.body = {
    access_token: await token.save(),
    issued_token_type: issuedType,
    token_type: 'Bearer',
    expires_in: 60,
    scope: 'api:read',
  }
}

let idp: TestOidcProvider
let base: Omit<TokenExchangeOptions, 'subjectToken'>
let introspect: (token: string) => Promise<Record<string, unknown>>

beforeAll(async () => {
  idp = await startOidcProvider({ redirectUris: [REDIRECT_URI], tokenExchange: exchangeGrant })
  const metadata = await metadataOf(idp)
  base = {
    tokenEndpoint: metadata.token_endpoint as string,
    clientId: idp.resourceClient.clientId,
    clientSecret: idp.resourceClient.clientSecret,
  }
  introspect = async (token) => {
    const response = await fetch(metadata.introspection_endpoint as string, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${base.clientId}:${base.clientSecret}`)}` },
      body: new URLSearchParams({ token }),
    })
    return (await response.json()) as Record<string, unknown>
  }
})
afterAll(() => idp.close())

const signedIn = async (login: string) =>
  (await issueTokens(idp, { login, resource: RESOURCE, redirectUri: REDIRECT_URI })).accessToken

describe('exchangeToken against oidc-provider with our token-exchange grant handler', () => {
  it("exchanges the person's token for one meant for the API, which the provider says is theirs and for that audience", async () => {
    const subjectToken = await signedIn('ada')
    const exchanged = await exchangeToken({ ...base, subjectToken, audience: API })
    expect(exchanged).toEqual({
      accessToken: expect.any(String),
      issuedTokenType: ACCESS_TOKEN_TYPE,
      expiresIn: 60,
      scope: 'api:read',
    })
    expect(exchanged.accessToken).not.toBe(subjectToken)
    expect(received.at(-1)).toMatchObject({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: subjectToken,
      subject_token_type: ACCESS_TOKEN_TYPE,
      audience: API,
    })
    expect(await introspect(exchanged.accessToken)).toMatchObject({
      active: true,
      sub: 'ada',
      aud: API,
      scope: 'api:read',
      client_id: idp.resourceClient.clientId,
    })
  })

  it('sends resource, scope and requested_token_type when given, and only then', async () => {
    const subjectToken = await signedIn('ben')
    await exchangeToken({ ...base, subjectToken, audience: API })
    const plain = received.at(-1)
    expect([plain?.resource, plain?.scope, plain?.requested_token_type]).toEqual([undefined, undefined, undefined])
    const jwt = await exchangeToken({ ...base, subjectToken, resource: API, scope: 'api:read', requestedTokenType: JWT_TYPE })
    expect(jwt.issuedTokenType).toBe(JWT_TYPE)
    expect(received.at(-1)).toMatchObject({ resource: API, scope: 'api:read', requested_token_type: JWT_TYPE })
  })

  it('fails with invalid_grant for a subject token the provider does not know, never naming the token', async () => {
    const error = await refusal(exchangeToken({ ...base, subjectToken: 'canary-subject-token', audience: API }))
    expect(error).toBeInstanceOf(UpstreamError)
    expect([error.reason, error.invalidGrant]).toEqual(['invalid_grant', true])
    expect(error.message).toBe("the provider's token endpoint answered 400 invalid_grant")
  })

  it('fails with token_endpoint_error naming invalid_target for an audience the provider will not issue for', async () => {
    const error = await refusal(
      exchangeToken({ ...base, subjectToken: await signedIn('cy'), audience: 'https://elsewhere.example' }),
    )
    expect([error.reason, error.message]).toEqual([
      'token_endpoint_error',
      "the provider's token endpoint answered 400 invalid_target",
    ])
  })

  it('fails when the client is refused (a wrong secret), or when the endpoint is down', async () => {
    const wrong = await refusal(
      exchangeToken({ ...base, clientSecret: 'wrong', subjectToken: await signedIn('di'), audience: API }),
    )
    expect([wrong.reason, wrong.message]).toEqual([
      'token_endpoint_error',
      "the provider's token endpoint answered 401 invalid_client",
    ])
    const down = await refusal(
      exchangeToken({ ...base, tokenEndpoint: 'http://127.0.0.1:9/token', subjectToken: 'x', audience: API }),
    )
    expect(down.reason).toBe('unavailable')
  })

  it('refuses an answer of another token type than requested, or with none (RFC 8693 §2.2.1)', async () => {
    const answers = [{ issued_token_type: ACCESS_TOKEN_TYPE }, {}]
    for (const extra of answers) {
      vi.spyOn(globalThis, 'fetch').mockResolvedValueOnce(
        Response.json({ access_token: 'issued', token_type: 'Bearer', ...extra }, { status: 200 }),
      )
      const error = await refusal(exchangeToken({ ...base, subjectToken: 'x', requestedTokenType: JWT_TYPE }))
      expect(error.reason).toBe('token_endpoint_error')
    }
    vi.restoreAllMocks()
  })

  it('refuses a token endpoint that is neither https nor loopback http before sending anything', async () => {
    await expect(exchangeToken({ ...base, tokenEndpoint: 'http://as.example/token', subjectToken: 'x' })).rejects.toThrow(
      /exchangeToken tokenEndpoint must be an https URL/,
    )
  })
})
