/**
 * The SDK 2.x repository's resources example (`examples/resources/server.ts` of
 * modelcontextprotocol/typescript-sdk), written again the same way: a direct resource
 * (`config://app`), a templated one (`greeting://{name}`), and `counter://value`, which the
 * `increment` tool bumps and announces on the handler's notifier (`handler.notify.resourceUpdated`)
 * for the streams other requests hold open: 2025-era GET streams and 2026-07-28 listen streams,
 * in every isolate through the Worker's `MCP_EVENTS` hub (wrangler.jsonc). Its own
 * `resources/subscribe` bookkeeping is kept as written (mcp-edge accepts the handlers and keeps
 * subscriptions itself). Its Node wiring (argv, stdio, the Hono app with host and origin guards)
 * becomes the handler alone; worker.ts serves it at /resources. Test-only
 * (test/http/sdk-examples-elicitation.test.ts).
 */
import type { McpRequestContext } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler, McpServer, ResourceTemplate } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server

export const COUNTER_URI = 'counter://value'

// Application state, one for every caller; which URIs a caller watches is per server (below).
let counter = 0

function buildServer(reqCtx: McpRequestContext, publishUpdated?: (uri: string) => void): McpServer {
  const server = new McpServer(
    { name: 'resources-example', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true, listChanged: true } } },
  )

  server.registerResource(
    'app-config',
    'config://app',
    { mimeType: 'application/json', description: 'Static application config' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: '{"feature":true}' }] }),
  )

  server.registerResource(
    'greeting',
    new ResourceTemplate('greeting://{name}', { list: undefined }),
    { description: 'A greeting for the named subject' },
    async (uri, vars) => ({ contents: [{ uri: uri.href, text: `Hello, ${vars.name}!` }] }),
  )

  server.registerResource(
    'counter',
    COUNTER_URI,
    { mimeType: 'text/plain', description: 'A number the increment tool bumps' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: String(counter) }] }),
  )

  const subscribedUris = new Set<string>()
  server.server.setRequestHandler('resources/subscribe', (request) => {
    subscribedUris.add(request.params.uri)
    return {}
  })
  server.server.setRequestHandler('resources/unsubscribe', (request) => {
    subscribedUris.delete(request.params.uri)
    return {}
  })

  server.registerTool('increment', { description: `Bump ${COUNTER_URI} by one` }, async () => {
    counter += 1
    if (publishUpdated) {
      // Served per request: published on the handler's notifier for the streams others hold open.
      publishUpdated(COUNTER_URI)
    } else if (reqCtx.era === 'modern' || subscribedUris.has(COUNTER_URI)) {
      await server.server.sendResourceUpdated({ uri: COUNTER_URI }).catch(() => {})
    }
    return { content: [{ type: 'text', text: String(counter) }] }
  })

  return server
}

export const resourcesHandler = createMcpHandler((reqCtx) =>
  buildServer(reqCtx, (uri) => resourcesHandler.notify.resourceUpdated(uri)),
)
