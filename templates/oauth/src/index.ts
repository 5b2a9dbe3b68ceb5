/**
 * An MCP server on Cloudflare Workers behind its own OAuth 2.1 authorization server: clients
 * (Claude, VS Code, MCP Inspector, mcp-remote) register themselves, send the user to /authorize
 * to consent (src/consent.ts), and call /mcp with the token they get. The MCP principal, what a
 * tool sees as `ctx.principal`, is whoever consented. Both MCP eras on one endpoint.
 *
 * Configuration (README.md): MCP_PUBLIC_URL (var: this Worker's public origin), OAUTH_KV (KV
 * namespace: clients, grants and tokens, stored hashed and encrypted), OIDC_ISSUER,
 * OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (your identity provider, src/upstream.ts), or for local
 * development MCP_OAUTH_PASSPHRASE (secret: who may consent; without it only a local browser may);
 * beside either, EMA_ISSUER and EMA_JWKS_URI (ID-JAGs from your company's IdP, src/enterprise.ts).
 */
import { env } from 'cloudflare:workers'
import { createMcpServer, otlpFromEnv } from 'mcp-edge'
import { workersTracing } from 'mcp-edge/cloudflare'
import * as z from 'zod/mini'
import type { ConsentEnv } from './consent'
import { createOAuthWorker } from './provider'
import { identityTools } from './identity'

/** What wrangler.jsonc cannot declare: the helpers the provider puts on each request's env. */
declare global {
  interface Env extends Pick<ConsentEnv, 'OAUTH_PROVIDER'> {}
}

/** The server's icon: an orange tile with a white peak, as an SVG data: URL. */
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCA0OCA0OCI+PHJlY3Qgd2lkdGg9IjQ4IiBoZWlnaHQ9IjQ4IiByeD0iMTAiIGZpbGw9IiNmNjgyMWYiLz48cGF0aCBkPSJNMTMgMzUgMjQgMTNsMTEgMjJ6IiBmaWxsPSIjZmZmIi8+PC9zdmc+'

export const server = createMcpServer<Env>({
  name: 'mcp-edge-oauth',
  version: '0.1.0',
  // How clients show the server: make these yours (an icon is an https: or data: URL).
  title: 'mcp-edge OAuth',
  description: 'An MCP server on Cloudflare Workers behind its own OAuth 2.1 authorization server',
  websiteUrl: 'https://github.com/mcp-edge/mcp-edge',
  icons: [{ src: ICON, mimeType: 'image/svg+xml', sizes: ['any'] }],
  // One JSON log line per message; MCP spans among the platform's in Workers traces (and in
  // `npm run spans` locally); traces and metrics over OTLP once OTEL_EXPORTER_OTLP_ENDPOINT is set.
  telemetry: { tracer: otlpFromEnv, native: workersTracing() },
})

identityTools(server)

server.tool(
  'add',
  {
    description: 'Add two numbers',
    input: z.object({ a: z.number(), b: z.number() }),
    annotations: { readOnlyHint: true },
  },
  ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

export default createOAuthWorker({
  server,
  publicUrl: env.MCP_PUBLIC_URL,
  scopes: ['mcp'],
  resourceName: 'mcp-edge-oauth',
})
