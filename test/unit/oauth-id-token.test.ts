/**
 * mcp-edge/oauth's OpenID Connect client against what a real provider will not send: a scripted
 * issuer on 127.0.0.1 (test/support/idp-script.ts) serves discovery, a JWKS and whatever token
 * answer the test sets. Every forged or mismatched ID token is refused with a stable reason;
 * one rightful token is accepted, so the script itself is shown able to pass.
 */
import { SignJWT, UnsecuredJWT, generateKeyPair } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { oidcProvider } from '../../packages/mcp-edge/src/oauth/index.ts'
import type { UpstreamProvider } from '../../packages/mcp-edge/src/oauth/index.ts'
import { refusal } from '../support/upstream-refusal.ts'
import { startScriptedIdp } from '../support/idp-script.ts'
import type { ScriptedIdp } from '../support/idp-script.ts'

const REDIRECT_URI = 'https://mcp.example.com/oauth/callback'
const NONCE = 'nonce-of-this-sign-in'
const CALLBACK = { code: 'the-code', iss: null, verifier: 'the-verifier', nonce: NONCE, redirectUri: REDIRECT_URI }

const clientOf = (idp: ScriptedIdp, extra: { scopes?: string[] } = {}) =>
  oidcProvider({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, ...extra })

describe('ID token checks (scripted issuer)', () => {
  let idp: ScriptedIdp
  let upstream: UpstreamProvider

  beforeAll(async () => {
    idp = await startScriptedIdp()
    upstream = clientOf(idp)
  })
  afterAll(() => idp.close())
  afterEach(() => {
    idp.requests.length = 0
  })

  /** The code exchanged with the token endpoint answering `idToken`. */
  const exchange = (idToken: string) => {
    idp.answerWith(idToken)
    return upstream.exchangeCode(CALLBACK)
  }

  it('accepts a rightful ID token: subject and claims from it, no userinfo call, the code, verifier and redirect URI sent', async () => {
    const signIn = await exchange(await idp.sign({ ...idp.claims(NONCE), preferred_username: 'ada' }))
    expect(signIn.subject).toBe('user-1')
    expect(signIn.claims).toEqual({ name: 'Ada Lovelace', email: 'ada@example.test', emailVerified: true, login: 'ada' })
    expect(signIn.tokens).toMatchObject({ accessToken: 'scripted-access', refreshToken: 'scripted-refresh' })
    expect(idp.requests.map((request) => request.path)).not.toContain('/userinfo')
    const token = idp.requests.find((request) => request.path === '/token')
    expect(Object.fromEntries(new URLSearchParams(token?.body))).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: REDIRECT_URI,
      code_verifier: 'the-verifier',
    })
    // client_secret_basic (the default), the id and secret form-encoded first (RFC 6749 §2.3.1).
    expect(token?.headers.authorization).toBe(`Basic ${btoa(`${idp.clientId}:${idp.clientSecret}`)}`)
  })

  it('accepts several audiences when azp is this client', async () => {
    const claims = { ...idp.claims(NONCE), aud: [idp.clientId, 'another-client'], azp: idp.clientId }
    expect((await exchange(await idp.sign(claims))).subject).toBe('user-1')
  })

  const forgeries: [string, (idp: ScriptedIdp) => Promise<string>][] = [
    ['another issuer', (idp) => idp.sign({ ...idp.claims(NONCE), iss: 'http://127.0.0.1:1' })],
    ['an issuer with a trailing slash', (idp) => idp.sign({ ...idp.claims(NONCE), iss: `${idp.issuer}/` })],
    ['another audience', (idp) => idp.sign({ ...idp.claims(NONCE), aud: 'another-client' })],
    [
      'an expired exp (past the 5 s tolerance)',
      (idp) => idp.sign({ ...idp.claims(NONCE), exp: Math.floor(Date.now() / 1000) - 30 }),
    ],
    ['no exp', (idp) => idp.sign({ ...idp.claims(NONCE), exp: undefined })],
    ['no iat', (idp) => idp.sign({ ...idp.claims(NONCE), iat: undefined })],
    ['no sub', (idp) => idp.sign({ ...idp.claims(NONCE), sub: undefined })],
    ['no nonce', (idp) => idp.sign({ ...idp.claims(NONCE), nonce: undefined })],
    [
      'a signature by another key under the published kid',
      async (idp) => idp.sign(idp.claims(NONCE), { key: (await generateKeyPair('RS256')).privateKey }),
    ],
    ['a kid the JWKS does not hold', async (idp) => idp.sign(idp.claims(NONCE), { kid: 'key-unknown' })],
    ['alg none', async (idp) => new UnsecuredJWT(idp.claims(NONCE)).encode()],
    [
      'alg HS256 keyed with the client secret',
      (idp) =>
        new SignJWT(idp.claims(NONCE))
          .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
          .sign(new TextEncoder().encode(idp.clientSecret)),
    ],
    [
      'an ES256 signature (an algorithm the provider does not list)',
      async (idp) => idp.sign(idp.claims(NONCE), { key: (await generateKeyPair('ES256')).privateKey, alg: 'ES256' }),
    ],
    ['several audiences and no azp', (idp) => idp.sign({ ...idp.claims(NONCE), aud: [idp.clientId, 'another-client'] })],
    [
      'several audiences and azp of another client',
      (idp) => idp.sign({ ...idp.claims(NONCE), aud: [idp.clientId, 'another-client'], azp: 'another-client' }),
    ],
    ['one audience and azp of another client', (idp) => idp.sign({ ...idp.claims(NONCE), azp: 'another-client' })],
    ['a token that is not a JWT', async () => 'not.a.jwt'],
  ]

  it.each(forgeries)('refuses an ID token with %s (id_token_invalid)', async (_name, forge) => {
    const error = await refusal(exchange(await forge(idp)))
    expect(error).toMatchObject({ reason: 'id_token_invalid', invalidGrant: false })
    expect(error.message).not.toContain('scripted-access')
  })

  it('refuses an ID token carrying another nonce (nonce_mismatch)', async () => {
    expect(await refusal(exchange(await idp.sign(idp.claims('another-nonce'))))).toMatchObject({ reason: 'nonce_mismatch' })
  })

  it('refuses a token answer without an ID token (id_token_invalid)', async () => {
    idp.token = { status: 200, body: { access_token: 'scripted-access', token_type: 'Bearer' } }
    expect(await refusal(upstream.exchangeCode(CALLBACK))).toMatchObject({ reason: 'id_token_invalid' })
  })

  it('completes name and email from userinfo for the same subject, and refuses userinfo about another one', async () => {
    const bare = { ...idp.claims(NONCE), name: undefined, email: undefined, email_verified: undefined }
    idp.userinfo = { status: 200, body: { sub: 'user-1', name: 'Ada', email: 'ada@example.test', email_verified: 'true' } }
    expect((await exchange(await idp.sign(bare))).claims).toEqual({ name: 'Ada', email: 'ada@example.test', emailVerified: true })
    const userinfo = idp.requests.find((request) => request.path === '/userinfo')
    expect(userinfo?.headers.authorization).toBe('Bearer scripted-access')

    idp.userinfo = { status: 200, body: { sub: 'user-2', name: 'Mallory', email: 'mallory@example.test' } }
    expect(await refusal(exchange(await idp.sign(bare)))).toMatchObject({ reason: 'userinfo_invalid' })
    idp.userinfo = { status: 401, body: { error: 'invalid_token' } }
    expect(await refusal(exchange(await idp.sign(bare)))).toMatchObject({ reason: 'userinfo_invalid' })
  })
})

describe('token endpoint answers (scripted issuer)', () => {
  let idp: ScriptedIdp
  let upstream: UpstreamProvider

  beforeAll(async () => {
    idp = await startScriptedIdp()
    upstream = clientOf(idp)
  })
  afterAll(() => idp.close())

  it('reports refusals by their kind, never with the response body in the message', async () => {
    const canary = 'CANARY-error-description'
    const cases: [number, Record<string, unknown>, string, boolean][] = [
      [400, { error: 'invalid_grant', error_description: canary }, 'invalid_grant', true],
      [401, { error: 'invalid_client', error_description: canary }, 'token_endpoint_error', false],
      [200, { error: 'access_denied', error_description: canary }, 'token_endpoint_error', false],
      [200, { token_type: 'Bearer', description: canary }, 'token_endpoint_error', false],
      [200, { access_token: canary, token_type: 'DPoP' }, 'token_endpoint_error', false],
      [503, { error: 'temporarily_unavailable', error_description: canary }, 'unavailable', false],
      [429, { error: 'slow_down', error_description: canary }, 'unavailable', false],
    ]
    for (const [status, body, reason, invalidGrant] of cases) {
      idp.token = { status, body }
      const error = await refusal(upstream.refresh('a-refresh-token'))
      expect(error, JSON.stringify(body)).toMatchObject({ reason, invalidGrant })
      expect(error.message).not.toContain(canary)
    }
  })

  it('keeps the refresh token when none comes back, and takes a rotated one', async () => {
    idp.token = { status: 200, body: { access_token: 'new-access', token_type: 'Bearer', expires_in: '60' } }
    const kept = await upstream.refresh('old-refresh')
    expect(kept).toMatchObject({ accessToken: 'new-access', refreshToken: 'old-refresh' })
    expect(kept.expiresAt).toBeGreaterThan(Date.now() + 55_000)
    idp.token = { status: 200, body: { access_token: 'new-access', token_type: 'bearer', refresh_token: 'rotated' } }
    expect(await upstream.refresh('old-refresh')).toEqual({ accessToken: 'new-access', refreshToken: 'rotated' })
    expect(Object.fromEntries(new URLSearchParams(idp.requests.at(-1)?.body))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'old-refresh',
    })
  })
})

describe('discovery (scripted issuer)', () => {
  const request = { redirectUri: REDIRECT_URI, state: 's', nonce: 'n', codeChallenge: 'c' }

  it('refuses a document naming another issuer, and does not cache the failure', async () => {
    const idp = await startScriptedIdp('/tenant')
    try {
      const upstream = clientOf(idp)
      for (const other of ['http://127.0.0.1:1/tenant', `${idp.issuer}/`, idp.issuer.replace('/tenant', '')]) {
        idp.metadata = { ...idp.metadata, issuer: other }
        expect(await refusal(upstream.authorizationUrl(request)), other).toMatchObject({ reason: 'discovery_failed' })
      }
      idp.metadata = { ...idp.metadata, issuer: idp.issuer }
      expect(await upstream.authorizationUrl(request)).toMatch(/\/authorize\?/)
      const discoveries = idp.requests.filter((seen) => seen.path === '/tenant/.well-known/openid-configuration')
      expect(discoveries).toHaveLength(4)
      await upstream.authorizationUrl(request)
      expect(idp.requests.filter((seen) => seen.path === '/tenant/.well-known/openid-configuration')).toHaveLength(4)
    } finally {
      await idp.close()
    }
  })

  it('refuses endpoints that are neither https nor loopback http, and a provider without PKCE S256', async () => {
    const bad: Record<string, unknown>[] = [
      { token_endpoint: 'http://idp.example.com/token' },
      { authorization_endpoint: 'http://idp.example.com/authorize' },
      { jwks_uri: 'http://idp.example.com/jwks' },
      { userinfo_endpoint: 'javascript:alert(1)' },
      { token_endpoint: undefined },
      { code_challenge_methods_supported: ['plain'] },
    ]
    for (const change of bad) {
      const idp = await startScriptedIdp()
      idp.metadata = { ...idp.metadata, ...change }
      expect(await refusal(clientOf(idp).authorizationUrl(request)), JSON.stringify(change)).toMatchObject({
        reason: 'discovery_failed',
      })
      await idp.close()
    }
  })

  it('leaves offline_access and prompt out when the provider does not list offline_access, and never sends resource', async () => {
    const idp = await startScriptedIdp()
    try {
      idp.metadata = { ...idp.metadata, scopes_supported: ['openid', 'email', 'profile'] }
      const url = new URL(await clientOf(idp).authorizationUrl(request))
      expect(url.searchParams.get('scope')).toBe('openid email profile')
      expect(url.searchParams.has('prompt')).toBe(false)
      expect(url.searchParams.has('resource')).toBe(false)
      const custom = new URL(await clientOf(idp, { scopes: ['email'] }).authorizationUrl(request))
      expect(custom.searchParams.get('scope')).toBe('openid email')
    } finally {
      await idp.close()
    }
  })

  it('authenticates with client_secret_post when the provider lists only that', async () => {
    const idp = await startScriptedIdp()
    try {
      idp.metadata = { ...idp.metadata, token_endpoint_auth_methods_supported: ['client_secret_post'] }
      idp.answerWith(await idp.sign(idp.claims(NONCE)))
      await clientOf(idp).exchangeCode(CALLBACK)
      const token = idp.requests.find((seen) => seen.path === '/token')
      expect(token?.headers.authorization).toBeUndefined()
      expect(new URLSearchParams(token?.body).get('client_secret')).toBe(idp.clientSecret)
      expect(new URLSearchParams(token?.body).get('client_id')).toBe(idp.clientId)
    } finally {
      await idp.close()
    }
  })

  it('refuses a provider that signs ID tokens only with algorithms outside the allow-list', async () => {
    const idp = await startScriptedIdp()
    try {
      idp.metadata = { ...idp.metadata, id_token_signing_alg_values_supported: ['HS256', 'none'] }
      idp.answerWith(await idp.sign(idp.claims(NONCE)))
      expect(await refusal(clientOf(idp).exchangeCode(CALLBACK))).toMatchObject({ reason: 'discovery_failed' })
      const lax = oidcProvider({
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        algorithms: ['HS256', 'none'],
      })
      expect(await refusal(lax.exchangeCode(CALLBACK))).toMatchObject({ reason: 'discovery_failed' })
    } finally {
      await idp.close()
    }
  })
})
