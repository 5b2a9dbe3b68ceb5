/**
 * The template in OAuth mode (`npm run dev:oauth`, oauth/wrangler.jsonc): the same MCP server as
 * src/worker.ts, behind its own OAuth 2.1 authorization server built with
 * `@cloudflare/workers-oauth-provider`. The provider wraps the Worker: it publishes the RFC 9728
 * and RFC 8414 metadata, registers clients dynamically (RFC 7591), runs PKCE S256, issues tokens
 * bound to this resource (RFC 8707), and lets a request reach `/mcp` only with a valid token for
 * it. The MCP principal is what the consent page stored with `completeAuthorization` (the props)
 * and the token's scopes; tools that declare `scopes` are filtered and step-up challenged by mcp().
 *
 * Configuration: MCP_PUBLIC_URL (var: this Worker's public origin, the resource's base),
 * MCP_STATE_KEYS (secret), MCP_OAUTH_PASSPHRASE (secret: sign-in; see src/oauth-consent.ts),
 * OAUTH_KV (KV namespace: clients, grants and tokens, stored hashed and encrypted).
 */
import { OAuthProvider } from '@cloudflare/workers-oauth-provider'
import type { OAuthResourceAuth } from '@cloudflare/workers-oauth-provider'
import { env } from 'cloudflare:workers'
import { Hono } from 'hono'
import { cloudflareServices } from './cloudflare/index.ts'
import { mcp } from './index.ts'
import type { McpVariables } from './index.ts'
import { consent } from './oauth-consent.ts'
import type { ConsentEnv } from './oauth-consent.ts'
import { playground } from './playground-gate.ts'
import { server } from './worker.ts'

export { McpEventHub, McpInputRelay, McpNonceLedger, McpTaskObject, NotesStore } from './worker.ts'

/**
 * What oauth/wrangler.jsonc cannot declare, beside its generated Env (oauth/worker-configuration.d.ts):
 * the provider's helpers, which it puts on the env of every request it passes on, and the
 * optional secrets (the consent page's passphrase, ConsentEnv).
 */
interface OAuthExtras extends ConsentEnv {
  /** Access token lifetime in seconds (default one hour; KV allows no less than 60). */
  OAUTH_ACCESS_TOKEN_TTL?: string
}
declare global {
  interface Env extends OAuthExtras {}
  namespace Cloudflare {
    interface Env extends OAuthExtras {}
  }
}

/** Scopes this server can grant: `mcp` is the baseline every client asks for first. */
export const SCOPES = ['mcp', 'records:write']

const base = (env.MCP_PUBLIC_URL ?? '').replace(/\/+$/, '')
if (!/^https?:\/\/[^/]+$/.test(base)) {
  throw new Error(
    'MCP_PUBLIC_URL must be this Worker\'s public origin, such as "https://mcp.example.com" (set it under vars in oauth/wrangler.jsonc)',
  )
}

/** The protected API: the provider verified the token; its props and scopes become the principal. */
const api = new Hono<{ Bindings: Env; Variables: McpVariables }>()
api.use('/mcp/*', async (c, next) => {
  const context = c.executionCtx as ExecutionContext & { props?: { subject?: string }; auth?: OAuthResourceAuth }
  const subject = context.props?.subject
  if (subject) c.set('principal', { subject, scopes: context.auth?.scope ?? [], clientId: context.auth?.clientId })
  await next()
})
api.route(
  '/mcp',
  mcp(server, {
    requirePrincipal: true,
    resourceMetadataUrl: `${base}/.well-known/oauth-protected-resource/mcp`,
    requiredScopes: ['mcp'],
    services: cloudflareServices({
      stateKeys: 'MCP_STATE_KEYS',
      tasks: 'MCP_TASKS',
      nonces: 'MCP_NONCES',
      inputRelay: 'MCP_INPUT_RELAY',
    }),
  }),
)

/** Everything that is not the API: the consent page, and the playground when it is on. */
const site = new Hono<{ Bindings: Env }>()
site.get('/playground/*', playground)
site.route('/', consent)

export default new OAuthProvider<Env>({
  apiRoute: '/mcp',
  apiHandler: api as unknown as ExportedHandler<Env> & Pick<Required<ExportedHandler<Env>>, 'fetch'>,
  defaultHandler: site as unknown as ExportedHandler<Env>,
  authorizeEndpoint: '/authorize',
  tokenEndpoint: '/oauth/token',
  clientRegistrationEndpoint: '/oauth/register',
  scopesSupported: SCOPES,
  requiredScopes: ['mcp'],
  resourceMetadata: {
    resource: `${base}/mcp`,
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    resource_name: 'mcp-edge template',
  },
  accessTokenTTL: Number(env.OAUTH_ACCESS_TOKEN_TTL ?? 3600),
})
