/**
 * The adapter's test Worker: tools written as SDK code (1.x `registerTool`/`tool`, awaited
 * elicitation, progress; 2.x `inputRequired`), a handle enabled and disabled at run time, a
 * resource template with `list` and `complete`, a prompt, and an `McpAgent` with state; at
 * `/signed` the same server with agents' `authContext` props (`getMcpAuthContext()`); at `/plain`
 * a server built without `events`; at `/per-user` a factory that reads the caller's props.
 */
import { cloudflareEventHub, cloudflareServices, createDurableObjects } from 'mcp-edge/cloudflare'
import {
  acceptedContent,
  completable,
  createMcpHandler,
  ElicitResultSchema,
  ErrorCode,
  getMcpAuthContext,
  inputRequired,
  McpAgent,
  McpError,
  McpServer,
  ResourceTemplate,
  SqlError,
} from 'mcp-edge/sdk'
import * as z from 'zod'

// The one line SDK code adds to reach every isolate's listeners: mcp-edge's event hub.
const server = new McpServer(
  { name: 'adapter-fixture', version: '1.0.0' },
  { events: cloudflareEventHub({ binding: 'MCP_EVENTS' }) },
)

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
server.tool('auth_info', async (extra) => ({ content: [{ type: 'text', text: JSON.stringify(extra.authInfo ?? null) }] }))

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

// SDK 1.x: a question that must be answered in time, else the tool gives up (chat-ui's
// impatient_confirm; porting round Q): the SDKs reject it with -32001 once `timeout` passes.
server.registerTool('impatient', { inputSchema: { ms: z.number() }, annotations: { readOnlyHint: true } }, async ({ ms }) => {
  try {
    const answer = await server.server.elicitInput(
      { message: `Answer within ${ms} ms`, requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
      { timeout: ms },
    )
    return { content: [{ type: 'text', text: `answered: ${answer.action}` }] }
  } catch (error) {
    return { content: [{ type: 'text', text: `gave up: ${(error as Error).message}` }], isError: true }
  }
})

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

// Asks again whatever the answer, as the agents conformance server's elicitation tool does once
// declined: mcp-edge cuts the call off after MAX_ROUNDS_PER_CALL rounds (sdk/input.ts).
server.registerTool('insist', { annotations: { destructiveHint: false } }, async (ctx) => {
  const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', Confirm)
  if (confirmed?.confirm === true) return { content: [{ type: 'text', text: 'Confirmed.' }] }
  return inputRequired({ inputRequests: { confirm: inputRequired.elicit({ message: 'Sure?', requestedSchema: Confirm }) } })
})

// A tuple in an output schema, as mapbox/mcp-server's bounding boxes are: SDK 1.x's client checks
// the result with a draft-07 validator, which read `items: false` beside `prefixItems` as every item refused.
server.registerTool('bbox', { outputSchema: { bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]) } }, async () => ({
  content: [{ type: 'text', text: '[-1,50,1,52]' }],
  structuredContent: { bbox: [-1, 50, 1, 52] },
}))

// SDK 1.x: a raw request with its result schema.
server.registerTool(
  'rename',
  { inputSchema: { from: z.string() }, annotations: { destructiveHint: false } },
  async ({ from }, extra) => {
    const answer = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: {
          message: `New name for ${from}?`,
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
        },
      },
      ElicitResultSchema,
    )
    return {
      content: [
        {
          type: 'text',
          text: answer.action === 'accept' ? `${from} is now ${String(answer.content?.name)}` : `${from} kept its name`,
        },
      ],
    }
  },
)

// SDK 1.x: a question in try/catch, as the SDK's examples ask (a client's error answer rejects it).
server.registerTool(
  'rename_or_keep',
  { inputSchema: { from: z.string() }, annotations: { destructiveHint: false } },
  async ({ from }) => {
    try {
      const answer = await server.server.elicitInput({
        message: `New name for ${from}?`,
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      })
      return { content: [{ type: 'text', text: `${from}: ${answer.action}` }] }
    } catch (error) {
      const { code, message } = error as McpError
      return { content: [{ type: 'text', text: `${from} kept its name (${code}: ${message})` }] }
    }
  },
)

server.registerTool('lookup', { inputSchema: { city: z.string() } }, async ({ city }) => {
  throw new McpError(ErrorCode.InvalidParams, `Unknown city: ${city}`)
})

// A durable task through the SDK's task option; its steps are mcp-edge's (extra.edge).
server.registerTool(
  'tally',
  { inputSchema: { upTo: z.number().int().min(1).max(5) }, execution: { taskSupport: 'optional' } },
  async ({ upTo }, extra) => {
    let sum = 0
    for (let n = 1; n <= upTo; n++) sum += await extra.edge.step(`add ${n}`, () => n)
    return { content: [{ type: 'text', text: `sum ${sum}` }] }
  },
)

/** A tool listed only while enabled, and the tool that enables it: list changes from handles. */
function addToggle(target: McpServer): void {
  const beta = target.registerTool('beta', { description: 'Only while enabled' }, async () => ({
    content: [{ type: 'text', text: 'beta' }],
  }))
  beta.disable()
  target.registerTool('toggle_beta', { inputSchema: { on: z.boolean() } }, async ({ on }) => {
    if (on) beta.enable()
    else beta.disable()
    return { content: [{ type: 'text', text: `beta ${on ? 'on' : 'off'}` }] }
  })
}
addToggle(server)

// Built as SDK code builds it, without mcp-edge's `events` option: the Worker's MCP_EVENTS binding
// is found by convention.
const plain = new McpServer({ name: 'adapter-plain', version: '1.0.0' })
addToggle(plain)

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

// Completion callbacks run in the request's context, as handlers do: the grant's props are there.
server.registerResource(
  'mine',
  new ResourceTemplate('mine://{owner}', {
    list: undefined,
    complete: { owner: () => [String(getMcpAuthContext()?.props.login ?? 'nobody')] },
  }),
  { description: "The signed-in person's" },
  async (uri) => ({ contents: [{ uri: uri.href, text: String(getMcpAuthContext()?.props.login ?? 'nobody') }] }),
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

export const { McpNonceLedger, McpTaskObject, McpEventHub, McpSessionLedger } = createDurableObjects(server.edge)

interface State {
  count: number
}

/** How many times the /agent-broken caller's object fails its init(). */
let initFailures = 1

export class Counter extends McpAgent<Env, State> {
  server = new McpServer({ name: 'counter', version: '1.0.0' })
  initialState: State = { count: 0 }

  async init() {
    // Rejection paths: an init() that throws once (for the caller /agent-broken names), and a
    // question asked outside a handler, whose refusal the tool ask_outside reports.
    if (this.props?.sub === 'broken-init' && initFailures-- > 0) throw new Error('init failed: the database password is hunter2')
    let askedOutside = 'asked'
    try {
      await this.elicitInput({ message: 'From init?', requestedSchema: { type: 'object', properties: {} } })
    } catch (error) {
      askedOutside = error instanceof Error ? error.message : String(error)
    }
    this.server.tool('ask_outside', async () => ({ content: [{ type: 'text', text: askedOutside }] }))
    this.server.tool('increment', { by: z.number().default(1) }, async ({ by }) => {
      this.setState({ count: this.state.count + by })
      return { content: [{ type: 'text', text: String(this.state.count) }] }
    })
    this.server.tool('count', async () => ({ content: [{ type: 'text', text: String(this.state.count) }] }))
    this.server.tool('props', async () => ({ content: [{ type: 'text', text: JSON.stringify(this.props ?? null) }] }))
    // agents' own helpers: this.sql on the object's storage, this.elicitInput for the running call.
    this.server.tool('remember', { word: z.string() }, async ({ word }) => {
      this.sql`CREATE TABLE IF NOT EXISTS words (word TEXT)`
      this.sql`INSERT INTO words (word) VALUES (${word})`
      // A boolean, as agents' types take it (workerd binds it as text).
      this.sql`CREATE TABLE IF NOT EXISTS flags (word TEXT, long)`
      this.sql`INSERT INTO flags (word, long) VALUES (${word}, ${word.length > 3})`
      const [row] = this.sql<{ n: number }>`SELECT count(*) AS n FROM words`
      return { content: [{ type: 'text', text: `${row?.n ?? 0} words` }] }
    })
    // A query that fails throws agents' SqlError (porting round S: code passes its message on).
    this.server.tool('forget', { word: z.string() }, async ({ word }) => {
      try {
        this.sql`DELETE FROM no_such_table WHERE word = ${word}`
        return { content: [{ type: 'text', text: 'forgotten' }] }
      } catch (error) {
        const { name, message, query } = error as SqlError
        return { content: [{ type: 'text', text: `${error instanceof SqlError} ${name}: ${message} (${query})` }], isError: true }
      }
    })
    this.server.tool('double', {}, { readOnlyHint: false, destructiveHint: false }, async () => {
      const answer = await this.elicitInput({
        message: 'Double the count?',
        requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } }, required: ['yes'] },
      })
      if (answer.action === 'accept' && answer.content?.yes === true) this.setState({ count: this.state.count * 2 })
      return { content: [{ type: 'text', text: String(this.state.count) }] }
    })
    // No annotations: destructive by MCP's default, so its confirmation is single-use.
    this.server.registerTool('reset', { description: 'Sets the count to zero' }, async (ctx) => {
      if (acceptedContent(ctx.mcpReq.inputResponses, 'sure')?.sure !== true) {
        return inputRequired({
          inputRequests: {
            sure: inputRequired.elicit({ message: 'Reset the count?', requestedSchema: z.object({ sure: z.boolean() }) }),
          },
        })
      }
      this.setState({ count: 0 })
      return { content: [{ type: 'text', text: 'reset' }] }
    })
  }
}

// The keys only when set, as the adapter's conventional services bind them (a test runs without).
const services = (env: Env) =>
  cloudflareServices({
    stateKeys: env.MCP_STATE_KEYS ? 'MCP_STATE_KEYS' : undefined,
    tasks: 'MCP_TASKS',
    nonces: 'NONCES',
    sessions: 'MCP_SESSIONS',
  })(env)
const mcpHandler = createMcpHandler(server, { services })
// The same server with the props agents' examples give per request (`getMcpAuthContext()`).
const signed = createMcpHandler(server, { route: '/signed', services, authContext: { props: { login: 'ada' } } })
const plainHandler = createMcpHandler(plain, { route: '/plain', services })
// A factory that reads the caller's props while it builds (agents runs it in the request's
// context): the test gives each request its caller in a header, as an app's own sign-in would.
const perUser = () => {
  const login = getMcpAuthContext()?.props.login
  const own = new McpServer({ name: 'adapter-per-user', version: '1.0.0' })
  own.tool('hello', async () => ({ content: [{ type: 'text', text: `hello ${String(login ?? 'stranger')}` }] }))
  return own
}
// Rejection paths: a build that fails once (tried again on the next request), an agent whose
// binding the Worker lacks, one handed props that name no one, one whose init() throws, and one
// that authenticates its callers.
let failing = 1
const flaky = createMcpHandler(
  () => {
    if (failing-- > 0) throw new Error('the first build fails')
    return plain
  },
  { route: '/flaky', services },
)
const sdk2Auth = createMcpHandler(server, { route: '/sdk2-auth', services })
const unbound = Counter.serve('/agent-unbound', { binding: 'NO_SUCH_BINDING' })
const nameless = Counter.serve('/agent-nameless')
const brokenInit = Counter.serve('/agent-broken')
// An agent whose Worker authenticates its callers itself (mcp-edge's authenticate option).
const guarded = Counter.serve('/agent-auth', {
  authenticate: (request) => (request.headers.get('authorization') === 'Bearer good' ? { subject: 'good' } : undefined),
})
// An agent served with the lane and limit options its object acts on (forwarded by serve()).
const strict = Counter.serve('/agent-strict', {
  authenticate: () => ({ subject: 'strict' }),
  legacy: 'reject',
  maxBodyBytes: 600,
})
// A factory written with a rest parameter (so `length` is 0) that builds from its context.
const restFactory = (...args: { authInfo?: { clientId: string } }[]) => {
  const who = args[0]?.authInfo?.clientId ?? 'nobody'
  const own = new McpServer({ name: 'adapter-rest-factory', version: '1.0.0' })
  own.tool('hello', async () => ({ content: [{ type: 'text', text: `hello ${who}` }] }))
  return own
}
const agent = Counter.serve('/agent')
const sse = Counter.serveSSE('/sse')
const sseBound = Counter.serveSSE('/sse-bound', { binding: 'COUNTER_OBJECT' })

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const { pathname } = new URL(request.url)
    if (pathname === '/agent') return agent.fetch(request, env, ctx)
    if (pathname === '/sse') return sse.fetch(request, env, ctx)
    if (pathname === '/sse-bound') return sseBound.fetch(request, env, ctx)
    if (pathname === '/signed') return signed(request, env, ctx)
    if (pathname === '/plain') return plainHandler(request, env, ctx)
    if (pathname === '/flaky') return flaky(request, env, ctx)
    if (pathname === '/sdk2-auth') {
      // SDK 2.x's own handler shape: the caller its middleware verified, and the body it parsed.
      const parsedBody = await request.json()
      const authInfo = { token: 'opaque', clientId: 'app-1', scopes: ['read'], extra: { sub: 'sam' } }
      return sdk2Auth.fetch(request, { authInfo, parsedBody })
    }
    if (pathname === '/agent-unbound') return unbound.fetch(request, env, ctx)
    // Straight to an agent's object, as agents' routeAgentRequest routes /agents/<binding>/<name>.
    if (pathname === '/agent-direct') return env.MCP_OBJECT.get(env.MCP_OBJECT.idFromName('principal:alice')).fetch(request)
    if (pathname === '/rest-factory') {
      const authInfo = { token: 'opaque', clientId: request.headers.get('x-test-client') ?? 'nobody', scopes: [] }
      return createMcpHandler(restFactory, { route: '/rest-factory', services }).fetch(request, { authInfo })
    }
    if (pathname === '/agent-nameless') {
      // As an OAuth provider in front hands the grant's props over on the execution context.
      const granted = { waitUntil: (promise: Promise<unknown>) => ctx.waitUntil(promise), props: { color: 'blue' } }
      return nameless.fetch(request, env, granted as unknown as ExecutionContext)
    }
    if (pathname === '/agent-auth') return guarded.fetch(request, env, ctx)
    if (pathname === '/agent-strict') return strict.fetch(request, env, ctx)
    if (pathname === '/agent-broken') {
      const granted = { waitUntil: (promise: Promise<unknown>) => ctx.waitUntil(promise), props: { sub: 'broken-init' } }
      return brokenInit.fetch(request, env, granted as unknown as ExecutionContext)
    }
    if (pathname.startsWith('/agent/')) return agent.fetch(request, env, ctx)
    if (pathname === '/per-user') {
      const login = request.headers.get('x-test-login')
      const authContext = login === null ? undefined : { props: { login } }
      return createMcpHandler(perUser, { route: '/per-user', services, authContext })(request, env, ctx)
    }
    return mcpHandler(request, env, ctx)
  },
}
