/**
 * `resources/list`, `resources/templates/list` and `resources/read` (server/resources.mdx). A
 * read tries the fixed resources, then the templates in registration order, skipping those hidden
 * from the caller (`visible`); a miss is -32602 with `data.uri` (SEP-2164), never an empty `contents`
 * (a handler's own empty `contents` passes as it returned it: the schema allows one).
 */
import { McpError } from '../../protocol/errors.ts'
import type { ReadResourceResult, Resource } from '../../protocol/types.ts'
import type { MethodEntry } from '../dispatch.ts'
import type { CacheHint } from '../types.ts'
import { subjectOf } from '../principal.ts'
import { readStoredResult } from '../results/spill.ts'
import { isVisible, listMethod, mayList, requireScopes, templatesMatching, viewerOf } from './access.ts'
import { plainScope, runWithInput } from './context.ts'

/** Reads default to no caching, privately: content may depend on who asks. */
export const DEFAULT_READ_CACHE: CacheHint = { ttlMs: 0, cacheScope: 'private' }

const fixedResources = listMethod('resources', 'resources', 'resources')

/**
 * `resources/list`: the fixed resources page by page, and on the last page those the templates
 * with a `list` callback stand for (only templates this caller sees and may read; the page is then private).
 */
export const resourcesList: MethodEntry = {
  ...fixedResources,
  async run(call) {
    const page = (await fixedResources.run(call)) as { resources: Resource[]; nextCursor?: string }
    const viewer = viewerOf(call)
    const listing = [...call.server.templates.values()].filter((entry) => entry.list !== undefined && mayList(entry, viewer))
    if (listing.length === 0 || page.nextCursor !== undefined) return page
    const scope = plainScope(call)
    const listed = await Promise.all(listing.map((entry) => (entry.list as NonNullable<typeof entry.list>)(scope)))
    return { ...page, resources: [...page.resources, ...listed.flat()], cacheScope: 'private' }
  },
}

export const resourceTemplatesList = listMethod('resources', 'templates', 'resourceTemplates')

function notFound(uri: string): McpError {
  return new McpError('invalidParams', 'Resource not found', { uri })
}

export const resourcesRead: MethodEntry = {
  capability: 'resources',
  inputRequired: true,
  async run(call) {
    const { server, params } = call
    const uri = params.uri
    if (typeof uri !== 'string' || uri === '') throw new McpError('invalidParams', 'Invalid params: uri must be a string')
    const principal = call.options.principal
    const viewer = viewerOf(call)
    const stored = await readStoredResult(server.results, uri, subjectOf(principal))
    // A stored result (docs/results.md) is its caller's alone: the default private, uncached hint.
    if (stored) return { ...DEFAULT_READ_CACHE, ...stored }
    return runWithInput(call, { target: uri, args: {}, singleUse: false }, async (scope) => {
      const fixed = server.resources.get(uri)
      if (fixed && isVisible(fixed, viewer)) {
        requireScopes(principal, fixed.scopes, `Resource ${uri}`)
        return withCache(await fixed.handler(uri, scope), fixed.cache)
      }
      for (const { entry, variables } of templatesMatching(server, uri)) {
        if (!isVisible(entry, viewer)) continue
        requireScopes(principal, entry.scopes, `Resource template ${entry.template.template}`)
        const result = await entry.handler(uri, variables, scope)
        if (result) return withCache(result, entry.cache)
      }
      throw notFound(uri)
    })
  },
}

/**
 * The result with its cache hint. An empty `contents` passes, as the schema and the SDKs let it
 * (a resource with nothing in it); for a missing resource the revision wants -32602, which the
 * handler throws (`McpError`, SDK 2.x `ResourceNotFoundError`): mcp-edge cannot tell the two apart.
 */
function withCache(result: ReadResourceResult, cache: CacheHint | undefined): object {
  if (!Array.isArray(result?.contents)) throw new Error('A resource handler must return { contents: [...] }')
  return { ...(cache ?? DEFAULT_READ_CACHE), ...result }
}
