/**
 * The Content-Security-Policy of a view in the playground (MCP Apps): the extension's defaults
 * (the document's own inline scripts and styles, images and media from data: URLs, no network,
 * no frames, no form submissions), widened only by the origins the view's resource declares in
 * `_meta.ui.csp`; and how it is put into the view's document.
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
    "form-action 'none'",
    "object-src 'none'",
  ]
    .map((directive) => directive.trim())
    .join('; ')
}

/**
 * The view's document under `policy`: a doctype and the policy's `<meta>` come first, before
 * anything of the view, so the parser puts the meta in the document's head (a policy `<meta>`
 * elsewhere is ignored) and it covers every script the view has, wherever its own `<head>` is or
 * is not; the view's own doctype and `<html>`/`<head>` tags after them change nothing.
 */
export function withPolicy(html: string, policy: string): string {
  return `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}">${html}`
}
