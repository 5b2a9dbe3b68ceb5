/**
 * Zod schemas as data, for the JSON Schema converter's tests (test/unit/json-schema.test.ts): a
 * recipe is a plain tree that fast-check can generate, shrink and print, and `build` turns it
 * into the same schema through classic zod's methods or zod/mini's functions. `recipe` generates
 * random nested recipes from the constructors the built-in converter supports.
 */
import fc from 'fast-check'
import * as zc from 'zod'
import * as zm from 'zod/mini'

export type Flavor = 'classic' | 'mini'
type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type Meta = Record<string, Json>

/** String formats by zod name; each is a schema of its own and a check on z.string(). */
export const STRING_FORMATS = {
  email: (z: any) => z.email(),
  url: (z: any) => z.url(),
  httpUrl: (z: any) => z.httpUrl(),
  uuid: (z: any) => z.uuid(),
  uuidv7: (z: any) => z.uuidv7(),
  guid: (z: any) => z.guid(),
  datetime: (z: any) => z.iso.datetime(),
  datetimeLocal: (z: any) => z.iso.datetime({ local: true }),
  datetimeOffset: (z: any) => z.iso.datetime({ offset: true }),
  datetimeMillis: (z: any) => z.iso.datetime({ precision: 3 }),
  date: (z: any) => z.iso.date(),
  time: (z: any) => z.iso.time(),
  duration: (z: any) => z.iso.duration(),
  ipv4: (z: any) => z.ipv4(),
  ipv6: (z: any) => z.ipv6(),
  cidrv4: (z: any) => z.cidrv4(),
  cidrv6: (z: any) => z.cidrv6(),
  mac: (z: any) => z.mac(),
  emoji: (z: any) => z.emoji(),
  nanoid: (z: any) => z.nanoid(),
  cuid: (z: any) => z.cuid(),
  cuid2: (z: any) => z.cuid2(),
  ulid: (z: any) => z.ulid(),
  xid: (z: any) => z.xid(),
  ksuid: (z: any) => z.ksuid(),
  e164: (z: any) => z.e164(),
  jwt: (z: any) => z.jwt(),
  hostname: (z: any) => z.hostname(),
  hex: (z: any) => z.hex(),
  sha256: (z: any) => z.hash('sha256'),
  md5: (z: any) => z.hash('md5', { enc: 'base64url' }),
} as const
export type StringFormat = keyof typeof STRING_FORMATS

export const NUMBER_FORMATS = ['int', 'int32', 'uint32', 'float32', 'float64'] as const
type NumberFormat = (typeof NUMBER_FORMATS)[number]
const PATTERNS = [/^[a-z]+$/, /\d/, /^x-.*$/i, /^(?:a|b)$/]

export type StrCheck =
  | ['min' | 'max' | 'length', number]
  | ['regex', number]
  | ['startsWith' | 'endsWith' | 'includes', string]
  | ['lowercase' | 'uppercase']
  | ['format', StringFormat]
export type NumCheck = ['gt' | 'gte' | 'lt' | 'lte' | 'multipleOf', number] | ['format', NumberFormat]
type LenCheck = ['min' | 'max' | 'length', number]
type Literal = string | number | boolean | null

export type Recipe =
  | { k: 'string'; base?: StringFormat; checks: StrCheck[] }
  | { k: 'number'; base?: NumberFormat; checks: NumCheck[] }
  | { k: 'boolean' | 'null' | 'any' | 'unknown' }
  | { k: 'literal'; values: Literal[] }
  | { k: 'enum'; values: string[] }
  | { k: 'nativeEnum'; entries: Record<string, string | number> }
  | { k: 'array'; of: Recipe; checks: LenCheck[] }
  | { k: 'tuple'; items: Recipe[]; rest?: Recipe }
  | { k: 'object'; shape: [string, Recipe][]; mode: 'plain' | 'strict' | 'loose'; catchall?: Recipe }
  | { k: 'record'; key: Recipe; value: Recipe; mode: 'plain' | 'partial' | 'loose' }
  | { k: 'union'; options: Recipe[]; exclusive: boolean }
  | { k: 'discriminated'; options: [string, [string, Recipe][]][] }
  | { k: 'intersection'; left: Recipe; right: Recipe }
  | { k: 'optional' | 'nullable' | 'nonoptional' | 'readonly' | 'transform' | 'preprocess'; of: Recipe }
  | { k: 'default' | 'prefault' | 'catch'; of: Recipe; value: Json }
  | { k: 'pipe'; of: Recipe; to: Recipe }
  | { k: 'meta'; of: Recipe; meta: Meta }
  | { k: 'describe'; of: Recipe; text: string }
  | { k: 'same'; of: Recipe; how: 'object' | 'intersection' | 'union' | 'tuple' }

const identity = (value: unknown) => value
/** zod/mini's functions by name (checks, wrappers). */
const mini = { ...zm } as unknown as Record<string, (...args: any[]) => any>

function stringOf(z: any, flavor: Flavor, recipe: Extract<Recipe, { k: 'string' }>): any {
  let schema = recipe.base ? STRING_FORMATS[recipe.base](z) : z.string()
  for (const [name, arg] of recipe.checks) {
    if (name === 'format') schema = schema.check(STRING_FORMATS[arg](z))
    else if (flavor === 'classic') schema = name === 'regex' ? schema.regex(PATTERNS[arg]) : schema[name](arg)
    else {
      const check = { min: 'minLength', max: 'maxLength' }[name as string] ?? name
      schema = schema.check(mini[check]!(name === 'regex' ? PATTERNS[arg as number] : arg))
    }
  }
  return schema
}

function numberOf(z: any, flavor: Flavor, recipe: Extract<Recipe, { k: 'number' }>): any {
  let schema = recipe.base ? z[recipe.base]() : z.number()
  for (const [name, arg] of recipe.checks) {
    if (name === 'format') schema = schema.check(z[arg]())
    else schema = flavor === 'classic' ? schema[name](arg) : schema.check(mini[name]!(arg))
  }
  return schema
}

const shapeOf = (flavor: Flavor, entries: [string, Recipe][]) =>
  Object.fromEntries(entries.map(([key, recipe]) => [key, build(flavor, recipe)]))

/** The zod schema a recipe describes, built the way each flavor's users write it. */
export function build(flavor: Flavor, recipe: Recipe): any {
  const z: any = flavor === 'classic' ? zc : zm
  const classic = flavor === 'classic'
  const sub = (child: Recipe) => build(flavor, child)
  switch (recipe.k) {
    case 'string':
      return stringOf(z, flavor, recipe)
    case 'number':
      return numberOf(z, flavor, recipe)
    case 'boolean':
    case 'null':
    case 'any':
    case 'unknown':
      return z[recipe.k]()
    case 'literal':
      return z.literal(recipe.values.length === 1 ? recipe.values[0] : recipe.values)
    case 'enum':
      return z.enum(recipe.values)
    case 'nativeEnum':
      return z.enum(recipe.entries)
    case 'array': {
      let schema = z.array(sub(recipe.of))
      for (const [name, n] of recipe.checks) {
        schema = classic
          ? schema[name](n)
          : schema.check(mini[{ min: 'minLength', max: 'maxLength' }[name as string] ?? 'length']!(n))
      }
      return schema
    }
    case 'tuple':
      return recipe.rest ? z.tuple(recipe.items.map(sub), sub(recipe.rest)) : z.tuple(recipe.items.map(sub))
    case 'object': {
      const shape = shapeOf(flavor, recipe.shape)
      const object = { plain: z.object, strict: z.strictObject, loose: z.looseObject }[recipe.mode](shape)
      if (!recipe.catchall) return object
      return classic ? object.catchall(sub(recipe.catchall)) : zm.catchall(object, sub(recipe.catchall))
    }
    case 'record':
      return { plain: z.record, partial: z.partialRecord, loose: z.looseRecord }[recipe.mode](sub(recipe.key), sub(recipe.value))
    case 'union':
      return (recipe.exclusive ? z.xor : z.union)(recipe.options.map(sub))
    case 'discriminated':
      return z.discriminatedUnion(
        'kind',
        recipe.options.map(([tag, entries]) => z.object({ ...shapeOf(flavor, entries), kind: z.literal(tag) })),
      )
    case 'intersection':
      return z.intersection(sub(recipe.left), sub(recipe.right))
    case 'optional':
    case 'nullable':
    case 'nonoptional':
    case 'readonly':
      return classic ? sub(recipe.of)[recipe.k]() : mini[recipe.k]!(sub(recipe.of))
    case 'transform':
      return classic ? sub(recipe.of).transform(identity) : zm.pipe(sub(recipe.of), zm.transform(identity))
    case 'preprocess':
      return classic ? zc.preprocess(identity, sub(recipe.of)) : zm.pipe(zm.transform(identity), sub(recipe.of))
    case 'default':
      return classic ? sub(recipe.of).default(recipe.value) : zm._default(sub(recipe.of), recipe.value)
    case 'prefault':
    case 'catch':
      return classic ? sub(recipe.of)[recipe.k](recipe.value) : mini[recipe.k]!(sub(recipe.of), recipe.value)
    case 'pipe':
      return classic ? sub(recipe.of).pipe(sub(recipe.to)) : zm.pipe(sub(recipe.of), sub(recipe.to))
    case 'meta':
      return classic ? sub(recipe.of).meta(recipe.meta) : sub(recipe.of).check(zm.meta(recipe.meta))
    case 'describe':
      return classic ? sub(recipe.of).describe(recipe.text) : sub(recipe.of).check(zm.describe(recipe.text))
    case 'same': {
      const schema = sub(recipe.of)
      if (recipe.how === 'object') return z.object({ a: schema, b: schema })
      if (recipe.how === 'tuple') return z.tuple([schema, schema])
      return recipe.how === 'union' ? z.union([schema, schema]) : z.intersection(schema, schema)
    }
  }
}

const small = fc.integer({ min: 0, max: 12 })
const word = fc.constantFrom('a', 'b', 'id', 'name', 'x-y', 'count', '__proto__', 'constructor')
const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>
const literal = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -3, max: 3 }), fc.boolean(), fc.constant(null))

const stringCheck: fc.Arbitrary<StrCheck> = fc.oneof(
  fc.tuple(fc.constantFrom('min' as const, 'max' as const, 'length' as const), small),
  fc.tuple(fc.constant('regex' as const), fc.nat(PATTERNS.length - 1)),
  fc.tuple(fc.constantFrom('startsWith' as const, 'endsWith' as const, 'includes' as const), fc.string({ maxLength: 3 })),
  fc.tuple(fc.constantFrom('lowercase' as const, 'uppercase' as const)),
  fc.tuple(fc.constant('format' as const), fc.constantFrom(...(Object.keys(STRING_FORMATS) as StringFormat[]))),
)
const bound = fc.oneof(fc.integer({ min: -100, max: 100 }), fc.double({ min: -1e3, max: 1e3, noNaN: true }))
const numberCheck: fc.Arbitrary<NumCheck> = fc.oneof(
  fc.tuple(fc.constantFrom('gt' as const, 'gte' as const, 'lt' as const, 'lte' as const), bound),
  fc.tuple(fc.constant('multipleOf' as const), fc.constantFrom(1, 2, 0.5, -3, 0.01)),
  fc.tuple(fc.constant('format' as const), fc.constantFrom(...NUMBER_FORMATS)),
)
const lenCheck = fc.tuple(fc.constantFrom('min' as const, 'max' as const, 'length' as const), small)

/** Metadata as tool authors write it, with keys that also collide with generated keywords. */
const meta: fc.Arbitrary<Meta> = fc.record(
  {
    title: fc.string({ maxLength: 5 }),
    description: fc.string({ maxLength: 5 }),
    examples: fc.array(json, { maxLength: 2 }),
    deprecated: fc.boolean(),
    'x-mcp-header': fc.constantFrom('Region', 'Dry-Run'),
    default: json,
    readOnly: fc.boolean(),
    format: fc.constantFrom('email', 'custom'),
    type: fc.constantFrom('string', 'object', 'integer'),
    anyOf: fc.array(fc.oneof(fc.record({ type: fc.constantFrom('string', 'null') }), fc.record({ const: literal })), {
      minLength: 1,
      maxLength: 2,
    }),
    oneOf: fc.array(fc.record({ const: fc.string({ maxLength: 3 }), title: fc.string({ maxLength: 3 }) }), { maxLength: 2 }),
    items: fc.record({
      anyOf: fc.array(fc.record({ type: fc.constantFrom('string', 'number') }), { minLength: 1, maxLength: 2 }),
    }),
    enumNames: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
    minimum: fc.integer(),
    required: fc.array(word, { maxLength: 2 }),
  },
  { requiredKeys: [] },
)

const leaf: fc.Arbitrary<Recipe> = fc.oneof(
  fc.record(
    {
      k: fc.constant('string' as const),
      base: fc.option(fc.constantFrom(...(Object.keys(STRING_FORMATS) as StringFormat[])), { nil: undefined }),
      checks: fc.array(stringCheck, { maxLength: 3 }),
    },
    { requiredKeys: ['k', 'checks'] },
  ),
  fc.record(
    {
      k: fc.constant('number' as const),
      base: fc.option(fc.constantFrom(...NUMBER_FORMATS), { nil: undefined }),
      checks: fc.array(numberCheck, { maxLength: 3 }),
    },
    { requiredKeys: ['k', 'checks'] },
  ),
  fc.record({ k: fc.constantFrom('boolean' as const, 'null' as const, 'any' as const, 'unknown' as const) }),
  fc.record({ k: fc.constant('literal' as const), values: fc.uniqueArray(literal, { minLength: 1, maxLength: 3 }) }),
  fc.record({
    k: fc.constant('enum' as const),
    values: fc.uniqueArray(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    k: fc.constant('nativeEnum' as const),
    entries: fc.constantFrom<Record<string, string | number>>({ A: 0, B: 1, 0: 'A', 1: 'B' }, { Up: 'UP', Down: 1, 1: 'Down' }),
  }),
)

/** A record key the converter supports: strings (checked or not), enums and string literals. */
const recordKey: fc.Arbitrary<Recipe> = fc.oneof(
  fc.record({ k: fc.constant('string' as const), checks: fc.array(stringCheck, { maxLength: 2 }) }),
  fc.record({
    k: fc.constant('enum' as const),
    values: fc.uniqueArray(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    k: fc.constant('literal' as const),
    values: fc.uniqueArray(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 2 }),
  }),
)

/** Random nested recipes, `depth` levels of composites at most. */
export function recipe(depth = 4): fc.Arbitrary<Recipe> {
  return fc.letrec<{ node: Recipe }>((tie) => {
    const node = tie('node')
    const shape = fc.uniqueArray(fc.tuple(word, node), { maxLength: 4, selector: ([key]) => key })
    const mode = fc.constantFrom('plain' as const, 'strict' as const, 'loose' as const)
    const object = fc.record(
      { k: fc.constant('object' as const), shape, mode, catchall: fc.option(node, { nil: undefined, freq: 4 }) },
      { requiredKeys: ['k', 'shape', 'mode'] },
    )
    // Objects over three keys, so that intersected objects share some (their folding rules).
    const few = fc.uniqueArray(fc.tuple(fc.constantFrom('a', 'b', 'c'), node), { maxLength: 3, selector: ([key]) => key })
    const overlapping = fc.record(
      { k: fc.constant('object' as const), shape: few, mode, catchall: fc.option(node, { nil: undefined, freq: 3 }) },
      { requiredKeys: ['k', 'shape', 'mode'] },
    )
    const composite: fc.Arbitrary<Recipe> = fc.oneof(
      fc.record({ k: fc.constant('array' as const), of: node, checks: fc.array(lenCheck, { maxLength: 2 }) }),
      fc.record(
        { k: fc.constant('tuple' as const), items: fc.array(node, { maxLength: 3 }), rest: fc.option(node, { nil: undefined }) },
        { requiredKeys: ['k', 'items'] },
      ),
      object,
      fc.record({
        k: fc.constant('record' as const),
        key: recordKey,
        value: node,
        mode: fc.constantFrom('plain' as const, 'partial' as const, 'loose' as const),
      }),
      fc.record({
        k: fc.constant('union' as const),
        options: fc.array(node, { minLength: 1, maxLength: 3 }),
        exclusive: fc.boolean(),
      }),
      fc.record({
        k: fc.constant('discriminated' as const),
        options: fc.uniqueArray(fc.tuple(fc.string({ maxLength: 3 }), shape), {
          minLength: 1,
          maxLength: 3,
          selector: ([tag]) => tag,
        }),
      }),
      fc.record({ k: fc.constant('intersection' as const), left: node, right: node }),
      fc.record({ k: fc.constant('intersection' as const), left: overlapping, right: fc.oneof(overlapping, node) }),
      fc.record({ k: fc.constant('default' as const), of: object, value: json }),
      ...(['optional', 'nullable', 'nonoptional', 'readonly', 'transform', 'preprocess'] as const).map((k) =>
        fc.record({ k: fc.constant(k), of: node }),
      ),
      ...(['default', 'prefault', 'catch'] as const).map((k) => fc.record({ k: fc.constant(k), of: node, value: json })),
      fc.record({ k: fc.constant('pipe' as const), of: node, to: node }),
      fc.record({ k: fc.constant('meta' as const), of: node, meta }),
      fc.record({ k: fc.constant('describe' as const), of: node, text: fc.string({ maxLength: 5 }) }),
      fc.record({
        k: fc.constant('same' as const),
        of: node,
        how: fc.constantFrom('object' as const, 'intersection' as const, 'union' as const, 'tuple' as const),
      }),
    )
    // Composites twice as often as leaves, so trees nest (maxDepth bounds them).
    const options = { maxDepth: depth, depthIdentifier: 'recipe' }
    return { node: fc.oneof(options, { arbitrary: leaf, weight: 1 }, { arbitrary: composite, weight: 2 }) }
  }).node
}
