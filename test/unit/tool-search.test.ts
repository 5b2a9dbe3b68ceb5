/**
 * Tool search (docs/catalogs.md): the documented ranking (server/catalog/rank.ts), and a server
 * with `toolSearch` through `McpServer.handle`: `tools/list` carries the always-listed tools and
 * `search_tools`; a search over a 1,000-tool catalog finds a tool, which is then called by name;
 * what a caller may not see is never found; bad arguments are tool errors (SEP-1303), in both eras.
 */
import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { FIELD_WEIGHTS, rankTools, scoreTool, tokenize } from '../../packages/mcp-edge/src/server/catalog/rank.ts'
import { Listener } from '../../packages/mcp-edge/src/server/events/listen-hub.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import type { McpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { toolSearch } from '../../packages/mcp-edge/src/server/catalog/search-tool.ts'
import type { Principal, ToolSearchOptions } from '../../packages/mcp-edge/src/server/types.ts'
import { configError, sendAs } from './support.ts'

describe('the ranking', () => {
  it('splits camelCase, lowercases and splits on anything not a letter or digit', () => {
    expect(tokenize('getWeather for a city-name, v2.1')).toEqual(['get', 'weather', 'for', 'a', 'city', 'name', 'v2', '1'])
    expect(tokenize('Météo_Paris')).toEqual(['météo', 'paris'])
    expect(tokenize('  ?! ')).toEqual([])
  })

  it('scores name 3, title 2, description 1 per query token, a prefix half, the exact name +10', () => {
    const tool = { name: 'get_weather', title: 'Weather now', description: 'Current conditions for a city' }
    expect(scoreTool(tool, 'weather')).toBe(3)
    expect(scoreTool(tool, 'city')).toBe(1)
    expect(scoreTool(tool, 'now')).toBe(2)
    expect(scoreTool(tool, 'cond')).toBe(0.5)
    expect(scoreTool(tool, 'co')).toBe(0) // a prefix counts from 3 characters
    expect(scoreTool(tool, 'weather weather city')).toBe(4) // each distinct token once
    expect(scoreTool(tool, 'GET_WEATHER')).toBe(10 + 3 + 3)
    expect(scoreTool(tool, 'snow')).toBe(0)
  })

  it('scores as the documented rule read literally (a property over random words)', () => {
    const word = fc.stringMatching(/^[a-e]{1,5}$/)
    const text = fc.array(word, { maxLength: 6 }).map((words) => words.join(' '))
    const literal = (tool: { name: string; title: string; description: string }, query: string) => {
      let score = query.trim().toLowerCase() === tool.name.toLowerCase() ? 10 : 0
      for (const token of new Set(tokenize(query))) {
        let best = 0
        for (const field of ['name', 'title', 'description'] as const) {
          const tokens = tokenize(tool[field])
          const match = tokens.includes(token) ? 1 : token.length >= 3 && tokens.some((t) => t.startsWith(token)) ? 0.5 : 0
          best = Math.max(best, FIELD_WEIGHTS[field] * match)
        }
        score += best
      }
      return score
    }
    fc.assert(
      fc.property(word, text, text, text, (name, title, description, query) => {
        const tool = { name, title, description }
        expect(scoreTool(tool, query)).toBe(literal(tool, query))
      }),
      { numRuns: 500 },
    )
  })

  it('orders by score, then by name; leaves out what scores 0; reports the total before the limit', () => {
    const tools = [
      { name: 'zeta_weather' },
      { name: 'alpha_weather' },
      { name: 'forecast', description: 'Weather tomorrow' },
      { name: 'unrelated' },
      { name: 'weather_alerts', title: 'Weather alerts' },
    ]
    const ranked = rankTools(tools, 'weather', 3)
    expect(ranked.matches.map((tool) => tool.name)).toEqual(['alpha_weather', 'weather_alerts', 'zeta_weather'])
    expect(ranked.total).toBe(4)
    expect(rankTools(tools, 'weather', 10).matches.at(-1)?.name).toBe('forecast')
  })
})

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const ALICE: Principal = { subject: 'alice' }

function catalogOf(size: number, options: ToolSearchOptions = { alwaysListed: ['help'] }): McpServer {
  const server = createMcpServer({ name: 'catalog', version: '1.0.0', toolSearch: toolSearch(options) })
  server.tool('help', { description: 'How to use this server', input: z.object({}) }, () => text('help'))
  for (let i = 0; i < size; i++) {
    server.tool(
      `record_${i}`,
      {
        description: `Reads ledger record number ${i} of the archive`,
        input: () => z.object({ verbose: z.boolean().optional() }),
      },
      () => text(`record ${i}`),
    )
  }
  server.tool(
    'rotate_keys',
    { description: 'Rotates the signing keys', input: z.object({}), visible: (ctx) => ctx.principal?.subject === 'admin' },
    () => text('rotated'),
  )
  return server
}

type Result = {
  content?: { type: string; text: string }[]
  structuredContent?: { tools: { name: string; inputSchema?: unknown; title?: string }[]; total: number }
  isError?: boolean
  tools?: { name: string }[]
  cacheScope?: string
}

const send = (...args: Parameters<typeof sendAs>) => sendAs<Result>(...args)
const search = (server: McpServer, args: Record<string, unknown>, principal?: Principal, version?: string) =>
  send(server, 'tools/call', { name: 'search_tools', arguments: args }, principal, version)

describe('search_tools', () => {
  it('lists the always-listed tools and search_tools only; a search finds a tool of 1,000, which is then called', async () => {
    const server = catalogOf(1000)
    const listed = await send(server, 'tools/list', {})
    expect(listed.result?.tools?.map((tool) => tool.name)).toEqual(['search_tools', 'help'])
    const found = (await search(server, { query: 'ledger record 777' })).result
    expect(found?.structuredContent?.tools[0]?.name).toBe('record_777')
    expect(found?.structuredContent?.tools[0]?.inputSchema).toMatchObject({ type: 'object', properties: { verbose: {} } })
    expect(found?.structuredContent?.tools).toHaveLength(10)
    expect(found?.structuredContent?.total).toBe(1000)
    expect(found?.content?.[0]?.text).toMatch(
      /^10 of 1000 matching tools for "ledger record 777".*\n- record_777: Reads ledger record number 777/,
    )
    expect((await send(server, 'tools/call', { name: 'record_777', arguments: {} })).result?.content?.[0]?.text).toBe(
      'record 777',
    )
  })

  it('finds a tool by its exact name first, and honours limit', async () => {
    const server = catalogOf(50)
    const found = (await search(server, { query: 'record_7', limit: 2 })).result?.structuredContent
    expect(found?.tools.map((tool) => tool.name)).toEqual(['record_7', 'record_0'])
  })

  it('never finds a tool hidden from the caller, nor itself', async () => {
    const server = catalogOf(5)
    expect((await search(server, { query: 'rotate signing keys' }, ALICE)).result?.structuredContent).toEqual({
      tools: [],
      total: 0,
    })
    expect((await search(server, { query: 'rotate signing keys' }, ALICE)).result?.content?.[0]?.text).toBe(
      'No tools match "rotate signing keys".',
    )
    const admin = (await search(server, { query: 'rotate signing keys' }, { subject: 'admin' })).result?.structuredContent
    expect(admin?.tools.map((tool) => tool.name)).toEqual(['rotate_keys'])
    expect((await search(server, { query: 'search tools' })).result?.structuredContent?.tools.map((tool) => tool.name)).toEqual(
      [],
    )
  })

  it('answers bad arguments with a tool error naming the problem, and runs no search', async () => {
    const server = catalogOf(5)
    for (const [args, problem] of [
      [{}, 'query'],
      [{ query: '' }, 'query'],
      [{ query: 'x'.repeat(201) }, 'query'],
      [{ query: '?!' }, 'query: needs at least one letter or digit'],
      [{ query: 'record', limit: 11 }, 'limit'],
      [{ query: 'record', limit: 0 }, 'limit'],
      [{ query: 'record', limit: 2.5 }, 'limit'],
    ] as const) {
      const result = (await search(server, args)).result
      expect(result?.isError).toBe(true)
      expect(result?.content?.[0]?.text).toContain(`Invalid arguments for tool search_tools: ${problem}`)
      expect(result?.structuredContent).toBeUndefined()
    }
  })

  it('announces tools/list_changed when a tool only search finds is registered or removed', () => {
    const server = catalogOf(3)
    const listener = new Listener('l', { toolsListChanged: true }, null)
    server.hub.add(listener)
    server.tool('late_tool', { description: 'Registered later', input: z.object({}) }, () => text('late'))
    expect(listener.take().map((message) => message.method)).toEqual(['notifications/tools/list_changed'])
    expect(server.removeTool('late_tool')).toBe(true)
    expect(listener.take().map((message) => message.method)).toEqual(['notifications/tools/list_changed'])
  })

  it('refuses a maxResults outside 1-50 at start-up', () => {
    expect(configError(() => catalogOf(1, { maxResults: 51 })).message).toBe(
      'toolSearch.maxResults must be an integer from 1 to 50 (got 51)',
    )
    expect(configError(() => catalogOf(1, { maxResults: 0 })).message).toContain('(got 0)')
    // The options object as written before toolSearch(): start-up says what to write.
    const plain = () => createMcpServer({ name: 'catalog', version: '1.0.0', toolSearch: { alwaysListed: ['help'] } as never })
    expect(configError(plain).message).toBe(
      'The toolSearch option must be built by toolSearch({ alwaysListed }) (docs/catalogs.md)',
    )
  })

  it('answers 2025-era clients alike, with definitions in their revision’s shape (2025-03-26: as JSON text)', async () => {
    const server = catalogOf(20)
    const legacy = (await search(server, { query: 'record 3' }, undefined, '2025-06-18')).result
    expect(legacy?.structuredContent?.tools[0]?.name).toBe('record_3')
    const oldest = (await search(server, { query: 'record 3' }, undefined, '2025-03-26')).result
    expect(oldest?.structuredContent).toBeUndefined()
    const carried = JSON.parse(oldest?.content?.[1]?.text ?? '{}') as { tools: { name: string }[]; total: number }
    expect(carried.tools[0]?.name).toBe('record_3')
    expect(carried.total).toBe(20)
  })
})
