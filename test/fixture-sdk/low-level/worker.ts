/**
 * SDK-style fixture: servers written on SDK 1.x's low-level `Server`, whose lists and calls are
 * request handlers, as older servers and some Workers ones are. `/mcp` is a notes server in the
 * style of the MCP reference servers' "everything" server (paginated resources read by a template,
 * prompts with arguments, completion, progress, a confirmation through `server.elicitInput`),
 * served by agents' `createMcpHandler`. `/browser` is an `McpAgent` whose `server` is a promise of
 * a `Server` with ListTools and CallTool handlers over a fixed tool list, as Cloudflare's
 * Playwright server builds it, with a per-session history in the agent's state. Only the import
 * lines differ from that code (`// was:` names the original; test/unit/sdk-fixture-types.test.ts
 * puts it back). Test-only (test/http/sdk-low-level.test.ts).
 */
import { Server } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/index.js
import { createMcpHandler, McpAgent } from 'mcp-edge/sdk' // was: agents/mcp
import { CallToolRequestSchema, CompleteRequestSchema, ErrorCode, McpError } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import { GetPromptRequestSchema, InitializeRequestSchema, ListPromptsRequestSchema } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import { ListResourcesRequestSchema, ListResourceTemplatesRequestSchema } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import { ListToolsRequestSchema, ReadResourceRequestSchema, SetLevelRequestSchema } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js
import type { CallToolResult, ClientCapabilities, Resource, ServerCapabilities, Tool } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js

const NOTES: Record<string, string> = {
  alpha: 'First note.',
  beta: 'Second note.',
  gamma: 'Third note.',
  delta: 'Fourth note.',
  epsilon: 'Fifth note.',
}
const PAGE = 2

const NOTE_TOOLS: Tool[] = [
  {
    name: 'add',
    description: 'Add two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'countdown',
    description: 'Count down, reporting progress',
    inputSchema: { type: 'object', properties: { from: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['from'] },
  },
  {
    name: 'delete_note',
    description: 'Delete a note once the user confirms',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    annotations: { destructiveHint: true },
  },
  {
    name: 'fail',
    description: 'Throw, as a handler that hits a bug does',
    inputSchema: { type: 'object', properties: {} },
  },
]

const CAPABILITIES: ServerCapabilities = { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} }

function notesServer(): Server {
  const server = new Server(
    { name: 'sdk-low-level-notes', version: '1.0.0' },
    {
      capabilities: CAPABILITIES,
      instructions: 'Notes, read as resources.',
    },
  )

  // Its own initialize answer, as some servers set one (a protocol revision, extra serverInfo
  // fields): taken and never called, mcp-edge answers initialize itself (docs/migrate.md).
  server.setRequestHandler(InitializeRequestSchema, async () => ({
    protocolVersion: '2025-03-26',
    capabilities: CAPABILITIES,
    serverInfo: { name: 'notes-own-initialize', version: '0.0.1', developmentMode: true },
  }))

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: NOTE_TOOLS }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = request.params.arguments ?? {}
    switch (request.params.name) {
      case 'add': {
        const sum = Number(args.a) + Number(args.b)
        return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } }
      }
      case 'countdown': {
        const from = Number(args.from)
        const token = request.params._meta?.progressToken
        for (let left = from - 1; left >= 0; left--) {
          if (token !== undefined) {
            // As the reference server reports progress: on the server, naming the request it belongs to.
            await server.notification(
              {
                method: 'notifications/progress',
                params: { progressToken: token, progress: from - left, total: from, message: `${left} to go` },
              },
              { relatedRequestId: extra.requestId },
            )
          }
        }
        return { content: [{ type: 'text', text: 'Liftoff' }] }
      }
      case 'delete_note': {
        const name = String(args.name)
        const answer = await server.elicitInput({
          message: `Delete note ${name}?`,
          requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
        })
        const confirmed = answer.action === 'accept' && answer.content?.confirm === true
        return { content: [{ type: 'text', text: confirmed ? `Deleted ${name}.` : `Kept ${name}.` }] }
      }
      case 'fail':
        throw new Error('the handler failed')
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`)
    }
  })

  // Paginated as the reference server pages its resources: the cursor is an offset.
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const start = Number(request.params?.cursor ?? 0)
    const names = Object.keys(NOTES)
    const resources: Resource[] = names.slice(start, start + PAGE).map((name) => ({
      uri: `notes://${name}`,
      name,
      mimeType: 'text/plain',
    }))
    const next = start + PAGE
    return next < names.length ? { resources, nextCursor: String(next) } : { resources }
  })

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'archive://{name}', name: 'archived note', mimeType: 'text/plain' }],
  }))

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri
    const name = uri.replace(/^(notes|archive):\/\//, '')
    const text = NOTES[name]
    if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `No note at ${uri}`)
    return { contents: [{ uri, mimeType: 'text/plain', text }] }
  })

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      {
        name: 'summarize',
        description: 'Summarize a note',
        arguments: [
          { name: 'note', description: 'Which note', required: true },
          { name: 'style', description: 'How to write it' },
        ],
      },
    ],
  }))

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const note = request.params.arguments?.note ?? ''
    const style = request.params.arguments?.style ?? 'plain'
    return {
      description: `Summary of ${note}`,
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize ${note} (${style}): ${NOTES[note] ?? '?'}` } }],
    }
  })

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params
    const pool = ref.type === 'ref/prompt' && argument.name === 'style' ? ['plain', 'bullets', 'haiku'] : Object.keys(NOTES)
    const values = pool.filter((value) => value.startsWith(argument.value))
    return { completion: { values, total: values.length, hasMore: false } }
  })

  // Kept by the runtime in mcp-edge: set as the SDK's servers set it, never called there.
  server.setRequestHandler(SetLevelRequestSchema, async () => ({}))

  return server
}

const notes = notesServer()

const BROWSER_TOOLS: Tool[] = [
  {
    name: 'browser_navigate',
    description: 'Navigate to a URL',
    inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
  },
  {
    name: 'browser_history',
    description: 'The pages this session visited',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
]

type History = { visited: string[] }

/** As Cloudflare's Playwright server: the agent's `server` is a promise of a low-level `Server`. */
export class BrowserMCP extends McpAgent<Env, History, Record<string, unknown>> {
  server = this.createServer()
  initialState: History = { visited: [] }

  async init() {}

  async createServer(): Promise<Server> {
    const server = new Server({ name: 'sdk-low-level-browser', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: BROWSER_TOOLS }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      if (request.params.name === 'browser_navigate') {
        const url = String(request.params.arguments?.url)
        this.setState({ visited: [...this.state.visited, url] })
        return { content: [{ type: 'text', text: `Navigated to ${url}` }] }
      }
      if (request.params.name === 'browser_history') {
        return { content: [{ type: 'text', text: this.state.visited.join(' ') || '(none)' }] }
      }
      // As that server answers a tool it does not know: a tool error, not a protocol one.
      return { content: [{ type: 'text', text: `Tool "${request.params.name}" not found` }], isError: true }
    })
    return server
  }
}

/**
 * As the SDK's reference "everything" server decides what to list: from the client's capabilities,
 * kept when the client initializes (`clientCapabilities!`: before that, its ListTools handler throws).
 */
function rootsAwareServer(): Server {
  const server = new Server({ name: 'sdk-low-level-roots', version: '1.0.0' }, { capabilities: { tools: {} } })
  let clientCapabilities: ClientCapabilities | undefined
  const echo: Tool = { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools: Tool[] = [echo]
    if (clientCapabilities!.roots)
      tools.push({ name: 'listRoots', description: 'List the roots', inputSchema: { type: 'object' } })
    return { tools }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'listRoots') {
      const { roots } = await server.listRoots()
      return { content: [{ type: 'text', text: roots.map((root) => root.uri).join(' ') || '(none)' }] }
    }
    return { content: [{ type: 'text', text: String(request.params.arguments?.text) }] }
  })
  server.oninitialized = () => {
    clientCapabilities = server.getClientCapabilities()
  }
  return server
}
const rootsAware = rootsAwareServer()

/** Test-only, not modelled on published code: servers whose lists cannot be read, and what a client is told. */
function misbuilt(list: () => Promise<{ tools: Tool[] }>): Server {
  const server = new Server({ name: 'misbuilt', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, list)
  return server
}
const throwing = misbuilt(async () => {
  throw new Error('upstream https://api.example.com/?key=SECRET-KEY failed')
})
const invalid = misbuilt(async () => ({ tools: [{ name: 'shapeless' } as Tool] }))

/** Test-only: an agent whose server lists a tool mcp-edge cannot serve. */
export class ShapelessMCP extends McpAgent<Env> {
  server = misbuilt(async () => ({ tools: [{ name: 'shapeless' } as Tool] }))

  async init() {}
}

/** Test-only: an agent whose server's list handler throws. */
export class MisbuiltMCP extends McpAgent<Env> {
  server = misbuilt(async () => {
    throw new Error('the catalog is down')
  })

  async init() {}
}

export { McpNonceLedger } from 'mcp-edge/cloudflare'

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const { pathname } = new URL(request.url)
    if (pathname === '/browser') return BrowserMCP.serve('/browser').fetch(request, env, ctx)
    if (pathname === '/shapeless-agent') {
      return ShapelessMCP.serve('/shapeless-agent', { binding: 'SHAPELESS_OBJECT' }).fetch(request, env, ctx)
    }
    if (pathname === '/misbuilt-agent')
      return MisbuiltMCP.serve('/misbuilt-agent', { binding: 'MISBUILT_OBJECT' }).fetch(request, env, ctx)
    if (pathname === '/roots') return createMcpHandler(rootsAware, { route: '/roots' })(request, env, ctx)
    if (pathname === '/throwing') return createMcpHandler(throwing, { route: '/throwing' })(request, env, ctx)
    if (pathname === '/invalid') return createMcpHandler(invalid, { route: '/invalid' })(request, env, ctx)
    return createMcpHandler(notes)(request, env, ctx)
  },
} satisfies ExportedHandler<Env>
