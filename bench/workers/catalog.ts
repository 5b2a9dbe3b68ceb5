/**
 * The tool catalog of the many-tools bench (bench/lib/many-tools.mjs): `count` tools with the
 * kind of input schemas real servers publish (nested objects, arrays of objects, enums, bounded
 * numbers, defaults, a description on every property), built with zod/mini. Each tool's `input`
 * is a function that builds its schema: mcp-edge takes it as is (built on first use), the SDK v2
 * Worker calls it at start-up (its API takes schemas). The mcp-edge Worker (tools.js) and the
 * SDK v2 Worker (sdk-tools.js) register the same catalog. Deterministic: tool
 * i is the same in every server, so tool 0 (`crm_search_000`) answers the bench's call (bench/lib/mcp.mjs
 * CATALOG_CALL) with the same text everywhere.
 */
import * as z from 'zod/mini'

const DOMAINS = ['crm', 'billing', 'support', 'inventory', 'analytics', 'calendar', 'docs', 'deploy'] as const
const VERBS = ['search', 'update', 'create', 'export'] as const
const described = <T extends z.core.$ZodType>(schema: T, description: string): T =>
  (schema as unknown as z.ZodMiniType).check(z.describe(description)) as unknown as T

function inputSchema(domain: string, verb: string, i: number) {
  const entity = `${domain} record`
  return z.object({
    query: described(z.string().check(z.minLength(1), z.maxLength(200)), `Free-text query over ${entity}s (names, ids, notes).`),
    filters: z.optional(
      described(
        z.object({
          status: described(z.enum(['open', 'pending', 'closed', 'archived']), `Lifecycle state of the ${entity}.`),
          tags: z.optional(
            described(z.array(z.string().check(z.maxLength(40))).check(z.maxLength(10)), 'Tags that must all be present.'),
          ),
          owner: z.optional(
            described(
              z.object({
                id: described(z.string(), 'Owner user id.'),
                team: z.optional(described(z.enum(['emea', 'amer', 'apac', `team-${i}`]), 'Owning team.')),
              }),
              'Restrict to one owner.',
            ),
          ),
          range: z.optional(
            described(
              z.object({
                from: described(z.number().check(z.minimum(0)), 'Lower bound, inclusive.'),
                to: described(z.number().check(z.maximum(1_000_000)), 'Upper bound, inclusive.'),
              }),
              `Numeric range on the ${entity}'s score.`,
            ),
          ),
        }),
        'Filters combined with AND.',
      ),
    ),
    sort: z._default(described(z.enum(['relevance', 'newest', 'oldest', `${verb}-order`]), 'Result order.'), 'relevance'),
    limit: z._default(described(z.int().check(z.minimum(1), z.maximum(100)), 'Page size.'), 20),
    fields: z.optional(
      described(z.array(z.enum(['id', 'name', 'updatedAt', 'owner', 'status', `${domain}_extra`])), 'Fields to return.'),
    ),
    dryRun: z.optional(described(z.boolean(), 'Validate only; change nothing.')),
  })
}

export type CatalogInput = z.infer<ReturnType<typeof inputSchema>>

export interface CatalogTool {
  name: string
  description: string
  input: () => ReturnType<typeof inputSchema>
  annotations: { readOnlyHint: boolean }
  handler: (args: CatalogInput) => { content: Array<{ type: 'text'; text: string }> }
}

/** The first `count` tools of the catalog. */
export function catalog(count: number): CatalogTool[] {
  return Array.from({ length: count }, (_, i) => {
    const domain = DOMAINS[i % DOMAINS.length] as string
    const verb = VERBS[Math.floor(i / DOMAINS.length) % VERBS.length] as string
    const name = `${domain}_${verb}_${String(i).padStart(3, '0')}`
    return {
      name,
      description:
        `${verb[0]?.toUpperCase()}${verb.slice(1)} ${domain} records (catalog tool ${i}). Matches the query against names, ids ` +
        'and notes, applies the filters, and returns one page of results with the requested fields. Read the ' +
        'filters description for the operators each field supports.',
      input: () => inputSchema(domain, verb, i),
      annotations: { readOnlyHint: verb === 'search' || verb === 'export' },
      handler: ({ query, filters, limit }) => ({
        content: [
          {
            type: 'text',
            text: `${name}: ${limit} ${filters?.status ?? 'any'} results for "${query}" (${filters?.tags?.join(', ') ?? 'no tags'}; owner ${filters?.owner?.id ?? 'anyone'})`,
          },
        ],
      }),
    }
  })
}
