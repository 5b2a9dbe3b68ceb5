/**
 * Schemas at the edge of user code: zod (classic or mini, any v4 schema) in, JSON Schema 2020-12
 * out, converted once, when first needed, and never per request. Also finds the `x-mcp-header`
 * annotations of a tool's input schema (SEP-2243) and checks them, so a bad annotation fails at
 * start-up instead of making the tool vanish from clients' lists.
 */
import * as z from 'zod/mini'
import { McpError } from '../protocol/errors.ts'
import { isObject } from '../protocol/jsonrpc.ts'

/** Any zod v4 schema (classic `zod` or `zod/mini`). */
export type Schema = z.core.$ZodType
/** A zod object schema, the only shape tool arguments may take. */
export type ObjectSchema = z.core.$ZodObject
export type Infer<S extends Schema> = z.core.output<S>

export type JsonSchema = Record<string, unknown>

/** A tool input given as raw JSON Schema instead of zod: advertised as is, checked to be an object. */
export interface JsonSchemaInput {
  jsonSchema: JsonSchema & { type: 'object' }
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

export function toJsonSchema(schema: Schema, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as JsonSchema
}

/**
 * Whether a schema may carry metadata `key` anywhere inside (zod keeps `.meta()` in its global
 * registry, keyed by schema instance): a walk over the schema graph, much cheaper than a JSON
 * Schema conversion. What it cannot see through (a function in a definition: `z.lazy`, a
 * transform) counts as "may".
 *
 * @example
 * if (mayHaveMeta(input, 'x-mcp-header')) checkNow(toJsonSchema(input, 'input'))
 */
export function mayHaveMeta(schema: Schema, key: string): boolean {
  const seen = new Set<object>()
  const visit = (node: unknown): boolean => {
    if (typeof node === 'function') return true
    if (typeof node !== 'object' || node === null || seen.has(node)) return false
    seen.add(node)
    if (Array.isArray(node)) return node.some(visit)
    if (!('_zod' in node)) return Object.values(node).some(visit) // a shape, a default value
    const def = (node as Schema)._zod.def as unknown as Record<string, unknown>
    if ('check' in def) return false // a check (minLength, refine, …): holds no schemas
    return z.globalRegistry.get(node as Schema)?.[key] !== undefined || Object.values(def).some(visit)
  }
  return visit(schema)
}

/**
 * Parse a value with a user schema; a failure becomes a readable one-line summary.
 *
 * @example
 * const parsed = parseWith(z.object({ city: z.string() }), args)
 * if (!parsed.ok) return toolError(parsed.message)
 */
export function parseWith<S extends Schema>(
  schema: S,
  value: unknown,
): { ok: true; value: Infer<S> } | { ok: false; message: string } {
  const result = z.safeParse(schema, value)
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, message: summarizeIssues(result.error.issues) }
}

export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ')
}

/**
 * Collect and validate the `x-mcp-header` annotations of a tool input schema (streamable-http
 * "Custom headers"): non-empty RFC 9110 tokens, unique ignoring case, only on string, integer or
 * boolean properties reached through `properties` keys.
 */
export function findHeaderParams(toolName: string, inputSchema: JsonSchema): HeaderParam[] {
  const found: HeaderParam[] = []
  /** `path` is the property chain so far, or undefined once the walk left `properties` chains. */
  const walk = (node: JsonSchema, path: string[] | undefined, where: string): void => {
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

/** Throw -32602 unless `value` is a JSON object (tool arguments, prompt arguments). */
export function asArguments(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {}
  if (!isObject(value)) throw new McpError('invalidParams', `Invalid params: ${what} must be an object`)
  return value
}
