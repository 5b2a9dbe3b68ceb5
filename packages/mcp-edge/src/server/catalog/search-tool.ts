/**
 * `search_tools`, the tool a server with `toolSearch: toolSearch({...})` lists in place of its
 * whole catalog (docs/catalogs.md); only a server that calls `toolSearch` bundles this code. It ranks the tools this caller may see (its `visible` predicates and scopes,
 * as `tools/list` would filter them) with rank.ts and returns their definitions, exactly as
 * `tools/list` would carry them, so the client can call them by name. Registered on `McpServer`
 * (by `ToolSearch.register`, when the server is created) like any tool, so calls reach it through the same dispatch, telemetry and auth.
 *
 * Not here: which tools `tools/list` carries (McpServer.listed), nor any state between searches.
 */
import * as z from 'zod/v4/mini'
import { isLegacyVersion, shapeLegacyResult } from '../../protocol/legacy.ts'
import type { CallToolResult, Tool } from '../../protocol/types.ts'
import { mayList } from '../methods/access.ts'
import { workingDefinitions } from '../schema/derived.ts'
import type { ToolEntry } from '../tool-entry.ts'
import { toolError } from '../tool-result.ts'
import type { ToolHandler, ToolOptions, ToolSearch, ToolSearchOptions } from '../types.ts'
import { rankTools, tokenize } from './rank.ts'

export const SEARCH_TOOL = 'search_tools'
export const DEFAULT_SEARCH_RESULTS = 10
/** The most `maxResults` may be: a search answers with full definitions, so it stays small. */
export const MAX_SEARCH_RESULTS = 50
export const MAX_QUERY_CHARS = 200
/** How much of a description the text summary repeats per tool. */
const SUMMARY_CHARS = 120

/**
 * The `toolSearch` server option: `tools/list` carries only the tools named in `alwaysListed` and
 * `search_tools`, which finds the others. Checked here, so a misconfiguration fails at start-up.
 *
 * @example
 * createMcpServer({ name: 'warehouse', version: '1.0.0', toolSearch: toolSearch({ alwaysListed: ['help'] }) })
 */
export function toolSearch(options: ToolSearchOptions = {}): ToolSearch {
  const maxResults = maxResultsOf(options)
  return {
    listed: new Set([...(options.alwaysListed ?? []), SEARCH_TOOL]),
    register(server) {
      const search = searchTool(server.tools as ReadonlyMap<string, ToolEntry<unknown>>, maxResults)
      server.tool(SEARCH_TOOL, search.options as never, search.handler as never)
    },
  }
}

/**
 * The tool's input. Descriptions go in zod's global registry, as `z.describe` puts them: zod/mini
 * has `describe` only from zod 4.1.13, and a server may run on zod 3.25's `zod/v4` (a peer).
 */
function searchInput(maxResults: number) {
  return z.object({
    query: z
      .string()
      .check(z.minLength(1), z.maxLength(MAX_QUERY_CHARS))
      .register(z.globalRegistry, { description: 'Words to look for in tool names, titles and descriptions' }),
    limit: z.optional(
      z
        .int()
        .check(z.minimum(1), z.maximum(maxResults))
        .register(z.globalRegistry, { description: `How many tools to return (default and most: ${maxResults})` }),
    ),
  })
}

const searchOutput = z.object({ tools: z.array(z.looseObject({ name: z.string() })), total: z.int() })

type SearchInput = ReturnType<typeof searchInput>

/** The most results per search: the option, checked (a misconfiguration fails at start-up). */
function maxResultsOf(options: ToolSearchOptions): number {
  const max = options.maxResults ?? DEFAULT_SEARCH_RESULTS
  if (!Number.isInteger(max) || max < 1 || max > MAX_SEARCH_RESULTS) {
    throw new Error(`toolSearch.maxResults must be an integer from 1 to ${MAX_SEARCH_RESULTS} (got ${max})`)
  }
  return max
}

/** The `search_tools` tool over `tools` (the server's registry, read at each call). */
function searchTool<Env>(
  tools: ReadonlyMap<string, ToolEntry<Env>>,
  maxResults: number,
): { options: ToolOptions<SearchInput, typeof searchOutput, undefined, Env>; handler: ToolHandler<SearchInput, Env> } {
  return {
    options: {
      title: 'Search tools',
      description:
        'Finds this server’s tools by name, title and description, best match first, and returns their definitions. ' +
        'Call a tool it finds by its name, with arguments that match its inputSchema.',
      input: searchInput(maxResults),
      output: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    handler({ query, limit }, ctx): CallToolResult {
      if (tokenize(query).length === 0) {
        return toolError(`Invalid arguments for tool ${SEARCH_TOOL}: query: needs at least one letter or digit`)
      }
      const candidates = [...tools.values()].filter((tool) => tool.name !== SEARCH_TOOL && mayList(tool, ctx))
      const ranked = rankTools(candidates, query, limit ?? maxResults)
      // A tool whose schema failed (logged once, named) is left out, as tools/list leaves it out.
      let found = workingDefinitions(ranked.matches)
      const total = ranked.total - (ranked.matches.length - found.length)
      const version = ctx.meta.protocolVersion
      // A 2025-era client gets the definitions in its revision's shape, as its tools/list would.
      if (isLegacyVersion(version)) found = shapeLegacyResult(version, 'tools/list', { tools: found }).tools as Tool[]
      const content: CallToolResult['content'] = [{ type: 'text', text: summary(query, found, total) }]
      // 2025-03-26 has no structuredContent: the definitions travel as text.
      if (version === '2025-03-26') content.push({ type: 'text', text: JSON.stringify({ tools: found, total }) })
      return { content, structuredContent: { tools: found, total } }
    },
  }
}

/** The short text for clients that read only text: one line per tool found. */
function summary(query: string, tools: readonly Tool[], total: number): string {
  if (total === 0) return `No tools match "${query}".`
  const lines = tools.map((tool) => {
    const about = (tool.description ?? tool.title ?? '').split('\n')[0] ?? ''
    return `- ${tool.name}${about ? `: ${about.length > SUMMARY_CHARS ? `${about.slice(0, SUMMARY_CHARS - 1)}…` : about}` : ''}`
  })
  const head = `${tools.length} of ${total} matching tools for "${query}", best first (definitions in structuredContent.tools); call one by name:`
  return [head, ...lines].join('\n')
}
