/**
 * The tools only the 2025-11-25 conformance scenarios call: logging, sampling and elicitation on
 * the call's stream. Written the SDK 2.x way (log through `ctx.mcpReq.log`, questions as
 * `inputRequired(...)`), which the 2025 era receives as real requests on the call's stream.
 */
import { inputRequired, inputResponse } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { CallToolResult, ElicitRequestFormParams, InputRequiredResult, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { z } from 'zod'

type Result = CallToolResult | InputRequiredResult
type Fields = ElicitRequestFormParams['requestedSchema']['properties']
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const titled = (options: [string, string][]) => options.map(([value, title]) => ({ const: value, title }))

/** Ask with a form (a wire JSON Schema) under key `form`, then report what came back. */
function formTool(server: McpServer, name: string, message: string, properties: Fields, required: string[] = []): void {
  server.registerTool(
    name,
    { description: `Asks: ${message}`, inputSchema: z.object({}) },
    async (_args, ctx): Promise<Result> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'form')
      if (answer.kind !== 'elicit') {
        return inputRequired({
          inputRequests: { form: inputRequired.elicit({ message, requestedSchema: { type: 'object', properties, required } }) },
        })
      }
      return text(
        `Elicitation completed: action=${answer.action}${answer.action === 'accept' ? `, content=${JSON.stringify(answer.content)}` : ''}`,
      )
    },
  )
}

export function registerLegacyTools(server: McpServer): void {
  server.registerTool(
    'test_tool_with_logging',
    { description: 'Logs three messages while it runs', inputSchema: z.object({}) },
    async (_args, ctx) => {
      for (const message of ['Tool execution started', 'Tool processing data', 'Tool execution completed']) {
        await ctx.mcpReq.log('info', message, 'fixture')
        await sleep(50)
      }
      return text('Logging complete')
    },
  )

  server.registerTool(
    'test_sampling',
    { description: 'Asks the client to sample', inputSchema: z.object({ prompt: z.string() }) },
    async ({ prompt }, ctx): Promise<Result> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'reply')
      if (answer.kind !== 'sampling') {
        const reply = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
          maxTokens: 100,
        })
        return inputRequired({ inputRequests: { reply } })
      }
      const content = answer.result.content as { type?: string; text?: string }
      return text(`LLM response: ${content.type === 'text' ? content.text : JSON.stringify(answer.result.content)}`)
    },
  )

  server.registerTool(
    'test_elicitation',
    { description: 'Asks for a name and an email', inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx): Promise<Result> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'user')
      if (answer.kind !== 'elicit') {
        const properties = {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        } as const
        const user = inputRequired.elicit({
          message,
          requestedSchema: { type: 'object', properties, required: ['username', 'email'] },
        })
        return inputRequired({ inputRequests: { user } })
      }
      return text(
        `User response: action=${answer.action}${answer.action === 'accept' ? `, content=${JSON.stringify(answer.content)}` : ''}`,
      )
    },
  )

  formTool(server, 'test_elicitation_sep1034_defaults', 'Please review and update the form fields with defaults', {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  })

  formTool(server, 'test_elicitation_sep1330_enums', 'Please select options from the enum fields', {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: titled([
        ['value1', 'First Option'],
        ['value2', 'Second Option'],
        ['value3', 'Third Option'],
      ]),
    },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: titled([
          ['value1', 'First Choice'],
          ['value2', 'Second Choice'],
          ['value3', 'Third Choice'],
        ]),
      },
    },
  })
}
