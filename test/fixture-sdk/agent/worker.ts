/**
 * SDK-style fixture (b): an `McpAgent` (Cloudflare `agents`) with an SDK 1.x `McpServer` and a
 * counter in the agent's state, as the authless template's counter does, served with
 * `CounterMCP.serve('/mcp')` on the `MCP_OBJECT` binding. Only the import lines differ from that
 * code (`// was:` names the original; test/unit/sdk-fixture-types.test.ts puts it back).
 * `/sse` answers with serveSSE, which mcp-edge does not offer. Test-only (test/http/sdk-agent.test.ts).
 */
import { McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import { McpAgent } from 'mcp-edge/sdk' // was: agents/mcp
import { z } from 'zod'

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
  }
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    const { pathname } = new URL(request.url)
    if (pathname === '/sse' || pathname === '/sse/message') return CounterMCP.serveSSE('/sse').fetch(request, env, ctx)
    if (pathname === '/mcp') return CounterMCP.serve('/mcp').fetch(request, env, ctx)
    return new Response('Not found', { status: 404 })
  },
} satisfies ExportedHandler<Env>
