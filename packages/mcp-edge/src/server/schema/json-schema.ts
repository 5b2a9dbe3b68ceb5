/**
 * zod v4 (classic or mini) → JSON Schema draft 2020-12, written for bundle size: zod's own
 * `z.toJSONSchema` carries a processor for every zod type and cannot be tree-shaken (about 7 KiB
 * gzip of the template's 48 KiB budget). This converter covers the types tool authors use and
 * gives output deep-equal to `z.toJSONSchema(schema, { target: 'draft-2020-12', io })`, which stays
 * the referee in test/unit/json-schema.test.ts. Called by `schema.ts` at registration.
 *
 * As in zod: a wrapper (optional, default, pipe…) is its inner schema with its own keywords on top;
 * metadata from `z.globalRegistry` (parents' included, as the registry returns it) overrides the
 * generated keywords; once every node is built, `anyOf` of bare types becomes a `type` list
 * (json-schema-rules.ts), as zod does. Anything else (intersections, dates, bigints, maps, sets,
 * files, functions, promises, lazy or recursive schemas, transforms on the described side, template
 * literals, custom, NaN, void, undefined, never, metadata `id`, base64 formats, numeric record
 * keys) throws with the fix: `{ jsonSchema }` for the tool, or zod's full generator through the
 * server's `jsonSchema` option. Intersections are left to zod for size: zod folds intersected
 * objects into one (pooling their keys, catchalls and closedness, distributing over a union), about
 * 0.56 KiB gzip of rules that few tool schemas need. One function past 150 lines: a case per zod
 * type, each a few lines, sharing the walk's state.
 */
import * as z from 'zod/mini'
import { bounds, compact, defOf, numericKey, optin, pipeSide, transforms } from './json-schema-rules.ts'
import type { Json, Zod } from './json-schema-rules.ts'

const DIALECT = 'https://json-schema.org/draft/2020-12/schema'
/** zod's format names that JSON Schema spells differently ('' = no format keyword). */
const FORMATS: Record<string, string> = { guid: 'uuid', url: 'uri', datetime: 'date-time', json_string: 'json-string', regex: '' }

/** The error for what this converter leaves to zod, with the fix (an output can only be plugged). */
function unsupported(what: string, at: string, io: 'input' | 'output'): never {
  throw new Error(
    `${what} at ${at || '/'} has no JSON Schema in mcp-edge's built-in converter: ` +
      `${io === 'input' ? 'give the tool { jsonSchema } as its input instead, or ' : ''}plug zod's full generator: ` +
      `createMcpServer({ ..., jsonSchema: (schema, io) => z.toJSONSchema(schema, { target: 'draft-2020-12', io }) })`,
  )
}

function jsonValue(value: unknown, fail: (what: string) => never): unknown {
  try {
    return JSON.parse(JSON.stringify(value))
  } catch {
    return fail('a default that is not JSON')
  }
}

/**
 * Convert a zod schema for what it accepts (`input`) or what it produces (`output`).
 *
 * @example
 * zodToJsonSchema(z.object({ city: z.string() }), 'input')
 * // { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object',
 * //   properties: { city: { type: 'string' } }, required: ['city'] }
 */
export function zodToJsonSchema(root: Zod, io: 'input' | 'output'): Json {
  // One node per schema instance, as zod shares them; `path` catches recursion.
  const done = new Map<Zod, Json>()
  const path: Zod[] = []
  /** Record keys, with where they are. */
  const recordKeys: [Json, string][] = []

  const convert = (schema: Zod, at: string): Json => {
    const cached = done.get(schema)
    if (cached) return cached
    if (path.includes(schema)) unsupported('a recursive schema', at, io)
    path.push(schema)
    const def = defOf(schema)
    const fail = (what: string) => unsupported(what, at, io)
    const sub = (child: Zod, key: string) => convert(child, `${at}/${key}`)
    const own: Json = {}
    let inner: Json | undefined
    const type = def.type
    switch (type) {
      case 'string': {
        own.type = type
        const { minimum, maximum, format, patterns, lax } = bounds(schema, fail)
        if (minimum !== undefined) own.minLength = minimum
        if (maximum !== undefined) own.maxLength = maximum
        const named = format && (FORMATS[format] ?? format)
        // z.iso.time() is no full-time, and a lax datetime accepts more than date-time.
        if (named && format !== 'time' && !lax) own.format = named
        const sources = [...patterns].map((pattern) => pattern.source)
        if (sources.length === 1) own.pattern = sources[0]
        else if (sources.length > 1) own.allOf = sources.map((pattern) => ({ pattern }))
        break
      }
      case 'number': {
        const found = bounds(schema, fail)
        const { minimum, maximum, exclusiveMinimum: above, exclusiveMaximum: below } = found
        own.type = found.int ? 'integer' : type
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
        break
      }
      case 'boolean':
      case 'null':
        own.type = type
        break
      case 'any':
      case 'unknown':
        break
      case 'enum':
      case 'literal': {
        let values = def.values
        if (type === 'enum') {
          // A TypeScript numeric enum maps names to numbers and back: keep the names' values.
          const numbers = Object.values(def.entries).filter((value) => typeof value === 'number')
          values = Object.entries(def.entries)
            .filter(([key]) => numbers.indexOf(+key) === -1)
            .map(([, value]) => value)
        }
        const typeOf = (value: unknown) => (value === null ? 'null' : typeof value)
        for (const value of values) if (value === undefined || typeof value === 'bigint') fail(`literal ${value}`)
        if (values.length === 0) own.not = {}
        else if (values.length === 1 && type === 'literal') {
          own.type = typeOf(values[0])
          own.const = values[0]
        } else {
          for (const each of type === 'enum' ? ['number', 'string'] : ['number', 'string', 'boolean', 'null']) {
            if (values.every((value) => typeOf(value) === each)) own.type = each
          }
          own.enum = values
        }
        break
      }
      case 'array': {
        const { minimum, maximum } = bounds(schema, fail)
        if (minimum !== undefined) own.minItems = minimum
        if (maximum !== undefined) own.maxItems = maximum
        own.type = type
        own.items = sub(def.element, 'items')
        break
      }
      case 'tuple': {
        own.type = 'array'
        own.prefixItems = def.items.map((item, index) => sub(item, `prefixItems/${index}`))
        own.items = def.rest ? sub(def.rest, 'items') : false
        // Trailing optional items are not required.
        const optional = (item: Zod) => (io === 'input' ? optin(item) !== undefined : item._zod.optout === 'optional')
        let minItems = def.items.length
        while (minItems > 0 && optional(def.items[minItems - 1]!)) minItems--
        if (minItems > 0) own.minItems = minItems
        if (!def.rest) own.maxItems = def.items.length
        const { minimum, maximum } = bounds(schema, fail)
        if (minimum !== undefined) own.minItems = minimum
        if (maximum !== undefined) own.maxItems = maximum
        break
      }
      case 'object': {
        const shape = def.shape
        if (Object.getOwnPropertySymbols(shape).length > 0) fail('a symbol key')
        const keys = Object.keys(shape)
        own.type = type
        // Object.fromEntries sets `__proto__` as a key like any other.
        own.properties = Object.fromEntries(keys.map((key) => [key, sub(shape[key]!, `properties/${key}`)]))
        const required = keys.filter((key) => (io === 'input' ? optin(shape[key]!) : shape[key]!._zod.optout) === undefined)
        if (required.length > 0) own.required = required
        // Without a catchall zod strips unknown keys, so only its output is closed.
        if (def.catchall) {
          own.additionalProperties = defOf(def.catchall).type === 'never' ? false : sub(def.catchall, 'additionalProperties')
        } else if (io === 'output') own.additionalProperties = false
        break
      }
      case 'record': {
        own.type = 'object'
        const { patterns } = bounds(def.keyType, fail)
        if (def.mode === 'loose' && patterns.size > 0) {
          const value = sub(def.valueType, 'patternProperties')
          own.patternProperties = Object.fromEntries([...patterns].map((pattern) => [pattern.source, value]))
        } else {
          own.propertyNames = sub(def.keyType, 'propertyNames')
          recordKeys.push([own.propertyNames as Json, at])
          own.additionalProperties = sub(def.valueType, 'additionalProperties')
        }
        // Keys from a finite set are all required, unless a value may be missing on input.
        const keys = def.keyType._zod.values
        if (keys && !def.partial && !(io === 'input' && optin(def.valueType) !== undefined)) {
          const names = [...keys].filter((key) => typeof key === 'string' || typeof key === 'number').map(String)
          if (names.length > 0) own.required = names
        }
        break
      }
      case 'union':
        // Exclusive unions (discriminated, z.xor) match exactly one branch.
        own[def.inclusive === false ? 'oneOf' : 'anyOf'] = def.options.map((option, index) => sub(option, `anyOf/${index}`))
        break
      case 'nullable':
        own.anyOf = [sub(def.innerType, 'anyOf/0'), { type: 'null' }]
        break
      case 'optional':
      case 'nonoptional':
        inner = convert(def.innerType, at)
        break
      case 'default':
        inner = convert(def.innerType, at)
        own.default = jsonValue(def.defaultValue, fail)
        break
      case 'prefault':
        inner = convert(def.innerType, at)
        // A prefault is parsed as input, so it is the input's default only.
        if (io === 'input') own._prefault = jsonValue(def.defaultValue, fail)
        break
      case 'catch':
        inner = convert(def.innerType, at)
        try {
          own.default = def.catchValue(undefined)
        } catch {
          fail('a catch value computed from the error')
        }
        break
      case 'readonly':
        inner = convert(def.innerType, at)
        own.readOnly = true
        break
      case 'pipe':
        inner = convert(pipeSide(def, io), at)
        break
      default:
        fail(`zod type "${type}"`)
    }
    const meta = z.globalRegistry.get(schema)
    if (meta?.id !== undefined) fail('metadata "id" (a $defs entry)')
    Object.assign(own, meta)
    if (io === 'input') {
      // A default or example of a transformed value is no input.
      if (transforms(schema)) {
        delete own.examples
        delete own.default
      }
      if ('_prefault' in own) own.default ??= own._prefault
    }
    delete own._prefault
    // The wrapper's own keywords first and winning, then the inner node's, as zod orders them.
    const node = inner ? Object.assign(own, inner, { ...own }) : own
    path.pop()
    done.set(schema, node)
    return node
  }

  const node = convert(root, '')
  // After every node is built, as zod does: a wrapper's own keywords (metadata) can stop these.
  const nodes = new Set<unknown>(done.values())
  for (const each of nodes) compact(each as Json, nodes)
  for (const [names, at] of recordKeys) if (numericKey(names)) unsupported('a numeric record key', at, io)
  return JSON.parse(JSON.stringify({ $schema: DIALECT, ...node }))
}
