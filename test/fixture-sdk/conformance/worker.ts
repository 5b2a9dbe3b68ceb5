/**
 * SDK-style conformance fixture: the tool, resource and prompt names the official conformance
 * suite calls (as test/fixture/worker.ts provides them with the native API), written entirely for
 * `@modelcontextprotocol/server` 2.x and served by `agents/mcp/server`'s `createMcpHandler`, its
 * imports changed to `mcp-edge/sdk` (`// was:` names the original), plus the one export the
 * migration guide asks for (the nonce ledger, for single-use answers). Content tools, resources and
 * prompts are here; server-stateless's probes in diagnostic-tools.ts; the multi-round-trip tools in
 * input-tools.ts; the 2025-11-25 scenarios' tools in legacy-tools.ts. Test-only
 * (test/http/sdk-conformance.test.ts).
 */
import { env } from 'cloudflare:workers'
import { completable, createRequestStateCodec, McpServer, ResourceTemplate } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { CallToolResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler } from 'mcp-edge/sdk' // was: agents/mcp/server
import { z } from 'zod'
import { registerDiagnosticTools } from './diagnostic-tools.ts'
import { registerInputTools } from './input-tools.ts'
import { registerLegacyTools } from './legacy-tools.ts'

/** A 1×1 PNG and a tiny WAV, as the suite's own fixture sends. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA='
const none = z.object({})
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Seals the multi-round-trip tools' requestState (HMAC-SHA-256), as SDK 2.x servers do. */
const codec = createRequestStateCodec<Record<string, unknown>>({ key: env.REQUEST_STATE_SECRET })

function registerContentTools(server: McpServer): void {
  // test_simple_text stays first: http-header-validation calls the first listed tool.
  server.registerTool('test_simple_text', { description: 'Returns a simple text response', inputSchema: none }, async () =>
    text('This is a simple text response for testing.'),
  )
  server.registerTool('test_image_content', { description: 'Returns an image', inputSchema: none }, async () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }))
  server.registerTool('test_audio_content', { description: 'Returns audio', inputSchema: none }, async () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }))
  const embedded = { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource', inputSchema: none }, async () => ({
    content: [{ type: 'resource', resource: embedded }],
  }))
  const mixed = { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' }
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Text, image and a resource', inputSchema: none },
    async () => ({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: mixed },
      ],
    }),
  )
  server.registerTool('test_error_handling', { description: 'Always returns a tool error', inputSchema: none }, async () => ({
    ...text('This tool intentionally returns an error for testing'),
    isError: true,
  }))
  server.registerTool(
    'test_tool_with_progress',
    { description: 'Reports progress three times', inputSchema: none },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } })
        }
        await sleep(50)
      }
      return text('Progress complete')
    },
  )
}

function registerContent(server: McpServer): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    }),
  )
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static PNG', mimeType: 'image/png' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }],
    }),
  )
  server.registerResource('watched-resource', 'test://watched-resource', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }],
  }))
  const template = new ResourceTemplate('test://template/{id}/data', { list: undefined })
  server.registerResource(
    'template',
    template,
    { description: 'Data by id', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  )

  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }))
  const firstArg = completable(z.string().describe('First argument'), (value) =>
    ['test', 'testValue1', 'other'].filter((candidate) => candidate.startsWith(value)),
  )
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two arguments',
      argsSchema: z.object({ arg1: firstArg, arg2: z.string().describe('Second argument') }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  )
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt with an embedded resource', argsSchema: z.object({ resourceUri: z.string() }) },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  )
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }))
}

function createServer(): McpServer {
  const server = new McpServer(
    { name: 'mcp-edge-sdk-conformance-fixture', version: '1.0.0' },
    { capabilities: { logging: {} }, requestState: { verify: codec.verify } },
  )
  registerContentTools(server)
  registerDiagnosticTools(server)
  registerInputTools(server, codec)
  registerLegacyTools(server)
  registerContent(server)
  return server
}

/** Single-use answers for tools that ask (docs/migrate.md: the one addition beside the imports). */
export { McpNonceLedger } from 'mcp-edge/cloudflare'

export default {
  fetch(request: Request, workerEnv: Env, ctx: ExecutionContext) {
    return createMcpHandler(createServer)(request, workerEnv, ctx)
  },
} satisfies ExportedHandler<Env>
