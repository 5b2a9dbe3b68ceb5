/**
 * OAuth scopes in the method table (authorization "Scope Challenge"): a tool, resource, resource
 * template or prompt may declare the scopes a caller needs. A call without them is HTTP 403
 * `insufficient_scope` naming them, so the client can step up; the lists show each principal only
 * what it may use, and such lists are cached `private`. A principal without `scopes` (a bearer
 * secret, a local caller) is not limited by scopes.
 */
import { McpError } from '../../protocol/errors.ts'
import type { Listed, MethodEntry, ServerCore } from '../dispatch.ts'
import { paginate } from '../pagination.ts'
import type { Principal } from '../types.ts'

/** The scopes of `needed` that `principal` lacks. */
export function missingScopes(principal: Principal | undefined, needed: readonly string[]): string[] {
  const held = principal?.scopes
  if (needed.length === 0 || held === undefined) return []
  return needed.filter((scope) => !held.includes(scope))
}

/**
 * Throw 403 `insufficient_scope` unless the principal holds every scope `needed`.
 *
 * @example
 * requireScopes(call.options.principal, tool.scopes, `Tool "${name}"`)
 */
export function requireScopes(principal: Principal | undefined, needed: readonly string[], what: string): void {
  if (missingScopes(principal, needed).length === 0) return
  throw new McpError('insufficientScope', `Forbidden: ${what} needs scope ${needed.join(' ')}`, { requiredScopes: needed })
}

/** The scopes reading `uri` takes: its fixed resource's, else the first matching template's. */
export function readScopes<Env>(server: ServerCore<Env>, uri: string): readonly string[] {
  const fixed = server.resources.get(uri)
  if (fixed) return fixed.scopes
  for (const entry of server.templates.values()) if (entry.template.match(uri)) return entry.scopes
  return []
}

/** Whether `principal` may read `uri`, so hear of its updates too. */
export function mayRead<Env>(server: ServerCore<Env>, principal: Principal | undefined, uri: string): boolean {
  return missingScopes(principal, readScopes(server, uri)).length === 0
}

/**
 * A list method (`tools/list`, `prompts/list`…): one page of the definitions of a registry that
 * this principal may use, as `field`, with the list's cache hint. Only the page's definitions are
 * read, so a tool whose schemas are built on first use is built here.
 */
export function listMethod(capability: 'tools' | 'resources' | 'prompts', kind: Listed, field: string): MethodEntry {
  return {
    capability,
    inputRequired: false,
    async run({ server, params, options }) {
      const all = server.listed(kind)
      let entries = all
      let cache = server.listCache
      // A list that can differ by caller is private (caching.mdx: never shared across authorizations).
      if (all.some((entry) => entry.scopes.length > 0)) {
        cache = { ttlMs: server.listCache.ttlMs, cacheScope: 'private' }
        const principal = options.principal
        if (principal?.scopes !== undefined) entries = all.filter((entry) => missingScopes(principal, entry.scopes).length === 0)
      }
      const { items, nextCursor } = paginate(entries, params.cursor, server.pageSize)
      return { [field]: items.map((entry) => entry.definition), ...(nextCursor ? { nextCursor } : {}), ...cache }
    },
  }
}
