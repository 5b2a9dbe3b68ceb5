/**
 * The AI Catalog (`aiCatalog()`): mounted at the root beside `mcp()`, it serves
 * `/.well-known/ai-catalog.json` as `application/ai-catalog+json`, listing Server Cards with the
 * members both drafts ask for (the MCP draft's `type`, the catalog specification's `mediaType` and
 * `displayName`), relative card URLs resolved against the URL it was fetched at; with the Server
 * Card's CORS, caching and ETag; public while the endpoint is not. Bad options throw when it is
 * built, naming the card and what to set.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { bearerToken } from '../../packages/mcp-edge/src/http/bearer.ts'
import { aiCatalog } from '../../packages/mcp-edge/src/http/discovery/ai-catalog.ts'
import { SERVER_CARD_TYPE, serverCard } from '../../packages/mcp-edge/src/http/discovery/server-card.ts'
import { mcp } from '../../packages/mcp-edge/src/http/hono.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { expectDiscoveryHeaders } from './support.ts'

const CATALOG = 'https://example.com/.well-known/ai-catalog.json'
const NOTES = { identifier: 'urn:air:example.com:mcp:notes', displayName: 'Notes', url: '/mcp/server-card' }
const WEATHER = {
  identifier: 'urn:air:example.com:mcp:weather',
  displayName: 'Weather',
  url: 'https://weather.example.net/mcp/server-card',
}
const entry = (card: typeof NOTES, url: string) => ({ ...card, type: SERVER_CARD_TYPE, mediaType: SERVER_CARD_TYPE, url })

function app() {
  const server = createMcpServer({ name: 'notes', version: '1.2.0', description: 'Notes you can add, list and search' })
  const hono = new Hono()
  hono.route(
    '/mcp',
    mcp(server, {
      authenticate: bearerToken('a-long-enough-bearer-token-0123456789'),
      serverCard: serverCard({ name: 'com.example/notes' }),
    }),
  )
  hono.route('/', aiCatalog({ cards: [NOTES, WEATHER] }))
  return hono
}

describe('the AI Catalog', () => {
  it('lists the Server Cards at /.well-known/ai-catalog.json, as application/ai-catalog+json', async () => {
    const hono = app()
    const response = await hono.request(CATALOG)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/ai-catalog+json')
    const catalog = await response.json()
    expect(catalog).toEqual({
      specVersion: '1.0',
      entries: [entry(NOTES, 'https://example.com/mcp/server-card'), entry(WEATHER, WEATHER.url)],
    })
    // The card it points to is there, public while the endpoint is not.
    const card = await hono.request(catalog.entries[0].url, { headers: { accept: SERVER_CARD_TYPE } })
    expect(card.status).toBe(200)
    expect((await card.json()).name).toBe('com.example/notes')
    expect((await hono.request('https://example.com/mcp', { method: 'POST', body: '{}' })).status).toBe(401)
  })

  it('resolves relative card URLs against the URL the catalog was fetched at', async () => {
    const hono = app()
    const local = await (await hono.request('http://127.0.0.1:8787/.well-known/ai-catalog.json')).json()
    expect(local.entries.map((listed: { url: string }) => listed.url)).toEqual([
      'http://127.0.0.1:8787/mcp/server-card',
      WEATHER.url,
    ])
    const [first, second] = await Promise.all([
      hono.request(CATALOG),
      hono.request('http://127.0.0.1:8787/.well-known/ai-catalog.json'),
    ])
    expect(first.headers.get('etag')).not.toBe(second.headers.get('etag'))
  })

  it("sends the Server Card's CORS and caching headers, answers a preflight and HEAD, and 304 for its ETag", async () => {
    await expectDiscoveryHeaders(app(), CATALOG)
  })

  it('refuses options that would make an invalid catalog, when it is built, saying what to set', () => {
    const refused = (cards: unknown) => () => aiCatalog({ cards } as never)
    expect(refused([])).toThrow('aiCatalog: list at least one Server Card in cards')
    expect(refused(undefined)).toThrow('aiCatalog: list at least one Server Card in cards')
    expect(refused([NOTES, { ...WEATHER, identifier: 'weather' }])).toThrow(
      'aiCatalog: cards[1].identifier must be a URN or URI, such as urn:air:example.com:mcp:notes, not "weather"',
    )
    expect(refused([NOTES, { ...WEATHER, identifier: NOTES.identifier }])).toThrow(
      'aiCatalog: cards[1].identifier "urn:air:example.com:mcp:notes" is listed twice',
    )
    for (const displayName of ['', '  ', undefined]) {
      expect(refused([{ ...NOTES, displayName }])).toThrow('aiCatalog: cards[0].displayName must name the server for people')
    }
    for (const url of ['', 'javascript:alert(1)', 'mailto:notes@example.com', 'https://[bad', undefined]) {
      expect(refused([{ ...NOTES, url }]), String(url)).toThrow(
        `aiCatalog: cards[0].url must be an http(s) URL or a path such as /mcp/server-card, not "${url}"`,
      )
    }
  })
})
