/**
 * The SDKs' schema forms, as the core takes them: a zod raw shape (`{ city: z.string() }`) becomes
 * a zod object; a zod object passes as is; a zod 3 schema (as SDK 1.x takes) becomes its zod 4
 * twin (zod3.ts). `completable()` (SDK 1.x) marks an argument's schema
 * with its completion callback, which the adapter hands to the core's `complete` option.
 */
import * as z from 'zod/v4/mini'
import { isObject } from '../../protocol/jsonrpc.ts'
import { keepsJsonSchema } from '../../server/schema/json-schema.ts'
import { parsedAsynchronously, parsesAsynchronously } from '../../server/schema/schema.ts'
import type { ObjectSchema, Schema } from '../../server/schema/schema.ts'
import { twin, twinProperty } from './zod3.ts'
import { SharedKeys, SharedTwins, shapeKey } from './zod3-shared.ts'
import { check, isObjectTwin, isZod3, objectUnder } from './zod3-walk.ts'
import type { Zod3Schema } from './zod3-walk.ts'
import { Attached } from '../../server/attached.ts'

/**
 * A zod 3 schema as the types read it (`zod@3`, `zod/v3`): what it parses to. zod 4's classic
 * schemas have these members too, so every test below asks for zod 4 (`_zod`) first.
 */
export interface Zod3Type<Output = unknown> {
  readonly _output: Output
  readonly _def: object
  /** zod 4's schemas have it; a zod 3 one does not. */
  readonly _zod?: never
}
/** A zod 3 object schema, or one that parses to an object (a refined object is zod 3's `ZodEffects`). */
export type Zod3Object = Zod3Type<Record<string, unknown>>

/** A zod raw shape: the properties of an object schema, zod 4 schemas or zod 3 ones. */
export type ZodRawShape = Record<string, Schema | Zod3Type>

/** What one schema of a shape parses to, zod 4's or zod 3's. */
type OutputOf<S> = S extends Schema ? z.core.output<S> : S extends Zod3Type<infer O> ? O : never
type Flat<T> = { [K in keyof T]: T[K] } & {}
/** A shape with zod 3 schemas in it, as zod 3 types it: a key whose value may be undefined is optional. */
type MixedShapeOutput<S> = Flat<
  { [K in keyof S as undefined extends OutputOf<S[K]> ? never : K]: OutputOf<S[K]> } & {
    [K in keyof S as undefined extends OutputOf<S[K]> ? K : never]?: OutputOf<S[K]>
  }
>

/** The parsed arguments of a raw shape or an object schema. */
export type ShapeOutput<S> = S extends ObjectSchema
  ? z.core.output<S>
  : S extends Record<string, Schema>
    ? z.core.output<z.ZodMiniObject<S, z.core.$strip>>
    : S extends ZodRawShape
      ? MixedShapeOutput<S>
      : S extends Zod3Type<infer O>
        ? O
        : Record<string, unknown>

/** True for any zod v4 schema (classic or mini). */
export const isZod = (value: unknown): value is Schema => isObject(value) && '_zod' in value

/** True for a schema of either major. */
const isAnyZod = (value: unknown): value is Schema | Zod3Schema => isZod(value) || isZod3(value)

/** True for a zod raw shape (an object whose values are all zod schemas, of either major), not a zod schema itself. */
export function isRawShape(value: unknown): value is ZodRawShape {
  return isObject(value) && !isAnyZod(value) && Object.values(value).every(isAnyZod)
}

/** A raw shape's property as the core takes it: a zod 3 one optional where zod 3 takes its key as optional. */
function property(key: string, schema: Schema | Zod3Type, what: string, keys: SharedKeys): Schema {
  return asZod4(schema, what, `/properties/${key}`, (node, at) => twinProperty(node, at, keys))
}

/** A schema as the core takes it: zod 4 as it is, zod 3 as its zod 4 twin (zod3.ts), errors naming `what`. */
function asZod4(
  schema: Schema | Zod3Schema | Zod3Type,
  what: string,
  at = '',
  make: (schema: Zod3Schema, at: string) => Schema = twin,
): Schema {
  if (!isZod3(schema)) return schema as Schema
  try {
    return make(schema, at)
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`)
  }
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
  if (isAnyZod(given)) {
    const schema = asZod4(given, what)
    if (schema._zod.def.type !== 'object')
      throw new Error(`${what}: the schema must be a zod object or a raw shape of zod schemas`)
    return schema as ObjectSchema
  }
  if (isRawShape(given)) return shapeObject(given, what)
  throw new Error(`${what}: mcp-edge/sdk takes zod schemas (a raw shape or z.object); convert other Standard Schemas to zod`)
}

/** Objects of raw shapes of zod 3 schemas made of data alone, shared by equal shapes (zod3-shared.ts). */
export const sharedShapes = new SharedTwins()

/**
 * A raw shape's object; shared by equal shapes of zod 3 schemas made of data alone (a server built
 * per request makes the same shapes each time), with its JSON Schema kept once made: no code
 * reaches it to change it.
 */
function shapeObject(shape: ZodRawShape, what: string): ObjectSchema {
  const keys = new SharedKeys()
  const key = shapeKey(shape, keys)
  const shared = key === undefined ? undefined : sharedShapes.get(key.key)
  if (shared !== undefined) return shared as ObjectSchema
  const made = z.object(
    Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, property(name, schema, what, keys)])),
  )
  if (key !== undefined) sharedShapes.set(key.key, keepsJsonSchema(made), key.weight)
  return made
}

/**
 * A tool's input schema as the core takes it, refused now if it would be refused and built on
 * first use otherwise: a zod 4 object as it is, a raw shape or a zod 3 schema as a function the
 * core calls when the tool is first listed or called (once: the same schema each time). Building
 * a zod 3 schema's twin costs about 0.1 ms a tool, which a server built per request would
 * otherwise pay for every tool it registers, not only the one it serves.
 *
 * @example
 * toolInput({ city: z3.string() }, 'Tool "weather"') // () => z.object({ city: z.string() })
 */
export function toolInput(given: unknown, what: string): ObjectSchema | (() => ObjectSchema) {
  if (given === undefined) return objectSchema(given, what)
  if (isZod(given)) return awaitedIf(holdsCode(given), objectSchema(given, what))
  if (isZod3(given)) {
    const { effects } = checked(given, what)
    if (!isObjectTwin(given)) return objectSchema(given, what) // refused, as when built
    return once(() => awaitedIf(effects, objectSchema(given, what)))
  }
  if (!isRawShape(given)) return objectSchema(given, what) // refused
  // The shape as registered: a key the code adds to its object later is not the tool's.
  const shape = { ...given }
  const effects = shapeEffects(shape, what)
  return once(() => awaitedIf(effects || anyAwaited(shape) || shapeHoldsCode(shape), objectSchema(shape, what)))
}

/** A tool's output schema as `toolInput` takes its input: a raw shape or a zod 3 schema built on first use. */
export function toolOutput(given: unknown, what: string): Schema | (() => Schema) | undefined {
  if (given === undefined) return undefined
  if (isZod(given)) return awaitedIf(holdsCode(given), given)
  if (isRawShape(given)) return toolInput(given, what)
  if (!isZod3(given)) return objectSchema(given, what) // refused
  const { effects } = checked(given, what)
  return once(() => awaitedIf(effects, asZod4(given, what)))
}

/**
 * A prompt's arguments as the core takes them (built now: the core lists a prompt's arguments
 * from its schema), parsed asynchronously from the first call when code is in them (`awaitedIf`).
 */
export function promptArgs(given: unknown, what: string): ObjectSchema {
  const effects = isZod3(given)
    ? checked(given, what).effects
    : isZod(given)
      ? holdsCode(given)
      : isRawShape(given) && (shapeEffects(given, what) || anyAwaited(given) || shapeHoldsCode(given))
  return awaitedIf(effects, objectSchema(given, what))
}

/**
 * Whether a raw shape holds a zod 4 schema an earlier server's object was found asynchronous
 * with (the core marks its properties): a server built per request makes the object anew, and
 * would run its checks twice on its first call to find out again.
 */
const anyAwaited = (shape: ZodRawShape) => Object.values(shape).some((schema) => isZod(schema) && parsesAsynchronously(schema))

/** Whether a raw shape's zod 4 properties hold code a parse runs (`holdsCode`). */
const shapeHoldsCode = (shape: ZodRawShape) => Object.values(shape).some((schema) => isZod(schema) && holdsCode(schema))

/** Stands for what the walk cannot see without running code: a getter's or a lazy schema's answer. */
const UNSEEN = Symbol('unseen')

/** The schemas inside a zod 4 schema's definition (an object's properties and catch-all, a union's options, a wrapped type…). */
function inner(def: Record<string, unknown>): unknown[] {
  const found: unknown[] = []
  for (const key of ['innerType', 'element', 'in', 'out', 'keyType', 'valueType', 'left', 'right', 'rest', 'catchall'])
    if (def[key] !== undefined && def[key] !== null) found.push(def[key])
  for (const key of ['options', 'items']) if (Array.isArray(def[key])) found.push(...(def[key] as unknown[]))
  // An object's properties from its shape as the code gave it where zod keeps that (zod 4.6:
  // reading `def.shape` has zod fix each getter's answer for good, and registration comes before
  // the module is done), else `def.shape`, as the first parse reads it (zod 3.25's `zod/v4` runs
  // the getters there, which a schema assigned after its registration would miss). A getter in it
  // (a recursive schema's) is not run.
  const shape = Object.getOwnPropertyDescriptor(def, 'shape')
  const properties =
    shape === undefined ? undefined : shape.get ? ((shape.get as { raw?: unknown }).raw ?? def.shape) : shape.value
  if (shape !== undefined && !isObject(properties)) found.push(UNSEEN)
  if (isObject(properties)) {
    for (const property of Object.values(Object.getOwnPropertyDescriptors(properties)))
      if (property.enumerable) found.push(property.get ? UNSEEN : property.value)
  }
  return found
}

/**
 * Whether a zod 4 schema holds code its parse runs: a refinement (`refine`, `superRefine`,
 * `check`, `custom`, one inside a `property` check), a transform (`transform`, `preprocess`) or a
 * codec's (`codec`), anywhere in it, each schema visited once. A lazy schema or a getter in a shape
 * (a recursive schema) counts as holding code: what it answers is code the walk does not run.
 * SDK code may write them `async`, and the SDKs await every parse, so such a schema is parsed
 * asynchronously from its first call: the core's synchronous try would run the code before a
 * promise twice, again on each server built per request (server/schema/schema.ts).
 */
function holdsCode(schema: Schema, visited = new Set<unknown>()): boolean {
  if (visited.has(schema)) return false
  visited.add(schema)
  const def = schema._zod.def as unknown as Record<string, unknown> & {
    type: string
    checks?: Array<{ _zod: { def: { check: string; schema?: unknown } } }>
  }
  if (def.type === 'transform' || def.type === 'custom' || def.type === 'lazy' || typeof def.transform === 'function') return true
  for (const check of def.checks ?? []) {
    const { check: kind, schema: checked } = check._zod.def
    if (kind === 'custom' || (kind === 'property' && isZod(checked) && holdsCode(checked, visited))) return true
  }
  return inner(def).some((child) => child === UNSEEN || (isZod(child) && holdsCode(child, visited)))
}

/** Whether a raw shape's zod 3 properties hold effects; refused as `checked` refuses them. */
function shapeEffects(shape: ZodRawShape, what: string): boolean {
  let effects = false
  for (const [key, schema] of Object.entries(shape))
    if (isZod3(schema)) effects = checked(schema, what, `/properties/${key}`).effects || effects
  return effects
}

/**
 * A schema with code in it (zod 3 effects, zod 4 refinements and transforms), which may return a
 * promise (the SDKs await every parse), is parsed asynchronously from its first call: the core's
 * synchronous try would run the code up to that promise twice, again for each server built per
 * request (server/schema/schema.ts).
 */
function awaitedIf<S extends Schema>(effects: boolean, schema: S): S {
  return effects ? parsedAsynchronously(schema) : schema
}

/** `check` (zod3.ts) with its refusal naming `what`, as `asZod4` names it. */
function checked(schema: Zod3Schema, what: string, at = ''): { effects: boolean } {
  try {
    return check(schema, at)
  } catch (error) {
    throw new Error(`${what}: ${(error as Error).message}`)
  }
}

/**
 * `make`'s value, made on the first call and kept: the tool's schema stays built after a list
 * (the core lets go of what a schema function makes for a list; here the zod 3 twins are kept on
 * their nodes in any case, and the code's own schemas live as long as the server).
 */
function once<T>(make: () => T): () => T {
  let made: T | undefined
  return () => {
    made ??= make()
    return made
  }
}

/** A completion callback as the SDKs write it. */
export type CompleteCallback = (value: string, context?: { arguments?: Record<string, string> }) => string[] | Promise<string[]>

// On the schemas themselves (server/attached.ts): a server built per request marks its own.
const completers = new Attached<CompleteCallback>('mcp-edge.completer')

/**
 * Mark a prompt argument's schema as completable (SDK 1.x `completable`).
 *
 * @example
 * server.registerPrompt('review', { argsSchema: { language: completable(z.string(), (v) => ['ts', 'go'].filter((l) => l.startsWith(v))) } }, …)
 */
export function completable<S extends Schema | Zod3Type>(schema: S, complete: CompleteCallback): S {
  completers.set(schema, complete)
  return schema
}

/** SDK 2.x `isCompletable`: whether `completable` marked this schema. */
export function isCompletable(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && completers.has(schema)
}

/** Wrappers a completable schema may be inside (`completable(z.string(), …).optional()`): zod 4's, then zod 3's. */
const WRAPPERS = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'ZodOptional',
  'ZodNullable',
  'ZodDefault',
  'ZodBranded',
])

/** The schema inside a wrapper, else undefined. */
function unwrapped(schema: unknown): unknown {
  if (isZod(schema)) {
    const def = schema._zod.def as { type: string; innerType?: unknown }
    return WRAPPERS.has(def.type) ? def.innerType : undefined
  }
  if (isZod3(schema)) {
    const def = schema._def as { typeName: string; innerType?: unknown; type?: unknown }
    return WRAPPERS.has(def.typeName) ? (def.innerType ?? def.type) : undefined
  }
  return undefined
}

/**
 * The completion callbacks of a prompt's arguments as the code gave them (a raw shape, or a zod
 * 4 or zod 3 object; for the core's `complete` option), found through the wrappers an optional
 * argument adds, as SDK 2.x unwraps them. Read from the code's own schemas, not their twins: a
 * zod 3 twin may be an equal schema's (zod3-shared.ts).
 */
export function completersOf(given: unknown): Record<string, CompleteCallback> {
  const shape = isZod(given)
    ? (given._zod.def as { shape?: Record<string, unknown> }).shape
    : isZod3(given)
      ? (objectUnder(given)?._def as { shape?: () => Record<string, unknown> } | undefined)?.shape?.()
      : isRawShape(given)
        ? given
        : undefined
  const found: Record<string, CompleteCallback> = {}
  for (const [name, property] of Object.entries(shape ?? {})) {
    let schema = property
    while (schema !== undefined && !completers.has(schema as object)) schema = unwrapped(schema)
    const complete = schema === undefined ? undefined : completers.get(schema as object)
    if (complete) found[name] = complete
  }
  return found
}
