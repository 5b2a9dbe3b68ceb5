/**
 * Who may see and use what, in the method table. Scopes (authorization "Scope Challenge"): a tool,
 * resource, resource template or prompt may declare the scopes a caller needs; a call without them
 * is HTTP 403 `insufficient_scope` naming them, so the client can step up. Visibility (`visible`):
 * an entry a caller may not see does not exist for it; its lists, searches and calls behave as if
 * it had never been registered. Lists show each caller only what it may use, and a list that can
 * differ by caller is cached `private`. A principal without `scopes` (a bearer secret, a local
 * caller) is not limited by scopes.
 */
import { McpError } from '../../protocol/errors.ts'
import type { Call, Listed, ListedEntry, MethodEntry, ServerCore } from '../dispatch.ts'
import { paginate } from '../pagination.ts'
import { workingDefinitions } from '../schema/derived.ts'
import { errorFields, libraryLog } from '../telemetry/log.ts'
import type { TemplateEntry } from '../registry.ts'
import type { Principal, Visibility, VisibilityContext } from '../types.ts'

/** What visibility predicates see of this call. */
export function viewerOf<Env>(call: Call<Env>): VisibilityContext<Env> {
  return { principal: call.options.principal, env: call.options.env, meta: call.meta }
}

/**
 * Whether `entry` exists for this caller: no predicate, or one that answers true. A predicate
 * that throws hides the entry (fail closed) and is logged.
 *
 * @example
 * if (!tool || !isVisible(tool, viewerOf(call))) throw unknownTool(name)
 */
export function isVisible<Env>(
  entry: { readonly visible?: Visibility<Env> | undefined },
  viewer: VisibilityContext<Env>,
): boolean {
  if (entry.visible === undefined) return true
  try {
    return entry.visible(viewer) === true
  } catch (error) {
    libraryLog.error('visible predicate threw: the entry is hidden', errorFields(error))
    return false
  }
}

/** Whether this caller sees `entry` in a list: visible to it, and holding its scopes. */
export function mayList<Env>(entry: ListedEntry<Env>, viewer: VisibilityContext<Env>): boolean {
  return isVisible(entry, viewer) && missingScopes(viewer.principal, entry.scopes).length === 0
}

/** Whether a list of `entries` can differ by caller (so is cached `private`). */
export function variesByCaller(entries: readonly ListedEntry<never>[]): boolean {
  return entries.some((entry) => entry.scopes.length > 0 || entry.visible !== undefined)
}

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

/**
 * The scopes reading `uri` takes: its fixed resource's, else the first matching template's (of
 * those visible to the caller; none when nothing it may see matches, as for an unknown URI).
 */
export function readScopes<Env>(server: ServerCore<Env>, viewer: VisibilityContext<Env>, uri: string): readonly string[] {
  const fixed = server.resources.get(uri)
  if (fixed && isVisible(fixed, viewer)) return fixed.scopes
  for (const { entry } of templatesMatching(server, uri)) if (isVisible(entry, viewer)) return entry.scopes
  return []
}

/**
 * The templates that match `uri`, in registration order, with its variables: those that match it
 * as it is, or, when none does, those that take its query and fragment into a variable that ends
 * them (uri-template.ts `matchWithQuery`, as the SDKs match), so that looser match never shadows
 * a template that matches exactly.
 */
export function templatesMatching<Env>(
  server: ServerCore<Env>,
  uri: string,
): { entry: TemplateEntry<Env>; variables: Record<string, string> }[] {
  const exact = matchAll(server, (entry) => entry.template.match(uri))
  return exact.length > 0 ? exact : matchAll(server, (entry) => entry.template.matchWithQuery(uri))
}

function matchAll<Env>(server: ServerCore<Env>, match: (entry: TemplateEntry<Env>) => Record<string, string> | undefined) {
  const found: { entry: TemplateEntry<Env>; variables: Record<string, string> }[] = []
  for (const entry of server.templates.values()) {
    const variables = match(entry)
    if (variables) found.push({ entry, variables })
  }
  return found
}

/**
 * Whether this caller may read `uri`, so hear of its updates too: not when everything that serves
 * it is hidden from the caller, nor without its scopes. A URI nothing serves is left alone.
 */
export function mayRead<Env>(server: ServerCore<Env>, viewer: VisibilityContext<Env>, uri: string): boolean {
  const fixed = server.resources.get(uri)
  const templates = templatesMatching(server, uri).map(({ entry }) => entry)
  const serving: { visible?: Visibility<Env> | undefined }[] = fixed ? [fixed, ...templates] : templates
  if (serving.length > 0 && !serving.some((entry) => isVisible(entry, viewer))) return false
  return missingScopes(viewer.principal, readScopes(server, viewer, uri)).length === 0
}

/**
 * A list method (`tools/list`, `prompts/list`…): one page of the definitions of a registry that
 * this principal may use, as `field`, with the list's cache hint. Only the page's definitions are
 * read, so a tool whose schemas are built on first use is built here; one whose schema fails is
 * left out of the page (the page may hold fewer than `pageSize`).
 */
export function listMethod(capability: 'tools' | 'resources' | 'prompts', kind: Listed, field: string): MethodEntry {
  return {
    capability,
    inputRequired: false,
    async run(call) {
      const { server, params } = call
      const all = server.listed(kind)
      let entries = all
      let cache = server.listCache
      // A list that can differ by caller is private (caching.mdx: never shared across authorizations).
      if (variesByCaller(all)) {
        cache = { ttlMs: server.listCache.ttlMs, cacheScope: 'private' }
        const viewer = viewerOf(call)
        entries = all.filter((entry) => mayList(entry, viewer))
      }
      const { items, nextCursor } = paginate(entries, params.cursor, server.pageSize)
      // A tool or prompt whose schema failed (logged once, named) is left out; the rest are served.
      const definitions = workingDefinitions(items)
      return { [field]: definitions, ...(nextCursor ? { nextCursor } : {}), ...cache }
    },
  }
}
