/**
 * A real OpenID Connect provider for tests: oidc-provider 9 (the certified Node implementation)
 * on a free 127.0.0.1 port, with a confidential client that signs people in (PKCE required),
 * refresh tokens, introspection and revocation. Its issuer is `http://localhost:<port>`, so its
 * cookies never mix with a Worker's on 127.0.0.1. Any login signs in (oidc-provider's development interactions):
 * the login becomes the subject, the name is `User <login>` and the email `<login>@example.test`
 * (verified); name and email are served at userinfo only, not in the ID token.
 *
 * `signInAt` plays the person at the browser over plain HTTP with a cookie jar: authorize, the
 * login form, the consent form, and the redirect back, whose URL it returns unvisited.
 * `issueTokens` goes on to the token endpoint: opaque access tokens bound to one resource (RFC
 * 8707), as a resource server behind introspection receives them. A second confidential client,
 * `resourceClient`, is the resource server's own: it introspects, and it may exchange tokens when
 * the test registers an RFC 8693 grant handler (oidc-provider has none built in; that handler is
 * test code), or the sign-in client may when the handler issues ID-JAGs (test/support/id-jag.ts).
 * With `tls` it serves https and its issuer is `https://localhost:<port>`.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import type { CryptoKey } from 'jose'
import Provider from 'oidc-provider'
import type { GrantHandler } from 'oidc-provider'

type Client = { clientId: string }

/** RFC 8693 §2.1's grant type. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange'
const TOKEN_EXCHANGE_PARAMS = ['subject_token', 'subject_token_type', 'audience', 'resource', 'requested_token_type', 'scope']

/** A key the provider signs with and publishes at its jwks_uri. */
export interface SigningKey {
  kid: string
  alg: 'RS256' | 'ES256'
  privateKey: CryptoKey
  publicKey: CryptoKey
}

/** A fresh extractable key pair. */
export async function signingKey(kid: string, alg: SigningKey['alg'] = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  return { kid, alg, privateKey, publicKey }
}

/** Who each login is (any login signs in): the subject, `User <login>`, `<login>@example.test`. */
export function accountClaims(id: string): Record<string, unknown> {
  return { sub: id, name: `User ${id}`, email: `${id}@example.test`, email_verified: true }
}

export interface OidcProviderOptions {
  /** Redirect URIs registered for the client (the callback of the server under test). */
  redirectUris: string[]
  /** Lifetime of access tokens (default 300 s). */
  accessTokenTtlSeconds?: number
  /** A token-exchange grant handler (test code), registered for `resourceClient` unless told otherwise. */
  tokenExchange?: GrantHandler
  /** Which client may use it: the resource server's (default), or the sign-in client. */
  tokenExchangeClient?: 'resource' | 'sign-in'
  /** Serve https with this key and certificate (test/support/tls.ts). */
  tls?: { key: string; cert: string }
  /** The keys it signs with and publishes, the first for ID tokens (default: one RS256 key, `test-key`). */
  keys?: SigningKey[]
}

export interface TestOidcProvider {
  issuer: string
  clientId: string
  clientSecret: string
  /** The resource server's client: introspection, and token exchange when a handler is registered. */
  resourceClient: { clientId: string; clientSecret: string }
  /** Its signing keys, as published at its jwks_uri. */
  keys: SigningKey[]
  provider: Provider
  /** How many requests reached `path` (`/token/introspection`) since the provider started. */
  requests(path: string): number
  close(): Promise<void>
}

export async function startOidcProvider(options: OidcProviderOptions): Promise<TestOidcProvider> {
  const server = options.tls ? createHttpsServer(options.tls) : createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `${options.tls ? 'https' : 'http'}://localhost:${(server.address() as AddressInfo).port}`
  const clientId = 'mcp-edge-test'
  const clientSecret = randomBytes(32).toString('base64url')
  const resourceClient = { clientId: 'mcp-edge-resource', clientSecret: randomBytes(32).toString('base64url') }
  const keys = options.keys ?? [await signingKey('test-key')]
  const exchangeBy = options.tokenExchangeClient ?? 'resource'
  const exchange = (client: 'resource' | 'sign-in') =>
    options.tokenExchange && exchangeBy === client ? [TOKEN_EXCHANGE_GRANT] : []
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code', 'refresh_token', ...exchange('sign-in')],
        response_types: ['code'],
      },
      {
        client_id: resourceClient.clientId,
        client_secret: resourceClient.clientSecret,
        redirect_uris: [],
        grant_types: exchange('resource'),
        response_types: [],
      },
    ],
    jwks: {
      keys: await Promise.all(
        keys.map(async ({ privateKey, kid, alg }) => ({ ...(await exportJWK(privateKey)), kid, alg, use: 'sig' })),
      ),
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      introspection: { enabled: true },
      // Only the client a token was issued to may revoke it (what the default does, said aloud).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx: unknown, client: Client, token: Client) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          audience: resource,
          scope: 'mcp',
          accessTokenFormat: 'opaque',
        }),
        useGrantedResource: () => true,
      },
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'offline_access', 'email', 'profile', 'mcp'],
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? 300,
      IdToken: 300,
      RefreshToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => accountClaims(id) }),
  })
  if (options.tokenExchange) provider.registerGrantType(TOKEN_EXCHANGE_GRANT, options.tokenExchange, TOKEN_EXCHANGE_PARAMS)
  const counts = new Map<string, number>()
  const serve = provider.callback()
  server.on('request', (request, response) => {
    const path = new URL(request.url ?? '/', issuer).pathname
    counts.set(path, (counts.get(path) ?? 0) + 1)
    serve(request, response)
  })
  return {
    issuer,
    clientId,
    clientSecret,
    resourceClient,
    keys,
    provider,
    requests: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Cookies by name, each sent where its Path covers the request (enough for one origin). */
class CookieJar {
  #cookies = new Map<string, { value: string; path: string }>()

  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim())
      const name = pair.slice(0, pair.indexOf('='))
      const value = pair.slice(pair.indexOf('=') + 1)
      const path = attributes.find((attribute) => /^path=/i.test(attribute))?.slice(5) ?? '/'
      const expired = attributes.some((attribute) => /^max-age=0$|^expires=thu, 01 jan 1970/i.test(attribute))
      if (expired || value === '') this.#cookies.delete(name)
      else this.#cookies.set(name, { value, path })
    }
  }

  header(url: URL): string {
    return [...this.#cookies]
      .filter(([, cookie]) => url.pathname.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ')
  }
}

/**
 * Sign in at the provider as `login` (any password) and consent, as a person in a browser would.
 * Returns the URL the provider redirects back to (`?code&state&iss`, or `?error`), unvisited.
 */
export async function signInAt(idp: TestOidcProvider, authorizationUrl: string, login: string): Promise<URL> {
  const jar = new CookieJar()
  let url = new URL(authorizationUrl)
  let form: URLSearchParams | undefined
  for (let step = 0; step < 12; step++) {
    const init: RequestInit = { redirect: 'manual', headers: { cookie: jar.header(url) } }
    if (form) Object.assign(init, { method: 'POST', body: form })
    const response = await fetch(url, init)
    jar.store(response)
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel()
      const next = new URL(location, url)
      if (next.origin !== new URL(idp.issuer).origin) return next
      url = next
      form = undefined
      continue
    }
    const page = await response.text()
    if (response.status !== 200) throw new Error(`${url.pathname}: HTTP ${response.status}: ${page}`)
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1]
    const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1]
    if (!action || !prompt) throw new Error(`${url.pathname}: no sign-in or consent form in the page: ${page}`)
    url = new URL(action.replace(/&amp;/g, '&'), url)
    form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any' } : { prompt })
  }
  throw new Error('the provider did not redirect back after sign-in and consent')
}

/** The provider's discovery document (for its revocation and userinfo endpoints). */
export async function metadataOf(idp: TestOidcProvider): Promise<Record<string, string>> {
  return (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json() as Promise<Record<string, string>>
}

/** RFC 7009 revocation at the provider, authenticated as the client. */
export async function revokeAt(idp: TestOidcProvider, token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
  const response = await fetch((await metadataOf(idp)).revocation_endpoint as string, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${idp.clientId}:${idp.clientSecret}`)}` },
    body: new URLSearchParams({ token, token_type_hint: hint }),
  })
  if (response.status !== 200) throw new Error(`revocation: HTTP ${response.status}`)
}

export interface IssuedTokens {
  accessToken: string
  refreshToken?: string
  /** The ID token (scope `openid` is always asked). */
  idToken?: string
  expiresIn: number
}

/**
 * Tokens for `login` from the whole code flow (PKCE, dev sign-in and consent), the access token
 * opaque and bound to `resource` when given (RFC 8707: `resource` at authorize and at the token
 * endpoint), and the ID token. `redirectUri` must be registered; it is never visited. With
 * `offline`, a refresh token too.
 */
export async function issueTokens(
  idp: TestOidcProvider,
  options: { login: string; resource?: string; redirectUri: string; offline?: boolean },
): Promise<IssuedTokens> {
  const metadata = await metadataOf(idp)
  const verifier = randomBytes(32).toString('base64url')
  const challenge = createHash('sha256').update(verifier).digest('base64url')
  const authorize = new URL(metadata.authorization_endpoint as string)
  const params = {
    response_type: 'code',
    client_id: idp.clientId,
    redirect_uri: options.redirectUri,
    scope: options.offline ? 'openid offline_access mcp' : 'openid mcp',
    ...(options.resource ? { resource: options.resource } : {}),
    state: randomBytes(16).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    // oidc-provider drops offline_access without a consent prompt.
    ...(options.offline ? { prompt: 'consent' } : {}),
  }
  for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value)
  const code = (await signInAt(idp, authorize.href, options.login)).searchParams.get('code')
  if (!code) throw new Error('the provider redirected back without a code')
  const response = await fetch(metadata.token_endpoint as string, {
    method: 'POST',
    headers: { authorization: `Basic ${btoa(`${idp.clientId}:${idp.clientSecret}`)}` },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: options.redirectUri,
      code_verifier: verifier,
      ...(options.resource ? { resource: options.resource } : {}),
    }),
  })
  const body = (await response.json()) as Record<string, unknown>
  if (response.status !== 200 || typeof body.access_token !== 'string') {
    throw new Error(`token endpoint: HTTP ${response.status} ${JSON.stringify(body.error)}`)
  }
  const tokens: IssuedTokens = { accessToken: body.access_token, expiresIn: body.expires_in as number }
  if (typeof body.refresh_token === 'string') tokens.refreshToken = body.refresh_token
  if (typeof body.id_token === 'string') tokens.idToken = body.id_token
  return tokens
}
