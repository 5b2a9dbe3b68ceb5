/**
 * The ranking of tool search (docs/catalogs.md "How search ranks"): pure and deterministic, so a
 * query finds the same tools in the same order on every isolate. Called by the `search_tools`
 * tool (search-tool.ts); it knows nothing of visibility or the wire.
 *
 * Text is split into tokens: camelCase boundaries are split, everything is lowercased, and any run
 * of characters that are not letters or digits separates tokens (`getWeather`, `get_weather` and
 * `get-weather` all give `get`, `weather`). Each distinct query token scores in the best field it
 * matches: name 3, title 2, description 1, times 1 for a token equal to one of the field's tokens
 * or 0.5 for a prefix of one (query tokens of 3 characters or more). A tool's score is the sum over
 * the query's tokens, plus 10 when the whole query is the tool's name (case-insensitive). Tools
 * scoring 0 are left out; the rest are ordered by score, then by name (code-unit order).
 */

/** What search reads of a tool. */
export interface Searchable {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
}

export const FIELD_WEIGHTS = { name: 3, title: 2, description: 1 } as const
export const PREFIX_MATCH = 0.5
export const MIN_PREFIX_CHARS = 3
export const EXACT_NAME_BONUS = 10

/**
 * A tool's distinct tokens per field, sorted (code-unit order), computed once per tool (tools never
 * change after registration): one binary search finds both an equal token and a prefix match.
 */
interface Indexed {
  readonly name: string
  readonly fields: readonly (readonly [weight: number, tokens: readonly string[]])[]
}

const index = new WeakMap<Searchable, Indexed>()

/**
 * The tokens of `text`, in order (duplicates kept).
 *
 * @example
 * tokenize('getWeather for a city-name') // ['get', 'weather', 'for', 'a', 'city', 'name']
 */
export function tokenize(text: string): string[] {
  return text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((token) => token !== '')
}

function indexed(tool: Searchable): Indexed {
  let entry = index.get(tool)
  if (!entry) {
    const sorted = (text: string) => [...new Set(tokenize(text))].sort()
    const fields: [number, string[]][] = [[FIELD_WEIGHTS.name, sorted(tool.name)]]
    if (tool.title) fields.push([FIELD_WEIGHTS.title, sorted(tool.title)])
    if (tool.description) fields.push([FIELD_WEIGHTS.description, sorted(tool.description)])
    entry = { name: tool.name.toLowerCase(), fields }
    index.set(tool, entry)
  }
  return entry
}

/**
 * How well `token` matches a field's sorted tokens: 1 equal, 0.5 a prefix (long enough), else 0.
 * The first token not below `token` is the one: tokens that start with it sort right there.
 */
function matchOf(token: string, sorted: readonly string[]): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((sorted[middle] as string) < token) low = middle + 1
    else high = middle
  }
  const found = sorted[low]
  if (found === token) return 1
  return found !== undefined && token.length >= MIN_PREFIX_CHARS && found.startsWith(token) ? PREFIX_MATCH : 0
}

/**
 * A tool's score for a query (module header); 0 when nothing matches.
 *
 * @example
 * scoreTool({ name: 'get_weather', description: 'Current weather' }, 'weather') // 3
 */
export function scoreTool(tool: Searchable, query: string): number {
  return scoreIndexed(indexed(tool), [...new Set(tokenize(query))], query.trim().toLowerCase())
}

function scoreIndexed(tool: Indexed, tokens: readonly string[], whole: string): number {
  let score = whole === tool.name ? EXACT_NAME_BONUS : 0
  for (const token of tokens) {
    let best = 0
    for (const [weight, fieldTokens] of tool.fields) {
      if (weight <= best) continue
      best = Math.max(best, weight * matchOf(token, fieldTokens))
    }
    score += best
  }
  return score
}

export interface Ranked<T> {
  /** The best `limit` matches, best first. */
  matches: T[]
  /** How many tools matched at all. */
  total: number
}

/**
 * The tools matching `query`, best first (module header), at most `limit` of them.
 *
 * @example
 * rankTools(tools, 'weather forecast', 10) // { matches: [get_forecast, get_weather], total: 2 }
 */
export function rankTools<T extends Searchable>(tools: Iterable<T>, query: string, limit: number): Ranked<T> {
  const tokens = [...new Set(tokenize(query))]
  const whole = query.trim().toLowerCase()
  const scored: { tool: T; score: number }[] = []
  for (const tool of tools) {
    const score = scoreIndexed(indexed(tool), tokens, whole)
    if (score > 0) scored.push({ tool, score })
  }
  scored.sort((a, b) => b.score - a.score || (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0))
  return { matches: scored.slice(0, limit).map((entry) => entry.tool), total: scored.length }
}
