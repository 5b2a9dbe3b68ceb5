/**
 * `completion/complete` (server/utilities/completion.mdx): suggestions for a prompt argument or a
 * resource template variable. Unknown references (and those hidden from the caller) are -32602; an argument without a completer,
 * or a fixed resource's URI, simply has no suggestions. At most 100 values go out, with `hasMore` when there were more.
 */
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import type { Call, MethodEntry } from '../dispatch.ts'
import type { Completer } from '../types.ts'
import { isVisible, requireScopes, viewerOf } from './access.ts'
import { plainScope } from './context.ts'

const MAX_VALUES = 100

function findCompleter(ref: Record<string, unknown>, name: string, call: Call): Completer<unknown> | undefined {
  const { server } = call
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompt = server.prompts.get(ref.name)
    if (!prompt || !isVisible(prompt, viewerOf(call))) throw new McpError('invalidParams', `Unknown prompt: ${ref.name}`)
    requireScopes(call.options.principal, prompt.scopes, `Prompt "${ref.name}"`)
    return Object.hasOwn(prompt.complete, name) ? prompt.complete[name] : undefined
  }
  if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
    const template = server.templates.get(ref.uri)
    if (!template || !isVisible(template, viewerOf(call))) {
      // A fixed resource's URI is a reference too (the spec's "URI or URI template"), with nothing to complete.
      const resource = server.resources.get(ref.uri)
      if (resource && isVisible(resource, viewerOf(call))) {
        requireScopes(call.options.principal, resource.scopes, `Resource ${ref.uri}`)
        return undefined
      }
      throw new McpError('invalidParams', `Unknown resource template: ${ref.uri}`)
    }
    requireScopes(call.options.principal, template.scopes, `Resource template ${ref.uri}`)
    return Object.hasOwn(template.complete, name) ? (template.complete[name] as Completer<unknown>) : undefined
  }
  throw new McpError('invalidParams', 'Invalid params: ref must be a ref/prompt or ref/resource')
}

export const complete: MethodEntry = {
  capability: 'completions',
  inputRequired: false,
  async run(call) {
    const { params } = call
    const { ref, argument, context } = params
    if (!isObject(ref) || !isObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw new McpError('invalidParams', 'Invalid params: ref and argument { name, value } are required')
    }
    const completer = findCompleter(ref, argument.name, call)
    // Nothing to suggest, said as the SDKs say it (`hasMore: false`).
    if (!completer) return { completion: { values: [], hasMore: false } }
    const contextArguments = isObject(context) && isObject(context.arguments) ? (context.arguments as Record<string, string>) : {}
    const scope = Object.assign(plainScope(call), { arguments: contextArguments })
    const answer = await completer(argument.value, scope)
    const completion = Array.isArray(answer) ? { values: answer } : answer
    if (completion.values.length <= MAX_VALUES) return { completion }
    return {
      completion: {
        ...completion,
        values: completion.values.slice(0, MAX_VALUES),
        total: completion.total ?? completion.values.length,
        hasMore: true,
      },
    }
  },
}
