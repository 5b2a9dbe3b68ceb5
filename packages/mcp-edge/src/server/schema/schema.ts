/**
 * Schemas at the edge of user code: zod (classic or mini, any v4 schema) in, JSON Schema 2020-12
 * out, converted once, when first needed, and never per request. (The `x-mcp-header` annotations
 * of a tool's input schema are found and checked in src/protocol/header-values.ts.)
 */
import * as z from 'zod/v4/mini'
// Named, not read through `z.core`: the namespace object would bring all of zod's core into the bundle.
import { $ZodAsyncError } from 'zod/v4/core'
import { McpError } from '../../protocol/errors.ts'
import { isObject } from '../../protocol/jsonrpc.ts'
import { issueMessage } from './issues.ts'
import { isKept, zodToJsonSchema } from './json-schema.ts'
import { Attached } from '../attached.ts'

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

/**
 * Turns a zod schema into the JSON Schema advertised for it (`io`: what it accepts or produces).
 * The server's `jsonSchema` option plugs one in; see README "API".
 */
export type JsonSchemaConverter = (schema: Schema, io: 'input' | 'output') => JsonSchema

/**
 * JSON Schema 2020-12 of a zod schema: the plugged converter's, or the built-in one's (the subset
 * of zod that tools use, identical to zod's own output; json-schema.ts).
 *
 * @example
 * toJsonSchema(z.object({ city: z.string() }), 'input') // { $schema, type: 'object', properties, required }
 */
export function toJsonSchema(schema: Schema, io: 'input' | 'output', convert: JsonSchemaConverter = zodToJsonSchema): JsonSchema {
  return convert(schema, io)
}

/**
 * Parse a value with a user schema; a failure becomes a readable one-line summary.
 *
 * @example
 * const parsed = parseWith(z.object({ city: z.string() }), args)
 * if (!parsed.ok) return toolError(parsed.message)
 */
export function parseWith<S extends Schema>(schema: S, value: unknown): Parsed<S> {
  // reportInput: each issue carries the value zod checked, for its message (issues.ts).
  return parsedOf(z.safeParse(schema, value, { reportInput: true }), value)
}

export type Parsed<S extends Schema> = { ok: true; value: Infer<S> } | { ok: false; message: string }

function parsedOf<S extends Schema>(result: z.core.util.SafeParseResult<Infer<S>>, value: unknown): Parsed<S> {
  if (result.success) return { ok: true, value: result.data }
  return { ok: false, message: summarizeIssues(result.error.issues, value) }
}

/**
 * `parseWith` for arguments, whose schema may hold an `async` refinement (SDK code writes them,
 * and the SDKs await them): parsed at once when it holds none, as nearly every schema; else
 * awaited. zod says so by throwing when a synchronous parse meets a promise, after it ran the
 * checks before it: the first call of such a schema runs those twice (again for a schema built
 * anew, per server), unless the schema was marked `parsedAsynchronously` (mcp-edge/sdk marks
 * every schema with a refinement or transform, zod 3's or zod 4's: the SDKs await every parse).
 *
 * @example
 * const parsed = await parseMaybeAsync(prompt.args, args)
 */
export function parseMaybeAsync<S extends Schema>(schema: S, value: unknown): Parsed<S> | Promise<Parsed<S>> {
  if (awaited.get(schema) !== true) {
    try {
      return parseWith(schema, value)
    } catch (error) {
      if (!(error instanceof $ZodAsyncError)) throw error
      // The synchronous pass ran the checks before the first promise (and that one): from now on
      // this schema is parsed asynchronously at once, so its checks run once a call. An object's
      // properties are marked too: a server built per request makes its object anew from the same
      // ones, and mcp-edge/sdk parses such an object asynchronously at once (`parsesAsynchronously`).
      awaited.set(schema, true)
      const { shape } = schema._zod.def as { shape?: Record<string, Schema> }
      // Not a property whose JSON Schema is kept: it holds no code, so it made nothing asynchronous,
      // and it may be shared by other servers' schemas (mcp-edge/sdk's twins of zod 3 data).
      for (const property of Object.values(shape ?? {})) if (!isKept(property)) awaited.set(property, true)
    }
  }
  return z
    .safeParseAsync(schema, value, { reportInput: true })
    .then((result) => parsedOf<S>(result.success ? { ...result, data: shapeOrdered(schema, result.data) } : result, value))
}

/**
 * An object schema's parsed value with its keys in the shape's order (the others after, as they
 * came), as a synchronous parse gives them (and zod 3's asynchronous one): zod 4's asynchronous
 * parse sets each key as its value settles, so a key whose schema awaited comes last, and code
 * that serialises its arguments would see them moved. Any other value is returned as it is.
 *
 * @example
 * shapeOrdered(z.object({ a: z.string(), b: z.string() }), { b: 'x', a: 'y' }) // { a: 'y', b: 'x' }
 */
export function shapeOrdered<T>(schema: Schema, data: T): T {
  const { def } = schema._zod as { def: { type: string; shape?: Record<string, unknown> } }
  if (def.type !== 'object' || def.shape === undefined || !isObject(data)) return data
  const ordered: Record<string, unknown> = {}
  for (const key of Object.keys(def.shape)) if (Object.hasOwn(data, key)) ordered[key] = data[key]
  for (const key of Object.keys(data)) if (!Object.hasOwn(ordered, key)) ordered[key] = data[key]
  return ordered as T
}

/** Schemas a synchronous parse found asynchronous checks in (`parseMaybeAsync`), or said to hold them. */
const awaited = new Attached<true>('mcp-edge.parsedAsynchronously')

/**
 * Have `parseMaybeAsync` parse `schema` asynchronously from its first call, with no synchronous
 * pass first: for a schema whose code may return a promise (SDK code's refinements and
 * transforms, which the SDKs always await), and which may be built anew per server, so that no
 * call runs its checks twice.
 *
 * @example
 * const args = parsedAsynchronously(z.object(shape))
 */
export function parsedAsynchronously<S extends Schema>(schema: S): S {
  awaited.set(schema, true)
  return schema
}

/** Whether `parseMaybeAsync` parses `schema` asynchronously at once (it was found or said to be). */
export const parsesAsynchronously = (schema: Schema): boolean => awaited.get(schema) === true

/**
 * The issues of parsing `input` on one line, each after its path; zod's generic "Invalid input"
 * (all zod/mini says without a locale) is spelled out from the issue (issues.ts).
 */
export function summarizeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string {
  return issues
    .map((issue) => {
      const message = issueMessage(issue, input)
      return issue.path.length > 0 ? `${issue.path.join('.')}: ${message}` : message
    })
    .join('; ')
}

/** Throw -32602 unless `value` is a JSON object (tool arguments, prompt arguments). */
export function asArguments(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {}
  if (!isObject(value)) throw new McpError('invalidParams', `Invalid params: ${what} must be an object`)
  return value
}
