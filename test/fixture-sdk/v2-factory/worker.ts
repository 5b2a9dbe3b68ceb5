/**
 * SDK-style fixture (d): a server written for `@modelcontextprotocol/server` 2.x, built per request
 * by a factory and served by `agents/mcp/server`'s `createMcpHandler`, as agents' stateless
 * examples do. `deploy` asks for a confirmation the 2.x way: it returns `inputRequired(...)` and
 * reads the answer with `acceptedContent` when the client calls again. Only the import lines differ
 * from that code (`// was:` names the original). Test-only (test/http/sdk-factory.test.ts).
 */
import { acceptedContent, inputRequired, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { CallToolResult, InputRequiredResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler } from 'mcp-edge/sdk' // was: agents/mcp/server
import { z } from 'zod'

const confirmation = z.object({ confirm: z.boolean() })

function createServer(): McpServer {
  const server = new McpServer({ name: 'sdk-v2-fixture', version: '2.0.0' })

  server.registerTool(
    'hello',
    { description: 'Greet someone', inputSchema: z.object({ name: z.string().optional() }) },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name ?? 'World'}!` }] }),
  )

  server.registerTool(
    'deploy',
    {
      description: 'Deploy to an environment once the user confirms',
      inputSchema: z.object({ env: z.enum(['staging', 'production']) }),
      annotations: { destructiveHint: true },
    },
    async ({ env }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation)
      if (answer === undefined) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirmation }) },
        })
      }
      if (!answer.confirm) return { content: [{ type: 'text', text: `Deployment to ${env} cancelled.` }] }
      return { content: [{ type: 'text', text: `Deployed to ${env}.` }] }
    },
  )

  return server
}

// Added in the port (docs/migrate.md): a tool that asks and is not read-only has a confirmation
// that must be redeemed once (issue 37); mcp-edge/sdk binds the ledger by its conventional name.
export { McpNonceLedger } from 'mcp-edge/cloudflare'

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return createMcpHandler(createServer)(request, env, ctx)
  },
} satisfies ExportedHandler<Env>
