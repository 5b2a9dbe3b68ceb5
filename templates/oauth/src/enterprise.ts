/**
 * Enterprise-Managed Authorization (the MCP extension of that name, which
 * `@cloudflare/workers-oauth-provider` marks experimental): a client whose user signed in at the
 * company's identity provider asks it for an ID-JAG (an RFC 8693 token exchange there), and trades
 * the ID-JAG for our access token at /oauth/token (the RFC 7523 jwt-bearer grant), with no consent
 * page. On when EMA_ISSUER and EMA_JWKS_URI are set (one trusted IdP), off when neither is; half
 * of it is a SignInNotConfigured error, and src/provider.ts then serves nothing. The library
 * checks the ID-JAG (typ, signature against the JWKS, an allowed alg, iss, aud = our issuer,
 * client_id = the authenticated client, resource, lifetime, a jti not seen before); here we only
 * name the principal and pick the scopes (src/provider.ts logs why one was refused). No refresh tokens (the library
 * issues none for this grant), no second IdP.
 */
import type { EmaOptions } from '@cloudflare/workers-oauth-provider'
import type { UpstreamClaims } from 'mcp-edge/oauth'
import { SignInNotConfigured } from './upstream'

export interface EnterpriseEnv {
  /** The enterprise IdP's issuer, exactly as its ID-JAGs' `iss` claim spells it (https). */
  EMA_ISSUER?: string
  /** Its signing keys (https): the `jwks_uri` of its discovery document. */
  EMA_JWKS_URI?: string
  /** What its ID-JAGs are signed with: `RS256` (the default), `ES256`, or both, comma-separated. */
  EMA_ALGORITHMS?: string
}

/** The one enterprise IdP this server trusts. */
export interface EnterpriseIdp {
  issuer: string
  jwksUri: string
  algorithms: string[]
}

/** A grant's props when an ID-JAG made it; src/provider.ts honours its tokens only while EMA_ISSUER names `issuer`. */
export interface EnterpriseProps {
  /** `<issuer>#<sub>`: never a passphrase name (those hold no `:`), and unlike a provider's ids. */
  subject: string
  /**
   * The email the ID-JAG carried, if any, as verified: the IdP EMA_ISSUER names is the company's
   * directory, trusted to name its people (unless the ID-JAG itself says `email_verified: false`).
   */
  claims: UpstreamClaims
  issuer: string
  enterprise: true
}

/** The library verifies RS256 and ES256 only. */
const ALGORITHMS = ['RS256', 'ES256']

function isHttps(value: string): boolean {
  return URL.canParse(value) && new URL(value).protocol === 'https:'
}

/** The last settings read and what they gave: each request reads them, they change only with a deploy. */
let cached: { key: string; idp: EnterpriseIdp | undefined } | undefined

/**
 * The trusted enterprise IdP, or `undefined` when EMA_ISSUER and EMA_JWKS_URI are both unset.
 * The same settings give the same object (read once, not on every request).
 *
 * @example
 * const idp = enterpriseFromEnv(env) // undefined: no jwt-bearer grant
 */
export function enterpriseFromEnv(env: EnterpriseEnv): EnterpriseIdp | undefined {
  const { EMA_ISSUER: issuer = '', EMA_JWKS_URI: jwksUri = '', EMA_ALGORITHMS: listed = '' } = env
  const key = `${issuer}\n${jwksUri}\n${listed}`
  if (cached?.key !== key) cached = { key, idp: readIdp(issuer, jwksUri, listed) }
  return cached.idp
}

function readIdp(issuer: string, jwksUri: string, listed: string): EnterpriseIdp | undefined {
  if (!issuer && !jwksUri && !listed) return undefined
  const urls = { EMA_ISSUER: issuer, EMA_JWKS_URI: jwksUri }
  const missing = Object.keys(urls).filter((name) => !urls[name as keyof typeof urls])
  if (missing.length > 0) {
    throw new SignInNotConfigured(`Enterprise-Managed Authorization also needs ${missing.join(' and ')}.`)
  }
  // The library refuses anything else (workerd fetches the keys; TLS is what makes them the IdP's).
  for (const [name, value] of Object.entries(urls)) {
    if (!isHttps(value)) throw new SignInNotConfigured(`${name} must be an https URL (got "${value}").`)
  }
  const algorithms = listed ? listed.split(/[\s,]+/).filter(Boolean) : ['RS256']
  if (algorithms.length === 0 || algorithms.some((alg) => !ALGORITHMS.includes(alg))) {
    throw new SignInNotConfigured(`EMA_ALGORITHMS may list RS256 and ES256 (got "${listed}").`)
  }
  return { issuer, jwksUri, algorithms }
}

/**
 * The provider's `enterpriseManagedAuthorization` option for one IdP. Scopes: those the client
 * asked for (its `scope`, else the ID-JAG's, already cut to the ID-JAG's by the library) that
 * this server offers; nothing asked anywhere is the baseline (`scopes[0]`), as on the consent page;
 * a set without the baseline (which /mcp requires) is a refusal (invalid_grant), and nothing is
 * stored. `base`: this server's origin (MCP_PUBLIC_URL's), the ID-JAG's audience.
 *
 * @example
 * new OAuthProvider({ ..., enterpriseManagedAuthorization: enterpriseGrant(idp, ['mcp'], 'https://mcp.example.com') })
 */
export function enterpriseGrant<E>(idp: EnterpriseIdp, scopes: readonly [string, ...string[]], base: string): EmaOptions<E> {
  const audience = new URL(base).origin
  return {
    // `aud` must be this server's issuer: the origin of MCP_PUBLIC_URL, not of the request's host.
    trustedIssuers: async ({ iss }) =>
      iss === idp.issuer ? { issuer: idp.issuer, jwksUri: idp.jwksUri, algorithms: idp.algorithms, audience } : null,
    mapClaims: async ({ claims, requestedScope }) => {
      const asked = requestedScope.length > 0 ? requestedScope : claims.scope === undefined ? [scopes[0]] : []
      const granted = asked.filter((scope) => scopes.includes(scope))
      // Without the baseline, /mcp would refuse the token: refused here, before anything is stored.
      if (!granted.includes(scopes[0])) return null
      const props: EnterpriseProps = {
        subject: `${idp.issuer}#${claims.sub}`,
        claims:
          typeof claims.email === 'string' && claims.email_verified !== false && claims.email_verified !== 'false'
            ? { email: claims.email, emailVerified: true }
            : {},
        issuer: idp.issuer,
        enterprise: true,
      }
      // The library's token format forbids `:` in a user id; encoded, grants list by principal.
      return { userId: encodeURIComponent(props.subject), scope: granted, metadata: { issuer: idp.issuer }, props }
    },
  }
}
