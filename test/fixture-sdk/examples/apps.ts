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
import type { CallToolResult, ReadResourceResult } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { createMcpHandler, McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY, registerAppResource, registerAppTool } from 'mcp-edge/sdk' // was: @modelcontextprotocol/ext-apps/server
import * as z from 'zod/v4'

export const APP_URI = 'ui://get-time/mcp-app.html'
export const APP_HTML = '<!doctype html><html><body><p id="time">…</p></body></html>'

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

  registerAppTool(
    server,
    'shift-time',
    {
      description: 'The time some hours from now.',
      inputSchema: { hours: z.number() },
      _meta: { ui: { resourceUri: APP_URI } },
    },
    async ({ hours }): Promise<CallToolResult> => ({
      content: [{ type: 'text', text: new Date(Date.now() + hours * 3_600_000).toISOString() }],
    }),
  )

  registerAppTool(
    server,
    'refresh-time',
    { description: 'Called by the view only.', _meta: { ui: { resourceUri: APP_URI, visibility: ['app'] } } },
    async (): Promise<CallToolResult> => ({ content: [{ type: 'text', text: new Date().toISOString() }] }),
  )

  registerAppResource(
    server,
    APP_URI,
    APP_URI,
    { mimeType: RESOURCE_MIME_TYPE, _meta: { ui: { prefersBorder: true } } },
    async (): Promise<ReadResourceResult> => ({
      contents: [{ uri: APP_URI, mimeType: RESOURCE_MIME_TYPE, text: APP_HTML }],
    }),
  )

  registerAppResource(server, 'Plain view', 'ui://get-time/plain.html', {}, async () => ({
    contents: [{ uri: 'ui://get-time/plain.html', mimeType: RESOURCE_MIME_TYPE, text: APP_HTML }],
  }))

  return server
}

export const appsHandler = createMcpHandler(() => createServer())
