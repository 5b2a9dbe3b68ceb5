/**
 * What the Streamable HTTP headers of a request carry (streamable-http "Standard headers",
 * SEP-2243), shared by both ends: which body field `Mcp-Name` mirrors per method, how a value is
 * spelled (plain visible ASCII, or the `=?base64?…?=` sentinel), and which `Mcp-Param-*` headers a
 * tool's `x-mcp-header` annotations call for. The server validates with these (src/http/headers.ts,
 * src/server/registry.ts); clients build requests with them (src/client/request.ts). Pure: no I/O.
 */
import { encodeBase64 } from './base64.ts'
import { METHOD } from './constants.ts'
import { isObject } from './jsonrpc.ts'

/** Which body field `Mcp-Name` mirrors, per method. */
export const NAME_FIELD: Readonly<Record<string, string>> = {
  [METHOD.toolsCall]: 'name',
  [METHOD.promptsGet]: 'name',
  [METHOD.resourcesRead]: 'uri',
  [METHOD.tasksGet]: 'taskId',
  [METHOD.tasksUpdate]: 'taskId',
  [METHOD.tasksCancel]: 'taskId',
}

/** A value sent as base64 of its UTF-8 bytes. */
export const HEADER_SENTINEL = /^=\?base64\?(.*)\?=$/
/** Visible ASCII and inner spaces: what a plain (non-sentinel) value may contain. */
export const PLAIN_HEADER_VALUE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/

const utf8 = new TextEncoder()

/**
 * Spell a value for a header: as is when it is plain visible ASCII, otherwise (non-ASCII, control
 * characters, surrounding whitespace, empty, or a value that itself looks like the sentinel) as
 * `=?base64?…?=`.
 *
 * @example
 * encodeHeaderValue('get_weather') // 'get_weather'
 * encodeHeaderValue('Grüße')       // '=?base64?R3LDvMOfZQ==?='
 */
export function encodeHeaderValue(value: string): string {
  if (PLAIN_HEADER_VALUE.test(value) && !HEADER_SENTINEL.test(value)) return value
  return `=?base64?${encodeBase64(utf8.encode(value))}?=`
}

/** One `Mcp-Param-{name}` header derived from an `x-mcp-header` annotation. */
export interface HeaderParam {
  /** The header name after `Mcp-Param-`, as annotated (matching is case-insensitive). */
  name: string
  /** Property path from the arguments object, through `properties` keys only. */
  path: readonly string[]
  type: 'string' | 'integer' | 'boolean'
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * Collect and validate the `x-mcp-header` annotations of a tool input schema (streamable-http
 * "Custom headers"): non-empty RFC 9110 tokens, unique ignoring case, only on string, integer or
 * boolean properties reached through `properties` keys. Throws on a bad annotation: a server
 * fails the tool's first use (at start-up for a raw JSON Schema input), a client leaves the tool
 * out of its view (as SEP-2243 asks).
 *
 * @example
 * findHeaderParams('query', { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } })
 * // [{ name: 'Region', path: ['region'], type: 'string' }]
 */
export function findHeaderParams(toolName: string, inputSchema: Record<string, unknown>): HeaderParam[] {
  // Most tools annotate nothing: a JSON schema without the key anywhere needs no walk (nor its
  // compilation on an isolate's first call).
  if (!JSON.stringify(inputSchema).includes('"x-mcp-header"')) return []
  const found: HeaderParam[] = []
  /** `path` is the property chain so far, or undefined once the walk left `properties` chains. */
  const walk = (node: Record<string, unknown>, path: string[] | undefined, where: string): void => {
    const annotation = node['x-mcp-header']
    if (annotation !== undefined) {
      if (path === undefined || path.length === 0) {
        throw new Error(
          `tool "${toolName}" at ${where || '(root)'}: x-mcp-header is allowed only on properties reached through "properties" keys`,
        )
      }
      const label = `tool "${toolName}" property "${path.join('.')}"`
      if (typeof annotation !== 'string' || !TOKEN.test(annotation)) {
        throw new Error(`${label}: x-mcp-header must be a non-empty header token, got ${JSON.stringify(annotation)}`)
      }
      const type = node.type
      if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
        throw new Error(`${label}: x-mcp-header is allowed only on string, integer or boolean properties`)
      }
      if (found.some((param) => param.name.toLowerCase() === annotation.toLowerCase())) {
        throw new Error(`${label}: x-mcp-header "${annotation}" is used twice (names are case-insensitive)`)
      }
      found.push({ name: annotation, path, type })
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'properties' && isObject(child)) {
        for (const [name, property] of Object.entries(child)) {
          if (isObject(property)) walk(property, path && [...path, name], `${where}/properties/${name}`)
        }
      } else if (isObject(child)) walk(child, undefined, `${where}/${key}`)
      else if (Array.isArray(child)) {
        child.forEach((item, index) => {
          if (isObject(item)) walk(item, undefined, `${where}/${key}/${index}`)
        })
      }
    }
  }
  walk(inputSchema, [], '')
  return found
}

/** The argument at `path`, or undefined when the path leaves the objects. */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let node = args
  for (const key of path) {
    if (!isObject(node)) return undefined
    node = node[key]
  }
  return node
}
