/**
 * OpenID Connect Discovery 1.0 for `oidcProvider`: the issuer's metadata, checked and cached per
 * isolate. The document must name exactly the configured issuer (§4.3: otherwise anyone who can
 * serve the document could impersonate another issuer), and every endpoint in it must be https
 * (or loopback http) like the issuer. A failed discovery is not cached, so the next sign-in tries
 * again. Only settled values are cached, never a pending fetch: a Worker cannot await I/O started
 * by another request.
 */
import { isSecureUrl } from '../protocol/secure-url.ts'
import { UpstreamError } from './upstream.ts'
import { readJsonObject, upstreamFetch } from './upstream-fetch.ts'

/** How long a discovered document is used before it is fetched again. */
export const DISCOVERY_TTL_MS = 60 * 60 * 1000

export interface OidcMetadata {
  issuer: string
  authorizationEndpoint: string
  tokenEndpoint: string
  jwksUri: string
  userinfoEndpoint?: string
  scopesSupported?: string[]
  /** `id_token_signing_alg_values_supported`. */
  signingAlgorithms?: string[]
  /** `token_endpoint_auth_methods_supported`. */
  tokenAuthMethods?: string[]
  /** RFC 9207: the provider puts `iss` on every authorization response. */
  issParameterSupported: boolean
}

const discovered = new Map<string, { metadata: OidcMetadata; until: number }>()

function failed(message: string): UpstreamError {
  return new UpstreamError('discovery_failed', `OIDC discovery failed: ${message}`)
}

function endpoint(document: Record<string, unknown>, field: string, required: boolean): string | undefined {
  const value = document[field]
  if (value === undefined && !required) return undefined
  let url: URL | undefined
  try {
    url = typeof value === 'string' ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  if (url === undefined || !isSecureUrl(url)) throw failed(`${field} is missing, or is neither https nor loopback http`)
  return url.href
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined
}

/** The checked metadata of a discovery document, or `discovery_failed`. */
export function readMetadata(issuer: string, document: Record<string, unknown>): OidcMetadata {
  if (document.issuer !== issuer) throw failed('the document names another issuer than the configured one')
  const methods = strings(document.code_challenge_methods_supported)
  if (methods !== undefined && !methods.includes('S256')) throw failed('the provider does not support PKCE S256')
  const metadata: OidcMetadata = {
    issuer,
    authorizationEndpoint: endpoint(document, 'authorization_endpoint', true) as string,
    tokenEndpoint: endpoint(document, 'token_endpoint', true) as string,
    jwksUri: endpoint(document, 'jwks_uri', true) as string,
    issParameterSupported: document.authorization_response_iss_parameter_supported === true,
  }
  const userinfo = endpoint(document, 'userinfo_endpoint', false)
  if (userinfo !== undefined) metadata.userinfoEndpoint = userinfo
  const scopes = strings(document.scopes_supported)
  if (scopes !== undefined) metadata.scopesSupported = scopes
  const algorithms = strings(document.id_token_signing_alg_values_supported)
  if (algorithms !== undefined) metadata.signingAlgorithms = algorithms
  const auth = strings(document.token_endpoint_auth_methods_supported)
  if (auth !== undefined) metadata.tokenAuthMethods = auth
  return metadata
}

/**
 * The issuer's metadata, from this isolate's cache or its discovery document.
 *
 * @example
 * const { tokenEndpoint } = await discover('https://accounts.example.com')
 */
export async function discover(issuer: string): Promise<OidcMetadata> {
  const cached = discovered.get(issuer)
  if (cached !== undefined && cached.until > Date.now()) return cached.metadata
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`
  const response = await upstreamFetch(url, { headers: { accept: 'application/json' } }, 'discovery document')
  if (!response.ok) {
    await response.body?.cancel()
    throw failed(`the document answered ${response.status}`)
  }
  const metadata = readMetadata(issuer, await readJsonObject(response, 'discovery_failed', 'discovery document'))
  discovered.set(issuer, { metadata, until: Date.now() + DISCOVERY_TTL_MS })
  return metadata
}
