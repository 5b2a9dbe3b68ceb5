/**
 * Who the caller is: `whoami` (the principal: with sign-in through an identity provider, its
 * subject with the name and email it gave) and `my_profile`, a tool that calls a downstream API
 * as the caller: the provider's own (OIDC userinfo, GitHub's /user) with the token their sign-in
 * left (`ctx.upstream`). The demo's OAuth mode registers them too.
 */
import type { McpServer } from 'mcp-edge'
import { UpstreamError } from 'mcp-edge/oauth'
import * as z from 'zod/mini'
import { upstreamFromEnv } from './upstream'
import type { UpstreamEnv } from './upstream'

/**
 * @example
 * identityTools(server)
 */
export function identityTools<Env>(server: McpServer<Env>): void {
  server.tool(
    'whoami',
    {
      description: 'Who the server thinks you are: your subject, the name and email your sign-in gave, your token’s scopes',
      input: z.object({}),
      annotations: { readOnlyHint: true },
    },
    (_args, ctx) => {
      const {
        subject = null,
        name = null,
        email = null,
      } = (ctx.principal ?? {}) as { subject?: string; name?: string; email?: string }
      return {
        content: [{ type: 'text', text: `You are ${subject ?? 'nobody'}${name ? ` (${name})` : ''}.` }],
        structuredContent: { subject, name, email, scopes: [...(ctx.principal?.scopes ?? [])] },
      }
    },
  )

  server.tool(
    'my_profile',
    {
      description: 'Your profile at your identity provider, read from its API with your sign-in (a downstream API called as you)',
      input: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (_args, ctx) => {
      const upstream = upstreamFromEnv(ctx.env as UpstreamEnv) // the Worker's env, whatever else it holds
      // Only the provider that issued the token gets it.
      if (!ctx.upstream || !upstream || ctx.upstream.issuer !== upstream.issuer) {
        return { content: [{ type: 'text', text: 'You did not sign in through an identity provider.' }], isError: true }
      }
      try {
        const profile = await upstream.profile(await ctx.upstream.token())
        return {
          content: [{ type: 'text', text: `${upstream.issuer} knows you as ${profile.claims.name ?? profile.subject}.` }],
          structuredContent: { issuer: upstream.issuer, subject: profile.subject, ...profile.claims },
        }
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error
        return { content: [{ type: 'text', text: `Your identity provider did not answer (${error.reason}).` }], isError: true }
      }
    },
  )
}
