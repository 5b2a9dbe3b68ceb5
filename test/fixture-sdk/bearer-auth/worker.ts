/**
 * SDK-style fixture (g): the SDK 2.x repository's `examples/bearer-auth-web/server.ts`
 * (modelcontextprotocol/typescript-sdk), written again the same way: a factory whose `whoami`
 * reads `ctx.authInfo`, a static token verifier throwing `OAuthError`, `requireBearerAuth` in
 * front of the handler, the DNS-rebinding guards, and `handler.fetch(request, { authInfo })`, all
 * composed as one `fetch(request)`. Its comment says that on Workers this handler is the whole
 * server (`export default { fetch: fetchHandler }`), which is what this Worker is; the Node bridge
 * (`toNodeHandler`, `listen`) is left out. The import lines name what they replace (`// was:`).
 * Test-only (test/http/sdk-bearer-auth.test.ts).
 */
import type { AuthInfo, McpServerFactory, OAuthTokenVerifier } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler, McpServer, OAuthError, OAuthErrorCode, requireBearerAuth } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { hostHeaderValidationResponse, localhostAllowedHostnames } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { localhostAllowedOrigins, originValidationResponse } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import * as z from 'zod/v4'

const buildServer: McpServerFactory = (ctx) => {
  const server = new McpServer({ name: 'bearer-auth-web-example', version: '1.0.0' })
  server.registerTool('whoami', { description: 'Returns the authenticated subject.', inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: `client=${ctx.authInfo?.clientId ?? 'anon'}` }],
  }))
  return server
}

/** Stands in for JWT verification or RFC 7662 introspection, as the example's does. */
const staticTokenVerifier: OAuthTokenVerifier = {
  async verifyAccessToken(token): Promise<AuthInfo> {
    if (token !== 'demo-token') throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token')
    return { token, clientId: 'demo-client', scopes: ['mcp'], expiresAt: Math.floor(Date.now() / 1000) + 3600 }
  },
}

const gate = requireBearerAuth({ verifier: staticTokenVerifier, requiredScopes: ['mcp'] })
const handler = createMcpHandler(buildServer)

async function fetchHandler(request: Request): Promise<Response> {
  const rejected =
    hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
    originValidationResponse(request, localhostAllowedOrigins())
  if (rejected) return rejected
  const auth = await gate(request)
  if (auth instanceof Response) return auth
  return handler.fetch(request, { authInfo: auth })
}

export default { fetch: fetchHandler }
