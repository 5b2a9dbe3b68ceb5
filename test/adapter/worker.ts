/**
 * The adapter's test Worker: tools written as SDK code (1.x `registerTool`/`tool`, awaited
 * elicitation, progress; 2.x `inputRequired`), a handle enabled and disabled at run time, a
 * resource template with `list` and `complete`, a prompt, and an `McpAgent` with state.
 */
import { createDurableObjects } from 'mcp-edge/cloudflare'
import {
  acceptedContent,
  completable,
  createMcpHandler,
  getMcpAuthContext,
  inputRequired,
  McpAgent,
  McpServer,
  ResourceTemplate,
} from 'mcp-edge/sdk'
import * as z from 'zod'

const server = new McpServer({ name: 'adapter-fixture', version: '1.0.0' })

server.registerTool(
  'add',
  {
    title: 'Add',
    description: 'Adds two numbers',
    inputSchema: { a: z.number(), b: z.number() },
    annotations: { readOnlyHint: true },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

server.tool('echo', 'Echoes its text', { text: z.string() }, async ({ text }, extra) => ({
  content: [{ type: 'text', text: `${text} (request ${String(extra.requestId)})` }],
}))

server.tool('whoami', async () => ({ content: [{ type: 'text', text: JSON.stringify(getMcpAuthContext()?.props ?? null) }] }))

server.registerTool('fail', { description: 'Always throws' }, async () => {
  throw new Error('the tool failed on purpose')
})

server.registerTool('count_down', { inputSchema: { from: z.number().int().min(1).max(5) } }, async ({ from }, extra) => {
  for (let step = 1; step <= from; step++) {
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken: extra._meta?.progressToken ?? 0, progress: step, total: from },
    })
  }
  return { content: [{ type: 'text', text: 'lift-off' }] }
})

// SDK 1.x: ask and await, in place.
server.registerTool(
  'book_table',
  { inputSchema: { people: z.number() }, annotations: { readOnlyHint: false, destructiveHint: false } },
  async ({ people }) => {
    const answer = await server.server.elicitInput({
      message: `Book a table for ${people}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    })
    if (answer.action !== 'accept' || answer.content?.confirm !== true)
      return { content: [{ type: 'text', text: 'Not booked.' }] }
    return { content: [{ type: 'text', text: `Booked for ${people}.` }] }
  },
)

// SDK 2.x: return inputRequired, read acceptedContent on the retry; a decline is asked again once.
const Confirm = z.object({ confirm: z.boolean() })
server.registerTool(
  'deploy',
  { inputSchema: { env: z.string() }, annotations: { destructiveHint: false } },
  async ({ env }, ctx) => {
    const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', Confirm)
    if (confirmed?.confirm === true) return { content: [{ type: 'text', text: `Deployed to ${env}.` }] }
    const declined = ctx.mcpReq.inputResponses?.confirm !== undefined
    if (declined && ctx.mcpReq.requestState() === 'asked twice') return { content: [{ type: 'text', text: 'Not deployed.' }] }
    return inputRequired({
      inputRequests: { confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: Confirm }) },
      requestState: declined ? 'asked twice' : 'asked once',
    })
  },
)

const beta = server.registerTool('beta', { description: 'Only while enabled' }, async () => ({
  content: [{ type: 'text', text: 'beta' }],
}))
beta.disable()
server.registerTool('toggle_beta', { inputSchema: { on: z.boolean() } }, async ({ on }) => {
  if (on) beta.enable()
  else beta.disable()
  return { content: [{ type: 'text', text: `beta ${on ? 'on' : 'off'}` }] }
})

server.registerResource('readme', 'docs://readme', { mimeType: 'text/markdown' }, async (uri) => ({
  contents: [{ uri: uri.href, text: '# Read me' }],
}))

const USERS = ['ada', 'alan', 'grace']
server.registerResource(
  'user',
  new ResourceTemplate('users://{id}', {
    list: async () => ({ resources: USERS.map((id) => ({ uri: `users://${id}`, name: id })) }),
    complete: { id: (value) => USERS.filter((id) => id.startsWith(value)) },
  }),
  { description: 'A user' },
  async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `user ${String(id)}` }] }),
)

server.registerPrompt(
  'review',
  {
    description: 'Review code',
    argsSchema: {
      language: completable(z.string(), (value) => ['go', 'rust', 'ts'].filter((l) => l.startsWith(value))),
      code: z.string(),
    },
  },
  ({ language, code }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Review this ${language}: ${code}` } }] }),
)

export const { McpNonceLedger } = createDurableObjects(server.edge)

interface State {
  count: number
}

export class Counter extends McpAgent<Env, State> {
  server = new McpServer({ name: 'counter', version: '1.0.0' })
  initialState: State = { count: 0 }

  async init() {
    this.server.tool('increment', { by: z.number().default(1) }, async ({ by }) => {
      this.setState({ count: this.state.count + by })
      return { content: [{ type: 'text', text: String(this.state.count) }] }
    })
    this.server.tool('count', async () => ({ content: [{ type: 'text', text: String(this.state.count) }] }))
    this.server.tool('props', async () => ({ content: [{ type: 'text', text: JSON.stringify(this.props ?? null) }] }))
  }
}

const mcpHandler = createMcpHandler(server)
const agent = Counter.serve('/agent')
const sse = Counter.serveSSE('/sse')

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const { pathname } = new URL(request.url)
    if (pathname === '/agent') return agent.fetch(request, env, ctx)
    if (pathname === '/sse') return sse.fetch(request, env, ctx)
    return mcpHandler(request, env, ctx)
  },
}
