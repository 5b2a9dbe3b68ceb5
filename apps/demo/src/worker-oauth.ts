/**
 * The demo in OAuth mode (`npm run dev:oauth`, oauth/wrangler.jsonc): the same MCP server as
 * src/worker.ts, behind the OAuth template's authorization server (templates/oauth/src/provider.ts,
 * its consent page in consent.ts). Tools that declare `scopes` (delete_record: records:write) are
 * filtered and step-up challenged by the token's scopes.
 *
 * Configuration: MCP_PUBLIC_URL (var: this Worker's public origin, the resource's base),
 * MCP_STATE_KEYS (secret), OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (sign-in through an
 * identity provider; `OIDC_ISSUER=… OIDC_CLIENT_ID=… OIDC_CLIENT_SECRET=… npm run dev:oauth`) or
 * MCP_OAUTH_PASSPHRASE (secret: the local-development sign-in), EMA_ISSUER and EMA_JWKS_URI
 * (optional: ID-JAGs from an enterprise IdP, templates/oauth/src/enterprise.ts), OAUTH_KV (KV
 * namespace: clients, grants and tokens, stored hashed and encrypted). In this mode the server also
 * has `whoami` and `my_profile`.
 */
import { env } from 'cloudflare:workers'
import { cloudflareServices } from 'mcp-edge/cloudflare'
import type { ConsentEnv } from '../../../templates/oauth/src/consent.ts'
import { createOAuthWorker } from '../../../templates/oauth/src/provider.ts'
import { identityTools } from '../../../templates/oauth/src/identity.ts'
import { playground } from './playground-gate.ts'
import { server } from './worker.ts'

export {
  McpEventHub,
  McpInputRelay,
  McpNonceLedger,
  McpResultStore,
  McpSessionLedger,
  McpTaskObject,
  NotesStore,
} from './worker.ts'

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

identityTools(server)

/** Scopes this server can grant: `mcp` is the baseline every client asks for first. */
export const SCOPES: [string, ...string[]] = ['mcp', 'records:write']

export default createOAuthWorker({
  server,
  publicUrl: env.MCP_PUBLIC_URL,
  scopes: SCOPES,
  resourceName: 'mcp-edge template',
  scopeDescriptions: { 'records:write': 'Change and delete your records' },
  accessTokenTtl: Number(env.OAUTH_ACCESS_TOKEN_TTL ?? 3600),
  services: cloudflareServices({
    stateKeys: 'MCP_STATE_KEYS',
    tasks: 'MCP_TASKS',
    nonces: 'MCP_NONCES',
    inputRelay: 'MCP_INPUT_RELAY',
    sessions: 'MCP_SESSIONS',
  }),
  // The playground page, when PLAYGROUND is "on" (.dev.vars), beside the consent page.
  site: (app) => app.get('/playground/*', playground),
})
