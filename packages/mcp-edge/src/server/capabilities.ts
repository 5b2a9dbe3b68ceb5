/**
 * Client capability checks, per request (basic/index.mdx: "Servers MUST NOT infer capabilities
 * from prior requests"). Paths name a capability the way `data.requiredCapabilities` spells it.
 */
import { McpError } from '../protocol/errors.ts'
import { isObject } from '../protocol/jsonrpc.ts'
import type { ClientCapabilities, JsonObject } from '../protocol/types.ts'

/** A client capability as `data.requiredCapabilities` names it: a top-level key, or key.subkey. */
export type CapabilityPath =
  | 'elicitation'
  | 'elicitation.form'
  | 'elicitation.url'
  | 'sampling'
  | 'sampling.tools'
  | 'roots'
  | 'partialResults'
  | `extensions.${string}`

/**
 * Whether `capabilities` declares `path`. `elicitation: {}` means form mode only
 * (client/elicitation: "an empty object is equivalent to form mode").
 *
 * @example
 * supports({ elicitation: {} }, 'elicitation.form') // true
 * supports({ elicitation: {} }, 'elicitation.url')  // false
 */
export function supports(capabilities: ClientCapabilities, path: CapabilityPath): boolean {
  const [head, tail] = splitPath(path)
  const top = capabilities[head]
  if (!isObject(top)) return false
  if (tail === undefined) return true
  if (head === 'elicitation' && tail === 'form') return isObject(top.form) || !isObject(top.url)
  return isObject(top[tail])
}

/** The `ClientCapabilities` object naming `path`, for `data.requiredCapabilities` of -32021. */
export function capabilityObject(path: CapabilityPath): ClientCapabilities {
  const [head, tail] = splitPath(path)
  return tail === undefined ? { [head]: {} } : { [head]: { [tail]: {} } }
}

/**
 * The -32021 error for capabilities a request needs but did not declare, with
 * `data.requiredCapabilities` as a `ClientCapabilities` object (basic/index.mdx).
 */
export function missingCapabilities(paths: readonly CapabilityPath[], what: string): McpError {
  const requiredCapabilities = mergeCapabilities(paths.map(capabilityObject))
  return new McpError('missingCapability', `${what} needs client capabilities that were not declared: ${paths.join(', ')}`, {
    requiredCapabilities,
  })
}

/** Merge capability objects (two levels deep, which is all `ClientCapabilities` uses). */
export function mergeCapabilities(objects: readonly ClientCapabilities[]): ClientCapabilities {
  const out: Record<string, JsonObject> = {}
  for (const object of objects) {
    for (const [key, value] of Object.entries(object)) {
      out[key] = { ...(out[key] ?? {}), ...(value as JsonObject) }
    }
  }
  return out
}

function splitPath(path: CapabilityPath): [string, string | undefined] {
  const dot = path.indexOf('.')
  return dot < 0 ? [path, undefined] : [path.slice(0, dot), path.slice(dot + 1)]
}
