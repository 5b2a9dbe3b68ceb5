/**
 * The OAuth 2.1 authorization server in front of the MCP endpoint, built with
 * `@cloudflare/workers-oauth-provider`: it publishes the RFC 9728 and RFC 8414 metadata, registers
 * clients dynamically (RFC 7591), runs PKCE S256, issues tokens bound to this resource (RFC 8707),
 * and lets a request reach /mcp only with a valid token for it. The MCP principal is who signed
 * in (the grant's props: the identity provider's subject with its name and email, the email only
 * if verified, src/callback.ts, or the passphrase page's name, or an enterprise IdP's subject from
 * an ID-JAG, src/enterprise.ts) and the token's scopes, so tools that declare `scopes` are
 * filtered and step-up challenged by mcp(). Refresh tokens work for a week from sign-in (docs/oauth.md
 * says why a spent one is not made to revoke its grant). The settings are
 * read from each request's env: with EMA_ISSUER and EMA_JWKS_URI the token endpoint also takes
 * ID-JAGs (jwt-bearer) and the metadata says so; the provider is rebuilt only when they change.
 * The repository's demo uses it too.
 */
import { OAuthProvider } from '@cloudflare/workers-oauth-provider'
import type { OAuthErrorInternal, OAuthProviderOptions, OAuthResourceAuth } from '@cloudflare/workers-oauth-provider'
import { env as workerEnv } from 'cloudflare:workers'
import { Hono } from 'hono'
import { createLog, mcp } from 'mcp-edge'
import type { McpHttpOptions, McpServer, McpVariables } from 'mcp-edge'
import type { SignedInProps } from './callback'
import { passphraseFrom, signInRoutes } from './consent'
import type { ConsentEnv } from './consent'
import { enterpriseFromEnv, enterpriseGrant } from './enterprise'
import type { EnterpriseEnv, EnterpriseIdp } from './enterprise'
import { SignInNotConfigured, upstreamFromEnv } from './upstream'
import type { UpstreamEnv } from './upstream'
import { upstreamGrant } from './upstream-grant'

export interface OAuthWorkerOptions<E extends object> {
  server: McpServer<E>
  /** This Worker's public origin (MCP_PUBLIC_URL): the resource is `<origin>/mcp`. */
  publicUrl: string
  /** Scopes clients may be granted; the first is the baseline every token needs. */
  scopes: [string, ...string[]]
  /** Shown to users by clients that read RFC 9728 metadata. */
  resourceName: string
  /** Each scope in words, for the consent page (`mcp`: "Use this server's tools…" unless given). */
  scopeDescriptions?: Record<string, string>
  /** Access token lifetime in seconds (default one hour; KV allows no less than 60). */
  accessTokenTtl?: number
  /**
   * How long a grant's refresh tokens work, in seconds from sign-in however often they are used
   * (default 7 days): then the person signs in again.
   */
  refreshTokenTtl?: number
  /** mcp()'s services (sealed state, tasks…), as in a Worker without OAuth. */
  services?: McpHttpOptions<E>['services']
  /** More routes beside the consent page (the demo's playground). */
  site?: (app: Hono<{ Bindings: E }>) => void
}

/**
 * The Worker's default export: the provider, wrapping /mcp and the consent page at /authorize.
 *
 * @example
 * export default createOAuthWorker({ server, publicUrl: env.MCP_PUBLIC_URL, scopes: ['mcp'], resourceName: 'My server' })
 */
export function createOAuthWorker<E extends object>(options: OAuthWorkerOptions<E>): ExportedHandler<E> {
  const base = options.publicUrl.replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]+$/.test(base)) {
    throw new Error(
      `MCP_PUBLIC_URL must be this Worker's public origin, such as "https://mcp.example.com" (got "${options.publicUrl}")`,
    )
  }
  const baseline = options.scopes[0]
  const metadataUrl = `${base}/.well-known/oauth-protected-resource/mcp`
  const accessTokenTtl = options.accessTokenTtl ?? 3600
  // A passphrase too short to be safe: the Worker does not start (src/consent.ts says how to fix it).
  passphraseFrom(workerEnv as { MCP_OAUTH_PASSPHRASE?: string })

  // The protected API: the provider verified the token; its props and scopes become the principal.
  const api = new Hono<{ Bindings: E; Variables: McpVariables }>()
  api.use('/mcp/*', async (c, next) => {
    const context = c.executionCtx as ExecutionContext & { props?: GrantProps; auth?: OAuthResourceAuth }
    const { subject, claims, issuer, upstream, enterprise } = context.props ?? {}
    // A token from another sign-in than the ones configured now (another provider, the passphrase
    // page, an enterprise IdP no longer trusted): its subject belongs to another namespace.
    let signIn: string | undefined
    let enterpriseIdp: string | undefined
    try {
      signIn = upstreamFromEnv(c.env as UpstreamEnv)?.issuer
      enterpriseIdp = enterpriseFromEnv(c.env as EnterpriseEnv)?.issuer
    } catch (error) {
      if (!(error instanceof SignInNotConfigured)) throw error
      return c.json({ error: 'server_error', error_description: 'Sign-in is misconfigured' }, 500)
    }
    if (context.props && issuer !== (enterprise ? enterpriseIdp : signIn)) {
      const challenge = `Bearer error="invalid_token", error_description="Sign in again", resource_metadata="${metadataUrl}"`
      return c.json({ error: 'invalid_token' }, 401, { 'www-authenticate': challenge })
    }
    if (upstream?.expiresAt !== undefined && upstream.expiresAt <= Date.now()) {
      // The provider's token ended before ours (it lived under a minute): the client refreshes.
      const challenge = `Bearer error="invalid_token", error_description="The sign-in expired; refresh the token", resource_metadata="${metadataUrl}"`
      return c.json({ error: 'invalid_token' }, 401, { 'www-authenticate': challenge })
    }
    if (subject) {
      const principal = { subject, scopes: context.auth?.scope ?? [], clientId: context.auth?.clientId }
      // An address the provider did not verify may be anyone's (some let people type any): a tool
      // that allows people by email sees only verified ones.
      const email = claims?.emailVerified === true ? claims.email : undefined
      c.set('principal', claims ? { ...principal, name: claims.name, email } : principal)
    }
    // Tools reach the provider's API as the caller through ctx.upstream; the token is never on the principal.
    if (upstream && issuer) c.set('upstream', { issuer, token: async () => upstream.accessToken })
    await next()
  })
  api.route(
    '/mcp',
    mcp(options.server, {
      requirePrincipal: true,
      resourceMetadataUrl: metadataUrl,
      requiredScopes: [baseline],
      services: options.services,
    }),
  )

  // Everything that is not the API: the consent page, the identity provider's callback, and
  // whatever else the Worker serves.
  const site = new Hono<{ Bindings: E }>()
  options.site?.(site)
  // The consent page shows the server as clients do: its title (or name) and first icon.
  const { info } = options.server
  const brand = { name: info.title ?? info.name, icon: info.icons?.[0]?.src }
  const signIn = signInRoutes({ base, baseline, brand, scopeDescriptions: options.scopeDescriptions })
  site.route('/', signIn as unknown as Hono<{ Bindings: E }>)

  const authorizationServer = (enterprise: EnterpriseIdp | undefined) =>
    new OAuthProvider<E>({
      apiRoute: '/mcp',
      apiHandler: api as unknown as ExportedHandler<E> & Pick<Required<ExportedHandler<E>>, 'fetch'>,
      defaultHandler: site as unknown as ExportedHandler<E>,
      authorizeEndpoint: '/authorize',
      tokenEndpoint: TOKEN_PATH,
      // Clients register themselves (RFC 7591), or name an https URL of their metadata document (CIMD).
      clientRegistrationEndpoint: '/oauth/register',
      clientIdMetadataDocumentEnabled: true,
      scopesSupported: options.scopes,
      requiredScopes: [baseline],
      resourceMetadata: {
        resource: `${base}/mcp`,
        authorization_servers: [base],
        bearer_methods_supported: ['header'],
        resource_name: options.resourceName,
      },
      accessTokenTTL: accessTokenTtl,
      // A fixed lifetime, not an idle one: a stolen grant does not live on by being used.
      refreshTokenTTL: options.refreshTokenTtl ?? REFRESH_TOKEN_TTL_S,
      // The identity provider's tokens: carried by ours, refreshed with ours (src/upstream-grant.ts).
      tokenExchangeCallback: upstreamGrant(accessTokenTtl) as OAuthProviderOptions<E>['tokenExchangeCallback'],
      // Experimental in the library: ID-JAGs from one enterprise IdP (src/enterprise.ts), when configured.
      ...(enterprise ? { enterpriseManagedAuthorization: enterpriseGrant<E>(enterprise, options.scopes, base) } : {}),
      // Every error answer logged, with the library's internal reason (logOAuthError, below).
      onError: logOAuthError,
    })

  let built: { idp: EnterpriseIdp | undefined; provider: OAuthProvider<E> } | undefined
  return {
    async fetch(request, env, ctx) {
      let enterprise: EnterpriseIdp | undefined
      try {
        enterprise = enterpriseFromEnv(env as EnterpriseEnv)
        passphraseFrom(env as ConsentEnv)
      } catch (error) {
        // Half configured, or a passphrase too short: nothing is served, and the answer says why.
        if (!(error instanceof SignInNotConfigured)) throw error
        return Response.json({ error: 'server_error', error_description: error.message }, { status: 500 })
      }
      // enterpriseFromEnv gives the same object while the settings stay the same.
      if (!built || built.idp !== enterprise) built = { idp: enterprise, provider: authorizationServer(enterprise) }
      return built.provider.fetch(request, env, ctx)
    },
  }
}

const TOKEN_PATH = '/oauth/token'
/** The default refresh token lifetime: a week from sign-in. */
const REFRESH_TOKEN_TTL_S = 7 * 24 * 3600

/** What a token's grant may carry: a sign-in's props (src/callback.ts), a passphrase name's, or an ID-JAG's. */
type GrantProps = Partial<SignedInProps> & { enterprise?: true }

/**
 * The provider's `onError`: every OAuth error answer as one warning line, with why (for an
 * ID-JAG: `expired`, `replayed`, `jwks_fetch_failed`…, where the client is only told
 * `invalid_grant`) and the description the client was told, never a token, code, secret or
 * assertion (the library's `internal.detail`, which may quote a claim, is not logged). Set
 * whether or not EMA is on, so every error is logged the same way.
 *
 * @example
 * new OAuthProvider({ ..., onError: logOAuthError })
 */
function logOAuthError(error: { code: string; description: string; status: number; internal?: OAuthErrorInternal }): undefined {
  const { code, description, status, internal } = error
  const msg = internal?.category === 'enterprise-managed-authorization' ? 'ID-JAG refused' : 'OAuth error response'
  // The description is what the client was told; the reason and category are the library's names.
  log.warn(msg, { reason: internal?.reason, status, error: code, description, category: internal?.category })
}

/** One JSON line per record, as mcp-edge writes its own. */
const log = createLog('info')
