/**
 * The view sandbox (MCP Apps' sandbox proxy for web hosts): the playground loads this page in an
 * iframe on another origin than its own (127.0.0.1 and localhost are two origins), so a view can
 * reach neither the page's storage nor its token. It tells the page it is ready
 * (`ui/notifications/sandbox-proxy-ready`), receives the view's HTML with its sandbox, CSP and
 * permissions (`ui/notifications/sandbox-resource-ready`), and renders it in an inner iframe
 * without `allow-same-origin` (an opaque origin), under a Content-Security-Policy built from the
 * resource's `_meta.ui.csp`: nothing beyond the document itself unless the server declared it.
 * Then it relays every other message both ways, between the page and the view only.
 */

import { viewPolicy } from './csp.ts'
import type { ViewCsp } from './csp.ts'

interface ResourceReady {
  html: string
  sandbox?: string
  csp?: ViewCsp
  permissions?: Record<string, unknown>
}

const READY = 'ui/notifications/sandbox-proxy-ready'
const RESOURCE_READY = 'ui/notifications/sandbox-resource-ready'

/** The view's document with its policy first in <head> (a meta policy covers what follows it). */
function withPolicy(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replaceAll('"', '&quot;')}">`
  const head = /<head[^>]*>/i.exec(html)
  return head ? html.replace(head[0], () => `${head[0]}${meta}`) : `${meta}${html}`
}

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
  // The page that embeds this sandbox; messages from anywhere else are ignored.
  const host = document.referrer ? new URL(document.referrer).origin : ''
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(host)) {
    throw new Error(`The view sandbox serves the playground on loopback only, not ${host || 'an unknown page'}.`)
  }
  const inner = document.createElement('iframe')
  inner.title = 'View'
  document.body.append(inner)

  window.addEventListener('message', (event) => {
    const data = event.data as { method?: string; params?: unknown } | undefined
    if (event.source === window.parent && event.origin === host) {
      if (data?.method === RESOURCE_READY) {
        const resource = data.params as ResourceReady
        // Never same-origin with anything: whatever the page asks, the view's origin stays opaque.
        const sandbox = (resource.sandbox ?? 'allow-scripts').replace(/\ballow-same-origin\b/g, '').trim()
        inner.setAttribute('sandbox', sandbox)
        inner.setAttribute('allow', allowOf(resource.permissions))
        inner.srcdoc = withPolicy(resource.html, viewPolicy(resource.csp))
      } else if (inner.contentWindow) {
        inner.contentWindow.postMessage(event.data, '*') // an opaque origin has no name to target
      }
    } else if (event.source === inner.contentWindow) {
      window.parent.postMessage(event.data, host)
    }
  })
  window.parent.postMessage({ jsonrpc: '2.0', method: READY, params: {} }, host)
}

start()
