/**
 * An enterprise identity provider that issues ID-JAGs, for the Enterprise-Managed Authorization
 * tests: oidc-provider 9 (test/support/oidc-provider.ts) over https on loopback, with a
 * token-exchange grant WE registered (oidc-provider has no RFC 8693 or ID-JAG support of its
 * own), written the way Okta and others issue them (MCP Enterprise-Managed Authorization §4,
 * draft-ietf-oauth-identity-assertion-authz-grant §4.3). The signed-in client sends the user's
 * ID token (subject_token_type id_token) and asks for `requested_token_type` id-jag, an
 * `audience` (the MCP authorization server's issuer) and a `resource` (the MCP server); the
 * provider checks the ID token (its own signature, issued to this client, unexpired), its policy
 * (this client may reach that audience, for that resource only, as that client id there, with
 * those scopes: `allow`), and answers with a JWT signed with the first key it publishes: typ
 * `oauth-id-jag+jwt`, claims iss, sub, aud, client_id, jti, exp (300 s), iat, resource, scope,
 * email. `sign` makes what this IdP would never issue (expired, ES256, another issuer) with its
 * own keys, for the refusal tests.
 */
import { randomUUID } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'
import type { CryptoKey, JWTPayload } from 'jose'
import type { GrantContext } from 'oidc-provider'
import { accountClaims, issueTokens, metadataOf, signingKey, startOidcProvider } from './oidc-provider.ts'
import type { SigningKey, TestOidcProvider } from './oidc-provider.ts'
import type { TestCertificate } from './tls.ts'

export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token'
export const ID_JAG_TYPE = 'urn:ietf:params:oauth:token-type:id-jag'
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const ID_JAG_LIFETIME_S = 300

/** What the IdP's administrator allowed one of its clients at one authorization server. */
export interface IdJagPolicy {
  /** The MCP server (RFC 9728 resource) paired with that authorization server. */
  resource: string
  /** The client's id at that authorization server, put in the ID-JAG's `client_id`. */
  clientId: string
  scopes: string[]
}

export interface EnterpriseIdp extends TestOidcProvider {
  /** Let the sign-in client get ID-JAGs for `audience` (an authorization server's issuer). */
  allow(audience: string, policy: IdJagPolicy): void
  /** An ID token for `login`, from the code flow with oidc-provider's own login and consent pages. */
  idTokenOf(login: string): Promise<string>
  /** The signed-in client's token exchange: the raw answer (status and JSON body). */
  exchange(params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }>
  /** An ID-JAG for `login` at `audience` (sign-in, then the exchange); throws if refused. */
  idJagFor(login: string, audience: string, resource: string): Promise<string>
  /** A JWT signed with one of this IdP's keys (or `key`), header typ `oauth-id-jag+jwt`. */
  sign(claims: JWTPayload, options?: { alg?: SigningKey['alg']; key?: CryptoKey; kid?: string }): Promise<string>
}

/** The token-exchange grant that issues ID-JAGs: the subject token, the policy, the JWT. */
function idJagGrant(policies: Map<string, IdJagPolicy>, keys: () => SigningKey[]) {
  return async (ctx: GrantContext): Promise<void> => {
    const { params, client, provider } = ctx.oidc
    const refuse = (error: string, description: string) => {
      ctx.status = 400
      ctx.body = { error, error_description: description }
    }
    if (params.requested_token_type !== ID_JAG_TYPE) return refuse('invalid_request', 'only ID-JAGs are issued here')
    if (params.subject_token_type !== ID_TOKEN_TYPE) return refuse('invalid_request', 'the subject token is an ID token')
    const [key] = keys() as [SigningKey]
    let subject: string
    try {
      // Our own ID token, issued to the client asking, still valid.
      const { payload } = await jwtVerify(params.subject_token ?? '', key.publicKey, {
        issuer: provider.issuer,
        audience: client.clientId,
        algorithms: [key.alg],
      })
      subject = payload.sub as string
    } catch {
      return refuse('invalid_grant', 'the ID token is not valid')
    }
    // The (audience, resource) pair must be one the administrator allowed this client (EMA §7.6.1).
    const policy = policies.get(`${client.clientId} ${params.audience}`)
    if (!policy || (params.resource !== undefined && params.resource !== policy.resource)) {
      return refuse('invalid_target', 'this client may not reach that audience and resource')
    }
    const asked = params.scope ? params.scope.split(' ') : policy.scopes
    const scope = asked.filter((name) => policy.scopes.includes(name)).join(' ')
    if (!scope) return refuse('invalid_scope', 'none of those scopes is allowed')
    const { email } = accountClaims(subject)
    const now = Math.floor(Date.now() / 1000)
    const idJag = await new SignJWT({ client_id: policy.clientId, resource: policy.resource, scope, email })
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-id-jag+jwt' })
      .setIssuer(provider.issuer)
      .setSubject(subject)
      .setAudience(params.audience as string)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + ID_JAG_LIFETIME_S)
      .sign(key.privateKey)
    ctx.body = { issued_token_type: ID_JAG_TYPE, access_token: idJag, token_type: 'N_A', expires_in: ID_JAG_LIFETIME_S, scope }
  }
}

/**
 * @example
 * const idp = await startEnterpriseIdp(certificate, REDIRECT_URI)
 * idp.allow('http://127.0.0.1:8787', { resource: 'http://127.0.0.1:8787/mcp', clientId, scopes: ['mcp'] })
 * const idJag = await idp.idJagFor('ada', 'http://127.0.0.1:8787', 'http://127.0.0.1:8787/mcp')
 */
export async function startEnterpriseIdp(certificate: TestCertificate, redirectUri: string): Promise<EnterpriseIdp> {
  const policies = new Map<string, IdJagPolicy>()
  // Both keys are published; ID tokens and ID-JAGs are RS256 (the first).
  const keys = [await signingKey('rsa-key'), await signingKey('ec-key', 'ES256')]
  const idp = await startOidcProvider({
    redirectUris: [redirectUri],
    tls: certificate,
    keys,
    tokenExchange: idJagGrant(policies, () => keys),
    tokenExchangeClient: 'sign-in',
  })
  const tokenEndpoint = (await metadataOf(idp)).token_endpoint as string
  const exchange = async (params: Record<string, string>) => {
    const response = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${idp.clientId}:${idp.clientSecret}`)}` },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', ...params }),
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const idTokenOf = async (login: string) => {
    const { idToken } = await issueTokens(idp, { login, redirectUri })
    if (!idToken) throw new Error('the IdP issued no ID token')
    return idToken
  }
  return {
    ...idp,
    allow: (audience, policy) => policies.set(`${idp.clientId} ${audience}`, policy),
    idTokenOf,
    exchange,
    async idJagFor(login, audience, resource) {
      const { status, body } = await exchange({
        requested_token_type: ID_JAG_TYPE,
        subject_token: await idTokenOf(login),
        subject_token_type: ID_TOKEN_TYPE,
        audience,
        resource,
      })
      if (status !== 200 || typeof body.access_token !== 'string') throw new Error(`ID-JAG refused: ${JSON.stringify(body)}`)
      return body.access_token
    },
    async sign(claims, options = {}) {
      const key = keys.find((candidate) => candidate.alg === (options.alg ?? 'RS256')) as SigningKey
      return new SignJWT(claims)
        .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'oauth-id-jag+jwt' })
        .sign(options.key ?? key.privateKey)
    },
  }
}
