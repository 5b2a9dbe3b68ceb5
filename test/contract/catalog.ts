/**
 * The catalog contract (issue 41): the fixture's /catalog server (test/fixture/catalog.ts), a
 * 1,000-tool catalog behind `search_tools` with entries visible only to `admin`, run inside
 * workerd (test/workers) and over real HTTP (test/http), in the 2026-07-28 and 2025 eras. A hidden
 * entry answers exactly as an unknown one: same JSON-RPC error, same HTTP status.
 */
import { describe, expect, it } from 'vitest'
import { legacyConnect, legacyRpc } from '../support/legacy.ts'
import type { LegacyClient } from '../support/legacy.ts'
import { rpc } from '../support/mcp.ts'
import type { RpcResult } from '../support/mcp.ts'
import type { ContractTarget } from './protocol.ts'

type Who = 'admin' | 'alice' | undefined
const REVISIONS = ['2025-11-25', '2025-03-26'] as const

/** The parts of an answer a client can tell apart: HTTP status and the JSON-RPC error or result. */
const observed = ({ status, message }: RpcResult) => ({ status, error: message.error, result: message.result })

export function catalogContract(target: () => ContractTarget): void {
  const url = () => target().url.replace(/\/mcp$/, '/catalog')
  const modern = (method: string, params: Record<string, unknown>, who?: Who, headers: Record<string, string> = {}) =>
    rpc(target().fetch, url(), method, params, { headers: { ...(who ? { authorization: `Bearer ${who}` } : {}), ...headers } })
  const names = (answer: RpcResult) => ((answer.message.result?.tools ?? []) as { name: string }[]).map((tool) => tool.name)
  const search = (query: string, who?: Who) => modern('tools/call', { name: 'search_tools', arguments: { query } }, who)

  describe('2026-07-28', () => {
    it('lists the always-listed tools the caller may see and search_tools, privately', async () => {
      const anonymous = await modern('tools/list', {})
      expect(names(anonymous)).toEqual(['search_tools', 'catalog_help'])
      expect(anonymous.message.result?.cacheScope).toBe('private')
      expect(names(await modern('tools/list', {}, 'admin'))).toEqual(['search_tools', 'catalog_help', 'admin_audit'])
    })

    it('finds a tool of 1,000 with search_tools, then calls it by name', async () => {
      const found = await search('shipment 777')
      expect(found.status).toBe(200)
      const tools = found.message.result?.structuredContent?.tools as { name: string; inputSchema: unknown }[]
      expect(tools[0]?.name).toBe('shipment_lookup_777')
      expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { detail: { enum: ['short', 'full'] } } })
      expect(found.message.result?.content?.[0]?.text).toContain('- shipment_lookup_777: Looks up shipment number 777')
      const called = await modern('tools/call', { name: 'shipment_lookup_777', arguments: { detail: 'full' } })
      expect(called.message.result?.content?.[0]?.text).toBe('shipment 777: ok (full)')
    })

    it('hides admin tools from the others’ searches and calls, answering as for an unknown tool', async () => {
      expect((await search('audit trail purge region', 'alice')).message.result?.structuredContent).toEqual({
        tools: [],
        total: 0,
      })
      const admin = await search('audit trail purge region', 'admin')
      expect(admin.message.result?.structuredContent?.tools.map((tool: { name: string }) => tool.name)).toEqual([
        'admin_audit',
        'admin_purge',
      ])
      // admin_purge mirrors `region` in Mcp-Param-Region; for a caller it is hidden from, it has no
      // such header to check, as an unknown tool has none (-32602, not -32020).
      for (const who of ['alice', undefined] as const) {
        const hidden = observed(await modern('tools/call', { name: 'admin_purge', arguments: { region: 'eu' } }, who))
        const unknown = observed(await modern('tools/call', { name: 'admin_purge_x', arguments: { region: 'eu' } }, who))
        expect(hidden).toEqual({ status: 200, error: { code: -32602, message: 'Unknown tool: admin_purge' }, result: undefined })
        expect(unknown).toEqual({ ...hidden, error: { code: -32602, message: 'Unknown tool: admin_purge_x' } })
      }
      const purged = await modern('tools/call', { name: 'admin_purge', arguments: { region: 'eu' } }, 'admin', {
        'mcp-param-region': 'eu',
      })
      expect(purged.message.result?.content?.[0]?.text).toBe('purged eu')
    })

    it('hides admin resources, templates and prompts, answering as for unknown ones', async () => {
      const uris = async (who?: Who) =>
        (((await modern('resources/list', {}, who)).message.result?.resources ?? []) as { uri: string }[]).map((item) => item.uri)
      expect(await uris()).toEqual(['catalog://readme'])
      expect(await uris('admin')).toEqual(['catalog://readme', 'catalog://admin-notes', 'catalog://audit/monday'])
      for (const uri of ['catalog://admin-notes', 'catalog://audit/monday']) {
        expect(observed(await modern('resources/read', { uri }, 'alice'))).toEqual({
          status: 200,
          error: { code: -32602, message: 'Resource not found', data: { uri } },
          result: undefined,
        })
        expect((await modern('resources/read', { uri }, 'admin')).message.result?.contents).toHaveLength(1)
      }
      expect(observed(await modern('prompts/get', { name: 'admin_briefing' }, 'alice')).error).toEqual({
        code: -32602,
        message: 'Unknown prompt: admin_briefing',
      })
      const prompts = (await modern('prompts/list', {}, 'alice')).message.result?.prompts as { name: string }[]
      expect(prompts.map((prompt) => prompt.name)).toEqual(['catalog_tour'])
    })
  })

  for (const version of REVISIONS) {
    describe(`${version} (a 2025-era session)`, () => {
      const connect = (who?: Who) => legacyConnect(target().fetch, url(), { version, ...(who ? { principal: who } : {}) })
      const call = (client: LegacyClient, method: string, params: Record<string, unknown>) =>
        legacyRpc(target().fetch, url(), client, method, params)

      it('lists, searches and calls alike; a hidden tool answers as an unknown one', async () => {
        const alice = await connect('alice')
        const listed = await call(alice, 'tools/list', {})
        expect(names(listed)).toEqual(['search_tools', 'catalog_help'])
        const found = await call(alice, 'tools/call', { name: 'search_tools', arguments: { query: 'warehouse 3' } })
        // 2025-03-26 has no structuredContent: the definitions come as JSON text after the summary.
        const tools =
          version === '2025-03-26'
            ? JSON.parse(found.message.result?.content?.[1]?.text).tools
            : found.message.result?.structuredContent?.tools
        expect(tools[0].name).toBe('warehouse_lookup_3')
        const called = await call(alice, 'tools/call', { name: 'warehouse_lookup_3', arguments: {} })
        expect(called.message.result?.content?.[0]?.text).toBe('warehouse 3: ok')
        const hidden = observed(await call(alice, 'tools/call', { name: 'admin_audit', arguments: {} }))
        const unknown = observed(await call(alice, 'tools/call', { name: 'admin_audix', arguments: {} }))
        expect(hidden.error?.code).toBe(-32602)
        expect(hidden).toEqual({ ...unknown, error: { ...unknown.error, message: 'Unknown tool: admin_audit' } })
        const admin = await connect('admin')
        expect(names(await call(admin, 'tools/list', {}))).toContain('admin_audit')
        expect((await call(admin, 'tools/call', { name: 'admin_audit', arguments: {} })).message.result?.content?.[0]?.text).toBe(
          'audit trail: empty',
        )
      })
    })
  }
}
