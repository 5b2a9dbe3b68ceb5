/**
 * The Server Card (SEP-2127; an experimental extension whose draft lives in
 * modelcontextprotocol/experimental-ext-server-card, `docs/discovery.md` at 8924e08 of
 * 2026-07-24): a public JSON document that describes this server before anybody connects, so a
 * client that finds it (through an AI Catalog, `/.well-known/ai-catalog.json`: ai-catalog.ts)
 * learns where and how to connect. Opt-in: `mcp(server, { serverCard: serverCard({ name: 'com.example/weather' }) })`
 * serves it at `GET <endpoint>/server-card` (the location the draft reserves), as
 * `application/mcp-server-card+json`, with the draft's CORS and caching headers and an ETag
 * (route.ts). Built from the server's own identity, as its registry `server.json` is
 * (server-json.ts), so it agrees with `server/discover`; the endpoint's URL is the request's, less
 * `/server-card`. Only a Worker that calls `serverCard()` bundles this code.
 */
import { LEGACY_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../../protocol/constants.ts'
import { discoveryRoute } from './route.ts'
import { describeServer } from './server-json.ts'
import type { Identity, ServerListingOptions } from './server-json.ts'

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json'
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json'
/** The path, below the MCP endpoint, where the card is served. */
export const SERVER_CARD_PATH = '/server-card'

/** The card's name (reverse-DNS), and its description and repository. */
export type ServerCardOptions = ServerListingOptions

/** The `serverCard` option of `mcp()`, as `serverCard(options)` builds it. */
export interface ServerCard {
  /** What serves the card of the server `info` names (checked now, at `mcp()`). */
  route(info: Identity): (request: Request) => Response
}

/**
 * The `serverCard` option of `mcp()`: serve a Server Card at `<endpoint>/server-card`, built from
 * the server's identity with these options (checked when `mcp()` mounts it).
 *
 * @example
 * app.route('/mcp', mcp(server, { serverCard: serverCard({ name: 'com.example/notes' }) }))
 */
export function serverCard(options: ServerCardOptions): ServerCard {
  return { route: (info) => serverCardRoute(info, options) }
}

/**
 * Check the options now (at `mcp()`), and return what serves the card for a request to
 * `<endpoint>/server-card`: the card, 304 for its ETag, or the CORS preflight.
 */
function serverCardRoute(info: Identity, options: ServerCardOptions): (request: Request) => Response {
  const card = { $schema: SERVER_CARD_SCHEMA, ...describeServer(info, options, 'serverCard') }
  return discoveryRoute(SERVER_CARD_TYPE, (url) => ({
    ...card,
    remotes: [
      {
        type: 'streamable-http',
        url: `${url.origin}${url.pathname.slice(0, -SERVER_CARD_PATH.length)}`,
        supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS],
      },
    ],
  }))
}
