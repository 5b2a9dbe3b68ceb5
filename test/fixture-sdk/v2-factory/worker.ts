/**
 * SDK-style fixture (d): a server written for `@modelcontextprotocol/server` 2.x, built per request
 * by a factory and served by `agents/mcp/server`'s `createMcpHandler`, as agents' stateless
 * examples do. `deploy` asks for a confirmation the 2.x way: it returns `inputRequired(...)` and
 * reads the answer with `acceptedContent` when the client calls again. Only the import lines differ
 * from that code (`// was:` names the original). Test-only (test/http/sdk-factory.test.ts).
 */
import { acceptedContent, inputRequired, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { CallToolResult, InputRequiredResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { PromptCallback, RegisteredPrompt, RegisteredTool, StandardSchemaWithJSON } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { ToolAnnotations, ToolCallback } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler } from 'mcp-edge/sdk' // was: agents/mcp/server
import { z } from 'zod'

const confirmation = z.object({ confirm: z.boolean() })

// Registration through generic wrappers, as cloudflare/mcp-server-cloudflare's apps register every
// tool and prompt (packages/mcp-common): the SDK's type arguments given explicitly, in its order
// (output, then input), and callbacks typed by the SDK's `ToolCallback` and `PromptCallback`.
interface ToolRegistration<Output extends StandardSchemaWithJSON, Input extends StandardSchemaWithJSON | undefined> {
  description?: string
  inputSchema?: Input
  outputSchema?: Output
  annotations?: ToolAnnotations
}
type RegisterTool = <
  Output extends StandardSchemaWithJSON = StandardSchemaWithJSON,
  Input extends StandardSchemaWithJSON | undefined = undefined,
>(
  name: string,
  config: ToolRegistration<Output, Input>,
  callback: ToolCallback<Input>,
) => RegisteredTool
interface RegisterPrompt {
  <Args extends StandardSchemaWithJSON>(
    name: string,
    config: { description?: string; argsSchema?: Args },
    callback: PromptCallback<Args>,
  ): RegisteredPrompt
}

function registrations(server: McpServer): { registerTool: RegisterTool; registerPrompt: RegisterPrompt } {
  return {
    registerTool: <
      Output extends StandardSchemaWithJSON = StandardSchemaWithJSON,
      Input extends StandardSchemaWithJSON | undefined = undefined,
    >(
      name: string,
      config: ToolRegistration<Output, Input>,
      callback: ToolCallback<Input>,
    ) => server.registerTool<Output, Input>(name, config, callback),
    registerPrompt: (name, config, callback) => server.registerPrompt(name, config, callback),
  }
}

function registerThroughWrappers(server: McpServer): void {
  const { registerTool, registerPrompt } = registrations(server)
  registerTool(
    'shout',
    {
      description: 'Say it louder',
      inputSchema: z.object({ text: z.string() }),
      outputSchema: z.object({ loud: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({
      content: [{ type: 'text', text: text.toUpperCase() }],
      structuredContent: { loud: text.toUpperCase() },
    }),
  )
  registerPrompt('ask', { description: 'Ask about a topic', argsSchema: z.object({ topic: z.string() }) }, ({ topic }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Tell me about ${topic}.` } }],
  }))
  registerPrompt('greeting', { description: 'A greeting to start with' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello!' } }],
  }))
}

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

  registerThroughWrappers(server)
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
