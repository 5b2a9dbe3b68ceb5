/**
 * The Content-Security-Policy of a view in the playground (MCP Apps): the extension's defaults
 * (the document's own inline scripts and styles, images and media from data: URLs, no network,
 * no frames), widened only by the origins the view's resource declares in `_meta.ui.csp`.
 */

export interface ViewCsp {
  connectDomains?: string[]
  resourceDomains?: string[]
  frameDomains?: string[]
  baseUriDomains?: string[]
}

/** Origins as CSP sources: only http(s) and ws(s) origins pass; anything else is dropped. */
const sources = (domains: string[] | undefined) =>
  (domains ?? []).filter((domain) => /^(https?|wss?):\/\/[^\s;,']+$/.test(domain)).join(' ')

/** The view's policy: the extension's defaults, widened only by the origins the server declared. */
export function viewPolicy(csp: ViewCsp = {}): string {
  const resources = sources(csp.resourceDomains)
  const connect = sources(csp.connectDomains)
  const frames = sources(csp.frameDomains)
  const base = sources(csp.baseUriDomains)
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `connect-src ${connect || "'none'"}`,
    `frame-src ${frames || "'none'"}`,
    `base-uri ${base || "'self'"}`,
    "object-src 'none'",
  ]
    .map((directive) => directive.trim())
    .join('; ')
}
