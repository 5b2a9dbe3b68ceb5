/**
 * Enterprise-Managed Authorization (ID-JAG, experimental) end to end, against the OAuth template
 * itself (templates/oauth under `wrangler dev`) with EMA_ISSUER and EMA_JWKS_URI naming a real
 * enterprise IdP on loopback: oidc-provider 9.13.3 with a token-exchange grant we registered that
 * issues ID-JAGs (test/support/id-jag.ts), served over https with a self-signed certificate made
 * at test time. The Worker fetches the IdP's JWKS itself, over TLS it verifies: workerd trusts
 * that one certificate because wrangler runs with NODE_EXTRA_CA_CERTS (test/support/tls.ts), and
 * a server with another certificate is refused below. No mock of the IdP, its JWKS or our
 * authorization server.
 *
 * The flow: a client registers with our authorization server (RFC 7591, with a secret), the user
 * signs in at the IdP (its own login and consent pages), the client exchanges the ID token there
 * for an ID-JAG, posts it to /oauth/token (jwt-bearer), and `tools/call whoami` answers with the
 * enterprise subject. Then the refusals, each with its OAuth error and HTTP status, the reason the
 * Worker logs (the wire says only invalid_grant), and no new grant in KV: a replayed ID-JAG,
 * another audience, expired, an untrusted issuer, another key, an algorithm not allowed, another
 * client, a public client, scopes this server does not offer, the JWKS unreachable (nothing
 * listening, an untrusted certificate, 503), a client's metadata document (CIMD) over the same
 * https, and last the same Worker without EMA (unsupported_grant_type; its EMA tokens refused).
 * What the IdP would never issue (expired, ES256, another key) the test signs with its keys.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import {
  Client as McpClientV2,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ID_JAG_TYPE, ID_TOKEN_TYPE, JWT_BEARER_GRANT, startEnterpriseIdp } from '../support/id-jag.ts'
import type { EnterpriseIdp } from '../support/id-jag.ts'
import { postWithHost } from '../support/host-header.ts'
import { rpc } from '../support/mcp.ts'
import { REDIRECT_URI } from '../support/oauth-client.ts'
import { metadataOf } from '../support/oidc-provider.ts'
import { selfSignedCertificate, startHttps, trustedBy, trustInThisProcess } from '../support/tls.ts'
import type { HttpsServer, TestCertificate } from '../support/tls.ts'
import { freePort, kvKeys, startAll, startWrangler } from '../support/wrangler.ts'
import type { WranglerServer } from '../support/wrangler.ts'

const CONFIG = 'templates/oauth/wrangler.jsonc'
const ID_JAG_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag'

type Client = { client_id: string; client_secret?: string }

let certificate: TestCertificate
let restoreTrust: () => void
let idp: EnterpriseIdp
/** Another enterprise's IdP, which this server does not trust. */
let rogue: EnterpriseIdp
/** EMA on, trusting `idp` at its own jwks_uri. */
let worker: WranglerServer
/** EMA on, with the JWKS URL at `jwksPort`, which the test opens and closes. */
let gated: WranglerServer
/** EMA on, trusting `idp` for ES256 ID-JAGs only (EMA_ALGORITHMS). */
let es256: WranglerServer
let jwksPort: number
let client: Client
/** The grants the Worker's KV holds after the last one made on purpose. */
let known: string[]
const opened: HttpsServer[] = []

const originOf = (server: WranglerServer) => `http://127.0.0.1:${server.port}`
const resourceOf = (server: WranglerServer) => `${originOf(server)}/mcp`

beforeAll(async () => {
  certificate = selfSignedCertificate()
  restoreTrust = trustInThisProcess(certificate)
  ;[idp, rogue] = await Promise.all([
    startEnterpriseIdp(certificate, REDIRECT_URI),
    startEnterpriseIdp(certificate, REDIRECT_URI),
  ])
  jwksPort = await freePort() // nothing listens there yet
  const ema = (jwksUri: string, algorithms?: string) => (port: number) => ({
    MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
    EMA_ISSUER: idp.issuer,
    EMA_JWKS_URI: jwksUri,
    ...(algorithms ? { EMA_ALGORITHMS: algorithms } : {}),
  })
  const common = { config: CONFIG, logLevel: 'log', env: trustedBy(certificate) } as const
  const jwks = (await metadataOf(idp)).jwks_uri as string
  ;[worker, gated, es256] = (await startAll([
    { ...common, vars: ema(jwks) },
    { ...common, vars: ema(`https://localhost:${jwksPort}/jwks`) },
    { ...common, vars: ema(jwks, 'ES256') },
  ])) as [WranglerServer, WranglerServer, WranglerServer]
}, 120_000)

afterAll(async () => {
  await Promise.all([
    worker?.stop(),
    gated?.stop(),
    es256?.stop(),
    idp?.close(),
    rogue?.close(),
    ...opened.map((server) => server.close()),
  ])
  restoreTrust?.()
})

/** Dynamic registration of a confidential client (client_secret_basic) that may use jwt-bearer. */
async function register(server: WranglerServer, name: string, method = 'client_secret_basic'): Promise<Client> {
  const response = await fetch(`${originOf(server)}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', JWT_BEARER_GRANT],
      token_endpoint_auth_method: method,
    }),
  })
  expect(response.status).toBe(201)
  return (await response.json()) as Client
}

/** The ID-JAG at our token endpoint (RFC 7523), authenticated as `as` (client_id alone for a public client). */
function redeem(server: WranglerServer, assertion: string, as: Client, extra: Record<string, string> = {}) {
  const secret = as.client_secret
  return fetch(`${originOf(server)}/oauth/token`, {
    method: 'POST',
    headers: secret ? { authorization: `Basic ${btoa(`${as.client_id}:${secret}`)}` } : {},
    body: new URLSearchParams({
      grant_type: JWT_BEARER_GRANT,
      assertion,
      ...(secret ? {} : { client_id: as.client_id }),
      ...extra,
    }),
  })
}

/** The grant keys in a Worker's KV (`grant:<userId>:<id>`), read as wrangler reads local state. */
function grants(server: WranglerServer, prefix = 'grant:'): string[] {
  return kvKeys(server, prefix)
}

/** The reasons the Worker logged for refused ID-JAGs (src/enterprise.ts), oldest first. */
function reasons(server: WranglerServer): string[] {
  return [...readFileSync(server.logFile, 'utf8').matchAll(/"msg":"ID-JAG refused","reason":"(\w+)"/g)].map(
    (match) => match[1] as string,
  )
}

/** `request()` is answered with the `wire` status and error, the Worker logged `reason`, and KV holds no new grant. */
async function expectRefused(
  request: () => Promise<Response>,
  wire: [number, string],
  reason: string,
  server = worker,
  stored = server === worker ? known : [],
) {
  const logged = reasons(server).length
  const response = await request()
  const body = (await response.json()) as { error: string }
  expect([response.status, body.error]).toEqual(wire)
  await expect.poll(() => reasons(server).slice(logged), { timeout: 5000 }).toEqual([reason])
  expect(grants(server)).toEqual(stored)
}

/** Claims of an ID-JAG `idp` would issue for `sub` to `client` at `server`, alive for five minutes. */
function claimsFor(sub: string, as: Client = client, lifetime: [number, number] = [0, 300], server = worker) {
  const now = Math.floor(Date.now() / 1000)
  return {
    iss: idp.issuer,
    sub,
    aud: originOf(server),
    client_id: as.client_id,
    resource: resourceOf(server),
    scope: 'mcp',
    jti: randomUUID(),
    iat: now + lifetime[0],
    exp: now + lifetime[1],
  }
}

async function whoami(server: WranglerServer, token: string) {
  const answer = await rpc(
    fetch,
    server.url,
    'tools/call',
    { name: 'whoami', arguments: {} },
    { headers: { authorization: `Bearer ${token}` } },
  )
  return {
    status: answer.status,
    challenge: answer.headers.get('www-authenticate'),
    structuredContent: answer.message.result?.structuredContent,
  }
}

/** A JSON answer that also closes the connection, so no pooled TLS connection outlives a certificate. */
function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' })
  response.end(JSON.stringify(body))
}

let ada: { idJag: string; token: string }

describe('Enterprise-Managed Authorization: oidc-provider with our ID-JAG token-exchange grant, the template under wrangler dev', () => {
  it('advertises the jwt-bearer grant and the ID-JAG grant profile (RFC 8414 metadata)', async () => {
    const metadata = (await (await fetch(`${originOf(worker)}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >
    expect(metadata.grant_types_supported).toContain(JWT_BEARER_GRANT)
    expect(metadata.authorization_grant_profiles_supported).toEqual([ID_JAG_PROFILE])
  })

  it('signs the user in at the IdP, gets an ID-JAG for this server there, trades it for a token, and calls whoami as the enterprise subject', async () => {
    client = await register(worker, 'enterprise agent')
    const origin = originOf(worker)
    idp.allow(origin, { resource: resourceOf(worker), clientId: client.client_id, scopes: ['mcp', 'admin'] })
    const idToken = await idp.idTokenOf('ada')
    const exchanged = await idp.exchange({
      requested_token_type: ID_JAG_TYPE,
      subject_token: idToken,
      subject_token_type: ID_TOKEN_TYPE,
      audience: origin,
      resource: resourceOf(worker),
      scope: 'mcp',
    })
    expect(exchanged.status).toBe(200)
    expect(exchanged.body).toMatchObject({ issued_token_type: ID_JAG_TYPE, token_type: 'N_A', expires_in: 300, scope: 'mcp' })
    const idJag = exchanged.body.access_token as string
    expect(decodeProtectedHeader(idJag)).toEqual({ alg: 'RS256', kid: 'rsa-key', typ: 'oauth-id-jag+jwt' })
    const claims = decodeJwt(idJag)
    expect(claims).toMatchObject({
      iss: idp.issuer,
      sub: 'ada',
      aud: origin,
      client_id: client.client_id,
      resource: resourceOf(worker),
      scope: 'mcp',
      email: 'ada@example.test',
      jti: expect.any(String),
    })
    expect((claims.exp as number) - (claims.iat as number)).toBe(300)

    const response = await redeem(worker, idJag, client)
    expect(response.status).toBe(200)
    const issued = (await response.json()) as Record<string, unknown>
    expect(issued).toMatchObject({ token_type: 'bearer', scope: 'mcp', resource: resourceOf(worker) })
    expect(issued.refresh_token).toBeUndefined() // the library issues none for this grant
    const token = issued.access_token as string
    expect(await whoami(worker, token)).toEqual({
      status: 200,
      challenge: null,
      structuredContent: { subject: `${idp.issuer}#ada`, name: null, email: 'ada@example.test', scopes: ['mcp'] },
    })
    // One grant, under the enterprise principal (user id encoded: the library's token format forbids ":").
    expect(grants(worker, `grant:${encodeURIComponent(`${idp.issuer}#ada`)}:`)).toHaveLength(1)
    known = grants(worker)
    expect(known).toHaveLength(1)
    ada = { idJag, token }
  })

  it("the official MCP client's Cross-App Access at its defaults: it gets the ID-JAG from the IdP and our token by itself, then calls whoami", async () => {
    const idToken = await idp.idTokenOf('ada')
    const authProvider = new CrossAppAccessProvider({
      assertion: async (context) =>
        (
          await discoverAndRequestJwtAuthGrant({
            idpUrl: idp.issuer,
            audience: context.authorizationServerUrl,
            resource: context.resourceUrl,
            idToken,
            clientId: idp.clientId,
            clientSecret: idp.clientSecret,
            scope: context.scope,
            fetchFn: context.fetchFn,
          })
        ).jwtAuthGrant,
      clientId: client.client_id,
      clientSecret: client.client_secret as string,
      expectedIssuer: originOf(worker),
    })
    const mcpClient = new McpClientV2({ name: 'enterprise-agent', version: '1.0.0' })
    await mcpClient.connect(new StreamableHTTPClientTransport(new URL(resourceOf(worker)), { authProvider }))
    try {
      const answer = await mcpClient.callTool({ name: 'whoami', arguments: {} })
      expect(answer.structuredContent).toMatchObject({ subject: `${idp.issuer}#ada`, email: 'ada@example.test' })
    } finally {
      await mcpClient.close()
    }
    known = grants(worker)
  })

  it('grants only the scopes this server offers, of those the ID-JAG carries', async () => {
    const idJag = await idp.idJagFor('eve', originOf(worker), resourceOf(worker)) // scope "mcp admin"
    expect(decodeJwt(idJag).scope).toBe('mcp admin')
    const response = await redeem(worker, idJag, client, { scope: 'mcp admin' })
    const issued = (await response.json()) as { scope: string; access_token: string }
    expect([response.status, issued.scope]).toEqual([200, 'mcp'])
    expect((await whoami(worker, issued.access_token)).structuredContent?.scopes).toEqual(['mcp'])
    known = grants(worker)
    expect(known).toHaveLength(3) // ada twice (by hand, then through the official client), and eve
  })

  it('refuses the same ID-JAG twice (400 invalid_grant: replayed)', async () => {
    await expectRefused(() => redeem(worker, ada.idJag, client), [400, 'invalid_grant'], 'replayed')
  })

  it('refuses an ID-JAG the IdP issued for another authorization server (400 invalid_grant: aud_mismatch)', async () => {
    idp.allow('https://other-as.example', { resource: 'https://other.example/mcp', clientId: client.client_id, scopes: ['mcp'] })
    const idJag = await idp.idJagFor('bea', 'https://other-as.example', 'https://other.example/mcp')
    await expectRefused(() => redeem(worker, idJag, client), [400, 'invalid_grant'], 'aud_mismatch')
  })

  it('refuses an expired ID-JAG (400 invalid_grant: expired)', async () => {
    const idJag = await idp.sign(claimsFor('cy', client, [-600, -300]))
    await expectRefused(() => redeem(worker, idJag, client), [400, 'invalid_grant'], 'expired')
  })

  it('refuses an ID-JAG from an IdP it does not trust (400 invalid_grant: issuer_not_trusted)', async () => {
    rogue.allow(originOf(worker), { resource: resourceOf(worker), clientId: client.client_id, scopes: ['mcp'] })
    const idJag = await rogue.idJagFor('dan', originOf(worker), resourceOf(worker))
    await expectRefused(() => redeem(worker, idJag, client), [400, 'invalid_grant'], 'issuer_not_trusted')
  })

  it('refuses an ID-JAG in the IdP’s name signed with another key under its key id (400 invalid_grant: signature_failed)', async () => {
    const forged = await idp.sign(claimsFor('ada'), { key: rogue.keys[0]?.privateKey })
    expect(decodeProtectedHeader(forged).kid).toBe('rsa-key')
    await expectRefused(() => redeem(worker, forged, client), [400, 'invalid_grant'], 'signature_failed')
  })

  it('refuses an ID-JAG signed ES256 with the IdP’s own published key while EMA_ALGORITHMS allows RS256 only (400 invalid_grant: invalid_alg)', async () => {
    const idJag = await idp.sign(claimsFor('fred'), { alg: 'ES256' })
    expect(decodeProtectedHeader(idJag)).toMatchObject({ alg: 'ES256', kid: 'ec-key' })
    await expectRefused(() => redeem(worker, idJag, client), [400, 'invalid_grant'], 'invalid_alg')
  })

  it("wants MCP_PUBLIC_URL's origin as the ID-JAG's audience, whichever host the token request came in on", async () => {
    const viaLocalhost = async (assertion: string) => {
      const answer = await postWithHost(
        `${originOf(worker)}/oauth/token`,
        `localhost:${worker.port}`,
        new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
        {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
        },
      )
      return { status: answer.status, body: JSON.parse(answer.body) as { error?: string } }
    }
    const ours = await viaLocalhost(await idp.sign(claimsFor('ida')))
    expect(ours.status).toBe(200)
    known = grants(worker)
    const theHosts = { ...claimsFor('ida'), aud: `http://localhost:${worker.port}` }
    await expectRefused(
      async () => {
        const { status, body } = await viaLocalhost(await idp.sign(theHosts))
        return Response.json(body, { status })
      },
      [400, 'invalid_grant'],
      'aud_mismatch',
    )
  })

  it('takes ES256 ID-JAGs, and only those, where EMA_ALGORITHMS says ES256', async () => {
    const agent = await register(es256, 'es256 agent')
    const es = await idp.sign(claimsFor('fred', agent, [0, 300], es256), { alg: 'ES256' })
    const response = await redeem(es256, es, agent)
    expect(response.status).toBe(200)
    const { access_token } = (await response.json()) as { access_token: string }
    expect((await whoami(es256, access_token)).structuredContent?.subject).toBe(`${idp.issuer}#fred`)
    const rs = await idp.sign(claimsFor('fred', agent, [0, 300], es256))
    expect(decodeProtectedHeader(rs).alg).toBe('RS256')
    await expectRefused(() => redeem(es256, rs, agent), [400, 'invalid_grant'], 'invalid_alg', es256, grants(es256))
  })

  it('grants the baseline scope to an ID-JAG and a request that name none', async () => {
    const { scope: _none, ...claims } = claimsFor('hugo')
    const response = await redeem(worker, await idp.sign(claims), client)
    const issued = (await response.json()) as { scope: string; access_token: string }
    expect([response.status, issued.scope]).toEqual([200, 'mcp'])
    expect((await whoami(worker, issued.access_token)).structuredContent?.scopes).toEqual(['mcp'])
    known = grants(worker)
  })

  it('refuses an ID-JAG issued to another client than the one authenticating (400 invalid_grant: client_id_mismatch)', async () => {
    const other = await register(worker, 'another agent')
    const idJag = await idp.idJagFor('gus', originOf(worker), resourceOf(worker)) // its client_id: `client`
    await expectRefused(() => redeem(worker, idJag, other), [400, 'invalid_grant'], 'client_id_mismatch')
  })

  it('logs the other OAuth errors too while EMA is on (a wrong client secret: 401 invalid_client)', async () => {
    const logged = () => readFileSync(worker.logFile, 'utf8').match(/"msg":"OAuth error response"[^\n]*/g) ?? []
    const before = logged().length
    const response = await redeem(worker, ada.idJag, { ...client, client_secret: 'not-the-secret' })
    expect([response.status, ((await response.json()) as { error: string }).error]).toEqual([401, 'invalid_client'])
    await expect
      .poll(() => logged().slice(before), { timeout: 5000 })
      .toEqual([expect.stringMatching(/"status":401,"error":"invalid_client"/)])
    expect(logged().join()).not.toContain('not-the-secret')
  })

  it('refuses a public client (401 invalid_client: the grant needs client authentication)', async () => {
    const open = await register(worker, 'public agent', 'none')
    idp.allow(originOf(worker), { resource: resourceOf(worker), clientId: open.client_id, scopes: ['mcp'] })
    const idJag = await idp.idJagFor('hal', originOf(worker), resourceOf(worker))
    idp.allow(originOf(worker), { resource: resourceOf(worker), clientId: client.client_id, scopes: ['mcp', 'admin'] })
    await expectRefused(() => redeem(worker, idJag, open), [401, 'invalid_client'], 'client_authentication_required')
  })

  it('refuses an ID-JAG whose scopes this server does not offer (400 invalid_grant: the claim mapper denies)', async () => {
    const { body } = await idp.exchange({
      requested_token_type: ID_JAG_TYPE,
      subject_token: await idp.idTokenOf('ivy'),
      subject_token_type: ID_TOKEN_TYPE,
      audience: originOf(worker),
      resource: resourceOf(worker),
      scope: 'admin',
    })
    expect(decodeJwt(body.access_token as string).scope).toBe('admin')
    await expectRefused(() => redeem(worker, body.access_token as string, client), [400, 'invalid_grant'], 'mapper_denied')
  })

  it('fails closed while the JWKS cannot be had (nothing listening, a certificate it does not trust, 503): 400 invalid_grant, jwks_fetch_failed; served once it answers', async () => {
    const gateClient = await register(gated, 'gated agent')
    idp.allow(originOf(gated), { resource: resourceOf(gated), clientId: gateClient.client_id, scopes: ['mcp'] })
    const idJag = await idp.idJagFor('joe', originOf(gated), resourceOf(gated))
    const keys = await (await fetch((await metadataOf(idp)).jwks_uri as string)).json()
    const attempt = () => redeem(gated, idJag, gateClient)
    await expectRefused(attempt, [400, 'invalid_grant'], 'jwks_fetch_failed', gated) // nothing listens
    // The IdP's own keys, behind a certificate workerd was not told to trust.
    const untrusted = await startHttps(selfSignedCertificate(), (_request, response) => json(response, 200, keys), jwksPort)
    await expectRefused(attempt, [400, 'invalid_grant'], 'jwks_fetch_failed', gated)
    await untrusted.close()
    let down = true
    const jwks = await startHttps(
      certificate,
      (_request, response) => (down ? json(response, 503, { error: 'unavailable' }) : json(response, 200, keys)),
      jwksPort,
    )
    opened.push(jwks)
    await expectRefused(attempt, [400, 'invalid_grant'], 'jwks_fetch_failed', gated)
    down = false
    const response = await attempt()
    expect(response.status).toBe(200)
    const { access_token } = (await response.json()) as { access_token: string }
    expect((await whoami(gated, access_token)).structuredContent?.subject).toBe(`${idp.issuer}#joe`)
    expect(grants(gated)).toHaveLength(1)
  })

  it('takes a client by its metadata document at an https URL (CIMD) over the same trust: consent names it; another redirect URI, or an untrusted certificate, is refused', async () => {
    const documents = new Map<string, Record<string, unknown>>()
    const serve = (request: { url?: string }, response: ServerResponse) => {
      const document = documents.get(request.url ?? '')
      return document ? json(response, 200, document) : json(response, 404, {})
    }
    const [site, untrusted] = await Promise.all([startHttps(certificate, serve), startHttps(selfSignedCertificate(), serve)])
    opened.push(site, untrusted)
    const document = (origin: string) => ({
      client_id: `${origin}/client.json`,
      client_name: 'Acme Notes',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    })
    documents.set('/client.json', document(site.origin))
    const authorize = (clientId: string, redirectUri: string) => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 'xyz',
      })
      return fetch(`${originOf(worker)}/authorize?${query}`, { redirect: 'manual' })
    }
    const page = await authorize(`${site.origin}/client.json`, REDIRECT_URI)
    const html = await page.text()
    expect(page.status).toBe(200)
    expect(html).toContain('<h1>Allow Acme Notes to use this MCP server as you?</h1>')
    expect(html).toContain('Published by <strong>localhost</strong>.')
    const elsewhere = await authorize(`${site.origin}/client.json`, 'https://evil.example/callback')
    expect([elsewhere.status, elsewhere.headers.get('location')]).toEqual([400, null])
    documents.set('/client.json', document(untrusted.origin)) // both servers serve their own document
    const unverified = await authorize(`${untrusted.origin}/client.json`, REDIRECT_URI)
    expect(unverified.status).toBe(400)
    expect(await unverified.text()).toContain('<p role="alert">This app could not be verified.</p>')
  })
})

describe('the same Worker and KV trusting another IdP, then with EMA turned off', () => {
  it("refuses the tokens the first IdP's ID-JAGs made once EMA trusts another (401 invalid_token: sign in again)", async () => {
    const { port, persistTo } = worker
    await worker.stop()
    const vars = {
      MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
      EMA_ISSUER: rogue.issuer,
      EMA_JWKS_URI: (await metadataOf(rogue)).jwks_uri as string,
    }
    worker = await startWrangler({ config: CONFIG, port, persistTo, vars, env: trustedBy(certificate) })
    const answer = await whoami(worker, ada.token)
    expect([answer.status, answer.challenge]).toEqual([401, expect.stringContaining('error_description="Sign in again"')])
  }, 150_000) // restarts the Worker inside the test: startWrangler allows 90 s

  it('offers no jwt-bearer grant (400 unsupported_grant_type), and refuses the tokens EMA made (401 invalid_token)', async () => {
    const idJag = await idp.idJagFor('kai', originOf(worker), resourceOf(worker))
    const { port, persistTo } = worker
    await worker.stop()
    worker = await startWrangler({ config: CONFIG, port, persistTo, vars: { MCP_PUBLIC_URL: `http://127.0.0.1:${port}` } })
    const metadata = (await (await fetch(`${originOf(worker)}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >
    expect(metadata.grant_types_supported).not.toContain(JWT_BEARER_GRANT)
    expect(metadata.authorization_grant_profiles_supported).toBeUndefined()
    const refused = await redeem(worker, idJag, client)
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([400, 'unsupported_grant_type'])
    // Logged as every OAuth error is, with EMA off too.
    await expect
      .poll(() => readFileSync(worker.logFile, 'utf8'), { timeout: 5000 })
      .toMatch(/"msg":"OAuth error response"[^\n]*"status":400,"error":"unsupported_grant_type"/)
    const answer = await whoami(worker, ada.token)
    expect([answer.status, answer.challenge]).toEqual([401, expect.stringContaining('error_description="Sign in again"')])
    expect(grants(worker)).toEqual(known)
  }, 150_000) // restarts the Worker inside the test: startWrangler allows 90 s
})
