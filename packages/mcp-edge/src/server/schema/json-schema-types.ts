/**
 * The JSON Schema keywords of each zod type the built-in converter supports, one small function
 * per type in a table keyed by zod's type name (`_zod.def.type`). Each fills the node's own
 * keywords; a wrapper (optional, default, pipe…) returns its inner schema's node, converted at the
 * same place, which json-schema.ts merges under the wrapper's own keywords. The walk (caching,
 * recursion, metadata, the finishing rules) is json-schema.ts's; the rules shared by several types
 * (bounds, optionality, transforms) are json-schema-rules.ts's.
 */
import { bounds, defOf, NO_BOUNDS, optin, pipeSide } from './json-schema-rules.ts'
import type { Bounds, Def, Json, Zod } from './json-schema-rules.ts'

/** One zod schema being converted: what the walk hands its type's function. */
export interface SchemaNode {
  readonly schema: Zod
  readonly def: Def
  readonly io: 'input' | 'output'
  /** The node's own keywords, filled by its type's function. */
  readonly own: Json
  /** Throw the converter's "has no JSON Schema here" error for `what`, at this node. */
  readonly fail: (what: string) => never
  /** A child's node, at this node's place plus `key` (for error messages). */
  readonly sub: (child: Zod, key: string) => Json
  /** The node of the schema a wrapper stands on, at this node's place. */
  readonly inner: (child: Zod) => Json
  /** A record's key schema, checked for numeric keys once every node is built. */
  readonly recordKey: (names: Json) => void
}

/** Fills `node.own`; a wrapper returns its inner node. */
type TypeKeywords = (node: SchemaNode) => Json | undefined

/** zod's format names that JSON Schema spells differently ('' = no format keyword). */
const FORMATS: Record<string, string> = { guid: 'uuid', url: 'uri', datetime: 'date-time', json_string: 'json-string', regex: '' }

function string({ schema, own, fail }: SchemaNode): undefined {
  own.type = 'string'
  const { minimum, maximum, format, patterns, lax } = bounds(schema, fail)
  if (minimum !== undefined) own.minLength = minimum
  if (maximum !== undefined) own.maxLength = maximum
  const named = format && (FORMATS[format] ?? format)
  // z.iso.time() is no full-time, and a lax datetime accepts more than date-time.
  if (named && format !== 'time' && !lax) own.format = named
  const sources = [...patterns].map((pattern) => pattern.source)
  if (sources.length === 1) own.pattern = sources[0]
  else if (sources.length > 1) own.allOf = sources.map((pattern) => ({ pattern }))
}

function number({ schema, own, fail }: SchemaNode): undefined {
  const found = bounds(schema, fail)
  own.type = found.int ? 'integer' : 'number'
  if (found !== NO_BOUNDS) numberBounds(found, own, fail)
}

/** A number's bounds and divisors as keywords (a function of its own: a number without checks never compiles it). */
function numberBounds(found: Bounds, own: Json, fail: (what: string) => never): void {
  const { minimum, maximum, exclusiveMinimum: above, exclusiveMaximum: below } = found
  // Of an inclusive and an exclusive bound the tighter is kept, the exclusive one on a tie.
  if (above !== undefined && above >= (minimum ?? above)) own.exclusiveMinimum = above
  else if (minimum !== undefined) own.minimum = minimum
  if (below !== undefined && below <= (maximum ?? below)) own.exclusiveMaximum = below
  else if (maximum !== undefined) own.maximum = maximum
  const divisors = new Set<number>()
  for (const divisor of found.divisors) {
    if (!Number.isFinite(divisor) || divisor === 0) fail(`multipleOf ${divisor}`)
    divisors.add(Math.abs(divisor))
  }
  const [first, ...more] = divisors
  if (first !== undefined) own.multipleOf = first
  if (more.length > 0) own.allOf = more.map((multipleOf) => ({ multipleOf }))
}

function bare({ def, own }: SchemaNode): undefined {
  own.type = def.type
}
const anything = (): undefined => undefined

const typeOf = (value: unknown) => (value === null ? 'null' : typeof value)

/** An enum's or a literal's values, as `const` (one literal) or `enum`, typed when all share a type. */
function values({ def, own, fail }: SchemaNode): undefined {
  const isEnum = def.type === 'enum'
  let values = def.values
  if (isEnum) {
    // A TypeScript numeric enum maps names to numbers and back: keep the names' values.
    const numbers = Object.values(def.entries).filter((value) => typeof value === 'number')
    values = Object.entries(def.entries)
      .filter(([key]) => numbers.indexOf(+key) === -1)
      .map(([, value]) => value)
  }
  for (const value of values) if (value === undefined || typeof value === 'bigint') fail(`literal ${value}`)
  if (values.length === 0) own.not = {}
  else if (values.length === 1 && !isEnum) {
    own.type = typeOf(values[0])
    own.const = values[0]
  } else {
    for (const each of isEnum ? ['number', 'string'] : ['number', 'string', 'boolean', 'null']) {
      if (values.every((value) => typeOf(value) === each)) own.type = each
    }
    own.enum = values
  }
}

function array({ schema, def, own, fail, sub }: SchemaNode): undefined {
  const { minimum, maximum } = bounds(schema, fail)
  if (minimum !== undefined) own.minItems = minimum
  if (maximum !== undefined) own.maxItems = maximum
  own.type = 'array'
  own.items = sub(def.element, 'items')
}

function tuple({ schema, def, io, own, fail, sub }: SchemaNode): undefined {
  own.type = 'array'
  own.prefixItems = def.items.map((item, index) => sub(item, `prefixItems/${index}`))
  if (def.rest) own.items = sub(def.rest, 'items')
  // Trailing optional items are not required.
  const optional = (item: Zod) => (io === 'input' ? optin(item) !== undefined : item._zod.optout === 'optional')
  let minItems = def.items.length
  while (minItems > 0 && optional(def.items[minItems - 1]!)) minItems--
  if (minItems > 0) own.minItems = minItems
  if (!def.rest) own.maxItems = def.items.length
  const { minimum, maximum } = bounds(schema, fail)
  if (minimum !== undefined) own.minItems = minimum
  if (maximum !== undefined) own.maxItems = maximum
  // Without a rest, zod's `items: false` is said as `maxItems` at most the prefix's length (the
  // same in 2020-12): a draft-07 validator (SDK 1.x's client checks results with one) ignores
  // `prefixItems` and reads `items: false` as every item refused, so every result with a tuple
  // failed there. (With a rest, `items` is the rest's schema, which draft-07 applies to every item.)
  if (!def.rest) own.maxItems = Math.min((own.maxItems as number | undefined) ?? def.items.length, def.items.length)
}

function object({ def, io, own, fail, sub }: SchemaNode): undefined {
  const shape = def.shape
  if (Object.getOwnPropertySymbols(shape).length > 0) fail('a symbol key')
  const keys = Object.keys(shape)
  own.type = 'object'
  // Object.fromEntries sets `__proto__` as a key like any other.
  own.properties = Object.fromEntries(keys.map((key) => [key, sub(shape[key]!, `properties/${key}`)]))
  const required = keys.filter((key) => (io === 'input' ? optin(shape[key]!) : shape[key]!._zod.optout) === undefined)
  if (required.length > 0) own.required = required
  // Without a catchall zod strips unknown keys, so only its output is closed.
  if (def.catchall) {
    own.additionalProperties = defOf(def.catchall).type === 'never' ? false : sub(def.catchall, 'additionalProperties')
  } else if (io === 'output') own.additionalProperties = false
}

function record({ def, io, own, fail, sub, recordKey }: SchemaNode): undefined {
  own.type = 'object'
  const { patterns } = bounds(def.keyType, fail)
  if (def.mode === 'loose' && patterns.size > 0) {
    const value = sub(def.valueType, 'patternProperties')
    own.patternProperties = Object.fromEntries([...patterns].map((pattern) => [pattern.source, value]))
  } else {
    own.propertyNames = sub(def.keyType, 'propertyNames')
    recordKey(own.propertyNames as Json)
    own.additionalProperties = sub(def.valueType, 'additionalProperties')
  }
  // Keys from a finite set are all required, unless a value may be missing on input.
  const keys = def.keyType._zod.values
  if (keys && !def.partial && !(io === 'input' && optin(def.valueType) !== undefined)) {
    const names = [...keys].filter((key) => typeof key === 'string' || typeof key === 'number').map(String)
    if (names.length > 0) own.required = names
  }
}

function union({ def, own, sub }: SchemaNode): undefined {
  // Exclusive unions (discriminated, z.xor) match exactly one branch.
  own[def.inclusive === false ? 'oneOf' : 'anyOf'] = def.options.map((option, index) => sub(option, `anyOf/${index}`))
}

function nullable({ def, own, sub }: SchemaNode): undefined {
  own.anyOf = [sub(def.innerType, 'anyOf/0'), { type: 'null' }]
}

/** optional, nonoptional: the inner schema as it is. */
const wrapped = ({ def, inner }: SchemaNode) => inner(def.innerType)

/** A value zod would hand out as a default, as JSON. */
function jsonValue(value: unknown, fail: (what: string) => never): unknown {
  try {
    return JSON.parse(JSON.stringify(value))
  } catch {
    return fail('a default that is not JSON')
  }
}

function withDefault({ def, own, fail, inner }: SchemaNode): Json {
  const node = inner(def.innerType)
  own.default = jsonValue(def.defaultValue, fail)
  return node
}

function prefault({ def, io, own, fail, inner }: SchemaNode): Json {
  const node = inner(def.innerType)
  // A prefault is parsed as input, so it is the input's default only (json-schema.ts places it).
  if (io === 'input') own._prefault = jsonValue(def.defaultValue, fail)
  return node
}

function withCatch({ def, own, fail, inner }: SchemaNode): Json {
  const node = inner(def.innerType)
  try {
    own.default = def.catchValue(undefined)
  } catch {
    fail('a catch value computed from the error')
  }
  return node
}

function readonly({ def, own, inner }: SchemaNode): Json {
  const node = inner(def.innerType)
  own.readOnly = true
  return node
}

const pipe = ({ def, io, inner }: SchemaNode) => inner(pipeSide(def, io))

/** Every zod type the converter supports; any other fails with the fix (json-schema.ts). */
export const TYPE_KEYWORDS: ReadonlyMap<string, TypeKeywords> = new Map<string, TypeKeywords>([
  ['string', string],
  ['number', number],
  ['boolean', bare],
  ['null', bare],
  ['any', anything],
  ['unknown', anything],
  ['enum', values],
  ['literal', values],
  ['array', array],
  ['tuple', tuple],
  ['object', object],
  ['record', record],
  ['union', union],
  ['nullable', nullable],
  ['optional', wrapped],
  ['nonoptional', wrapped],
  ['default', withDefault],
  ['prefault', prefault],
  ['catch', withCatch],
  ['readonly', readonly],
  ['pipe', pipe],
])
