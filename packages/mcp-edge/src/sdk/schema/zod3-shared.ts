/**
 * zod 3 twins shared by equal schemas. A server built per request (agents' documented pattern)
 * makes its zod 3 schemas anew each time, and their twins with them on its first list or call;
 * building a twin is mostly constructing zod 4 nodes, where writing out what a zod 3 node is
 * costs a small part of that. A node made of data alone (its kind, checks, messages, description,
 * values, and children of the same) shares one twin with its equals in the isolate. A node with
 * code in it or under it (a refinement, a transform, a default or catch, an error map of the
 * code's own) is built for itself, as every node was before: its code is its own. zod 3 keeps
 * even `.default(10)` as a function, whose value cannot be known without calling it (which would
 * run a default function of the code's own once more) nor whose state it reads.
 *
 * The key stands for the node's definition written out whole (every field, in order, its children
 * by their own keys) with the zod 3 class that made it (each copy of zod 3 in a bundle has its own
 * classes): two nodes with one key parse, and convert to JSON Schema, alike, so the twin built for
 * one serves the other. The error map zod 3 itself gives a schema made with params, and every
 * wrapper, is data in effect (the messages it was made with): it is told from the code's own by
 * its source, and written out as its answers. Kept, the most recently used first, within a budget
 * of the length of the definitions kept, children included (`SHARED_BUDGET`): a server whose
 * schemas hold per-request data (an enum read from storage) makes new keys each time, and the
 * oldest go. Not seen by a key: what zod 3 (from 3.23) reads of a schema's params when it reports
 * an issue (`z.string(params)`, a getter or a later change to `params.message`): the key holds the
 * message as it was when the twin was first asked for.
 */
import type { Schema } from '../../server/schema/schema.ts'
import { isZod3 } from './zod3-walk.ts'
import type { Zod3Schema } from './zod3-walk.ts'

/**
 * How much each table keeps, as the length of the definitions it keeps twins for: a twin's memory
 * grows with its data (an enum's values, a description), about 10 bytes of heap a character
 * measured, so some 4 MB a table at most.
 */
export const SHARED_BUDGET = 400_000
/** Past the budget, one new key in this many is taken (the least recently used going for it), the others built and not kept. */
const ADMIT_ONE_IN = 8

/**
 * Every table of twins: an intern table made anew leaves their keys unreachable, so they are
 * emptied with it. Held strongly: the adapter makes three, once, at module load, and `WeakRef`
 * does not exist in workerd before the 2025-05-05 compatibility date (`enable_weak_ref`), where
 * agents' Workers run too.
 */
const tables: SharedTwins[] = []

/**
 * Twins by key, the most recently used kept within `SHARED_BUDGET` (a `Map` iterates in insertion
 * order: the oldest first). Once full, a new key is taken only now and then: a server whose
 * distinct schemas are more than the budget holds, built in the same order each request, would
 * otherwise push out each twin before its turn came again, and find none.
 */
export class SharedTwins {
  readonly #twins = new Map<string, { twin: Schema; weight: number }>()
  #weight = 0
  #missed = 0

  constructor() {
    tables.push(this)
  }

  /** The twin kept for `key`, now the most recently used. */
  get(key: string): Schema | undefined {
    const found = this.#twins.get(key)
    if (found === undefined) return undefined
    this.#twins.delete(key)
    this.#twins.set(key, found)
    return found.twin
  }

  /** Keep `twin` for `key` (`weight`: its definition's length, its children's included), within the budget. */
  set(key: string, twin: Schema, weight: number): void {
    if (weight > SHARED_BUDGET) return
    if (this.#weight + weight > SHARED_BUDGET && this.#missed++ % ADMIT_ONE_IN !== 0) return
    const before = this.#twins.get(key)
    if (before !== undefined) {
      this.#twins.delete(key)
      this.#weight -= before.weight
    }
    this.#twins.set(key, { twin, weight })
    this.#weight += weight
    for (const [oldest, { weight: gone }] of this.#twins) {
      if (this.#weight <= SHARED_BUDGET) break
      this.#twins.delete(oldest)
      this.#weight -= gone
    }
  }

  get size(): number {
    return this.#twins.size
  }

  /** The length of the definitions kept, within `SHARED_BUDGET`. */
  get weight(): number {
    return this.#weight
  }

  clear(): void {
    this.#twins.clear()
    this.#weight = 0
    this.#missed = 0
  }
}

/** Each zod 3 class (each copy of zod 3 in the bundle has its own), numbered, for the keys. */
const classes = new WeakMap<object, number>()
let nextClass = 0

/**
 * Each definition written out, as the short key that stands for it (`@n`), in the keys of the
 * nodes above it and of the twin tables: a node's key is its own data and its children's keys, so
 * no string grows with the depth of a schema. Numbers are never given twice: once the table
 * passes its bound it starts again, and a key made before can no longer be met.
 */
const interned = new Map<string, string>()
let internedLength = 0
let nextKey = 0

function intern(definition: string): string {
  let key = interned.get(definition)
  if (key === undefined) {
    if (internedLength > 4 * SHARED_BUDGET) {
      interned.clear()
      internedLength = 0
      for (const table of tables) table.clear()
    }
    key = `@${nextKey++}`
    interned.set(definition, key)
    internedLength += definition.length
  }
  return key
}

/**
 * The source of the error map zod 3 gives a schema made with params (`z.string({ message })`)
 * and every wrapper (`.optional()` passes its schema's definition as params), by zod 3 class
 * (null where none could be made). Its answers depend on the params it closes over, which no
 * definition shows: `#errorMap` asks it every question that tells them apart.
 */
const zodErrorMaps = new WeakMap<object, string | null>()

function zodErrorMapSource(node: Zod3Schema): string | null {
  let source = zodErrorMaps.get(node.constructor)
  if (source === undefined) {
    try {
      // A wrapper of an equal schema with no error map of its own gets zod's, made for it.
      const Class = node.constructor as new (def: object) => { optional(): { _def: { errorMap?: unknown } } }
      const made = new Class({ ...node._def, errorMap: undefined }).optional()._def.errorMap
      source = typeof made === 'function' ? Function.prototype.toString.call(made) : null
    } catch {
      source = null
    }
    zodErrorMaps.set(node.constructor, source)
  }
  return source
}

type ErrorMap = (issue: object, ctx: object) => { message?: unknown } | undefined

const DEFAULT = '\u0000mcp-edge: the default message'
/** zod 3's issue codes, each asked of a value and of a missing one: what zod's error maps tell apart. */
const QUESTIONS: [issue: object, ctx: object][] = [
  'invalid_type',
  'invalid_literal',
  'custom',
  'invalid_union',
  'invalid_union_discriminator',
  'invalid_enum_value',
  'unrecognized_keys',
  'invalid_arguments',
  'invalid_return_type',
  'invalid_date',
  'invalid_string',
  'too_small',
  'too_big',
  'invalid_intersection_types',
  'not_multiple_of',
  'not_finite',
].flatMap((code): [object, object][] => [
  [
    { code, path: [] },
    { data: 1, defaultError: DEFAULT },
  ],
  [
    { code, path: [] },
    { data: undefined, defaultError: DEFAULT },
  ],
])

/**
 * The key of a raw shape whose properties are all zod 3 schemas made of data alone: their names
 * and keys, in order (undefined for any other shape).
 */
export function shapeKey(shape: Record<string, unknown>, keys: SharedKeys): { key: string; weight: number } | undefined {
  let definition = '{'
  let weight = 0
  for (const [name, schema] of Object.entries(shape)) {
    const key = isZod3(schema) ? keys.of(schema) : undefined
    if (key === undefined) return undefined
    definition += `${JSON.stringify(name)}:${key},`
    weight += keys.weightOf(schema as Zod3Schema)
  }
  definition += '}'
  return { key: intern(definition), weight: weight + definition.length }
}

/** A string, number, boolean or null written out; undefined for anything else. */
function primitive(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value)
    case 'boolean':
      return value ? 'T' : 'F'
    default:
      return value === null ? 'N' : undefined
  }
}

/**
 * The keys of one twin build's nodes (its zod 3 tree), computed once each: `undefined` for a node
 * that is not shared (code in it, or in any node under it).
 */
export class SharedKeys {
  readonly #keys = new Map<object, { key: string; weight: number } | null>()
  /** The plain objects and arrays being written out: one met again inside itself is a cycle, no data. */
  readonly #open = new Set<object>()
  /** The weight of the children of the node being written out. */
  #children = 0

  of(node: Zod3Schema): string | undefined {
    return this.#read(node)?.key
  }

  /** How much of a twin's memory its definition stands for: its length (`SharedTwins`' budget). */
  weightOf(node: Zod3Schema): number {
    return this.#read(node)?.weight ?? 0
  }

  #read(node: Zod3Schema): { key: string; weight: number } | undefined {
    const known = this.#keys.get(node)
    if (known !== undefined) return known ?? undefined
    // Unshared while it is being read: a node met again under itself (no twin has that) stays so.
    this.#keys.set(node, null)
    const outer = this.#children
    this.#children = 0
    const definition = this.#definition(node)
    // What the twin holds: its own data and its children's, which a kept twin keeps alive.
    const read = definition === undefined ? undefined : { key: intern(definition), weight: definition.length + this.#children }
    this.#children = outer
    this.#keys.set(node, read ?? null)
    return read
  }

  #definition(node: Zod3Schema): string | undefined {
    const def = node._def as Record<string, unknown>
    let number = classes.get(node.constructor)
    if (number === undefined) {
      number = nextClass++
      classes.set(node.constructor, number)
    }
    let key = `${number}(`
    for (const field in def) {
      if (!Object.hasOwn(def, field)) continue
      let value = def[field]
      // zod 3 keeps an object's shape behind a function that returns the same object each time.
      if (field === 'shape' && def.typeName === 'ZodObject' && typeof value === 'function') value = value()
      if (value === undefined) continue
      const written =
        typeof value !== 'function'
          ? this.#value(value)
          : field === 'errorMap'
            ? this.#errorMap(node, value as ErrorMap)
            : undefined
      if (written === undefined) return undefined
      key += `${field}:${written},`
    }
    return `${key})`
  }

  /** zod's own error map, as its answers (the messages it was made with); undefined for any other. */
  #errorMap(node: Zod3Schema, map: ErrorMap): string | undefined {
    const source = zodErrorMapSource(node)
    if (source === null || Function.prototype.toString.call(map) !== source) return undefined
    let key = '<'
    for (const [issue, ctx] of QUESTIONS) {
      const message = map(issue, ctx)?.message
      if (typeof message !== 'string') return undefined
      key += message === DEFAULT ? '_,' : `${JSON.stringify(message)},`
    }
    return `${key}>`
  }

  #value(value: unknown): string | undefined {
    // Code (a function), a bigint or a symbol is not data a key can say.
    return typeof value === 'object' && value !== null ? this.#object(value) : primitive(value)
  }

  #object(value: object): string | undefined {
    if (isZod3(value)) {
      const read = this.#read(value)
      if (read !== undefined) this.#children += read.weight
      return read?.key
    }
    // A pattern of its own class or with its own methods is code.
    if (value instanceof RegExp)
      return Object.getPrototypeOf(value) === RegExp.prototype && Reflect.ownKeys(value).length === 1
        ? `/${value.source}/${value.flags}`
        : undefined
    if (this.#open.has(value)) return undefined
    this.#open.add(value)
    try {
      return this.#data(value)
    } finally {
      this.#open.delete(value)
    }
  }

  #data(value: object): string | undefined {
    let key: string
    if (Array.isArray(value)) {
      key = '['
      for (const item of value) {
        const written = item === undefined ? 'U' : this.#value(item)
        if (written === undefined) return undefined
        key += `${written},`
      }
      return `${key}]`
    }
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) return undefined
    key = '{'
    for (const [field, item] of Object.entries(value)) {
      const written = item === undefined ? 'U' : this.#value(item)
      if (written === undefined) return undefined
      key += `${JSON.stringify(field)}:${written},`
    }
    return `${key}}`
  }
}
