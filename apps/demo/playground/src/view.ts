/**
 * The playground as an MCP Apps host: a tool whose `_meta.ui.resourceUri` names a view gets it
 * rendered beside its call. The view's HTML is read with `resources/read` and rendered by the
 * sandbox (sandbox.ts) in an iframe on the page's other loopback origin, inside which it runs
 * with an opaque origin under the CSP its resource declares. `AppBridge` from
 * @modelcontextprotocol/ext-apps speaks the extension's protocol with it: the tool's input once
 * the view is initialized, then its result (or cancellation); `tools/call` from the view goes
 * through the page's client to the server; the view's size changes resize its frame; Close tears
 * it down (`ui/resource-teardown`) before removing it.
 *
 * Beyond the extension: each partial result (SEP-2998) of the call is forwarded as it arrives,
 * in order, as `ui/notifications/tool-result-partial` with the chunk's `seq`, `content`,
 * `structuredContent` and `final` (docs/apps.md). A view that does not know it ignores it.
 */
import { AppBridge, getToolUiResourceUri, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge'
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
  const report = (error: unknown) => {
    status.textContent = `The view failed: ${error instanceof Error ? error.message : String(error)}`
    box.dataset.state = 'error'
  }
  const send = (deliver: (bridge: AppBridge) => Promise<unknown>) => {
    chain = chain.then(async (bridge) => {
      await deliver(bridge).catch(report)
      return bridge
    })
  }

  async function start(): Promise<void> {
    const origin = sandboxOrigin()
    if (!origin)
      throw new Error('views render when the playground is opened on 127.0.0.1 or localhost (they need a second origin)')
    const read = await session.client.request('resources/read', { uri }, { capabilities: session.capabilities() })
    const content = (read.contents as JsonObject[] | undefined)?.find((item) => item.uri === uri)
    if (typeof content?.text !== 'string' || content.mimeType !== APP_MIME_TYPE) {
      throw new Error(`${uri} is not a view (${APP_MIME_TYPE} text)`)
    }
    const ui = ((content._meta as JsonObject | undefined)?.ui ?? {}) as JsonObject
    const frame = h('iframe', {
      title: `View of ${String(tool.name)}`,
      class: ui.prefersBorder === false ? 'view-frame borderless' : 'view-frame',
      // The sandbox page itself needs its origin to relay; the view inside it gets none.
      sandbox: 'allow-scripts allow-same-origin',
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
          sandbox: 'allow-scripts allow-forms',
          csp: ui.csp as JsonObject | undefined,
          permissions: ui.permissions as McpUiResourcePermissions | undefined,
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
      try {
        await bridge.teardownResource({})
      } finally {
        await bridge.close()
        frame.remove()
        close.remove()
        status.textContent = `The view ${uri} was closed.`
        box.dataset.state = 'closed'
      }
    }

    await bridge.connect(new PostMessageTransport(frame.contentWindow as Window, frame.contentWindow as Window))
  }
  start().catch(report)

  return {
    partial: ({ seq, content, structuredContent, final }) =>
      send((bridge) => bridge.notification({ method: PARTIAL_RESULT, params: { seq, content, structuredContent, final } })),
    result: (result) => send((bridge) => bridge.sendToolResult(callResult(result))),
    cancelled: (reason) => send((bridge) => bridge.sendToolCancelled({ reason })),
  }
}
