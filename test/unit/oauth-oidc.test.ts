/**
 * mcp-edge/oauth's OpenID Connect client against a real provider: oidc-provider 9 on 127.0.0.1
 * (test/support/oidc-provider.ts), signed in to over plain HTTP as a person at a browser would,
 * no fetch mocks. The ID-token attacks a real provider will not make are in oauth-id-token.test.ts.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { oidcProvider, randomToken, s256, upstreamFromConfig } from '../../packages/mcp-edge/src/oauth/index.ts'
import type { UpstreamProvider } from '../../packages/mcp-edge/src/oauth/index.ts'
import { refusal } from '../support/upstream-refusal.ts'
import { metadataOf, revokeAt, signInAt, startOidcProvider } from '../support/oidc-provider.ts'
import type { TestOidcProvider } from '../support/oidc-provider.ts'

const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback'

/** The UpstreamError a call ends in (anything else fails the test). */
describe('oidcProvider against oidc-provider', () => {
  let idp: TestOidcProvider
  let upstream: UpstreamProvider

  /** One sign-in as `login` up to the callback: what the caller kept and what came back. */
  async function signIn(login: string) {
    const verifier = randomToken()
    const nonce = randomToken()
    const state = randomToken()
    const url = await upstream.authorizationUrl({ redirectUri: REDIRECT_URI, state, nonce, codeChallenge: await s256(verifier) })
    const callback = await signInAt(idp, url, login)
    expect(callback.searchParams.get('state')).toBe(state)
    const code = callback.searchParams.get('code') ?? ''
    return { verifier, nonce, code, iss: callback.searchParams.get('iss'), redirectUri: REDIRECT_URI }
  }

  beforeAll(async () => {
    idp = await startOidcProvider({ redirectUris: [REDIRECT_URI] })
    upstream = upstreamFromConfig({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret })
  })
  afterAll(() => idp.close())

  it('sends people to the discovered authorization endpoint with PKCE S256, state, nonce, openid and offline access', async () => {
    const verifier = randomToken()
    const url = new URL(
      await upstream.authorizationUrl({
        redirectUri: REDIRECT_URI,
        state: 'the-state',
        nonce: 'the-nonce',
        codeChallenge: await s256(verifier),
      }),
    )
    expect(`${url.origin}${url.pathname}`).toBe((await metadataOf(idp)).authorization_endpoint)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: idp.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'openid email profile offline_access',
      state: 'the-state',
      nonce: 'the-nonce',
      code_challenge: await s256(verifier),
      code_challenge_method: 'S256',
      // oidc-provider (and OIDC Core §11) grant offline_access only with prompt=consent.
      prompt: 'consent',
    })
    expect(upstream.issuer).toBe(idp.issuer)
  })

  it('signs in: the subject, name and email (from userinfo), and tokens with a refresh token and an expiry', async () => {
    const callback = await signIn('ada')
    expect(callback.iss).toBe(idp.issuer)
    const before = Date.now()
    const result = await upstream.exchangeCode(callback)
    expect(result.subject).toBe('ada')
    expect(result.claims).toEqual({ name: 'User ada', email: 'ada@example.test', emailVerified: true })
    expect(result.tokens.accessToken).toMatch(/^[\w-]{20,}$/)
    expect(result.tokens.refreshToken).toMatch(/^[\w-]{20,}$/)
    expect(result.tokens.scope?.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', 'profile'])
    expect(result.tokens.expiresAt).toBeGreaterThanOrEqual(before + 299_000)
    expect(result.tokens.expiresAt).toBeLessThanOrEqual(Date.now() + 300_000)
  })

  it('refreshes: a new access token that works at userinfo, and a refresh token to go on with', async () => {
    const { tokens } = await upstream.exchangeCode(await signIn('grace'))
    const refreshed = await upstream.refresh(tokens.refreshToken as string)
    expect(refreshed.accessToken).not.toBe(tokens.accessToken)
    expect(refreshed.refreshToken).toBeTruthy()
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now())
    const userinfo = await fetch((await metadataOf(idp)).userinfo_endpoint as string, {
      headers: { authorization: `Bearer ${refreshed.accessToken}` },
    })
    expect(userinfo.status).toBe(200)
    expect(await userinfo.json()).toMatchObject({ sub: 'grace', email: 'grace@example.test' })
  })

  it('reports a refresh token revoked at the provider as invalid_grant, without the token in the message', async () => {
    const { tokens } = await upstream.exchangeCode(await signIn('linus'))
    const refreshToken = tokens.refreshToken as string
    await revokeAt(idp, refreshToken, 'refresh_token')
    const error = await refusal(upstream.refresh(refreshToken))
    expect(error).toMatchObject({ reason: 'invalid_grant', invalidGrant: true })
    expect(`${error.message} ${error.stack}`).not.toContain(refreshToken)
  })

  it('reads the profile an access token speaks for (userinfo), and reports one the provider revoked as invalid_grant', async () => {
    const { tokens } = await upstream.exchangeCode(await signIn('hedy'))
    expect(await upstream.profile(tokens.accessToken)).toEqual({
      subject: 'hedy',
      claims: { name: 'User hedy', email: 'hedy@example.test', emailVerified: true },
    })
    await revokeAt(idp, tokens.accessToken, 'access_token')
    expect(await refusal(upstream.profile(tokens.accessToken))).toMatchObject({ reason: 'invalid_grant', invalidGrant: true })
  })

  it('refuses a code redeemed with another PKCE verifier (the token endpoint says invalid_grant)', async () => {
    const callback = await signIn('mallory')
    const error = await refusal(upstream.exchangeCode({ ...callback, verifier: randomToken() }))
    expect(error).toMatchObject({ reason: 'invalid_grant', invalidGrant: true })
    expect(error.message).not.toContain(callback.code)
  })

  it('refuses an ID token carrying another nonce than this sign-in (nonce_mismatch)', async () => {
    const callback = await signIn('eve')
    expect(await refusal(upstream.exchangeCode({ ...callback, nonce: randomToken() }))).toMatchObject({
      reason: 'nonce_mismatch',
      invalidGrant: false,
    })
  })

  it('refuses a callback whose iss names another issuer, or none (the provider always sends it), before redeeming the code', async () => {
    const callback = await signIn('trudy')
    expect(await refusal(upstream.exchangeCode({ ...callback, iss: 'http://localhost:1' }))).toMatchObject({
      reason: 'issuer_mismatch',
    })
    expect(await refusal(upstream.exchangeCode({ ...callback, iss: `${idp.issuer}/` }))).toMatchObject({
      reason: 'issuer_mismatch',
    })
    expect(await refusal(upstream.exchangeCode({ ...callback, iss: null }))).toMatchObject({ reason: 'issuer_mismatch' })
    // The refusals spent nothing: the same code still signs in.
    expect((await upstream.exchangeCode(callback)).subject).toBe('trudy')
  })

  it('reports a provider that went down after discovery as unavailable', async () => {
    const gone = await startOidcProvider({ redirectUris: [REDIRECT_URI] })
    const client = oidcProvider({ issuer: gone.issuer, clientId: gone.clientId, clientSecret: gone.clientSecret })
    const url = await client.authorizationUrl({
      redirectUri: REDIRECT_URI,
      state: 's',
      nonce: 'n',
      codeChallenge: await s256(randomToken()),
    })
    const callback = await signInAt(gone, url, 'ada')
    await gone.close()
    const error = await refusal(
      client.exchangeCode({
        code: callback.searchParams.get('code') ?? '',
        iss: gone.issuer,
        verifier: 'v',
        nonce: 'n',
        redirectUri: REDIRECT_URI,
      }),
    )
    expect(error).toMatchObject({ reason: 'unavailable', invalidGrant: false })
    expect(await refusal(client.refresh('some-refresh-token'))).toMatchObject({ reason: 'unavailable', invalidGrant: false })
  })
})

describe('upstreamFromConfig', () => {
  const secrets = { clientId: 'client', clientSecret: 'secret' }

  it('refuses an issuer that is neither https nor loopback http, naming OIDC_ISSUER', () => {
    for (const issuer of [
      'http://idp.example.com',
      'http://127.0.0.2:8080',
      'http://idp.localhost',
      'ftp://idp.example.com',
      'idp.example.com',
      '',
    ]) {
      expect(() => upstreamFromConfig({ issuer, ...secrets }), issuer).toThrow(TypeError)
      expect(() => upstreamFromConfig({ issuer, ...secrets }), issuer).toThrow(/OIDC_ISSUER must be an https URL/)
    }
    expect(() => upstreamFromConfig({ issuer: 'https://user:pw@idp.example.com', ...secrets })).toThrow(/OIDC_ISSUER/)
    expect(() => upstreamFromConfig({ issuer: 'https://idp.example.com?tenant=1', ...secrets })).toThrow(/OIDC_ISSUER/)
  })

  it('takes https issuers and http ones on 127.0.0.1, localhost and [::1], without a request', () => {
    for (const issuer of [
      'https://idp.example.com',
      'https://idp.example.com/tenant/',
      'http://127.0.0.1:8080',
      'http://localhost:1',
      'http://[::1]:1',
    ]) {
      expect(upstreamFromConfig({ issuer, ...secrets }).issuer).toBe(issuer)
    }
  })

  it('names OIDC_CLIENT_ID and OIDC_CLIENT_SECRET when they are empty', () => {
    expect(() => upstreamFromConfig({ issuer: 'https://idp.example.com', clientId: '', clientSecret: 's' })).toThrow(
      /OIDC_CLIENT_ID/,
    )
    expect(() => upstreamFromConfig({ issuer: 'https://idp.example.com', clientId: 'c', clientSecret: '' })).toThrow(
      /OIDC_CLIENT_SECRET/,
    )
  })

  it('reports an issuer nothing listens on as unavailable', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as AddressInfo).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const upstream = upstreamFromConfig({ issuer: `http://127.0.0.1:${port}`, ...secrets })
    const request = { redirectUri: REDIRECT_URI, state: 's', nonce: 'n', codeChallenge: 'c' }
    expect(await refusal(upstream.authorizationUrl(request))).toMatchObject({ reason: 'unavailable', invalidGrant: false })
  })

  it('selects the GitHub preset for https://github.com', async () => {
    const upstream = upstreamFromConfig({ issuer: 'https://github.com', ...secrets })
    expect(upstream.issuer).toBe('https://github.com')
    const url = new URL(
      await upstream.authorizationUrl({ redirectUri: REDIRECT_URI, state: 's', nonce: 'n', codeChallenge: 'c' }),
    )
    expect(`${url.origin}${url.pathname}`).toBe('https://github.com/login/oauth/authorize')
  })
})

describe('pkce', () => {
  it('makes 32-byte base64url tokens and the RFC 7636 appendix B challenge', async () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(randomToken()).not.toBe(randomToken())
    expect(await s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
  })
})
