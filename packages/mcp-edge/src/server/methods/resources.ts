/**
 * `resources/list`, `resources/templates/list` and `resources/read` (server/resources.mdx). A
 * read tries the fixed resources, then the templates in registration order; a miss is -32602
 * with `data.uri` (SEP-2164), never an empty `contents`.
 */
import { McpError } from '../../protocol/errors.ts'
import type { ReadResourceResult } from '../../protocol/types.ts'
import type { MethodEntry } from '../dispatch.ts'
import type { CacheHint } from '../types.ts'
import { listMethod, requireScopes } from './access.ts'
import { runWithInput } from './context.ts'

/** Reads default to no caching, privately: content may depend on who asks. */
export const DEFAULT_READ_CACHE: CacheHint = { ttlMs: 0, cacheScope: 'private' }

export const resourcesList = listMethod('resources', 'resources', 'resources')

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
    return runWithInput(call, { target: uri, args: {}, singleUse: false }, async (scope) => {
      const fixed = server.resources.get(uri)
      if (fixed) {
        requireScopes(principal, fixed.scopes, `Resource ${uri}`)
        return withCache(await fixed.handler(uri, scope), fixed.cache)
      }
      for (const entry of server.templates.values()) {
        const variables = entry.template.match(uri)
        if (!variables) continue
        requireScopes(principal, entry.scopes, `Resource template ${entry.template.template}`)
        const result = await entry.handler(uri, variables, scope)
        if (result) return withCache(result, entry.cache)
      }
      throw notFound(uri)
    })
  },
}

function withCache(result: ReadResourceResult, cache: CacheHint | undefined): object {
  if (!Array.isArray(result?.contents) || result.contents.length === 0) {
    throw new Error('A resource handler must return { contents: [...] } with at least one item')
  }
  return { ...(cache ?? DEFAULT_READ_CACHE), ...result }
}
