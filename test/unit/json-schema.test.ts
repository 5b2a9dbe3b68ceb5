import Ajv from 'ajv'
import Ajv2020 from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import * as zm from 'zod/mini'
import { keepsJsonSchema, zodToJsonSchema } from '../../packages/mcp-edge/src/server/schema/json-schema.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { build, recipe, STRING_FORMATS } from '../support/zod-recipes.ts'
import type { Flavor, NumCheck, Recipe, StrCheck, StringFormat } from '../support/zod-recipes.ts'
import { asMcpEdgeGives, configError } from './support.ts'

// zod's own generator is the referee: the built-in converter must give the same JSON Schema.
const IO = ['input', 'output'] as const
const FLAVORS: Flavor[] = ['classic', 'mini']
const PLUG =
  "plug zod's full generator: createMcpServer({ ..., jsonSchema: (schema, io) => z.toJSONSchema(schema, { target: 'draft-2020-12', io }) })"
const FIX = { input: `give the tool { jsonSchema } as its input instead, or ${PLUG}`, output: `built-in converter: ${PLUG}` }
const referee = (schema: any, io: 'input' | 'output') => asMcpEdgeGives(z.toJSONSchema(schema, { target: 'draft-2020-12', io }))

type Outcome = { json: unknown } | { error: string }
function outcome(convert: () => unknown): Outcome {
  try {
    return { json: convert() }
  } catch (error) {
    return { error: (error as Error).message }
  }
}

/**
 * Same JSON Schema as zod's in both io modes, or a throw wherever zod throws. With `intersections:
 * 'refused'`, the converter may also refuse an intersection on the side it describes (it leaves
 * them to zod's generator), and only with the same error as any unsupported type.
 */
function expectLikeZod(schema: any, label: string, { intersections = 'none' } = {}): void {
  for (const io of IO) {
    const expected = outcome(() => referee(schema, io))
    const actual = outcome(() => zodToJsonSchema(schema, io))
    if (intersections === 'refused' && 'error' in actual && actual.error.includes('zod type "intersection" at ')) {
      expect(actual.error.endsWith(FIX[io]), `${label} (${io})`).toBe(true)
      continue
    }
    if ('error' in expected) expect('error' in actual, `${label} (${io}): zod throws "${expected.error}"`).toBe(true)
    else expect(actual, `${label} (${io})`).toEqual(expected)
  }
}

const S = (...checks: StrCheck[]): Recipe => ({ k: 'string', checks })
const F = (base: StringFormat, ...checks: StrCheck[]): Recipe => ({ k: 'string', base, checks })
const N = (...checks: NumCheck[]): Recipe => ({ k: 'number', checks })
const B: Recipe = { k: 'boolean' }
const obj = (shape: Record<string, Recipe>, mode: 'plain' | 'strict' | 'loose' = 'plain', catchall?: Recipe): Recipe =>
  catchall ? { k: 'object', shape: Object.entries(shape), mode, catchall } : { k: 'object', shape: Object.entries(shape), mode }
const wrap = (k: 'optional' | 'nullable' | 'nonoptional' | 'readonly' | 'transform' | 'preprocess', of: Recipe): Recipe => ({
  k,
  of,
})
const lit = (...values: (string | number | boolean | null)[]): Recipe => ({ k: 'literal', values })
const meta = (of: Recipe, data: Record<string, any>): Recipe => ({ k: 'meta', of, meta: data })
const union = (...options: Recipe[]): Recipe => ({ k: 'union', options, exclusive: false })

/** Every supported constructor and the combinations whose rules interact, by name. */
const CORPUS: Record<string, Recipe> = {
  string: S(),
  'string min/max': S(['min', 2], ['max', 9]),
  'string length': S(['length', 4]),
  'string regex': S(['regex', 0]),
  'string two regexes': S(['regex', 0], ['regex', 1]),
  'string same regex twice': S(['regex', 2], ['regex', 2]),
  'string startsWith, endsWith, includes': S(['startsWith', 'a'], ['endsWith', 'z'], ['includes', 'm']),
  'string lowercase, uppercase': S(['lowercase'], ['uppercase']),
  'email then regex (the last format wins)': F('email', ['regex', 1]),
  'regex then email': S(['regex', 1], ['format', 'email']),
  'email with length checks': F('email', ['min', 5], ['max', 50]),
  ...Object.fromEntries(Object.keys(STRING_FORMATS).map((name) => [`format ${name}`, F(name as StringFormat)])),
  ...Object.fromEntries(
    Object.keys(STRING_FORMATS).map((name) => [`string checked as ${name}`, S(['min', 1], ['format', name as StringFormat])]),
  ),
  number: N(),
  'number gt/lt': N(['gt', 0], ['lt', 10]),
  'number gte/lte': N(['gte', -1.5], ['lte', 99]),
  'number gt and gte at one value (exclusive wins)': N(['gte', 3], ['gt', 3], ['lte', 7], ['lt', 7]),
  'number gte above gt': N(['gt', 1], ['gte', 5], ['lt', 10], ['lte', 2]),
  'number multipleOf': N(['multipleOf', 0.5]),
  'number two multipleOf': N(['multipleOf', 2], ['multipleOf', 3], ['multipleOf', -2]),
  int: { k: 'number', base: 'int', checks: [] },
  'int with bounds': {
    k: 'number',
    base: 'int',
    checks: [
      ['gte', 0],
      ['lt', 100],
    ],
  },
  'number checked as int': N(['gte', 1], ['format', 'int']),
  int32: { k: 'number', base: 'int32', checks: [] },
  uint32: { k: 'number', base: 'uint32', checks: [['multipleOf', 5]] },
  float32: { k: 'number', base: 'float32', checks: [] },
  float64: { k: 'number', base: 'float64', checks: [['gt', 0]] },
  'int then float64 (stays integer)': { k: 'number', base: 'int', checks: [['format', 'float64']] },
  boolean: B,
  null: { k: 'null' },
  any: { k: 'any' },
  unknown: { k: 'unknown' },
  'literal string': lit('a'),
  'literal number': lit(4),
  'literal boolean': lit(false),
  'literal null': lit(null),
  'literal strings': lit('a', 'b'),
  'literal numbers': lit(1, 2),
  'literal booleans': lit(true, false),
  'literal mixed': lit('a', 1, null, true),
  enum: { k: 'enum', values: ['red', 'green'] },
  'numeric native enum': { k: 'nativeEnum', entries: { A: 0, B: 1, 0: 'A', 1: 'B' } },
  'mixed native enum': { k: 'nativeEnum', entries: { Up: 'UP', Down: 1, 1: 'Down' } },
  array: { k: 'array', of: S(), checks: [] },
  'array min/max': {
    k: 'array',
    of: N(),
    checks: [
      ['min', 1],
      ['max', 3],
    ],
  },
  'array length': { k: 'array', of: B, checks: [['length', 2]] },
  'array of objects': { k: 'array', of: obj({ id: S() }), checks: [] },
  tuple: { k: 'tuple', items: [S(), N()] },
  'empty tuple': { k: 'tuple', items: [] },
  'tuple trailing optionals': { k: 'tuple', items: [S(), wrap('optional', N()), wrap('optional', B)] },
  'tuple optional before required': { k: 'tuple', items: [wrap('optional', S()), N()] },
  'tuple trailing default': { k: 'tuple', items: [S(), { k: 'default', of: N(), value: 1 }] },
  'tuple with rest': { k: 'tuple', items: [S()], rest: N() },
  'tuple trailing catch and transform': {
    k: 'tuple',
    items: [S(), { k: 'catch', of: N(), value: 0 }, wrap('preprocess', wrap('optional', B))],
  },
  object: obj({ a: S(), b: N() }),
  'empty object': obj({}),
  'object optional, default, catch, prefault, nullable fields': obj({
    optional: wrap('optional', S()),
    default: { k: 'default', of: N(), value: 3 },
    catch: { k: 'catch', of: S(), value: 'x' },
    prefault: { k: 'prefault', of: S(), value: 'p' },
    nullable: wrap('nullable', S()),
    nonoptional: wrap('nonoptional', wrap('optional', S())),
    optionalDefault: wrap('optional', { k: 'default', of: S(), value: 'd' }),
  }),
  'object transform fields': obj({
    transformed: wrap('transform', S()),
    preprocessed: wrap('preprocess', wrap('optional', N())),
    defaultThenTransform: wrap('transform', { k: 'default', of: S(), value: 'x' }),
  }),
  'strict object': obj({ a: S() }, 'strict'),
  'loose object': obj({ a: S() }, 'loose'),
  'object with catchall': obj({ a: S() }, 'plain', N()),
  'nested objects': obj({ inner: obj({ deep: obj({ x: B }, 'strict') }), list: { k: 'array', of: obj({ y: S() }), checks: [] } }),
  'object with odd keys': obj({ ['__proto__']: S(), constructor: N(), 'x-y': B }),
  record: { k: 'record', key: S(), value: N(), mode: 'plain' },
  'record with checked keys': { k: 'record', key: S(['min', 1], ['regex', 0]), value: B, mode: 'plain' },
  'record with enum keys': { k: 'record', key: { k: 'enum', values: ['a', 'b'] }, value: N(), mode: 'plain' },
  'record with enum keys and optional values': {
    k: 'record',
    key: { k: 'enum', values: ['a', 'b'] },
    value: wrap('optional', N()),
    mode: 'plain',
  },
  'record with literal keys': { k: 'record', key: lit('x', 'y'), value: S(), mode: 'plain' },
  'partial record': { k: 'record', key: { k: 'enum', values: ['a', 'b'] }, value: N(), mode: 'partial' },
  'loose record with a pattern': { k: 'record', key: S(['regex', 2]), value: N(), mode: 'loose' },
  'loose record without a pattern': { k: 'record', key: S(), value: N(), mode: 'loose' },
  'union of bare types (a type list)': union(S(), N(), wrap('nullable', B)),
  'union with a constrained branch': union(S(['min', 1]), N()),
  'nested unions': union(union(S(), N()), union(B, { k: 'null' })),
  'union of objects': union(obj({ a: S() }), obj({ b: N() })),
  'exclusive union (xor)': { k: 'union', options: [S(), N()], exclusive: true },
  'discriminated union': {
    k: 'discriminated',
    options: [
      ['a', [['x', S()]]],
      ['b', [['y', N()]]],
    ],
  },
  'same schema twice in an object': { k: 'same', of: meta(union(S(), N()), { title: 't' }), how: 'object' },
  optional: wrap('optional', S()),
  'nullable (a type list)': wrap('nullable', S()),
  'nullable object (anyOf)': wrap('nullable', obj({ a: S() })),
  'nullable union': wrap('nullable', union(S(), N())),
  'nullable nullable': wrap('nullable', wrap('nullable', N())),
  readonly: wrap('readonly', obj({ a: S() })),
  'default object': { k: 'default', of: obj({ a: S() }), value: { a: 'x' } },
  'default of an object with a transform inside (input drops it)': {
    k: 'default',
    of: obj({ a: wrap('transform', S()) }),
    value: { a: 'x' },
  },
  'default of a transform (input drops it)': { k: 'default', of: wrap('transform', S()), value: 'x' },
  prefault: { k: 'prefault', of: N(), value: 5 },
  'prefault of a transform': { k: 'prefault', of: wrap('transform', S()), value: 'p' },
  'prefault under a default': { k: 'default', of: { k: 'prefault', of: S(), value: 'p' }, value: 'd' },
  catch: { k: 'catch', of: obj({ a: S() }), value: { a: 'fallback' } },
  'pipe (input side, output side)': { k: 'pipe', of: S(), to: N(['gte', 0]) },
  'transform (input side; zod throws on output)': wrap('transform', S(['min', 1])),
  preprocess: wrap('preprocess', N(['gt', 0])),
  'meta on a leaf': meta(S(), { title: 'Name', description: 'Who', examples: ['Ada'], 'x-mcp-header': 'Name' }),
  describe: { k: 'describe', of: N(), text: 'A count' },
  'meta on an optional field': obj({ a: meta(wrap('optional', S()), { description: 'maybe' }) }),
  'meta inside an optional field': obj({ a: wrap('optional', meta(S(), { description: 'inner' })) }),
  'meta then describe (inherited)': { k: 'describe', of: meta(S(), { title: 'T', description: 'first' }), text: 'second' },
  'meta overriding generated keywords': meta(
    { k: 'array', of: S(), checks: [] },
    { items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
  ),
  'meta oneOf on a string (SEP-1330)': meta(S(), { oneOf: [{ const: 'a', title: 'A' }] }),
  'meta default on a transform (input drops it)': meta(wrap('transform', S()), { default: 'x', examples: ['y'] }),
  'meta type on a nullable wrapper': meta(wrap('optional', wrap('nullable', S())), { type: 'string' }),
  'meta anyOf on a wrapper of a union': meta(wrap('optional', union(S(), N())), {
    anyOf: [{ type: 'boolean' }, { type: 'null' }],
  }),
  'meta on the root object': meta(obj({ a: S() }), { title: 'Root', description: 'the root' }),
}

describe('zodToJsonSchema: the corpus, against z.toJSONSchema', () => {
  for (const flavor of FLAVORS) {
    it(`converts every supported constructor like zod (${flavor})`, () => {
      for (const [name, each] of Object.entries(CORPUS)) expectLikeZod(build(flavor, each), `${name} [${flavor}]`)
    })
  }

  it('converts schemas written with classic zod methods', () => {
    const Base = z.object({ id: z.uuid(), name: z.string().trim().min(1), email: z.string().email().optional() })
    const schemas = {
      partial: Base.partial(),
      required: Base.partial().required(),
      pick: Base.pick({ id: true }),
      omit: Base.omit({ email: true }),
      extend: Base.extend({ age: z.number().int().positive() }),
      merge: Base.merge(z.object({ tags: z.array(z.string()).nonempty() })),
      strict: Base.strict(),
      passthrough: Base.passthrough(),
      keyof: Base.keyof(),
      numbers: z.object({
        p: z.number().positive(),
        n: z.number().nonnegative(),
        s: z.number().safe(),
        f: z.number().finite(),
        step: z.number().step(5),
      }),
      coerce: z.object({ n: z.coerce.number(), b: z.coerce.boolean(), s: z.coerce.string() }),
      stringbool: z.object({ flag: z.stringbool() }),
      codec: z.codec(z.string(), z.number(), { decode: Number, encode: String }),
      brand: z.string().brand<'Id'>(),
      refine: z.string().refine((s) => s.length > 1, 'too short'),
      superRefine: z.object({ a: z.number() }).superRefine(() => undefined),
      nullish: z.object({ a: z.string().nullish() }),
      enumExtract: z.enum(['a', 'b', 'c']).extract(['a', 'b']),
      enumExclude: z.enum(['a', 'b', 'c']).exclude(['a']),
      or: z.string().or(z.number()),
      arrayNonempty: z.string().array().nonempty().max(3),
      isoAlias: z.string().datetime({ offset: true }),
      nonempty: z.string().nonempty(),
      ip: z.object({ v4: z.ipv4(), v6: z.ipv6() }),
    }
    for (const [name, schema] of Object.entries(schemas)) expectLikeZod(schema, `classic ${name}`)
  })

  it('converts schemas written with zod/mini functions', () => {
    const Base = zm.object({ id: zm.uuid(), name: zm.string().check(zm.trim(), zm.minLength(1)) })
    const schemas = {
      partial: zm.partial(Base),
      required: zm.required(zm.partial(Base)),
      pick: zm.pick(Base, { id: true }),
      omit: zm.omit(Base, { id: true }),
      extend: zm.extend(Base, { age: zm.int().check(zm.positive()) }),
      keyof: zm.keyof(Base),
      meta: zm.string().check(zm.meta({ 'x-mcp-header': 'Region' }), zm.minLength(2)),
      describeThenCheck: zm.string().check(zm.describe('d')).check(zm.maxLength(3)),
      nullish: zm.object({ a: zm.nullish(zm.string()) }),
      stringbool: zm.object({ flag: zm.stringbool() }),
      refine: zm.string().check(zm.refine((s) => s.length > 1)),
    }
    for (const [name, schema] of Object.entries(schemas)) expectLikeZod(schema, `mini ${name}`)
  })

  it('emits the $schema dialect and plain JSON (no zod extras)', () => {
    const json = zodToJsonSchema(zm.object({ a: zm._default(zm.string(), 'x') }), 'input')
    expect(json).toStrictEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { default: 'x', type: 'string' } },
    })
    expect(Object.getOwnPropertyNames(json)).toEqual(['$schema', 'type', 'properties'])
  })
})

describe('zodToJsonSchema: random schemas, against z.toJSONSchema', () => {
  it('gives zod’s output for random nested schemas in both io modes, classic and mini (or refuses an intersection)', () => {
    fc.assert(
      fc.property(recipe(), fc.constantFrom(...FLAVORS), (each, flavor) => {
        expectLikeZod(build(flavor, each), `${flavor} ${JSON.stringify(each)}`, { intersections: 'refused' })
      }),
      { numRuns: 3000 },
    )
  })
})

describe('zodToJsonSchema: what it leaves to zod', () => {
  const cases: Record<string, [any, string]> = {
    date: [z.object({ when: z.date() }), 'zod type "date" at /properties/when'],
    bigint: [z.bigint(), 'zod type "bigint" at /'],
    symbol: [z.symbol(), 'zod type "symbol"'],
    map: [z.map(z.string(), z.number()), 'zod type "map"'],
    set: [z.array(z.set(z.string())), 'zod type "set" at /items'],
    file: [z.file(), 'zod type "file"'],
    function: [z.function(), 'zod type "function"'],
    promise: [z.promise(z.string()), 'zod type "promise"'],
    lazy: [z.lazy(() => z.string()), 'zod type "lazy"'],
    'template literal': [z.templateLiteral(['a', z.number()]), 'zod type "template_literal"'],
    custom: [z.custom<string>(() => true), 'zod type "custom"'],
    nan: [z.nan(), 'zod type "nan"'],
    void: [z.void(), 'zod type "void"'],
    undefined: [z.undefined(), 'zod type "undefined"'],
    never: [z.object({ a: z.never() }), 'zod type "never" at /properties/a'],
    'transform alone': [z.transform((value) => value), 'zod type "transform"'],
    intersection: [z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })), 'zod type "intersection" at /'],
    'intersection in a field (.and)': [
      z.object({ both: z.object({ a: z.string() }).and(z.object({ b: z.string() })) }),
      'zod type "intersection" at /properties/both',
    ],
    'intersection in a union': [
      zm.union([zm.string(), zm.intersection(zm.string(), zm.string())]),
      'zod type "intersection" at /anyOf/1',
    ],
    'literal undefined': [z.literal(undefined), 'literal undefined'],
    'bigint literal': [z.literal(1n), 'literal 1'],
    'base64 format': [z.base64(), 'string format "base64"'],
    'base64url check': [z.string().base64url(), 'string format "base64url"'],
    'numeric record key': [z.record(z.number(), z.string()), 'a numeric record key at /'],
    'numeric literal record key': [z.record(z.union([z.literal(1), z.string()]), z.string()), 'a numeric record key'],
    'zero multipleOf': [z.number().multipleOf(0), 'multipleOf 0'],
    'bigint default': [z.bigint().default(1n), 'zod type "bigint"'],
    'non-JSON default': [z.object({ a: z.any().default(2n) }), 'a default that is not JSON at /properties/a'],
    'catch computed from the error': [
      z.string().catch((ctx) => {
        if (!ctx) throw new Error('needs the error')
        return 'x'
      }),
      'a catch value computed from the error',
    ],
    'metadata id': [z.object({ user: z.object({}).meta({ id: 'User' }) }), 'metadata "id" (a $defs entry) at /properties/user'],
  }
  for (const [name, [schema, message]] of Object.entries(cases)) {
    it(`throws on ${name}, naming the fix`, () => {
      for (const io of IO) {
        const error = configError(() => zodToJsonSchema(schema, io))
        expect(error.message).toContain(message)
        expect(error.message.endsWith(FIX[io])).toBe(true)
      }
    })
  }

  it('throws on recursive schemas (getters and lazy)', () => {
    const Category: any = z.object({
      name: z.string(),
      get children() {
        return z.array(Category)
      },
    })
    expect(configError(() => zodToJsonSchema(Category, 'input')).message).toContain(
      'a recursive schema at /properties/children/items',
    )
    const Tree: any = zm.object({ next: zm.optional(zm.lazy(() => Tree)) })
    expect(configError(() => zodToJsonSchema(Tree, 'output')).message).toContain('zod type "lazy" at /properties/next')
  })

  it('throws on the output side of a transform only', () => {
    const schema = z.object({ n: z.string().transform(Number) })
    expect(zodToJsonSchema(schema, 'input')).toEqual(referee(schema, 'input'))
    expect(configError(() => zodToJsonSchema(schema, 'output')).message).toContain('zod type "transform" at /properties/n')
  })
})

describe('createMcpServer: schemas converted on first use', () => {
  const ok = () => ({ content: [] })

  it('refuses an unsupported tool or prompt schema at its first use, naming the tool or prompt and the fix', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    server.tool('when', { input: z.object({ at: z.date() }) }, ok)
    server.tool('big', { input: z.object({}), output: z.object({ n: z.bigint() }) }, ok)
    server.prompt('p', { args: z.object({ s: z.set(z.string()) }) }, () => ({ messages: [] }))
    const input = configError(() => server.tools.get('when')?.definition)
    expect(input.message).toBe(
      `Tool "when", input schema: zod type "date" at /properties/at has no JSON Schema in mcp-edge's built-in converter: ${FIX.input}`,
    )
    const output = configError(() => server.tools.get('big')?.definition)
    expect(output.message).toBe(
      `Tool "big", output schema: zod type "bigint" at /properties/n has no JSON Schema in mcp-edge's ${FIX.output}`,
    )
    const prompt = configError(() => server.prompts.get('p')?.definition)
    expect(prompt.message).toMatch(/^Prompt "p", arguments: zod type "set" at \/properties\/s has no JSON Schema/)
  })

  it('advertises the built-in converter’s schemas, identical to zod’s', () => {
    const input = zm.object({ city: zm.string().check(zm.minLength(1)), days: zm._default(zm.int(), 3) })
    const output = z.object({ tempC: z.number(), note: z.string().optional() })
    const server = createMcpServer({ name: 's', version: '1' }).tool('weather', { input, output }, ok)
    const definition = server.tools.get('weather')?.definition
    expect(definition?.inputSchema).toEqual(referee(input, 'input'))
    expect(definition?.outputSchema).toEqual(referee(output, 'output'))
  })

  it('uses the jsonSchema option for tools and prompts when given', () => {
    const calls: string[] = []
    const server = createMcpServer({
      name: 's',
      version: '1',
      jsonSchema: (schema, io) => {
        calls.push(io)
        return z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>
      },
    })
    server.tool('when', { input: z.object({ at: z.date() }), output: z.object({ n: z.bigint() }) }, ok)
    server.prompt('p', { args: z.object({ text: z.string().describe('The text') }) }, () => ({ messages: [] }))
    expect(calls).toEqual([])
    const definition = server.tools.get('when')?.definition
    expect(calls).toEqual(['input', 'output'])
    expect(definition?.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { at: {} },
      required: ['at'],
    })
    expect(definition?.outputSchema).toMatchObject({ properties: { n: {} }, additionalProperties: false })
    expect(server.prompts.get('p')?.definition.arguments).toEqual([{ name: 'text', description: 'The text', required: true }])
    expect(calls).toEqual(['input', 'output', 'input'])
  })
})

// SDK 1.x's client checks a result against the tool's output schema with Ajv's draft-07; the
// SDK 2.x client with 2020-12. A tuple is said so that both accept what zod accepts.
describe('zodToJsonSchema: a schema marked keepsJsonSchema', () => {
  it('is converted once: its node is used again as made, inside any later conversion, each of which returns its own copy', () => {
    const city = keepsJsonSchema(z.string().describe('the city'))
    const first = zodToJsonSchema(z.object({ city }), 'input')
    z.globalRegistry.add(city, { description: 'changed later' }) // what keeping shows: the node as first made
    const later = zodToJsonSchema(z.object({ from: city, to: city }), 'input')
    expect([first.properties, later.properties]).toEqual([
      { city: { type: 'string', description: 'the city' } },
      { from: { type: 'string', description: 'the city' }, to: { type: 'string', description: 'the city' } },
    ])
    expect(zodToJsonSchema(city, 'input')).not.toBe(zodToJsonSchema(city, 'input'))
    // Each side its own; an unmarked schema converted each time.
    expect(zodToJsonSchema(city, 'output').description).toBe('changed later')
    const plain = z.string().describe('plain')
    zodToJsonSchema(plain, 'input')
    z.globalRegistry.add(plain, { description: 'plain, changed' })
    expect(zodToJsonSchema(plain, 'input').description).toBe('plain, changed')
  })

  it('keeps a node its conversion finished (a union of bare types as a type list), unchanged by the conversions that reuse it', () => {
    const either = keepsJsonSchema(z.union([z.string(), z.number()]))
    const alone = zodToJsonSchema(either, 'input')
    const twice = z.object({ a: either, b: z.array(either) })
    expect(zodToJsonSchema(twice, 'input')).toEqual(z.toJSONSchema(twice, { target: 'draft-2020-12', io: 'input' }))
    expect(zodToJsonSchema(either, 'input')).toEqual(alone)
  })

  it('keeps nothing of a conversion that failed', () => {
    const kept = keepsJsonSchema(z.object({ when: z.date() }))
    expect(() => zodToJsonSchema(kept, 'input')).toThrow(/zod type "date"/)
    expect(() => zodToJsonSchema(kept, 'input')).toThrow(/zod type "date"/)
  })
})

describe('zodToJsonSchema: a tuple, as draft-07 and 2020-12 validators read it', () => {
  const schemas: [string, z.ZodType][] = [
    ['pair', z.tuple([z.string(), z.number()])],
    ['optional last', z.tuple([z.string(), z.number().optional()])],
    ['at most 5 (a check past its length)', z.tuple([z.string(), z.number()]).check(z.maxLength(5))],
    ['at least 1', z.tuple([z.string(), z.number().optional()]).check(z.minLength(1))],
  ]
  const values = [[], ['a'], ['a', 1], ['a', 1, 2], [1, 'a'], ['a', 'b'], 'a']
  // draft-07 has no `prefixItems`: it can only check the length, so it takes more than zod, but
  // never refuses what zod takes (before, `items: false` refused every item).
  it.each(schemas)('%s: 2020-12 takes exactly what zod takes, draft-07 all of it', (_name, schema) => {
    const json = zodToJsonSchema(schema, 'output')
    expect(json.items).toBeUndefined()
    // A 2025-era client gets it without `$schema` (protocol/legacy.ts), as draft-07 Ajv needs.
    const { $schema: _2020, ...legacy } = json
    const draft07 = new Ajv({ strict: false }).compile(legacy)
    const draft2020 = new Ajv2020({ strict: false }).compile(json)
    for (const value of values) {
      const zodSays = schema.safeParse(value).success
      expect({ value, draft2020: draft2020(value) }).toEqual({ value, draft2020: zodSays })
      if (zodSays) expect({ value, draft07: draft07(value) }).toEqual({ value, draft07: true })
    }
  })
})
