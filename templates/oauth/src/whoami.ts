/**
 * `whoami`: who the server thinks the caller is. With sign-in through an identity provider
 * (src/callback.ts) that is the provider's subject with the name and email it gave; the demo's
 * OAuth mode registers it too.
 */
import type { McpServer } from 'mcp-edge'
import * as z from 'zod/mini'

/**
 * @example
 * whoami(server)
 */
export function whoami<Env>(server: McpServer<Env>): void {
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
}
