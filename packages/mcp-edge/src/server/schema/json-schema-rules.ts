/**
 * The rules of zod's JSON Schema output that `json-schema.ts` applies around each node: what a
 * schema's checks say (bounds, formats, patterns), a field's optionality, whether a transform runs
 * inside, and `anyOf` of bare types as a `type` list. Pure functions over zod's public fields
 * (`_zod.def`, `.optin`, `.traits`) and JSON.
 */
import type * as z from 'zod/v4/mini'

export type Json = Record<string, unknown>
export type Zod = z.core.$ZodType

/** The `_zod.def` fields the converter reads, across the supported types. */
export interface Def {
  type: string
  checks?: Zod[]
  innerType: Zod
  in: Zod
  out: Zod
  shape: Record<string, Zod>
  catchall?: Zod
  options: Zod[]
  inclusive?: boolean
  left: Zod
  right: Zod
  element: Zod
  items: Zod[]
  rest: Zod | null
  keyType: Zod
  valueType: Zod
  mode?: string
  partial?: boolean
  entries: Record<string, unknown>
  values: unknown[]
  defaultValue: unknown
  catchValue: (ctx: unknown) => unknown
  getter: () => Zod
}

/** The fields of a check's `_zod.def` read here. */
interface CheckDef {
  check: string
  value: number
  inclusive: boolean
  minimum: number
  maximum: number
  length: number
  format: string
  pattern?: RegExp
  local?: boolean
  precision?: number | null
}

/** What a schema's checks say, narrowed as zod narrows them (the tighter bound wins). */
export interface Bounds {
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  divisors: number[]
  patterns: Set<RegExp>
  /** The last format check's; `int` stays once any format was an integer one. */
  format?: string
  int?: boolean
  /** A datetime that also accepts what `date-time` forbids (local, or any precision). */
  lax?: boolean
}

const RANGES: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
  float32: [-3.4028234663852886e38, 3.4028234663852886e38],
  float64: [-Number.MAX_VALUE, Number.MAX_VALUE],
}

export const defOf = (schema: Zod) => schema._zod.def as unknown as Def
export const isNode = (value: unknown): value is Json => typeof value === 'object' && value !== null
const transformed = (schema: Zod) => schema._zod.traits.has('$ZodTransform')

/** A field's optionality on input: a transform or catch in front does not make it optional. */
export function optin(schema: Zod): unknown {
  const def = defOf(schema)
  if (def.type === 'pipe' && transformed(def.in)) return optin(def.out)
  return def.type === 'catch' ? optin(def.innerType) : schema._zod.optin
}

/** The side of a pipe a schema describes: input past a leading transform, output always. */
export const pipeSide = (def: Def, io: 'input' | 'output') => (io === 'output' || transformed(def.in) ? def.out : def.in)

/** Whether a transform or codec runs anywhere inside (zod then drops `default`/`examples` on input). */
export function transforms(schema: Zod, seen = new Set<Zod>()): boolean {
  if (seen.has(schema)) return false
  seen.add(schema)
  const def = defOf(schema)
  if (def.type === 'transform' || schema._zod.traits.has('$ZodCodec')) return true
  const inside = [def.innerType, def.keyType, def.valueType, def.element, def.left, def.right, def.in, def.out, def.rest]
  if (def.type === 'tuple') inside.push(...def.items)
  if (def.type === 'union') inside.push(...def.options)
  if (def.type === 'object') inside.push(...Object.values(def.shape))
  if (def.type === 'lazy') inside.push(def.getter())
  return inside.some((child) => child && transforms(child, seen))
}

/** The bounds of a schema without checks (read, never written). */
export const NO_BOUNDS: Bounds = { divisors: [], patterns: new Set() }

/** Fold a schema's checks; `fail` is called for what has no JSON Schema here. */
export function bounds(schema: Zod, fail: (what: string) => never): Bounds {
  // A format schema (z.email(), z.int()) is its own first check.
  const format = schema._zod.traits.has('$ZodCheck')
  const checks = defOf(schema).checks
  // No checks (z.number(), z.string()): no bounds, and the fold is not compiled for them.
  if (!format && (checks === undefined || checks.length === 0)) return NO_BOUNDS
  return fold([...(format ? [schema] : []), ...(checks ?? [])], fail)
}

function fold(checks: Zod[], fail: (what: string) => never): Bounds {
  const found: Bounds = { divisors: [], patterns: new Set() }
  const raise = (key: 'minimum' | 'exclusiveMinimum', value: number) => {
    if (found[key] === undefined || value > found[key]) found[key] = value
  }
  const lower = (key: 'maximum' | 'exclusiveMaximum', value: number) => {
    if (found[key] === undefined || value < found[key]) found[key] = value
  }
  for (const check of checks) {
    const def = check._zod.def as unknown as CheckDef
    const kind = def.check
    if (kind === 'greater_than') raise(def.inclusive ? 'minimum' : 'exclusiveMinimum', def.value)
    else if (kind === 'less_than') lower(def.inclusive ? 'maximum' : 'exclusiveMaximum', def.value)
    else if (kind === 'multiple_of') {
      if (!found.divisors.includes(def.value)) found.divisors.push(def.value)
    } else if (kind === 'min_length') raise('minimum', def.minimum)
    else if (kind === 'max_length') lower('maximum', def.maximum)
    else if (kind === 'length_equals') {
      raise('minimum', def.length)
      lower('maximum', def.length)
    } else if (kind === 'number_format' || kind === 'string_format') {
      // zod advertises base64 with a stricter pattern than the one it runs: left to zod's generator.
      if (def.format.startsWith('base64')) fail(`string format "${def.format}"`)
      found.format = def.format
      if (def.format.includes('int')) found.int = true
      if (def.pattern) found.patterns.add(def.pattern)
      if (def.local || def.precision === -1) found.lax = true
      const range = kind === 'number_format' && (RANGES[def.format] ?? fail(`number format "${def.format}"`))
      if (range) {
        raise('minimum', range[0])
        lower('maximum', range[1])
      }
    }
  }
  return found
}

/**
 * `anyOf` of bare `{ type }` branches becomes a `type` list (clients render it better). Branches
 * that are not `nodes` of this conversion are compacted as copies: they may be the caller's
 * metadata objects.
 */
export function compact(node: Json, nodes: Set<unknown>): void {
  // Most nodes have no `anyOf`: the rewrite below is compiled only for one that has.
  if (Array.isArray(node.anyOf) && node.anyOf.length > 0 && node.type === undefined) typeList(node, node.anyOf, nodes)
}

function typeList(node: Json, anyOf: unknown[], nodes: Set<unknown>): void {
  const options = anyOf.map((option) => (isNode(option) && !nodes.has(option) ? { ...option } : option))
  node.anyOf = options
  const types: unknown[] = []
  for (const option of options) {
    if (!isNode(option)) return
    compact(option, nodes)
    const keys = Object.keys(option)
    if (keys.length !== 1 || keys[0] !== 'type') return
    for (const type of [option.type].flat()) {
      if (typeof type !== 'string') return
      if (!types.includes(type)) types.push(type)
    }
  }
  delete node.anyOf
  node.type = types.length === 1 ? types[0] : types
}

/** A record key zod would re-express as a numeric string (not done here). */
export function numericKey(node: Json): boolean {
  if ([node.anyOf, node.oneOf].some((branches) => Array.isArray(branches) && branches.some(numericKey))) return true
  const types = [node.type].flat()
  const values = (node.enum as unknown[] | undefined) ?? (node.const !== undefined ? [node.const] : [])
  const numeric = !types.includes('string') && types.some((type) => type === 'number' || type === 'integer')
  return numeric || values.some((value) => typeof value === 'number')
}
