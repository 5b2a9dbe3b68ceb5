/**
 * SDK-style fixture (a): a server written for `@modelcontextprotocol/sdk` 1.x `McpServer`, served
 * by `agents/mcp`'s `createMcpHandler`, as Cloudflare's stateless examples do. Only the import
 * lines differ from that code: each names the specifier it replaces (`// was:`), which the type
 * test (test/unit/sdk-fixture-types.test.ts) puts back to typecheck this file against the real
 * packages. Its tools are the demo's names, so the Python SDK's script (test/support/python-client.py)
 * drives it unchanged. Test-only (test/http/sdk-handler.test.ts).
 */
import { McpServer, ResourceTemplate } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import { createMcpHandler } from 'mcp-edge/sdk' // was: agents/mcp
import { CfWorkerJsonSchemaValidator } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/validation/cfworker
import type { CallToolResult, GetPromptResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import { z } from 'zod'

const NOTES: Record<string, string> = {
  welcome: 'Hello from the notes shelf.',
  weekly: 'Ship the adapter, then the guide.',
  wishlist: 'A faster kettle.',
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })

function registerTools(server: McpServer): void {
  server.registerTool(
    'add',
    { title: 'Add', description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)),
  )

  server.registerTool(
    'get_weather',
    {
      description: 'The weather in a city (always mild here)',
      inputSchema: { city: z.string().describe('City name') },
      outputSchema: { city: z.string(), tempC: z.number(), conditions: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ city }) => {
      const weather = { city, tempC: 23, conditions: 'cloudy' }
      return { content: [{ type: 'text', text: JSON.stringify(weather) }], structuredContent: weather }
    },
  )

  // The older positional form, still common in published servers.
  server.tool('echo', 'Repeat a message back', { message: z.string() }, async ({ message }) => text(message))

  server.registerTool(
    'delete_record',
    {
      description: 'Delete a record once the user confirms',
      inputSchema: { id: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ id }) => {
      const answer = await server.server.elicitInput({
        message: `Delete record ${id}? This cannot be undone.`,
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: { type: 'boolean', title: 'Delete it' },
            reason: { type: 'string', title: 'Why' },
          },
          required: ['confirm'],
        },
      })
      if (answer.action !== 'accept' || answer.content?.confirm !== true) return text(`Record ${id} kept.`)
      return text(`Record ${id} deleted (${String(answer.content.reason ?? 'no reason')}).`)
    },
  )

  server.registerTool(
    'countdown',
    { description: 'Count down, reporting each step as progress', inputSchema: { from: z.number().int().min(1).max(10) } },
    async ({ from }, extra) => {
      const progressToken = extra._meta?.progressToken
      for (let step = 1; step <= from; step++) {
        if (progressToken === undefined) continue
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: step, total: from, message: `${from - step} to go` },
        })
      }
      return text('Liftoff')
    },
  )
}

function registerContent(server: McpServer): void {
  server.registerResource(
    'server-info',
    'info://server',
    { title: 'About this server', description: 'What this server is', mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'An SDK 1.x server on mcp-edge.' }] }),
  )

  const notes = new ResourceTemplate('notes://{name}', {
    list: async () => ({
      resources: Object.keys(NOTES).map((name) => ({ uri: `notes://${name}`, name, mimeType: 'text/plain' })),
    }),
    complete: { name: (value) => Object.keys(NOTES).filter((name) => name.startsWith(value)) },
  })
  server.registerResource('note', notes, { description: 'One note, by name', mimeType: 'text/plain' }, async (uri, { name }) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: NOTES[String(name)] ?? '(no such note)' }],
  }))

  server.registerPrompt(
    'summarize',
    { title: 'Summarize', description: 'Ask for a summary of a text', argsSchema: { text: z.string() } },
    ({ text }): GetPromptResult => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize this:\n\n${text}` } }],
    }),
  )
}

/**
 * A new server per request: an SDK 1.x server connects to one transport only. With the validator
 * Workers servers pass (the SDK's default, Ajv, compiles code at run time, which Workers forbid).
 */
function createServer(): McpServer {
  const server = new McpServer(
    { name: 'sdk-v1-fixture', version: '1.0.0' },
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  )
  registerTools(server)
  registerContent(server)
  return server
}

// Added in the port (docs/migrate.md): a tool that asks and is not read-only has a confirmation
// that must be redeemed once (issue 37), and a 2025 client's answer may reach another isolate
// than its call's; mcp-edge/sdk binds the ledger and the relay by their conventional names.
export { McpInputRelay, McpNonceLedger } from 'mcp-edge/cloudflare'

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    return createMcpHandler(createServer())(request, env, ctx)
  },
} satisfies ExportedHandler<Env>
