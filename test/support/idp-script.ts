/**
 * A scripted OpenID Connect issuer for the attacks a real provider will not make: node:http on
 * 127.0.0.1 serving a discovery document and a JWKS of its own, and a token endpoint and a
 * userinfo endpoint that answer whatever the test set (ID tokens signed with any key, any
 * algorithm, any claims). It records every request, so a test can see what the client sent.
 */
import { createServer } from 'node:http'
import type { IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import type { CryptoKey, JWTPayload } from 'jose'

export interface ScriptedAnswer {
  status: number
  body: Record<string, unknown>
}

export interface SeenRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export interface ScriptedIdp {
  issuer: string
  clientId: string
  clientSecret: string
  /** The discovery document it serves; change it to script a misbehaving provider. */
  metadata: Record<string, unknown>
  /** What the token endpoint answers. */
  token: ScriptedAnswer
  /** What the userinfo endpoint answers. */
  userinfo: ScriptedAnswer
  requests: SeenRequest[]
  /** An ID token signed with the published key (RS256, kid `key-1`) unless told otherwise. */
  sign(claims: JWTPayload, options?: { key?: CryptoKey; alg?: string; kid?: string }): Promise<string>
  /** The claims of an ID token this issuer would rightly issue for `nonce`. */
  claims(nonce: string): JWTPayload
  /** The token endpoint's answer carrying `idToken` (and an access token, expiry, refresh token). */
  answerWith(idToken: string): void
  close(): Promise<void>
}

/** Start the scripted issuer; `issuerPath` gives a path-carrying issuer (`http://127.0.0.1:p/tenant`). */
export async function startScriptedIdp(issuerPath = ''): Promise<ScriptedIdp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' }
  const requests: SeenRequest[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      const path = new URL(request.url ?? '/', 'http://idp').pathname
      requests.push({ method: request.method ?? 'GET', path, headers: request.headers, body })
      const answer: ScriptedAnswer | undefined = {
        [`${issuerPath}/.well-known/openid-configuration`]: { status: 200, body: idp.metadata },
        '/jwks': { status: 200, body: { keys: [jwk] } },
        '/token': idp.token,
        '/userinfo': idp.userinfo,
      }[path]
      response.writeHead(answer?.status ?? 404, { 'content-type': 'application/json' })
      response.end(JSON.stringify(answer?.body ?? { error: 'not_found' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const issuer = `${origin}${issuerPath}`
  const idp: ScriptedIdp = {
    issuer,
    clientId: 'scripted-client',
    clientSecret: 'scripted-secret-scripted-secret-0123456789',
    metadata: {
      issuer,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      jwks_uri: `${origin}/jwks`,
      userinfo_endpoint: `${origin}/userinfo`,
      scopes_supported: ['openid', 'email', 'profile', 'offline_access'],
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    },
    token: { status: 500, body: { error: 'server_error' } },
    userinfo: { status: 404, body: { error: 'not_found' } },
    requests,
    async sign(claims, options = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? 'key-1', typ: 'JWT' })
        .sign(options.key ?? privateKey)
    },
    claims(nonce) {
      const now = Math.floor(Date.now() / 1000)
      return {
        iss: issuer,
        aud: idp.clientId,
        sub: 'user-1',
        iat: now,
        exp: now + 300,
        nonce,
        name: 'Ada Lovelace',
        email: 'ada@example.test',
        email_verified: true,
      }
    },
    answerWith(idToken) {
      idp.token = {
        status: 200,
        body: {
          access_token: 'scripted-access',
          token_type: 'Bearer',
          expires_in: 600,
          refresh_token: 'scripted-refresh',
          id_token: idToken,
        },
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  return idp
}
