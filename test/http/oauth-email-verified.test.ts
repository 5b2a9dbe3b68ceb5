/**
 * An email the identity provider did not verify never becomes the principal's: the demo in OAuth
 * mode (apps/demo/oauth under `wrangler dev`: the OAuth template's consent page, callback and
 * provider) with OIDC_ISSUER naming a scripted issuer on loopback (test/support/idp-script.ts),
 * which answers the code with an ID token it signs, carrying the address someone typed and
 * `email_verified: false` (some providers let people set any address). `whoami` then has the
 * provider's subject and name, and no email; the same sign-in with `email_verified: true` has the
 * email too. The person is played over plain HTTP with a cookie jar, as a browser would send it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomToken, s256 } from '../../packages/mcp-edge/src/oauth/index.ts'
import { startScriptedIdp } from '../support/idp-script.ts'
import type { ScriptedIdp } from '../support/idp-script.ts'
import { rpc } from '../support/mcp.ts'
import { REDIRECT_URI } from '../support/oauth-client.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer
let idp: ScriptedIdp
let origin: string

beforeAll(async () => {
  idp = await startScriptedIdp()
  worker = await startWrangler({
    config: 'apps/demo/oauth/wrangler.jsonc',
    vars: (port) => ({
      MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
    }),
  })
  origin = `http://127.0.0.1:${worker.port}`
}, 120_000)

afterAll(async () => {
  await Promise.all([worker?.stop(), idp?.close()])
})

/** A browser's cookies for this Worker: each response's Set-Cookie kept, sent back on the next request. */
class CookieJar {
  #cookies = new Map<string, string>()
  keep(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const at = pair.indexOf('=')
      this.#cookies.set(pair.slice(0, at), pair.slice(at + 1))
    }
    return response
  }
  get header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/**
 * A client registers and sends the person to consent; they allow it, the provider answers with an
 * ID token whose `email_verified` is `emailVerified`, and the client trades its code for our token.
 */
async function signInWith(emailVerified: boolean): Promise<string> {
  const registered = await fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'email test', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  })
  const { client_id } = (await registered.json()) as { client_id: string }
  const verifier = randomToken()
  const query = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: await s256(verifier),
    code_challenge_method: 'S256',
    scope: 'mcp',
    state: 'client-state',
    resource: `${origin}/mcp`,
  })
  const jar = new CookieJar()
  const page = jar.keep(await fetch(`${origin}/authorize?${query}`))
  const handle = /name="handle" value="([^"]+)"/.exec(await page.text())?.[1] ?? ''
  const approved = jar.keep(
    await fetch(`${origin}/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header, origin },
      body: new URLSearchParams({ handle, decision: 'approve', scope: 'mcp' }),
      redirect: 'manual',
    }),
  )
  // Sent on to the provider, with our state and nonce; it signs whatever this test says.
  const toProvider = new URL(approved.headers.get('location') ?? '')
  expect(`${toProvider.origin}${toProvider.pathname}`).toBe(`${new URL(idp.issuer).origin}/authorize`)
  const nonce = toProvider.searchParams.get('nonce') ?? ''
  idp.answerWith(await idp.sign({ ...idp.claims(nonce), email: 'boss@victim.example', email_verified: emailVerified }))
  const callback = new URLSearchParams({ code: randomToken(), state: toProvider.searchParams.get('state') ?? '' })
  const back = await fetch(`${origin}/oauth/callback?${callback}`, { headers: { cookie: jar.header }, redirect: 'manual' })
  const toClient = new URL(back.headers.get('location') ?? '')
  expect([`${toClient.origin}${toClient.pathname}`, toClient.searchParams.get('error')]).toEqual([REDIRECT_URI, null])
  const token = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: toClient.searchParams.get('code') ?? '',
      redirect_uri: REDIRECT_URI,
      client_id,
      code_verifier: verifier,
      resource: `${origin}/mcp`,
    }),
  })
  expect(token.status).toBe(200)
  return ((await token.json()) as { access_token: string }).access_token
}

async function whoami(token: string): Promise<unknown> {
  const answer = await rpc(
    fetch,
    worker.url,
    'tools/call',
    { name: 'whoami', arguments: {} },
    { headers: { authorization: `Bearer ${token}` } },
  )
  return answer.message.result?.structuredContent
}

describe('the principal’s email (an OpenID provider scripted on loopback)', () => {
  it('leaves out an email the provider’s signed ID token says is not verified', async () => {
    expect(await whoami(await signInWith(false))).toEqual({
      subject: 'user-1',
      name: 'Ada Lovelace',
      email: null,
      scopes: ['mcp'],
    })
  })

  it('carries an email the provider verified', async () => {
    expect(await whoami(await signInWith(true))).toEqual({
      subject: 'user-1',
      name: 'Ada Lovelace',
      email: 'boss@victim.example',
      scopes: ['mcp'],
    })
  })
})
