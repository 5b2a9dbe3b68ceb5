/**
 * The Server Card (SEP-2127, experimental): `mcp(server, { serverCard: serverCard({...}) })` serves it at
 * `<endpoint>/server-card` with the draft's media type, CORS, caching and an ETag, built from the
 * server's identity and valid by the extension's own schema (vendored in
 * test/conformance/server-card, with its source and date); bad options fail at `mcp()`, naming
 * the fix; the card is public while the endpoint is not.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { bearerToken } from '../../packages/mcp-edge/src/http/bearer.ts'
import { mcp } from '../../packages/mcp-edge/src/http/hono.ts'
import { SERVER_CARD_TYPE, serverCard } from '../../packages/mcp-edge/src/http/discovery/server-card.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { expectDiscoveryHeaders } from './support.ts'

const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, '../conformance/server-card/schema.json'), 'utf8'))
const validate = new Ajv2020({ strict: false, allErrors: true })
  .addFormat('uri', true)
  .addSchema(schema, 'card')
  .getSchema('card#/$defs/ServerCard')
const ICON = { src: 'https://notes.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }

function app(options: { description?: string } = {}) {
  const server = createMcpServer({
    name: 'notes',
    version: '1.2.0',
    title: 'Notes',
    description: 'Notes you can add, list and search',
    websiteUrl: 'https://notes.example.com',
    icons: [ICON],
  })
  server.tool('add', { input: z.object({}) }, () => ({ content: [] }))
  const hono = new Hono()
  hono.route(
    '/mcp',
    mcp(server, {
      authenticate: bearerToken('a-long-enough-bearer-token-0123456789'),
      serverCard: serverCard({
        name: 'com.example/notes',
        repository: { url: 'https://github.com/example/notes', source: 'github' },
        ...options,
      }),
    }),
  )
  return hono
}

describe('the Server Card', () => {
  it('is served at <endpoint>/server-card from the server identity, valid by the extension schema', async () => {
    const response = await app().request('https://notes.example.com/mcp/server-card', {
      headers: { accept: SERVER_CARD_TYPE },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json')
    const card = await response.json()
    expect(card).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'com.example/notes',
      version: '1.2.0',
      description: 'Notes you can add, list and search',
      title: 'Notes',
      websiteUrl: 'https://notes.example.com',
      icons: [ICON],
      repository: { url: 'https://github.com/example/notes', source: 'github' },
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://notes.example.com/mcp',
          supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
        },
      ],
    })
    expect(validate?.(card), JSON.stringify(validate?.errors)).toBe(true)
  })

  it('sends the draft CORS and caching headers, answers a preflight and HEAD, and 304 for its ETag', async () => {
    await expectDiscoveryHeaders(app(), 'https://notes.example.com/mcp/server-card')
  })

  it('is public while the endpoint is not', async () => {
    const hono = app()
    expect((await hono.request('https://notes.example.com/mcp/server-card')).status).toBe(200)
    const call = await hono.request('https://notes.example.com/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    })
    expect(call.status).toBe(401)
  })

  it('refuses options that would make an invalid card, at mcp(), saying what to set', () => {
    const server = createMcpServer({ name: 'notes', version: '1.0.0' })
    expect(() => mcp(server, { serverCard: serverCard({ name: 'notes', description: 'Notes' }) })).toThrow(
      'serverCard: name must be reverse-DNS with one slash, such as com.example/weather, not "notes"',
    )
    expect(() => mcp(server, { serverCard: serverCard({ name: 'com.example/notes' }) })).toThrow(
      'serverCard: a description of 1 to 100 characters is required',
    )
    // The options object as written before serverCard(): mcp() says what to write.
    expect(() => mcp(server, { serverCard: { name: 'com.example/notes' } as never })).toThrow(
      'The serverCard option must be built by serverCard({ name }) (docs/apps.md)',
    )
    expect(() => mcp(server, { serverCard: serverCard({ name: 'com.example/notes', description: 'x'.repeat(101) }) })).toThrow(
      '1 to 100',
    )
    expect(() => mcp(server)).not.toThrow()
  })
})
