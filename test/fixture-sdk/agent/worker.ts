/**
 * SDK-style fixture (b): an `McpAgent` (Cloudflare `agents`) with an SDK 1.x `McpServer` and a
 * counter in the agent's state, as the authless template's counter does, served with
 * `CounterMCP.serve('/mcp')` on the `MCP_OBJECT` binding, and `RepoMCP`, served at a path pattern
 * with agents' lifecycle hooks. `calculate` is Cloudflare's authless template's, its schema in
 * zod 3 as that template's users wrote it. `LateMCP` assigns its server in `init()` behind a
 * getter that throws before, on a metering `McpServer` subclass (metered.ts), as Cloudflare's own
 * apps did. Only the import lines differ from that
 * code (`// was:` names the original; test/unit/sdk-fixture-types.test.ts puts it back).
 * `/sse` answers with serveSSE, which mcp-edge does not offer. Test-only (test/http/sdk-agent.test.ts).
 */
import { McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import { McpAgent } from 'mcp-edge/sdk' // was: agents/mcp
import type { Connection } from 'mcp-edge/sdk' // was: agents
import { z } from 'zod'
// Most McpAgent servers are on zod 3 (`import { z } from 'zod'` with zod 3.25): `zod/v3` is that API.
import { z as z3 } from 'zod/v3'
import { describeRequest, MeteredServer } from './metered.ts'
import type { RequestHandlerExtra } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/shared/protocol.js
import type { ServerNotification, ServerRequest } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/types.js

type State = { counter: number }

export class CounterMCP extends McpAgent<Env, State, Record<string, unknown>> {
  server = new McpServer({ name: 'sdk-agent-fixture', version: '1.0.0' })

  initialState: State = { counter: 0 }

  async init() {
    this.server.resource('counter', 'mcp://resource/counter', (uri) => ({
      contents: [{ uri: uri.href, text: String(this.state.counter) }],
    }))

    this.server.registerTool(
      'increment',
      { description: 'Add to the counter kept by this agent', inputSchema: { by: z.number().int() } },
      async ({ by }) => {
        this.setState({ ...this.state, counter: this.state.counter + by })
        return { content: [{ type: 'text', text: `counter is ${this.state.counter}` }] }
      },
    )

    this.server.tool('add', 'Add two numbers', { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))

    this.server.tool(
      'calculate',
      {
        operation: z3.enum(['add', 'subtract', 'multiply', 'divide']),
        a: z3.number(),
        b: z3.number().describe('The second operand'),
      },
      async ({ operation, a, b }) => {
        if (operation === 'divide' && b === 0) return { content: [{ type: 'text', text: 'Error: Cannot divide by zero' }] }
        const result = { add: a + b, subtract: a - b, multiply: a * b, divide: a / b }[operation]
        return { content: [{ type: 'text', text: String(result) }] }
      },
    )
  }
}

type Visits = { visits: number; hooks: string[] }

/**
 * Served at every path below /repo/ (`serve('/repo/*')`), as GitMCP and Sentry's servers serve a
 * pattern, with agents' lifecycle hooks: `onStart` overridden without calling `super` (as agents'
 * earlier releases had it, beside `init()`), and `validateStateChange` and `onStateChanged`, which
 * `setState` calls.
 */
export class RepoMCP extends McpAgent<Env, Visits, Record<string, unknown>> {
  server = new McpServer({ name: 'sdk-agent-repo', version: '1.0.0' })

  initialState: Visits = { visits: 0, hooks: [] }

  changes = 0

  override async onStart() {
    this.setState({ ...this.state, hooks: [...this.state.hooks, 'onStart'] })
  }

  // As agents types it; here the source is always 'server' (no WebSocket connections).
  override onStateChanged(_state: Visits | undefined, source: Connection | 'server') {
    if (source === 'server') this.changes++
  }

  override validateStateChange(next: Visits) {
    if (next.visits > 2) throw new Error('at most 2 visits a path')
  }

  async init() {
    this.server.tool('visit', 'Count a visit to this path', async () => {
      this.setState({ ...this.state, visits: this.state.visits + 1 })
      const seen = `${this.state.visits} visits; hooks ${this.state.hooks.join(',')}; ${this.changes} state changes`
      return { content: [{ type: 'text', text: seen }] }
    })
  }
}

/**
 * A start that fails twice, as one that opens connections might: first `init()` itself, after
 * registering its tool (the next request runs it again, and its tool's name is free again), then
 * an `onStart` that runs agents' own (which runs `init()`) and fails after it (the next request
 * starts the object again, `init()` a third time, its tool taken back before).
 */
export class FlakyMCP extends McpAgent<Env, unknown, Record<string, unknown>> {
  static initFailed = false
  static startFailed = false

  server = new McpServer({ name: 'sdk-agent-flaky', version: '1.0.0' })

  inits = 0

  override async onStart(props?: Record<string, unknown>) {
    await super.onStart(props)
    if (!FlakyMCP.startFailed) {
      FlakyMCP.startFailed = true
      throw new Error('the database was not ready')
    }
  }

  async init() {
    this.inits++
    this.server.tool('inits', 'How many times init() ran', async () => ({
      content: [{ type: 'text', text: `init ran ${this.inits} time(s)` }],
    }))
    if (!FlakyMCP.initFailed) {
      FlakyMCP.initFailed = true
      throw new Error('the upstream was not ready')
    }
  }
}

/**
 * A server given as a promise (an async factory, as agents allows), whose `init()` registers a
 * tool and then fails once: the next request's `init()` registers it again.
 */
export class PromisedMCP extends McpAgent<Env, unknown, Record<string, unknown>> {
  static initFailed = false

  server = Promise.resolve(new McpServer({ name: 'sdk-agent-promised', version: '1.0.0' }))

  inits = 0

  async init() {
    this.inits++
    ;(await this.server).tool('inits', 'How many times init() ran', async () => ({
      content: [{ type: 'text', text: `init ran ${this.inits} time(s)` }],
    }))
    if (!PromisedMCP.initFailed) {
      PromisedMCP.initFailed = true
      throw new Error('the upstream was not ready')
    }
  }
}

/**
 * A server assigned in `init()` behind a getter that throws until then, as most of Cloudflare's
 * own `McpAgent` apps had it, on a metering subclass (metered.ts), with more tools than mcp-edge's
 * native page of 50: an SDK server lists them all at once.
 */
export class LateMCP extends McpAgent<Env, unknown, Record<string, unknown>> {
  _server: MeteredServer | undefined

  set server(server: MeteredServer) {
    this._server = server
  }

  get server(): MeteredServer {
    if (!this._server) throw new Error('Tried to access server before it was initialized')
    return this._server
  }

  async init() {
    this.server = new MeteredServer({ name: 'sdk-agent-late', version: '1.0.0' })
    for (let i = 1; i <= 55; i++) {
      this.server.tool(`echo_${i}`, `Echo, number ${i}`, { text: z3.string() }, async ({ text }) => ({
        content: [{ type: 'text', text: `${i}: ${text}` }],
      }))
    }
    this.server.registerTool(
      'describe_request',
      { inputSchema: { level: z.enum(['info', 'warning', 'emergency']) } },
      // Registered through a call: an annotated handler given as it is needs a cast (docs/migrate.md).
      (args, extra) => describeRequest(args, extra as RequestHandlerExtra<ServerRequest, ServerNotification>),
    )
    this.server.tool('metered', 'What the metering counted', async () => ({
      content: [
        { type: 'text', text: JSON.stringify({ calls: Object.fromEntries(this.server.calls), clients: this.server.clients }) },
      ],
    }))
  }
}

/** What an OAuth provider in front hands over, as WorkOS AuthKit's demo grants it. */
type GateProps = { sub: string; permissions: string[]; accessToken: string }

/**
 * Cloudflare's remote-mcp-authkit demo, its AI binding left out: `init()` registers
 * `generateImage` only for a grant whose permissions include `image_generation`. Signed in again
 * with fewer permissions (or more), the same person's next request gets a set-up of its own; a new
 * token alone, which `init()` does not read, changes nothing (`inits` counts its runs).
 */
export class GateMCP extends McpAgent<Env, unknown, GateProps> {
  server = new McpServer({ name: 'sdk-agent-gate', version: '1.0.0' })

  inits = 0

  async init() {
    this.inits++
    this.server.tool('add', 'Add two numbers the way only MCP can', { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))
    this.server.tool('inits', 'How many times init() ran', async () => ({
      content: [{ type: 'text', text: `init ran ${this.inits} time(s); token ${this.props?.accessToken}` }],
    }))
    if (this.props!.permissions.includes('image_generation')) {
      this.server.tool('generateImage', 'Generate an image', { prompt: z.string() }, async ({ prompt }) => ({
        content: [{ type: 'text', text: `an image of ${prompt}` }],
      }))
    }
  }
}

/**
 * A class that narrows `props` with a field of its own and assigns it in `init()`, as published
 * McpAgent servers do (`props!: Props`; one assigns `this.props = (this as any).props`). This
 * fixture emits class fields as defined (ES2022), so the field is an own property of the object,
 * set to undefined after the base constructor; `init()` stores a derived value for its set-up
 * (and fails for a grant whose token is `fail`, after assigning), `rename` assigns one for its own
 * request only, `slow` answers with the props once `release` lets it, after a progress
 * notification has started its answer, and `before` says what `this.props` was in this object's
 * `fetch` before `super.fetch()`, outside any request.
 */
export class NarrowedMCP extends McpAgent<Env, unknown, GateProps> {
  server = new McpServer({ name: 'sdk-agent-narrowed', version: '1.0.0' })
  // @ts-expect-error TS2612 against agents' McpAgent too, where fields are emitted as defined (a
  // published server's `private props!: Props` is TS2415 there); wrangler bundles without
  // type-checking, and such servers run on agents.
  props!: GateProps
  seenBeforeFetch: unknown = 'unset'
  gate: (() => void) | undefined

  async fetch(request: Request) {
    this.seenBeforeFetch = this.props
    return super.fetch(request)
  }

  async init() {
    this.props = { ...this.props, sub: this.props.sub.toUpperCase() }
    if (this.props.accessToken === 'fail') throw new Error('the upstream API is down')
    const who = () => `${this.props.sub} ${this.props.accessToken}`
    this.server.tool('whoami', 'Who the set-up says is calling', async () => ({ content: [{ type: 'text', text: who() }] }))
    this.server.tool('rename', 'Call yourself something else, for this request', { sub: z.string() }, async ({ sub }) => {
      this.props = { ...this.props, sub }
      return { content: [{ type: 'text', text: this.props.sub }] }
    })
    this.server.tool('slow', 'Who is calling, once released', async (extra) => {
      const released = new Promise<void>((resolve) => (this.gate = resolve))
      const progressToken = extra._meta?.progressToken
      if (progressToken !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1 } })
      }
      await released
      return { content: [{ type: 'text', text: who() }] }
    })
    this.server.tool('release', 'Let slow answer', async () => {
      this.gate?.()
      return { content: [{ type: 'text', text: 'released' }] }
    })
    this.server.tool('object', 'Which Durable Object serves the call', async () => ({
      content: [{ type: 'text', text: this.ctx.id.toString() }],
    }))
    this.server.tool('unassign', 'Assign undefined, for this request, and say who is calling', async () => {
      this.props = undefined as unknown as GateProps
      return { content: [{ type: 'text', text: who() }] }
    })
    this.server.tool('before', "What this.props was in the object's fetch, before super.fetch()", async () => ({
      content: [{ type: 'text', text: String(JSON.stringify(this.seenBeforeFetch)) }],
    }))
  }
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const { pathname } = new URL(request.url)
    if (pathname === '/gate') {
      // Added for the test: the grant an OAuth provider would hand over (ctx.props), as the test names it.
      ;(ctx as ExecutionContext & { props: unknown }).props = JSON.parse(request.headers.get('x-test-grant') ?? 'null')
      return GateMCP.serve('/gate', { binding: 'GATE_OBJECT' }).fetch(request, env, ctx)
    }
    if (pathname === '/narrowed') {
      ;(ctx as ExecutionContext & { props: unknown }).props = JSON.parse(request.headers.get('x-test-grant') ?? 'null')
      return NarrowedMCP.serve('/narrowed', { binding: 'NARROWED_OBJECT' }).fetch(request, env, ctx)
    }
    if (pathname === '/sse' || pathname === '/sse/message') return CounterMCP.serveSSE('/sse').fetch(request, env, ctx)
    if (pathname.startsWith('/repo/')) return RepoMCP.serve('/repo/*', { binding: 'REPO_OBJECT' }).fetch(request, env, ctx)
    if (pathname === '/flaky') return FlakyMCP.serve('/flaky', { binding: 'FLAKY_OBJECT' }).fetch(request, env, ctx)
    if (pathname === '/promised') return PromisedMCP.serve('/promised', { binding: 'PROMISED_OBJECT' }).fetch(request, env, ctx)
    if (pathname === '/late') return LateMCP.serve('/late', { binding: 'LATE_OBJECT' }).fetch(request, env, ctx)
    if (pathname === '/mcp') return CounterMCP.serve('/mcp').fetch(request, env, ctx)
    return new Response('Not found', { status: 404 })
  },
} satisfies ExportedHandler<Env>
