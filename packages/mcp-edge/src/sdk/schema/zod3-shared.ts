/**
 * zod 3 twins shared by equal schemas. A server built per request (agents' documented pattern)
 * makes its zod 3 schemas anew each time, and their twins with them on its first list or call;
 * building a twin is mostly constructing zod 4 nodes, where writing out what a zod 3 node is
 * costs a small part of that. A node made of data alone (its kind, checks, messages, description,
 * values, and children of the same) shares one twin with its equals in the isolate. A node with
 * code in it or under it (a refinement, a transform, a default or catch value, an error map of the
 * code's own) is built for itself, as every node was before: its code is its own.
 *
 * The key is the node's definition written out whole (every field, in order) with the zod 3 class
 * that made it (each copy of zod 3 in a bundle has its own classes): two nodes with one key parse,
 * and convert to JSON Schema, alike, so the twin built for one serves the other. The error map zod
 * 3 itself gives a schema made with params and every wrapper is data in effect (the messages it was
 * made with): it is told from the code's own by its source, and written out as its answers.
 * Kept for the `SHARED_LIMIT` most recently used keys: a server whose schemas hold per-request
 * data (an enum read from storage) makes new keys each time, and the oldest go.
 */
import type { Schema } from '../../server/schema/schema.ts'
import { isZod3 } from './zod3-walk.ts'
import type { Zod3Schema } from './zod3-walk.ts'

/** How many twins each table keeps: more than a few servers' schemas, bounded for an isolate's memory. */
export const SHARED_LIMIT = 2_000

/** Twins by key, the most recently used kept (a `Map` iterates in insertion order: the oldest first). */
export class SharedTwins {
  readonly #twins = new Map<string, Schema>()

  /** The twin kept for `key`, now the most recently used. */
  get(key: string): Schema | undefined {
    const found = this.#twins.get(key)
    if (found !== undefined) {
      this.#twins.delete(key)
      this.#twins.set(key, found)
    }
    return found
  }

  /** Keep `twin` for `key`, letting the least recently used go past the limit. */
  set(key: string, twin: Schema): void {
    this.#twins.set(key, twin)
    if (this.#twins.size > SHARED_LIMIT) this.#twins.delete(this.#twins.keys().next().value as string)
  }

  get size(): number {
    return this.#twins.size
  }

  clear(): void {
    this.#twins.clear()
  }
}

/** Each zod 3 class (each copy of zod 3 in the bundle has its own), numbered, for the keys. */
const classes = new Map<unknown, number>()

/**
 * The source of the error map zod 3 gives a schema made with params (`z.string({ message })`)
 * and every wrapper (`.optional()` passes its schema's definition as params), by zod 3 class
 * (null where none could be made). Its answers depend on the params it closes over, which no
 * definition shows: `#errorMap` asks it every question that tells them apart.
 */
const zodErrorMaps = new Map<unknown, string | null>()

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
 * The keys of one twin build's nodes (its zod 3 tree), computed once each: `undefined` for a node
 * that is not shared (code in it, or in any node under it).
 */
export class SharedKeys {
  readonly #keys = new Map<object, string | null>()

  of(node: Zod3Schema): string | undefined {
    const known = this.#keys.get(node)
    if (known !== undefined) return known ?? undefined
    // Unshared while it is being read: a node met again under itself (no twin has that) stays so.
    this.#keys.set(node, null)
    const key = this.#definition(node)
    this.#keys.set(node, key ?? null)
    return key
  }

  #definition(node: Zod3Schema): string | undefined {
    const def = node._def as Record<string, unknown>
    let number = classes.get(node.constructor)
    if (number === undefined) {
      number = classes.size
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
        field === 'errorMap' && typeof value === 'function' ? this.#errorMap(node, value as ErrorMap) : this.#value(value)
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
    switch (typeof value) {
      case 'string':
        return JSON.stringify(value)
      case 'number':
        return Object.is(value, -0) ? '-0' : String(value)
      case 'boolean':
        return value ? 'T' : 'F'
      case 'object':
        return value === null ? 'N' : this.#object(value)
      default:
        // Code (a function), a bigint or a symbol: not data a key can say.
        return undefined
    }
  }

  #object(value: object): string | undefined {
    if (isZod3(value)) return this.of(value)
    if (value instanceof RegExp)
      return Object.getPrototypeOf(value) === RegExp.prototype ? `/${value.source}/${value.flags}` : undefined
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
