/**
 * The SDKs' schema forms, as the core takes them: a zod raw shape (`{ city: z.string() }`) becomes
 * a zod object; a zod object passes as is. `completable()` (SDK 1.x) marks an argument's schema
 * with its completion callback, which the adapter hands to the core's `complete` option.
 */
import * as z from 'zod/v4/mini'
import { isObject } from '../protocol/jsonrpc.ts'
import type { ObjectSchema, Schema } from '../server/schema/schema.ts'

/** A zod raw shape: the properties of an object schema. */
export type ZodRawShape = Record<string, Schema>

/** The parsed arguments of a raw shape or an object schema. */
export type ShapeOutput<S> = S extends ObjectSchema
  ? z.core.output<S>
  : S extends ZodRawShape
    ? z.core.output<z.ZodMiniObject<S, z.core.$strip>>
    : Record<string, unknown>

/** True for any zod v4 schema (classic or mini). */
export const isZod = (value: unknown): value is Schema => isObject(value) && '_zod' in value

/** True for a zod 3 schema (`zod@3`, or `zod/v3`), which has `_def.typeName` where zod 4 has `_zod`. */
const isZod3 = (value: unknown): boolean =>
  isObject(value) && !('_zod' in value) && isObject(value._def) && typeof value._def.typeName === 'string'

/**
 * Refuse zod 3, whose schemas (or a raw shape of them) mcp-edge cannot read, where SDK 1.x takes
 * both majors. Without this, `tool()` would take a zod 3 shape for annotations and call the
 * callback with no arguments. zod 3.25 carries zod 4 as `zod/v4`, which is what mcp-edge reads.
 */
export function refuseZod3(value: unknown, what: string): void {
  if (isZod3(value) || (isObject(value) && !isZod(value) && Object.values(value).some(isZod3)))
    throw new Error(
      `${what}: the schema is zod 3, and mcp-edge/sdk takes zod 4 schemas (SDK 1.x takes both): ` +
        "import * as z from 'zod/v4' with zod 3.25 installed, or from 'zod' with zod@^4 (not 'zod/v3'); see docs/migrate.md",
    )
}

/** True for a zod raw shape (an object whose values are all zod schemas), not a zod schema itself. */
export function isRawShape(value: unknown): value is ZodRawShape {
  return isObject(value) && !isZod(value) && Object.values(value).every(isZod)
}

const EMPTY = z.object({})

/**
 * The object schema of a tool's or prompt's input, whichever form the SDK code gave.
 *
 * @example
 * objectSchema({ city: z.string() }, 'Tool "weather"') // z.object({ city: z.string() })
 */
export function objectSchema(given: unknown, what: string): ObjectSchema {
  if (given === undefined) return EMPTY
  refuseZod3(given, what)
  if (isZod(given)) {
    if (given._zod.def.type !== 'object')
      throw new Error(`${what}: the schema must be a zod object or a raw shape of zod schemas`)
    return given as ObjectSchema
  }
  if (isRawShape(given)) return z.object(given)
  throw new Error(`${what}: mcp-edge/sdk takes zod schemas (a raw shape or z.object); convert other Standard Schemas to zod`)
}

/** An output schema: a raw shape or any zod schema. */
export function outputSchema(given: unknown, what: string): Schema | undefined {
  if (given === undefined || isZod(given)) return given
  return objectSchema(given, what)
}

/** A completion callback as the SDKs write it. */
export type CompleteCallback = (value: string, context?: { arguments?: Record<string, string> }) => string[] | Promise<string[]>

const completers = new WeakMap<object, CompleteCallback>()

/**
 * Mark a prompt argument's schema as completable (SDK 1.x `completable`).
 *
 * @example
 * server.registerPrompt('review', { argsSchema: { language: completable(z.string(), (v) => ['ts', 'go'].filter((l) => l.startsWith(v))) } }, …)
 */
export function completable<S extends Schema>(schema: S, complete: CompleteCallback): S {
  completers.set(schema, complete)
  return schema
}

/** Wrappers a completable schema may be inside (`completable(z.string(), …).optional()`). */
const WRAPPERS = new Set(['optional', 'nullable', 'default'])

/**
 * The completion callbacks of an object schema's properties (for the core's `complete` option),
 * found through the wrappers an optional argument adds, as SDK 2.x unwraps them.
 */
export function completersOf(schema: ObjectSchema): Record<string, CompleteCallback> {
  const found: Record<string, CompleteCallback> = {}
  for (const [name, property] of Object.entries(schema._zod.def.shape)) {
    let inner = property as { _zod: { def: { type: string; innerType?: unknown } } }
    while (!completers.has(inner) && WRAPPERS.has(inner._zod.def.type) && inner._zod.def.innerType)
      inner = inner._zod.def.innerType as typeof inner
    const complete = completers.get(inner)
    if (complete) found[name] = complete
  }
  return found
}
