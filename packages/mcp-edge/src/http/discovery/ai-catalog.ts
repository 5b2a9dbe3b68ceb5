/**
 * The AI Catalog a domain publishes at `/.well-known/ai-catalog.json` (`application/ai-catalog+json`)
 * so clients find its Server Cards without guessing: experimental-ext-server-card `docs/discovery.md`
 * at 8924e08, "AI Catalog", for a format defined by Agent-Card/ai-catalog
 * (`specification/ai-catalog.md` at 634a09d, Level 1, "Minimal Catalog"). `mcp()` is mounted at
 * the endpoint's path and cannot answer a root path, so the catalog is a sub-app of its own, for
 * the root, served like the card (route.ts: CORS, caching, ETag). The two drafts name an entry's
 * media type differently (`type` in the MCP draft, `mediaType` in the catalog's, which also asks
 * for `displayName`); each entry carries both, since readers of either ignore members they do not
 * know. It lists Server Cards only: no nested catalogs, inline cards, host or trust manifests.
 */
import { Hono } from 'hono/tiny'
import { discoveryRoute } from './route.ts'
import { SERVER_CARD_TYPE } from './server-card.ts'

const AI_CATALOG_PATH = '/.well-known/ai-catalog.json'
const AI_CATALOG_TYPE = 'application/ai-catalog+json'
/** A URN or URI: a scheme, a colon, no white space (RFC 8141, RFC 3986, as the catalog asks). */
const URI = /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/
/** Any origin: relative card URLs are checked against it at construction, resolved per request. */
const SOME_ORIGIN = 'https://catalog.invalid/'

/** One Server Card in the catalog. */
export interface AiCatalogCard {
  /** A stable URN or URI for the server: `urn:air:example.com:mcp:notes` is the draft's form for `com.example/notes`. */
  identifier: string
  /** The server's name for people. */
  displayName: string
  /** Where its Server Card is: an absolute http(s) URL, or a path on the catalog's origin such as `/mcp/server-card`. */
  url: string
}

export interface AiCatalogOptions {
  /** The Server Cards to list, at least one, each with its own identifier. */
  cards: AiCatalogCard[]
}

/**
 * A sub-app to mount at the root that serves the AI Catalog listing `cards` at
 * `/.well-known/ai-catalog.json`, public, with the Server Card's CORS and caching headers, an
 * ETag, and relative card URLs resolved against the URL the catalog was fetched at. Options that
 * would make an invalid catalog throw here, naming the card and what to set.
 *
 * @example
 * app.route('/mcp', mcp(server, { serverCard: serverCard({ name: 'com.example/notes' }) }))
 * app.route('/', aiCatalog({
 *   cards: [{ identifier: 'urn:air:example.com:mcp:notes', displayName: 'Notes', url: '/mcp/server-card' }],
 * }))
 */
export function aiCatalog(options: AiCatalogOptions): Hono {
  const cards = checkedCards(options.cards)
  const serve = discoveryRoute(AI_CATALOG_TYPE, (url) => ({
    specVersion: '1.0',
    entries: cards.map((card) => ({
      identifier: card.identifier,
      displayName: card.displayName,
      type: SERVER_CARD_TYPE,
      mediaType: SERVER_CARD_TYPE,
      url: new URL(card.url, url).href,
    })),
  }))
  const app = new Hono()
  app.all(AI_CATALOG_PATH, (c) => serve(c.req.raw))
  return app
}

function checkedCards(cards: AiCatalogCard[] | undefined): AiCatalogCard[] {
  if (!Array.isArray(cards) || cards.length === 0) throw new Error('aiCatalog: list at least one Server Card in cards')
  const identifiers = new Set<string>()
  cards.forEach((card, index) => {
    const at = `aiCatalog: cards[${index}]`
    if (!URI.test(card.identifier)) {
      throw new Error(`${at}.identifier must be a URN or URI, such as urn:air:example.com:mcp:notes, not "${card.identifier}"`)
    }
    // The catalog: "When version is absent, identifier alone MUST be unique."
    if (identifiers.has(card.identifier)) throw new Error(`${at}.identifier "${card.identifier}" is listed twice`)
    identifiers.add(card.identifier)
    if (!card.displayName?.trim()) throw new Error(`${at}.displayName must name the server for people`)
    if (!isHttpUrl(card.url)) {
      throw new Error(`${at}.url must be an http(s) URL or a path such as /mcp/server-card, not "${card.url}"`)
    }
  })
  return cards.map((card) => ({ ...card }))
}

function isHttpUrl(url: string): boolean {
  if (!url || !URL.canParse(url, SOME_ORIGIN)) return false
  const { protocol } = new URL(url, SOME_ORIGIN)
  return protocol === 'https:' || protocol === 'http:'
}
