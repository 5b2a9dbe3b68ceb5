/**
 * The Server Card (SEP-2127; an experimental extension whose draft lives in
 * modelcontextprotocol/experimental-ext-server-card, `docs/discovery.md` at 8924e08 of
 * 2026-07-24): a public JSON document that describes this server before anybody connects, so a
 * client that finds it (through an AI Catalog, `/.well-known/ai-catalog.json`) learns where and
 * how to connect. Opt-in: `mcp(server, { serverCard: { name: 'com.example/weather' } })` serves it
 * at `GET <endpoint>/server-card` (the location the draft reserves), as
 * `application/mcp-server-card+json`, with the CORS and caching headers the draft asks for and an
 * ETag. Built from the server's own identity, so it agrees with `server/discover`; the endpoint's
 * URL is the request's, less `/server-card`.
 */
import { LEGACY_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import { fnv1a } from '../protocol/hash.ts'
import type { Icon } from '../protocol/types.ts'

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json'
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json'
/** The path, below the MCP endpoint, where the card is served. */
export const SERVER_CARD_PATH = '/server-card'

export interface ServerCardOptions {
  /** The server's name in reverse-DNS form, one slash: `com.example/weather`. */
  name: string
  /** One line (at most 100 characters) on what the server does; default: the server's `description`. */
  description?: string
  /** Where its source is (`{ url, source: 'github' }`). */
  repository?: { url: string; source: string; id?: string; subfolder?: string }
}

/** The identity the card is built from (`McpServer.info`). */
interface Identity {
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: Icon[]
}

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/
const HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
  'cache-control': 'public, max-age=3600',
}

/**
 * Check the options now (at `mcp()`), and return what serves the card for a request to
 * `<endpoint>/server-card`: the card, 304 for its ETag, or the CORS preflight.
 */
export function serverCardRoute(info: Identity, options: ServerCardOptions): (request: Request) => Response {
  if (!NAME.test(options.name) || options.name.length > 200) {
    throw new Error(`serverCard.name must be reverse-DNS with one slash, such as com.example/weather, not "${options.name}"`)
  }
  const description = options.description ?? info.description
  if (!description || description.length > 100) {
    throw new Error(
      'serverCard: a description of 1 to 100 characters is required (serverCard.description, or the server description)',
    )
  }
  const fixed = {
    $schema: SERVER_CARD_SCHEMA,
    name: options.name,
    version: info.version,
    description,
    ...(info.title === undefined ? {} : { title: info.title.slice(0, 100) }),
    ...(info.websiteUrl === undefined ? {} : { websiteUrl: info.websiteUrl }),
    ...(info.icons === undefined ? {} : { icons: info.icons }),
    ...(options.repository === undefined ? {} : { repository: options.repository }),
  }
  /** One body per endpoint URL (a Worker is reached under one or two), and its ETag. */
  const built = new Map<string, { body: string; etag: string }>()
  return (request) => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: HEADERS })
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { ...HEADERS, allow: 'GET, HEAD, OPTIONS' } })
    }
    const url = new URL(request.url)
    const endpoint = `${url.origin}${url.pathname.slice(0, -SERVER_CARD_PATH.length)}`
    let card = built.get(endpoint)
    if (!card) {
      const remotes = [
        {
          type: 'streamable-http',
          url: endpoint,
          supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS],
        },
      ]
      const body = JSON.stringify({ ...fixed, remotes })
      card = { body, etag: `"${fnv1a(body).toString(16)}"` }
      if (built.size < 8) built.set(endpoint, card)
    }
    const headers = { ...HEADERS, 'content-type': SERVER_CARD_TYPE, etag: card.etag }
    if (request.headers.get('if-none-match') === card.etag) return new Response(null, { status: 304, headers })
    return new Response(request.method === 'HEAD' ? null : card.body, { headers })
  }
}
