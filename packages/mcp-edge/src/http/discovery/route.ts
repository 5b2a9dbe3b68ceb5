/**
 * How a public discovery document is served (the Server Card, the AI Catalog): the CORS and
 * caching headers the Server Card draft asks for (experimental-ext-server-card `docs/discovery.md`
 * at 8924e08, "CORS Requirements" and "Caching"), an ETag with 304 for `If-None-Match`, HEAD, the
 * preflight, and 405 for any other method. The document may depend on the URL it was reached at
 * (a card names its endpoint, a catalog resolves relative URLs), so it is built once per origin
 * and path and kept. It does not authenticate: these documents are public by design.
 */
import { fnv1a } from '../../protocol/hash.ts'

const HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
  'cache-control': 'public, max-age=3600',
}
/** A Worker is reached under one or two URLs; the cache stops there whatever the requests claim. */
const MAX_CACHED_URLS = 8

/** Serve, as `type`, the JSON document `build` makes for the URL a request reached. */
export function discoveryRoute(type: string, build: (url: URL) => unknown): (request: Request) => Response {
  const built = new Map<string, { body: string; etag: string }>()
  return (request) => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: HEADERS })
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { ...HEADERS, allow: 'GET, HEAD, OPTIONS' } })
    }
    const url = new URL(request.url)
    const key = `${url.origin}${url.pathname}`
    let document = built.get(key)
    if (!document) {
      const body = JSON.stringify(build(url))
      document = { body, etag: `"${fnv1a(body).toString(16)}"` }
      if (built.size < MAX_CACHED_URLS) built.set(key, document)
    }
    const headers = { ...HEADERS, 'content-type': type, etag: document.etag }
    if (request.headers.get('if-none-match') === document.etag) return new Response(null, { status: 304, headers })
    return new Response(request.method === 'HEAD' ? null : document.body, { headers })
  }
}
