/**
 * `prompts/list` and `prompts/get` (server/prompts.mdx). Unknown prompt (or one hidden from this
 * caller, answered alike) and missing required arguments are -32602; arguments are strings and are parsed with the prompt's zod object.
 */
import { McpError } from '../../protocol/errors.ts'
import type { MethodEntry } from '../dispatch.ts'
import { asArguments, parseMaybeAsync } from '../schema/schema.ts'
import { isVisible, listMethod, requireScopes, viewerOf } from './access.ts'
import { runWithInput } from './context.ts'

export const promptsList = listMethod('prompts', 'prompts', 'prompts')

export const promptsGet: MethodEntry = {
  capability: 'prompts',
  inputRequired: true,
  async run(call) {
    const { server, params } = call
    const name = params.name
    if (typeof name !== 'string') throw new McpError('invalidParams', 'Invalid params: name must be a string')
    const prompt = server.prompts.get(name)
    if (!prompt || !isVisible(prompt, viewerOf(call))) throw new McpError('invalidParams', `Unknown prompt: ${name}`)
    requireScopes(call.options.principal, prompt.scopes, `Prompt "${name}"`)
    const args = asArguments(params.arguments, 'arguments')
    const nonString = Object.entries(args).find(([, value]) => typeof value !== 'string')
    if (nonString) throw new McpError('invalidParams', `Invalid params: argument "${nonString[0]}" must be a string`)
    // Own keys only: an argument may be named `__proto__`, which every object seems to have.
    const missing = prompt.required.filter((key) => !Object.hasOwn(args, key) || args[key] === undefined)
    if (missing.length > 0) {
      throw new McpError('invalidParams', `Missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`)
    }
    let parsed: unknown = {}
    if (prompt.args) {
      const result = await parseMaybeAsync(prompt.args, args)
      if (!result.ok) throw new McpError('invalidParams', `Invalid arguments for prompt ${name}: ${result.message}`)
      parsed = result.value
    }
    return runWithInput(call, { target: name, args, singleUse: false }, async (scope) => {
      const result = await prompt.handler(parsed as never, scope)
      if (!Array.isArray(result?.messages)) throw new Error(`Prompt "${name}" must return { messages: [...] }`)
      return result
    })
  },
}
