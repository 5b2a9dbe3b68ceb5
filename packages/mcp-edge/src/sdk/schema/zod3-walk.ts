/**
 * zod 3 schemas read without building anything: what they are (`isZod3`), and what a registration
 * checks of them before any zod 4 twin is built (zod3.ts builds it on the tool's first use): the
 * kinds that have no twin, refused with the message and place the build would give, and whether
 * effects are in them (their code may be asynchronous). zod 3 itself is never imported: its nodes
 * are read from their `_def`.
 */
import { isObject } from '../../protocol/jsonrpc.ts'

/** A zod 3 schema as the adapter reads it: its definition, named by `typeName`. */
export interface Zod3Schema {
  readonly _def: { readonly typeName: string; readonly description?: string }
}

/** True for a zod 3 schema, which has `_def.typeName` where zod 4 has `_zod`. */
export const isZod3 = (value: unknown): value is Zod3Schema =>
  isObject(value) && !('_zod' in value) && isObject(value._def) && typeof value._def.typeName === 'string'

// biome-ignore lint/suspicious/noExplicitAny: zod 3's definitions, read by `typeName` without its types
export type Def = Record<string, any>
/** A zod 3 check or bound, as its definition keeps it. */
// biome-ignore lint/suspicious/noExplicitAny: a check's value is a number, string, bigint or Date by its kind
export type Check = { kind: string; value?: any; inclusive?: boolean; message?: string; [more: string]: any }
/** The refusal of a zod 3 kind with no twin here, naming where it is (`kind`, and `check` before any twin is built). */
export function notTaken(def: Def, at: string): Error {
  return new Error(
    `${at ? `${at}: ` : ''}zod 3's ${def.typeName} is not taken by mcp-edge/sdk, which reads the zod 3 schemas ` +
      'that have a JSON Schema here (strings, numbers, booleans, enums, literals, arrays, tuples, objects, records, ' +
      'unions, and their optional, nullable, default, catch and effects wrappers); write this part with those, ' +
      "or in zod 4 (import * as z from 'zod/v4' with zod 3.25, or from 'zod' with zod@^4); see docs/migrate.md",
  )
}

/** The refusal of a zod 3 number check with no twin here. */
export function noNumberTwin(check: Check): Error {
  return new Error(
    `zod 3's number check "${check.kind}" has no zod 4 twin in mcp-edge/sdk; ` +
      "write this schema in zod 4 (import * as z from 'zod/v4' with zod 3.25, or from 'zod' with zod@^4)",
  )
}

const LEAVES = new Set([
  'ZodString',
  'ZodBoolean',
  'ZodNull',
  'ZodAny',
  'ZodUnknown',
  'ZodNever',
  'ZodLiteral',
  'ZodEnum',
  'ZodNativeEnum',
])
const NUMBER_CHECKS = new Set(['min', 'max', 'multipleOf', 'int', 'finite'])
const WRAPPED = new Set(['ZodOptional', 'ZodNullable', 'ZodDefault', 'ZodCatch', 'ZodReadonly'])

/**
 * Refuse what `twin` would refuse, naming the same place, without building anything: a server
 * registers its tools with this check, and their twins are built on first use (a server built
 * per request builds the twins of the tools it serves, not of every tool it registers). Says
 * whether the schema holds effects (refinements, transforms), whose code may be asynchronous.
 *
 * @example
 * check(z3.object({ when: z3.date() })) // throws "/properties/when: zod 3's ZodDate is not taken …"
 * check(z3.object({ id: z3.string().refine(isFree) })) // { effects: true }: its code may return a promise
 */
export function check(node: Zod3Schema, at = ''): { effects: boolean } {
  let effects = (node._def as Def).typeName === 'ZodEffects'
  for (const [inner, where] of parts(node, at)) effects = check(inner, where).effects || effects
  return { effects }
}

/** The zod 3 schemas a node's twin is built of, each with where it is; a node with no twin throws. */
function parts(node: Zod3Schema, at: string): [Zod3Schema, string][] {
  const def = node._def as Def
  const under = (key: string) => `${at}/${key}`
  const name = def.typeName as string
  if (LEAVES.has(name)) return []
  if (WRAPPED.has(name)) return [[def.innerType, at]]
  switch (name) {
    case 'ZodNumber':
      for (const one of def.checks as Check[]) if (!NUMBER_CHECKS.has(one.kind)) throw noNumberTwin(one)
      return []
    case 'ZodArray':
      return [[def.type, under('items')]]
    case 'ZodObject': {
      const shape = Object.entries(def.shape() as Record<string, Zod3Schema>)
      const found: [Zod3Schema, string][] = shape.map(([key, inner]) => [inner, under(`properties/${key}`)])
      if (def.catchall?._def?.typeName !== 'ZodNever') found.push([def.catchall, under('additionalProperties')])
      return found
    }
    case 'ZodUnion':
      return def.options.map((option: Zod3Schema, i: number) => [option, under(`anyOf/${i}`)])
    case 'ZodDiscriminatedUnion':
      return def.options.map((option: Zod3Schema, i: number) => [option, under(`oneOf/${i}`)])
    case 'ZodTuple': {
      const items: [Zod3Schema, string][] = def.items.map((item: Zod3Schema, i: number) => [item, under(`prefixItems/${i}`)])
      return def.rest ? [...items, [def.rest, under('items')]] : items
    }
    case 'ZodRecord':
      return [
        [def.keyType, under('propertyNames')],
        [def.valueType, under('additionalProperties')],
      ]
    case 'ZodBranded':
      return [[def.type, at]]
    case 'ZodPipeline':
      return [
        [def.in, at],
        [def.out, at],
      ]
    case 'ZodEffects':
      return [[def.schema, at]]
    default:
      throw notTaken(def, at)
  }
}

/** The zod 3 object a schema's twin is a zod 4 object through (the object, refined or branded), else undefined. */
export function objectUnder(node: Zod3Schema): Zod3Schema | undefined {
  const def = node._def as Def
  if (def.typeName === 'ZodObject') return node
  if (def.typeName === 'ZodBranded') return objectUnder(def.type)
  return def.typeName === 'ZodEffects' && def.effect.type === 'refinement' ? objectUnder(def.schema) : undefined
}

/** Whether a zod 3 schema's twin is a zod 4 object: what a tool's input must be. */
export const isObjectTwin = (node: Zod3Schema): boolean => objectUnder(node) !== undefined
