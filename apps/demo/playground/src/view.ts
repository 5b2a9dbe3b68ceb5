/**
 * The playground as an MCP Apps host: a tool whose `_meta.ui.resourceUri` names a view gets it
 * rendered beside its call. The view's HTML is read with `resources/read` and rendered by the
 * sandbox (sandbox.ts) in an iframe on the page's other loopback origin, inside which it runs
 * with an opaque origin under the CSP its resource declares. `AppBridge` from
 * @modelcontextprotocol/ext-apps speaks the extension's protocol with it: the tool's input once
 * the view is initialized, then its result (or cancellation); `tools/call` from the view goes
 * through the page's client to the server (not to tools kept for the model); the view's size
 * changes resize its frame; Close tears it down (`ui/resource-teardown`, 2 s at most) before
 * removing it. A view's document is read once per connection.
 *
 * Beyond the extension: each partial result (SEP-2998) of the call is forwarded as it arrives,
 * in order, as `ui/notifications/tool-result-partial` with the chunk's `seq`, `content`,
 * `structuredContent` and `final` (docs/apps.md). A view that does not know it ignores it.
 */
import {
  AppBridge,
  buildAllowAttribute,
  getToolUiResourceUri,
  isToolVisibilityModelOnly,
  PostMessageTransport,
} from '@modelcontextprotocol/ext-apps/app-bridge'
import type { McpUiResourcePermissions } from '@modelcontextprotocol/ext-apps/app-bridge'
import { APP_MIME_TYPE } from 'mcp-edge'
import type { PartialChunkEvent } from 'mcp-edge/client'
import { h } from './dom.ts'
import type { JsonObject } from './schema-form.ts'
import type { Session } from './session.ts'

/** The notification that carries one partial result into a view (mcp-edge's, in the extension's style). */
export const PARTIAL_RESULT = 'ui/notifications/tool-result-partial'

const HOST = { name: 'mcp-edge playground', version: '0.1.0' }
type CallToolResult = Parameters<AppBridge['sendToolResult']>[0]

/** The tallest a view's frame grows to follow its content. */
const MAX_HEIGHT = 800
/** How long Close waits for the view to answer `ui/resource-teardown` before removing it anyway. */
const TEARDOWN_TIMEOUT_MS = 2000

/** Views already read, per connection: a view is one document, read once, whatever the calls. */
const read = new WeakMap<Session, Map<string, Promise<JsonObject>>>()

/** The view's resource contents (`text/html;profile=mcp-app` text), read once per connection. */
function viewContents(session: Session, uri: string): Promise<JsonObject> {
  let views = read.get(session)
  if (!views) {
    views = new Map()
    read.set(session, views)
  }
  let contents = views.get(uri)
  if (!contents) {
    contents = session.client.request('resources/read', { uri }, { capabilities: session.capabilities() }).then((result) => {
      const found = (result.contents as JsonObject[] | undefined)?.find((item) => item.uri === uri)
      if (typeof found?.text !== 'string' || found.mimeType !== APP_MIME_TYPE) {
        throw new Error(`${uri} is not a view (${APP_MIME_TYPE} text)`)
      }
      return found
    })
    // A failed read is tried again by the next call.
    contents.catch(() => views?.delete(uri))
    views.set(uri, contents)
  }
  return contents
}

export interface ViewHost {
  partial(chunk: PartialChunkEvent): void
  /** The call's final result (or its error, as an `isError` result). */
  result(result: JsonObject): void
  cancelled(reason: string): void
}

/**
 * The origin views are sandboxed on: the page's other loopback name (127.0.0.1 and localhost are
 * two origins on the same `wrangler dev`), or none when the page is elsewhere.
 */
function sandboxOrigin(): string | undefined {
  const other = { '127.0.0.1': 'localhost', localhost: '127.0.0.1' }[location.hostname]
  return other && `${location.protocol}//${other}${location.port ? `:${location.port}` : ''}`
}

/** What the view's tools/call returns to it: the result's fields, or a task handle as an error. */
function callResult(result: JsonObject): CallToolResult {
  if (result.resultType === 'task') {
    return { content: [{ type: 'text', text: 'That tool runs as a task, which views cannot follow here.' }], isError: true }
  }
  const { content = [], structuredContent, isError, _meta } = result
  return { content, structuredContent, isError, _meta } as CallToolResult
}

/**
 * Render `tool`'s view into `into` for one call with `args`, when the tool has one; returns what
 * the call's progress is sent to. Whatever arrives before the view is initialized waits, in order.
 *
 * @example
 * const view = mountView(session, tool, { topic: 'owls' }, run)
 * view?.partial(chunk)
 */
export function mountView(session: Session, tool: JsonObject, args: JsonObject, into: HTMLElement): ViewHost | undefined {
  const uri = getToolUiResourceUri(tool)
  if (!uri) return undefined
  const status = h('p', { class: 'view-status', role: 'status' }, `Loading the view ${uri}…`)
  const calls = h('ul', { class: 'log', 'aria-label': 'Calls from the view', hidden: true })
  const box = h('section', { class: 'view', 'aria-label': `View ${uri}`, 'data-view': uri }, status, calls)
  into.append(box)

  let initialized!: (bridge: AppBridge) => void
  let chain = new Promise<AppBridge>((resolve) => {
    initialized = resolve
  })
  let closed = false
  const report = (error: unknown) => {
    status.textContent = `The view failed: ${error instanceof Error ? error.message : String(error)}`
    box.dataset.state = 'error'
  }
  const send = (deliver: (bridge: AppBridge) => Promise<unknown>) => {
    chain = chain.then(async (bridge) => {
      if (!closed) await deliver(bridge).catch(report)
      return bridge
    })
  }

  async function start(uri: string): Promise<void> {
    const origin = sandboxOrigin()
    if (!origin)
      throw new Error('views render when the playground is opened on 127.0.0.1 or localhost (they need a second origin)')
    const content = await viewContents(session, uri)
    const ui = ((content._meta as JsonObject | undefined)?.ui ?? {}) as JsonObject
    const permissions = ui.permissions as McpUiResourcePermissions | undefined
    const frame = h('iframe', {
      title: `View of ${String(tool.name)}`,
      class: ui.prefersBorder === false ? 'view-frame borderless' : 'view-frame',
      // The sandbox page itself needs its origin to relay; the view inside it gets none.
      sandbox: 'allow-scripts allow-same-origin',
      // What the view may use, delegated through the sandbox's frame to the view's.
      allow: buildAllowAttribute(permissions) || undefined,
      src: `${origin}/playground/sandbox.html`,
    })
    const close = h('button', { type: 'button', class: 'secondary', onclick: () => void teardown() }, 'Close view')
    box.append(frame, close)

    const bridge = new AppBridge(
      null,
      HOST,
      { serverTools: {}, logging: {} },
      { hostContext: { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web' } },
    )
    bridge.addEventListener('sandboxready', () => {
      void bridge
        .sendSandboxResourceReady({
          html: content.text as string,
          sandbox: 'allow-scripts',
          csp: ui.csp as JsonObject | undefined,
          permissions,
        })
        .catch(report)
    })
    bridge.addEventListener('initialized', () => {
      status.textContent = `The view ${uri} is showing this call.`
      box.dataset.state = 'ready'
      void bridge.sendToolInput({ arguments: args }).then(() => initialized(bridge), report)
    })
    bridge.addEventListener('sizechange', ({ height }) => {
      if (typeof height === 'number') frame.style.height = `${Math.min(Math.ceil(height), MAX_HEIGHT)}px`
    })
    // The view calls a server tool: through this page's client, shown in the call's box.
    bridge.oncalltool = async ({ name, arguments: input }) => {
      const line = h('li', {}, `The view called ${name}…`)
      calls.hidden = false
      calls.append(line)
      // A tool the server keeps for the model (`_meta.ui.visibility` without "app") is not the view's to call.
      const target = session.tools.get(name)
      if (target && isToolVisibilityModelOnly(target)) {
        line.textContent = `The view called ${name}: refused (the tool is not visible to views)`
        return { content: [{ type: 'text', text: `${name} is not available to views` }], isError: true }
      }
      const result = callResult(
        await session.client.callTool(name, input ?? {}, { capabilities: session.capabilities({ tasks: false }) }),
      )
      const text = result.content
        .map((block: { type: string; text?: string }) => (block.type === 'text' ? block.text : `[${block.type}]`))
        .join(' ')
      line.textContent = `The view called ${name}: ${result.isError ? 'error: ' : ''}${text}`
      return result
    }

    async function teardown(): Promise<void> {
      close.disabled = true
      closed = true
      const answered = await Promise.race([
        bridge.teardownResource({}).then(
          () => true,
          () => false,
        ),
        new Promise<false>((done) => setTimeout(() => done(false), TEARDOWN_TIMEOUT_MS)),
      ])
      await bridge.close()
      frame.remove()
      close.remove()
      status.textContent = answered
        ? `The view ${uri} was closed.`
        : `The view ${uri} did not answer its teardown; it was removed.`
      box.dataset.state = answered ? 'closed' : 'removed'
    }

    // Messages go to the sandbox's origin only (a frame that navigated elsewhere gets none).
    const window = frame.contentWindow as Window
    const toSandbox = { postMessage: (message: unknown) => window.postMessage(message, origin) } as unknown as Window
    await bridge.connect(new PostMessageTransport(toSandbox, window))
  }
  start(uri).catch(report)

  return {
    partial: ({ seq, content, structuredContent, final }) =>
      send((bridge) => bridge.notification({ method: PARTIAL_RESULT, params: { seq, content, structuredContent, final } })),
    result: (result) => send((bridge) => bridge.sendToolResult(callResult(result))),
    cancelled: (reason) => send((bridge) => bridge.sendToolCancelled({ reason })),
  }
}
