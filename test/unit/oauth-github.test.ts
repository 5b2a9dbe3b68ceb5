/**
 * mcp-edge/oauth's GitHub preset against a loopback stand-in for GitHub's documented OAuth web
 * flow and REST API (test/support/github-stand-in.ts): the whole flow over real HTTP, the person
 * from `/user` (and `/user/emails`), GitHub App refresh tokens, and GitHub's 200-with-error
 * refusals read as refusals.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { githubProvider, randomToken, s256, upstreamFromConfig } from '../../packages/mcp-edge/src/oauth/index.ts'
import { refusal } from '../support/upstream-refusal.ts'
import { startGithubStandIn } from '../support/github-stand-in.ts'
import type { GithubStandIn, GithubStandInOptions } from '../support/github-stand-in.ts'

const REDIRECT_URI = 'https://mcp.example.com/oauth/callback'
const ADA = { id: 4242, login: 'ada', name: 'Ada Lovelace', email: null }

describe('githubProvider against a GitHub stand-in', () => {
  let github: GithubStandIn | undefined
  afterEach(() => github?.close())

  async function start(options: Partial<GithubStandInOptions> = {}) {
    github = await startGithubStandIn({
      user: ADA,
      emails: [{ email: 'ada@example.test', primary: true, verified: true }],
      ...options,
    })
    const upstream = githubProvider({
      clientId: github.clientId,
      clientSecret: github.clientSecret,
      webOrigin: github.webOrigin,
      apiOrigin: github.apiOrigin,
    })
    return { github, upstream }
  }

  /** Authorize at the stand-in (it consents at once) and return the callback with what the caller kept. */
  async function authorize(upstream: ReturnType<typeof githubProvider>) {
    const verifier = randomToken()
    const state = randomToken()
    const url = await upstream.authorizationUrl({
      redirectUri: REDIRECT_URI,
      state,
      nonce: 'unused',
      codeChallenge: await s256(verifier),
    })
    const response = await fetch(url, { redirect: 'manual' })
    const callback = new URL(response.headers.get('location') ?? '')
    expect(callback.searchParams.get('state')).toBe(state)
    return {
      url: new URL(url),
      code: callback.searchParams.get('code') ?? '',
      iss: null,
      verifier,
      nonce: 'unused',
      redirectUri: REDIRECT_URI,
    }
  }

  it('is what OIDC_PRESET=github selects for an issuer that is a GitHub Enterprise Server (API at /api/v3); other presets are refused', async () => {
    const { github } = await start()
    const config = { issuer: github.webOrigin, clientId: github.clientId, clientSecret: github.clientSecret }
    const upstream = upstreamFromConfig({ ...config, preset: 'github' })
    const signedIn = await upstream.exchangeCode(await authorize(upstream))
    expect([signedIn.subject, signedIn.claims.login]).toEqual(['4242', 'ada'])
    expect(() => upstreamFromConfig({ ...config, preset: 'gitlab' as never })).toThrow(/OIDC_PRESET/)
    expect(() => upstreamFromConfig({ ...config, issuer: `${github.webOrigin}/ghe`, preset: 'github' })).toThrow(/no path/)
  })

  it('signs in: the numeric id as subject, name, login and the primary verified email; the API called as GitHub asks', async () => {
    const { github, upstream } = await start()
    expect(upstream.issuer).toBe(github.webOrigin)
    const { url, ...callback } = await authorize(upstream)
    expect(`${url.origin}${url.pathname}`).toBe(`${github.webOrigin}/login/oauth/authorize`)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: github.clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'read:user user:email',
      state: expect.any(String),
      code_challenge: await s256(callback.verifier),
      code_challenge_method: 'S256',
    })
    const signIn = await upstream.exchangeCode(callback)
    expect(signIn.subject).toBe('4242')
    expect(signIn.claims).toEqual({ name: 'Ada Lovelace', login: 'ada', email: 'ada@example.test', emailVerified: true })
    expect(signIn.tokens).toEqual({ accessToken: expect.stringMatching(/^ghu_/), scope: 'read:user user:email' })
    const apiCalls = github.requests.filter((request) => request.path.startsWith('/api/v3/'))
    expect(apiCalls.map((request) => request.path)).toEqual(['/api/v3/user', '/api/v3/user/emails'])
    for (const call of apiCalls) {
      expect(call.headers['user-agent']).toBe('mcp-edge')
      expect(call.headers.accept).toBe('application/vnd.github+json')
    }
  })

  it('falls back to the login for a missing name, takes a public email (verified when /user/emails lists it so), and goes on without email when /user/emails is forbidden', async () => {
    const open = await start({ user: { ...ADA, name: null, email: 'public@example.test' } })
    expect((await open.upstream.exchangeCode(await authorize(open.upstream))).claims).toEqual({
      name: 'ada',
      login: 'ada',
      email: 'public@example.test',
    })
    await open.github.close()

    const listed = await start({
      user: { ...ADA, email: 'public@example.test' },
      emails: [
        { email: 'ada@example.test', primary: true, verified: true },
        { email: 'public@example.test', primary: false, verified: true },
      ],
    })
    expect((await listed.upstream.exchangeCode(await authorize(listed.upstream))).claims).toMatchObject({
      email: 'public@example.test',
      emailVerified: true,
    })
    await listed.github.close()

    // GitHub failing (5xx) on /user/emails: retry later, as when /user fails; an answer that is no
    // list costs the verified mark, not the sign-in.
    const failing = await start({ user: { ...ADA, email: 'public@example.test' }, emailsStatus: 502 })
    expect(await refusal(failing.upstream.exchangeCode(await authorize(failing.upstream)))).toMatchObject({
      reason: 'unavailable',
    })
    await failing.github.close()
    const odd = await start({ user: { ...ADA, email: 'public@example.test' }, emails: { not: 'a list' } as never })
    expect((await odd.upstream.exchangeCode(await authorize(odd.upstream))).claims).toEqual({
      name: 'Ada Lovelace',
      login: 'ada',
      email: 'public@example.test',
    })
    await odd.github.close()

    const unverifiedPrimary = await start({ emails: [{ email: 'ada@example.test', primary: true, verified: false }] })
    expect((await unverifiedPrimary.upstream.exchangeCode(await authorize(unverifiedPrimary.upstream))).claims).toEqual({
      name: 'Ada Lovelace',
      login: 'ada',
    })
    await unverifiedPrimary.github.close()

    const app = await start({ emailsStatus: 403 })
    expect((await app.upstream.exchangeCode(await authorize(app.upstream))).claims).toEqual({
      name: 'Ada Lovelace',
      login: 'ada',
    })
  })

  it('refuses a code redeemed with another PKCE verifier (200 bad_verification_code → invalid_grant)', async () => {
    const { upstream } = await start()
    const callback = await authorize(upstream)
    const error = await refusal(upstream.exchangeCode({ ...callback, verifier: randomToken() }))
    expect(error).toMatchObject({ reason: 'invalid_grant', invalidGrant: true })
    expect(error.message).toContain('bad_verification_code')
  })

  it('refuses wrong client credentials and a callback naming another issuer', async () => {
    const { github, upstream } = await start()
    const wrong = githubProvider({
      clientId: github.clientId,
      clientSecret: 'wrong',
      webOrigin: github.webOrigin,
      apiOrigin: github.apiOrigin,
    })
    expect(await refusal(wrong.exchangeCode(await authorize(upstream)))).toMatchObject({
      reason: 'token_endpoint_error',
      invalidGrant: false,
    })
    expect(
      await refusal(upstream.exchangeCode({ ...(await authorize(upstream)), iss: 'https://idp.example.com' })),
    ).toMatchObject({
      reason: 'issuer_mismatch',
    })
  })

  it('refreshes GitHub App user tokens, and reports a spent refresh token as invalid_grant', async () => {
    const { upstream } = await start({ expiring: true })
    const { tokens } = await upstream.exchangeCode(await authorize(upstream))
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 28_000_000)
    const refreshed = await upstream.refresh(tokens.refreshToken as string)
    expect(refreshed.accessToken).not.toBe(tokens.accessToken)
    expect(refreshed.refreshToken).toMatch(/^ghr_/)
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken)
    expect(await refusal(upstream.refresh(tokens.refreshToken as string))).toMatchObject({
      reason: 'invalid_grant',
      invalidGrant: true,
    })
  })

  it('refuses origins that are neither https nor loopback http', () => {
    expect(() => githubProvider({ clientId: 'c', clientSecret: 's', webOrigin: 'http://github.example.com' })).toThrow(TypeError)
    expect(() => githubProvider({ clientId: 'c', clientSecret: 's', apiOrigin: 'http://api.github.example.com' })).toThrow(
      TypeError,
    )
  })
})
