/**
 * Who the playground is, to the server: a bearer token (typed in, or obtained by signing in),
 * kept in sessionStorage for this tab. Signing in is the OAuth 2.1 flow an MCP client runs
 * (authorization spec): from a 401's `resource_metadata`, read the RFC 9728 document, discover
 * its authorization server (RFC 8414), register this page as a public client (RFC 7591), send the
 * browser to `/authorize` with PKCE S256, `state` and the `resource` (RFC 8707), and when the
 * consent page sends it back, check the response and exchange the code. The protocol steps are
 * oauth4webapi's; `allowInsecureRequests` lets it speak plain http to a loopback dev server only.
 */
import * as oauth from 'oauth4webapi'

const KEY = 'mcp-edge-playground'
const store = {
  get: (name: string) => sessionStorage.getItem(`${KEY}:${name}`) ?? undefined,
  set: (name: string, value: string) => sessionStorage.setItem(`${KEY}:${name}`, value),
  remove: (name: string) => sessionStorage.removeItem(`${KEY}:${name}`),
}

export const token = {
  get: () => store.get('token'),
  set: (value: string) => (value ? store.set('token', value) : store.remove('token')),
}

/** The parameters of a `WWW-Authenticate: Bearer …` challenge. */
export function challengeOf(header: string | undefined): Record<string, string> {
  const params: Record<string, string> = {}
  for (const match of (header ?? '').matchAll(/([\w-]+)="([^"]*)"/g)) params[match[1] as string] = match[2] as string
  return params
}

/** Plain http only for a server on this machine (`npm run dev:oauth`); https everywhere else. */
const options = (url: URL) => ({ [oauth.allowInsecureRequests]: ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) })

const redirectUri = () => new URL('./', location.href).href

interface Pending {
  issuer: string
  clientId: string
  verifier: string
  state: string
  resource: string
}

async function authorizationServer(issuer: URL): Promise<oauth.AuthorizationServer> {
  const response = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options(issuer) })
  return oauth.processDiscoveryResponse(issuer, response)
}

/** A client id for this page at `as`, registered once per tab. */
async function clientId(as: oauth.AuthorizationServer): Promise<string> {
  const cached = store.get(`client:${as.issuer}`)
  if (cached) return cached
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: 'mcp-edge playground',
      redirect_uris: [redirectUri()],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    options(new URL(as.issuer)),
  )
  const client = await oauth.processDynamicClientRegistrationResponse(response)
  store.set(`client:${as.issuer}`, client.client_id)
  return client.client_id
}

/**
 * Start signing in for `endpoint` (the MCP endpoint, the OAuth resource) with `scope`: ends by
 * sending the browser to the authorization server's consent page.
 */
export async function signIn(endpoint: string, resourceMetadataUrl: string, scope: string): Promise<void> {
  const resource = new URL(endpoint)
  const metadataUrl = new URL(resourceMetadataUrl)
  const metadata = await oauth.processResourceDiscoveryResponse(resource, await fetch(metadataUrl))
  const issuer = metadata.authorization_servers?.[0]
  if (!issuer) throw new Error('The resource metadata names no authorization server')
  const as = await authorizationServer(new URL(issuer))
  if (!as.authorization_endpoint) throw new Error('The authorization server has no authorization endpoint')
  const pending: Pending = {
    issuer: as.issuer,
    clientId: await clientId(as),
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    resource: resource.href,
  }
  store.set('pending', JSON.stringify(pending))
  const url = new URL(as.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: pending.clientId,
    redirect_uri: redirectUri(),
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    resource: pending.resource,
    ...(scope ? { scope } : {}),
  }).toString()
  location.assign(url.href)
}

/**
 * Back from the consent page? Check the response (state, issuer, error) and exchange the code
 * for a token. Returns a message for the page, or undefined when this load is not a callback.
 */
export async function finishSignIn(): Promise<string | undefined> {
  const saved = store.get('pending')
  const here = new URL(location.href)
  if (!saved || !(here.searchParams.has('code') || here.searchParams.has('error'))) return undefined
  store.remove('pending')
  history.replaceState(null, '', here.pathname)
  const pending = JSON.parse(saved) as Pending
  const as = await authorizationServer(new URL(pending.issuer))
  const client: oauth.Client = { client_id: pending.clientId, token_endpoint_auth_method: 'none' }
  const params = oauth.validateAuthResponse(as, client, here, pending.state)
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri(), pending.verifier, {
    additionalParameters: { resource: pending.resource },
    ...options(new URL(pending.issuer)),
  })
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response)
  token.set(tokens.access_token)
  return `Signed in${tokens.scope ? ` with scope "${tokens.scope}"` : ''}.`
}
