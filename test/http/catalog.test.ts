import { describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import { catalogContract } from '../contract/catalog.ts'
import { legacyConnect, legacyRpc } from '../support/legacy.ts'
import { rpc } from '../support/mcp.ts'
import { schemaErrors } from '../support/schema.ts'
import { legacySchemaErrors } from '../support/schema-2025.ts'

// The catalog contract over real HTTP, against the fixture Worker's /catalog under wrangler dev.
catalogContract(() => ({ url: inject('fixtureUrl'), fetch }))

// What /catalog sends, against the official schemas of each revision (test/support/schema*.ts).
describe('the catalog against the official schemas', () => {
  const url = () => inject('fixtureUrl').replace(/\/mcp$/, '/catalog')
  const SEARCH = { name: 'search_tools', arguments: { query: 'invoice 12' } }

  it('2026-07-28: tools/list, a search and the tools it found', async () => {
    const listed = (await rpc(fetch, url(), 'tools/list', {})).message.result
    expect(schemaErrors('ListToolsResult', listed)).toEqual([])
    const found = (await rpc(fetch, url(), 'tools/call', SEARCH)).message.result
    expect(schemaErrors('CallToolResult', found)).toEqual([])
    expect(found.structuredContent.tools.length).toBeGreaterThan(0)
    for (const tool of found.structuredContent.tools) expect(schemaErrors('Tool', tool)).toEqual([])
  })

  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26'] as const) {
    it(`${version}: tools/list and a search, in that revision's shapes`, async () => {
      const client = await legacyConnect(fetch, url(), { version })
      const listed = (await legacyRpc(fetch, url(), client, 'tools/list', {})).message.result
      expect(legacySchemaErrors(version, 'ListToolsResult', listed)).toEqual([])
      const found = (await legacyRpc(fetch, url(), client, 'tools/call', SEARCH)).message.result
      expect(legacySchemaErrors(version, 'CallToolResult', found)).toEqual([])
      const tools = version === '2025-03-26' ? JSON.parse(found.content[1].text).tools : found.structuredContent.tools
      for (const tool of tools) expect(legacySchemaErrors(version, 'Tool', tool)).toEqual([])
    })
  }
})
