/**
 * SDK-style fixture (f): the SDK 1.x repository's own example servers, written again the same way
 * (not copied) and served as one Worker. This file is `src/examples/server/simpleStreamableHttp.ts`
 * (v1.x branch of modelcontextprotocol/typescript-sdk): `greet`, `multi-greet` logging through
 * `server.sendLoggingMessage(…, extra.sessionId)`, `collect-user-info` asking through
 * `extra.sendRequest(elicitation/create, ElicitResultSchema)` inside a try/catch,
 * `start-notification-stream` with zod defaults, `list-files` returning resource links, a
 * greeting prompt and three fixed resources. Left out: its OAuth demo server and the two
 * `server.experimental.tasks.registerToolTask` tools (an in-memory task store; mcp-edge/sdk refuses
 * it with an error naming `execution: { taskSupport }`, docs/migrate.md). other-examples.ts has the
 * other two servers. The express app and its transport become `createMcpHandler`, as agents' users
 * do; the import lines name what they replace (`// was:`). Delays are shortened for the tests.
 * Test-only (test/http/sdk-examples.test.ts).
 */
import { McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import { createMcpHandler } from 'mcp-edge/sdk' // was: agents/mcp
import { ElicitResultSchema } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import type { CallToolResult, GetPromptResult, PrimitiveSchemaDefinition } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import type { ReadResourceResult, ResourceLink } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import * as z from 'zod/v4'
import { appsHandler } from './apps.ts'
import { elicitationHandler } from './elicitation.ts'
import { registerOtherExamples } from './other-examples.ts'
import { resourcesHandler } from './resources.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const say = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] })

type FormSchema = { type: 'object'; properties: Record<string, PrimitiveSchemaDefinition>; required?: string[] }

/** The three forms of collect-user-info, by info type. */
const FORMS: Record<'contact' | 'preferences' | 'feedback', { message: string; requestedSchema: FormSchema }> = {
  contact: {
    message: 'Please provide your contact information',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Full Name', description: 'Your full name' },
        email: { type: 'string', title: 'Email Address', description: 'Your email address', format: 'email' },
        phone: { type: 'string', title: 'Phone Number', description: 'Your phone number (optional)' },
      },
      required: ['name', 'email'],
    },
  },
  preferences: {
    message: 'Please set your preferences',
    requestedSchema: {
      type: 'object',
      properties: {
        theme: { type: 'string', title: 'Theme', enum: ['light', 'dark', 'auto'], enumNames: ['Light', 'Dark', 'Auto'] },
        notifications: { type: 'boolean', title: 'Enable Notifications', default: true },
        frequency: { type: 'string', title: 'Frequency', enum: ['daily', 'weekly', 'monthly'] },
      },
      required: ['theme'],
    },
  },
  feedback: {
    message: 'Please provide your feedback',
    requestedSchema: {
      type: 'object',
      properties: {
        rating: { type: 'integer', title: 'Rating', description: 'Rate your experience (1-5)', minimum: 1, maximum: 5 },
        comments: { type: 'string', title: 'Comments', maxLength: 500 },
        recommend: { type: 'boolean', title: 'Would you recommend this?' },
      },
      required: ['rating', 'recommend'],
    },
  },
}

function registerGreetings(server: McpServer): void {
  server.registerTool(
    'greet',
    {
      title: 'Greeting Tool',
      description: 'A simple greeting tool',
      inputSchema: { name: z.string().describe('Name to greet') },
    },
    async ({ name }): Promise<CallToolResult> => say(`Hello, ${name}!`),
  )

  server.registerTool(
    'multi-greet',
    {
      description: 'A tool that sends different greetings with delays between them',
      inputSchema: { name: z.string().describe('Name to greet') },
      annotations: { title: 'Multiple Greeting Tool', readOnlyHint: true, openWorldHint: false },
    },
    async ({ name }, extra): Promise<CallToolResult> => {
      await server.sendLoggingMessage({ level: 'debug', data: `Starting multi-greet for ${name}` }, extra.sessionId)
      await sleep(20)
      await server.sendLoggingMessage({ level: 'info', data: `Sending first greeting to ${name}` }, extra.sessionId)
      await sleep(20)
      await server.sendLoggingMessage({ level: 'info', data: `Sending second greeting to ${name}` }, extra.sessionId)
      return say(`Good morning, ${name}!`)
    },
  )

  server.registerTool(
    'collect-user-info',
    {
      description: 'A tool that collects user information through form elicitation',
      inputSchema: {
        infoType: z.enum(['contact', 'preferences', 'feedback']).describe('Type of information to collect'),
      },
    },
    async ({ infoType }, extra): Promise<CallToolResult> => {
      const { message, requestedSchema } = FORMS[infoType]
      try {
        const result = await extra.sendRequest(
          { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } },
          ElicitResultSchema,
        )
        if (result.action === 'accept') {
          return say(`Thank you! Collected ${infoType} information: ${JSON.stringify(result.content)}`)
        }
        if (result.action === 'decline')
          return say(`No information was collected. User declined ${infoType} information request.`)
        return say('Information collection was cancelled by the user.')
      } catch (error) {
        return say(`Error collecting ${infoType} information: ${error}`)
      }
    },
  )

  server.registerPrompt(
    'greeting-template',
    {
      title: 'Greeting Template',
      description: 'A simple greeting prompt template',
      argsSchema: { name: z.string().describe('Name to include in greeting') },
    },
    async ({ name }): Promise<GetPromptResult> => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name} in a friendly manner.` } }],
    }),
  )

  server.registerTool(
    'start-notification-stream',
    {
      description: 'Starts sending periodic notifications for testing resumability',
      inputSchema: {
        interval: z.number().describe('Interval in milliseconds between notifications').default(100),
        count: z.number().describe('Number of notifications to send (0 for 100)').default(50),
      },
    },
    async ({ interval, count }, extra): Promise<CallToolResult> => {
      for (let counter = 1; count === 0 ? counter <= 100 : counter <= count; counter++) {
        await server.sendLoggingMessage({ level: 'info', data: `Periodic notification #${counter}` }, extra.sessionId)
        await sleep(interval)
      }
      return say(`Started sending periodic notifications every ${interval}ms`)
    },
  )
}

/** The fixed resources, and the tool that links to them without their content. */
const FILES = [
  { name: 'greeting-resource', uri: 'https://example.com/greetings/default', title: 'Default Greeting', text: 'Hello, world!' },
  { name: 'example-file-1', uri: 'file:///example/file1.txt', title: 'Example File 1', text: 'This is the content of file 1' },
  { name: 'example-file-2', uri: 'file:///example/file2.txt', title: 'Example File 2', text: 'This is the content of file 2' },
]

function registerFiles(server: McpServer): void {
  for (const file of FILES) {
    server.registerResource(
      file.name,
      file.uri,
      { title: file.title, description: `${file.title} for ResourceLink demonstration`, mimeType: 'text/plain' },
      async (): Promise<ReadResourceResult> => ({ contents: [{ uri: file.uri, text: file.text }] }),
    )
  }

  server.registerTool(
    'list-files',
    {
      title: 'List Files with ResourceLinks',
      description: 'Returns a list of files as ResourceLinks without embedding their content',
      inputSchema: {
        includeDescriptions: z.boolean().optional().describe('Whether to include descriptions in the resource links'),
      },
    },
    async ({ includeDescriptions = true }): Promise<CallToolResult> => {
      const links: ResourceLink[] = FILES.map((file) => ({
        type: 'resource_link',
        uri: file.uri,
        name: file.title,
        mimeType: 'text/plain',
        ...(includeDescriptions && { description: `${file.title} for ResourceLink demonstration` }),
      }))
      return {
        content: [
          { type: 'text', text: 'Here are the available files as resource links:' },
          ...links,
          { type: 'text', text: '\nYou can read any of these resources using their URI.' },
        ],
      }
    },
  )
}

function getServer(): McpServer {
  const server = new McpServer(
    {
      name: 'simple-streamable-http-server',
      version: '1.0.0',
      icons: [{ src: './mcp.svg', sizes: ['512x512'], mimeType: 'image/svg+xml' }],
      websiteUrl: 'https://github.com/modelcontextprotocol/typescript-sdk',
    },
    { capabilities: { logging: {} } },
  )
  registerGreetings(server)
  registerFiles(server)
  registerOtherExamples(server)
  return server
}

// Added in the port (docs/migrate.md): a tool that asks and is not read-only has a confirmation
// that must be redeemed once, a 2025 session's logging/setLevel is kept in the session ledger, and
// notifications reach every isolate's streams through the event hub; mcp-edge/sdk binds all three
// by their conventional names.
export { McpEventHub, McpNonceLedger, McpSessionLedger } from 'mcp-edge/cloudflare'

/** Where this server is served: /mcp is the 2.x elicitation example's (elicitation.ts). */
const ROUTE = '/simple'
/** The 2.x resources example (resources.ts), in the place of its Hono app's `app.all('/mcp', …)`. */
const RESOURCES = '/resources'
/** ext-apps' basic example server (apps.ts). */
const APPS = '/apps'

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const { pathname } = new URL(request.url)
    if (pathname === APPS) return appsHandler.fetch(new Request(new URL('/mcp', request.url), request))
    if (pathname === RESOURCES) return resourcesHandler.fetch(new Request(new URL('/mcp', request.url), request))
    // Another route publishing on the resources example's notifier, outside any MCP request.
    if (pathname === `${RESOURCES}/changed` && request.method === 'POST') {
      await resourcesHandler.notify.resourcesChanged()
      return new Response(null, { status: 202 })
    }
    if (pathname !== ROUTE) return elicitationHandler.fetch(request)
    return createMcpHandler(getServer(), { route: ROUTE })(request, env, ctx)
  },
} satisfies ExportedHandler<Env>
