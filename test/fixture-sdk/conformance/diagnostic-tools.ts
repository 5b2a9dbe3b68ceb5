/**
 * The diagnostic tools the server-stateless scenario (SEP-2575) probes: one that needs a client
 * capability the request did not declare (refused with -32021), one that asks a question (on a
 * 2026-07-28 request: an input_required result, never a request on the response stream), and one
 * that logs (nothing sent unless the request asked for a log level). Written the SDK 2.x way.
 */
import { inputRequired, inputResponse, MissingRequiredClientCapabilityError } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { CallToolResult, InputRequiredResult, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { z } from 'zod'

const none = z.object({})
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })

export function registerDiagnosticTools(server: McpServer): void {
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs the sampling capability', inputSchema: none },
    async (_args, ctx) => {
      const declared = (ctx.mcpReq._meta?.['io.modelcontextprotocol/clientCapabilities'] ?? {}) as Record<string, unknown>
      if (!declared.sampling) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { sampling: {} } })
      return text('sampling declared')
    },
  )

  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks for a name through elicitation', inputSchema: none },
    async (_args, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'user_name')
      if (answer.kind !== 'elicit') {
        const user_name = inputRequired.elicit({ message: 'What is your name?', requestedSchema: z.object({ name: z.string() }) })
        return inputRequired({ inputRequests: { user_name } })
      }
      return answer.action === 'accept' ? text(`Hello, ${String(answer.content?.name)}!`) : text('No name given')
    },
  )

  server.registerTool(
    'test_logging_tool',
    { description: 'Logs at info when asked to', inputSchema: none },
    async (_args, ctx) => {
      await ctx.mcpReq.log('info', 'Tool execution started', 'fixture')
      await ctx.mcpReq.log('info', 'Tool execution completed', 'fixture')
      return text('Logging complete')
    },
  )
}
