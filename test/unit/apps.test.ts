/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) in the runtime: a view is a
 * `ui://` resource listed and read with the app MIME type and its `_meta.ui`; a tool names it in
 * `_meta.ui.resourceUri` and the flat `ui/resourceUri`; the server declares the extension once it
 * has a view, in 2026 capabilities and in a 2025 `initialize` alike; a tool reads per request
 * whether its client renders views, in both eras; scopes guard a view as any resource. Results
 * are checked against the official schemas; the server's icons reach both eras' serverInfo.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { APP_MIME_TYPE, APPS_EXTENSION, rendersViews } from '../../packages/mcp-edge/src/server/apps.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { ServerOptions } from '../../packages/mcp-edge/src/server/types.ts'
import { legacySchemaErrors } from '../support/schema-2025.ts'
import { buildRequest } from '../support/mcp.ts'
import { schemaErrors } from '../support/schema.ts'

const ENDPOINT = 'http://127.0.0.1:8787/mcp'
const VIEW = 'ui://notes/board.html'
const HTML = '<!doctype html><html><body><div id="board"></div></body></html>'
const APPS = { extensions: { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } }
const KEYS = 'unit:bWNwLWVkZ2UgdW5pdCB0ZXN0IGtleSwgbm90IGEgc2VjcmV0ISEhISE='
const ICON = { src: 'https://mcp-edge.example/icon.png', mimeType: 'image/png', sizes: ['48x48'] }

function serve(options: Partial<ServerOptions> = {}, withView = true) {
  const server = createMcpServer({ name: 'apps', version: '1.0.0', ...options })
  if (withView) {
    server.view(VIEW, {
      name: 'Notes board',
      description: 'The notes, on a board',
      html: HTML,
      csp: { connectDomains: ['https://api.example.com'] },
      prefersBorder: true,
    })
  }
  server.tool(
    'show_notes',
    { description: 'Shows the notes', input: z.object({}), ...(withView ? { view: VIEW } : {}) },
    (_args, ctx) => ({
      content: [{ type: 'text', text: rendersViews(ctx.meta.clientCapabilities) ? 'on the board' : 'milk, eggs' }],
      structuredContent: { notes: ['milk', 'eggs'] },
    }),
  )
  server.tool(
    'refresh',
    { description: 'For the view only', input: z.object({}), view: { uri: VIEW, visibility: ['app'] } },
    () => ({
      content: [{ type: 'text', text: 'refreshed' }],
    }),
  )
  const requestState = new RequestStateCodec(createKeyRing(KEYS))
  const handle = createMcpHandler(server, { services: () => ({ requestState }) })
  const send = async (method: string, params: Record<string, unknown> = {}, capabilities: Record<string, unknown> = {}) => {
    const response = await handle(buildRequest(ENDPOINT, method, params, { capabilities }), undefined)
    return (await response.json()) as { result: Record<string, any>; error?: { code: number } }
  }
  /** A 2025 client: `initialize` with `capabilities`, then calls in its session. */
  const legacy = async (capabilities: Record<string, unknown> = {}) => {
    const response = await handle(
      new Request(ENDPOINT, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'host', version: '1' } },
        }),
      }),
      undefined,
    )
    const session = response.headers.get('mcp-session-id') ?? ''
    const call = async (name: string) => {
      const answered = await handle(
        new Request(ENDPOINT, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
            'mcp-session-id': session,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: {} } }),
        }),
        undefined,
      )
      return ((await answered.json()) as { result: { content: { text: string }[] } }).result.content[0]?.text
    }
    return { ...((await response.json()) as { result: Record<string, any> }), call }
  }
  return { send, legacy }
}

describe('MCP Apps: views and the tools that name them', () => {
  it('lists a tool with its view in _meta.ui.resourceUri and the flat ui/resourceUri, app-only tools with their visibility', async () => {
    const { send } = serve()
    const { result } = await send('tools/list')
    expect(schemaErrors('ListToolsResult', result)).toEqual([])
    const [show, refresh] = result.tools
    expect(show._meta).toEqual({ ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW })
    expect(refresh._meta).toEqual({ ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW })
  })

  it('lists and reads the view with exactly the app MIME type and its _meta.ui', async () => {
    const { send } = serve()
    const listed = await send('resources/list')
    expect(schemaErrors('ListResourcesResult', listed.result)).toEqual([])
    const ui = { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true }
    expect(listed.result.resources).toEqual([
      { uri: VIEW, name: 'Notes board', description: 'The notes, on a board', mimeType: APP_MIME_TYPE, _meta: { ui } },
    ])
    const read = await send('resources/read', { uri: VIEW })
    expect(schemaErrors('ReadResourceResult', read.result)).toEqual([])
    expect(read.result.contents).toEqual([{ uri: VIEW, mimeType: 'text/html;profile=mcp-app', text: HTML, _meta: { ui } }])
  })

  it('reads a view whose HTML comes per request (Workers Static Assets)', async () => {
    const server = createMcpServer({ name: 'apps', version: '1.0.0' })
    server.view(VIEW, { name: 'Board', html: async (ctx) => `<!doctype html><p>${String((ctx.env as { who: string }).who)}</p>` })
    const response = await createMcpHandler(server)(buildRequest(ENDPOINT, 'resources/read', { uri: VIEW }), {
      who: 'assets',
    })
    const { result } = (await response.json()) as { result: { contents: { text: string; mimeType: string }[] } }
    expect(result.contents[0]).toMatchObject({ mimeType: APP_MIME_TYPE, text: '<!doctype html><p>assets</p>' })
  })

  it('declares io.modelcontextprotocol/ui once it has a view, with the extensions a server declares itself', async () => {
    const withView = serve({ extensions: { 'com.example/audit': { level: 1 } } })
    const discovered = await withView.send('server/discover')
    expect(discovered.result.capabilities.extensions).toEqual({ [APPS_EXTENSION]: {}, 'com.example/audit': { level: 1 } })
    const without = serve({}, false)
    expect((await without.send('server/discover')).result.capabilities.extensions).toBeUndefined()
    // A server's own settings of the Apps extension stay; Tasks is declared only with a task backend.
    const own = serve({ extensions: { [APPS_EXTENSION]: { note: 'mine' }, 'io.modelcontextprotocol/tasks': {} } })
    expect((await own.send('server/discover')).result.capabilities.extensions).toEqual({ [APPS_EXTENSION]: { note: 'mine' } })
  })

  it('declares it in a 2025 initialize result too, where ext-apps hosts read it: valid by the published 2025-11-25 schema', async () => {
    const { legacy } = serve()
    const { result } = await legacy(APPS)
    expect(result.capabilities.extensions).toEqual({ [APPS_EXTENSION]: {} })
    // The published schema allows the extra key; its strict reading (no additional properties)
    // objects to that key alone, which is the point of it.
    expect(legacySchemaErrors('2025-11-25', 'InitializeResult', result)).toEqual([
      'strict /capabilities must NOT have additional properties {"additionalProperty":"extensions"}',
    ])
  })

  it('tells a tool whether this request’s client renders views, per request', async () => {
    const { send } = serve()
    const text = async (capabilities: Record<string, unknown>) =>
      (await send('tools/call', { name: 'show_notes', arguments: {} }, capabilities)).result.content[0].text
    expect(await text(APPS)).toBe('on the board')
    expect(await text({})).toBe('milk, eggs')
    expect(await text({ extensions: { [APPS_EXTENSION]: {} } })).toBe('on the board')
    expect(await text({ extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/html'] } } })).toBe('milk, eggs')
    expect(await text({ extensions: { [APPS_EXTENSION]: true } })).toBe('milk, eggs')
  })

  it('reads a 2025 client’s support from its initialize, for every call of the session', async () => {
    const { legacy } = serve()
    expect(await (await legacy(APPS)).call('show_notes')).toBe('on the board')
    expect(await (await legacy({})).call('show_notes')).toBe('milk, eggs')
  })

  it('refuses a view or a tool view that is not a ui:// URI, naming it', () => {
    const server = createMcpServer({ name: 'apps', version: '1.0.0' })
    expect(() => server.view('https://example.com/board.html', { name: 'Board', html: HTML })).toThrow(
      'a view\'s URI is a ui:// URI (such as ui://notes/board.html), not "https://example.com/board.html"',
    )
    expect(() => server.tool('t', { input: z.object({}), view: 'notes/board.html' }, () => ({ content: [] }))).toThrow(
      'Tool "t": a view\'s URI is a ui:// URI',
    )
    expect(() => server.view('ui://', { name: 'Board', html: HTML })).toThrow('ui://')
  })

  it('guards a view with its scopes, as any resource', async () => {
    const server = createMcpServer({ name: 'apps', version: '1.0.0' })
    server.view(VIEW, { name: 'Board', html: HTML, scopes: ['notes:read'] })
    expect(server.resources.get(VIEW)?.scopes).toEqual(['notes:read'])
  })
})

describe('server identity: icons, title and websiteUrl', () => {
  const identity = { title: 'Notes', websiteUrl: 'https://mcp-edge.example', icons: [ICON] }

  it('in server/discover’s serverInfo _meta, valid by the 2026-07-28 schema', async () => {
    const { send } = serve(identity)
    const { result } = await send('server/discover')
    expect(result._meta['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'apps', version: '1.0.0', ...identity })
    expect(schemaErrors('Implementation', result._meta['io.modelcontextprotocol/serverInfo'])).toEqual([])
  })

  it('in a 2025-11-25 initialize result’s serverInfo, valid by its schema', async () => {
    const { legacy } = serve(identity)
    const { result } = await legacy()
    expect(result.serverInfo).toEqual({ name: 'apps', version: '1.0.0', ...identity })
    expect(legacySchemaErrors('2025-11-25', 'Implementation', result.serverInfo)).toEqual([])
  })
})
