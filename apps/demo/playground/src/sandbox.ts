/**
 * The view sandbox (MCP Apps' sandbox proxy for web hosts): the playground loads this page in an
 * iframe on another origin than its own (127.0.0.1 and localhost are two origins), so a view can
 * reach neither the page's storage nor its token. It tells the page it is ready
 * (`ui/notifications/sandbox-proxy-ready`), receives the view's HTML with its sandbox, CSP and
 * permissions (`ui/notifications/sandbox-resource-ready`, once), and renders it in an inner iframe
 * without `allow-same-origin` (an opaque origin), under a Content-Security-Policy built from the
 * resource's `_meta.ui.csp`: nothing beyond the document itself unless the server declared it.
 * Then it relays every other message both ways, between the page and the view only; the view may
 * not speak for the sandbox, and a view that navigates its frame elsewhere is stopped (what loads
 * there is not the view, and must not get the call's data nor the page's tools).
 */

import { viewPolicy, withPolicy } from './csp.ts'
import type { ViewCsp } from './csp.ts'

interface ResourceReady {
  html: string
  sandbox?: string
  csp?: ViewCsp
  permissions?: Record<string, unknown>
}

const READY = 'ui/notifications/sandbox-proxy-ready'
const RESOURCE_READY = 'ui/notifications/sandbox-resource-ready'

/** `allow` for the inner iframe, from the resource's permissions (camera, microphone, …). */
function allowOf(permissions: Record<string, unknown> = {}): string {
  const names: Record<string, string> = {
    camera: 'camera',
    microphone: 'microphone',
    geolocation: 'geolocation',
    clipboardWrite: 'clipboard-write',
  }
  return Object.keys(permissions)
    .flatMap((key) => (names[key] ? [names[key]] : []))
    .join('; ')
}

function start(): void {
  if (window.parent === window) throw new Error('The view sandbox only runs inside the playground page.')
  // The page that embeds this sandbox is the playground on the other loopback name, same port;
  // messages from anywhere else are ignored, and ours go to it only.
  const other = ({ '127.0.0.1': 'localhost', localhost: '127.0.0.1' } as Record<string, string>)[location.hostname]
  const host = `${location.protocol}//${other}${location.port ? `:${location.port}` : ''}`
  const referrer = document.referrer ? new URL(document.referrer).origin : ''
  if (!other || referrer !== host) {
    throw new Error(`The view sandbox serves the playground at ${host}, not ${referrer || 'an unknown page'}.`)
  }
  let inner: HTMLIFrameElement | undefined
  let stopped = false

  /** The view's frame left its document (a link, `location`): what loads there now is not the view. */
  const stop = () => {
    stopped = true
    inner?.remove()
    document.body.textContent = 'The view navigated away from its document, so it was stopped.'
  }

  /** Render the view once: the resource the page sent, in a frame of its own, under its policy. */
  const render = (resource: ResourceReady) => {
    inner = document.createElement('iframe')
    inner.title = 'View'
    // Never same-origin with anything: whatever the page asks, the view's origin stays opaque.
    inner.setAttribute('sandbox', (resource.sandbox ?? 'allow-scripts').replace(/\ballow-same-origin\b/g, '').trim())
    inner.setAttribute('allow', allowOf(resource.permissions))
    inner.srcdoc = withPolicy(resource.html, viewPolicy(resource.csp))
    let loads = 0
    inner.addEventListener('load', () => {
      if (++loads > 1) stop()
    })
    document.body.append(inner)
  }

  window.addEventListener('message', (event) => {
    if (stopped) return
    const data = event.data as { method?: string; params?: unknown } | undefined
    if (event.source === window.parent && event.origin === host) {
      if (data?.method === RESOURCE_READY) {
        if (!inner) render(data.params as ResourceReady)
      } else {
        inner?.contentWindow?.postMessage(event.data, '*') // an opaque origin has no name to target
      }
    } else if (inner && event.source === inner.contentWindow) {
      // The sandbox's own messages are between it and the page: a view may not send them.
      if (typeof data?.method === 'string' && data.method.startsWith('ui/notifications/sandbox-')) return
      window.parent.postMessage(event.data, host)
    }
  })
  window.parent.postMessage({ jsonrpc: '2.0', method: READY, params: {} }, host)
}

start()
