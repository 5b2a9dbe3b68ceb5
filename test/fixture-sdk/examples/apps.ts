/**
 * MCP Apps' basic example server (`examples/basic-server-vanillajs/server.ts` of
 * modelcontextprotocol/ext-apps), written again the same way on the SDK 2.x that ext-apps 2.x is
 * typed for: `get-time` names its view under the flat `ui/resourceUri` key and answers with
 * structured content; the view is registered with `registerAppResource`. Two tools beside it name
 * their view the newer way (`_meta.ui`), one visible to the view only, as ext-apps' other examples
 * do. The helpers are imported from `mcp-edge/sdk` in the place of
 * `@modelcontextprotocol/ext-apps/server` (porting round X: ext-apps' own run here, but their types
 * take the SDK's class). Its HTML comes from a file the example builds; here it is inline. Its
 * Node wiring becomes the handler; worker.ts serves it at /apps. Test-only
 * (test/http/sdk-examples.test.ts).
 */
import type { CallToolResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource, registerAppTool } from 'mcp-edge/sdk' // was: @modelcontextprotocol/ext-apps/server
import type { LegacyToolCallback, McpUiReadResourceResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/ext-apps/server
import * as z from 'zod/v4'

export const APP_URI = 'ui://get-time/mcp-app.html'
export const APP_HTML = '<!doctype html><html><body><p id="time">…</p></body></html>'
const PLAIN_URI = 'ui://get-time/plain.html'

function createServer(): McpServer {
  const server = new McpServer({ name: 'Basic MCP App Server', version: '1.0.0' })

  registerAppTool(
    server,
    'get-time',
    {
      title: 'Get Time',
      description: 'Returns the current server time as an ISO 8601 string.',
      inputSchema: {},
      outputSchema: z.object({ time: z.string() }),
      _meta: { [RESOURCE_URI_META_KEY]: APP_URI },
    },
    async (): Promise<CallToolResult> => {
      const data = { time: new Date().toISOString() }
      return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data }
    },
  )

  // Type arguments given, in the order of ext-apps 2.x's raw-shape overload (input first), and
  // the callback typed by its name for that overload.
  const shiftInput = { hours: z.number() }
  const shift: LegacyToolCallback<typeof shiftInput> = async ({ hours }): Promise<CallToolResult> => ({
    content: [{ type: 'text', text: new Date(Date.now() + hours * 3_600_000).toISOString() }],
  })
  registerAppTool<typeof shiftInput>(
    server,
    'shift-time',
    { description: 'The time some hours from now.', inputSchema: shiftInput, _meta: { ui: { resourceUri: APP_URI } } },
    shift,
  )

  registerAppTool(
    server,
    'refresh-time',
    { description: 'Called by the view only.', _meta: { ui: { resourceUri: APP_URI, visibility: ['app'] } } },
    async (): Promise<CallToolResult> => ({ content: [{ type: 'text', text: new Date().toISOString() }] }),
  )

  // Both keys given (another view under the flat one), beside a host's own key, as servers that
  // also serve ChatGPT's Apps SDK write them: kept as given.
  registerAppTool(
    server,
    'compare-time',
    {
      description: 'Two clocks.',
      _meta: { ui: { resourceUri: APP_URI }, [RESOURCE_URI_META_KEY]: PLAIN_URI, 'openai/outputTemplate': APP_URI },
    },
    async (): Promise<CallToolResult> => ({ content: [{ type: 'text', text: new Date().toISOString() }] }),
  )

  registerAppResource(
    server,
    APP_URI,
    APP_URI,
    { mimeType: RESOURCE_MIME_TYPE, _meta: { ui: { prefersBorder: true } } },
    async (): Promise<McpUiReadResourceResult> => ({
      contents: [{ uri: APP_URI, mimeType: RESOURCE_MIME_TYPE, text: APP_HTML }],
    }),
  )

  registerAppResource(server, 'Plain view', PLAIN_URI, {}, async () => ({
    contents: [{ uri: PLAIN_URI, mimeType: RESOURCE_MIME_TYPE, text: APP_HTML }],
  }))

  // Its metadata's MIME type is kept over the helper's.
  registerAppResource(server, 'Page', 'ui://get-time/page.html', { mimeType: 'text/html' }, async () => ({
    contents: [{ uri: 'ui://get-time/page.html', mimeType: 'text/html', text: APP_HTML }],
  }))

  return server
}

export const appsHandler = createMcpHandler(() => createServer())
