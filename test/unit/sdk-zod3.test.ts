/**
 * zod 3 schemas in mcp-edge/sdk (sdk/schema/zod3.ts), as SDK 1.x takes them and most `McpAgent` servers
 * write them (`import { z } from 'zod'` with zod 3.25). The referee for each twin is the same
 * schema written by hand in zod 4: its JSON Schema from zod's own `z.toJSONSchema`, and zod 3
 * itself for what a value parses to. Then a server registered with zod 3 schemas, called through
 * the core's `handle` (its Worker under wrangler dev, on a real zod 3.25 install, is pack:check's).
 * Over 500 lines: the corpus of schema kinds, one row each, is most of it.
 */
import { describe, expect, it, vi } from 'vitest'
import * as z4 from 'zod'
import * as z3 from 'zod/v3'
import { zodToJsonSchema } from '../../packages/mcp-edge/src/server/schema/json-schema.ts'
import { completable, objectSchema, sharedShapes } from '../../packages/mcp-edge/src/sdk/schema/schema.ts'
import { parsesAsynchronously, toJsonSchema } from '../../packages/mcp-edge/src/server/schema/schema.ts'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'
import { sharedTwins, twin } from '../../packages/mcp-edge/src/sdk/schema/zod3.ts'
import { SHARED_BUDGET, SharedKeys, SharedTwins } from '../../packages/mcp-edge/src/sdk/schema/zod3-shared.ts'
import { check } from '../../packages/mcp-edge/src/sdk/schema/zod3-walk.ts'
import * as z from 'zod/v4/mini'
import { asMcpEdgeGives, sendAs } from './support.ts'

type Case = [name: string, zod3: z3.ZodTypeAny, zod4: z4.ZodType, values: unknown[]]

const cases: Case[] = [
  ['string bounds', z3.string().min(2).max(5), z4.string().min(2).max(5), ['ab', 'a', 'abcdef', 3]],
  [
    'string length and affixes',
    z3.string().length(4).startsWith('a').endsWith('z'),
    z4.string().length(4).startsWith('a').endsWith('z'),
    ['abcz', 'abz', 'bbcz'],
  ],
  [
    'includes at a position',
    z3.string().includes('x', { position: 2 }),
    z4.string().includes('x', { position: 2 }),
    ['abx', 'xab'],
  ],
  ['regex', z3.string().regex(/^[a-z]+$/), z4.string().regex(/^[a-z]+$/), ['abc', 'ABC']],
  // zod 3's optional answers undefined before a default inside it runs (zod 4's runs it).
  [
    'a default inside an optional',
    z3.object({ n: z3.number().default(10).describe('How many').optional(), m: z3.number().optional().default(5) }),
    z4.object({ n: z4.number().optional().meta({ default: 10, description: 'How many' }), m: z4.number().optional().default(5) }),
    [{}, { n: 3 }, { n: 'x' }, { m: 1 }],
  ],
  // Formats are checked by zod 3 itself and advertised as SDK 1.x (zod-to-json-schema) did: a
  // `format` where it gave one, no pattern.
  ['email', z3.string().email(), z4.string().meta({ format: 'email' }), ['a@b.co', 'nope']],
  ['url', z3.string().url(), z4.string().meta({ format: 'uri' }), ['https://example.com/x', 'not a url']],
  ['uuid', z3.string().uuid(), z4.string().meta({ format: 'uuid' }), ['00000000-0000-0000-0000-000000000000', 'xyz']],
  [
    'datetime',
    z3.string().datetime({ offset: true }),
    z4.string().meta({ format: 'date-time' }),
    ['2026-12-06T10:00:00+01:00', '2026-12-06'],
  ],
  ['date', z3.string().date(), z4.string().meta({ format: 'date' }), ['2026-12-06', '06/12/2026']],
  ['ip of either version', z3.string().ip(), z4.string(), ['10.0.0.1', '::1', '300.0.0.1']],
  ['ipv6', z3.string().ip({ version: 'v6' }), z4.string().meta({ format: 'ipv6' }), ['::1', '10.0.0.1']],
  ['cuid, and a bound after it', z3.string().cuid().max(30), z4.string().max(30), ['cjld2cjxh0000qzrmn831i7rn', 'nope']],
  [
    'trim, then a format',
    z3.string().trim().email().describe('Mail'),
    z4.string().trim().meta({ format: 'email', description: 'Mail' }),
    [' a@b.co ', ' no '],
  ],
  ['trim then bounds', z3.string().trim().min(1), z4.string().trim().min(1), ['  a ', '   ']],
  ['number bounds', z3.number().min(0).max(10), z4.number().min(0).max(10), [0, 10, -1, 11, '3']],
  ['exclusive bounds', z3.number().gt(0).lt(1), z4.number().gt(0).lt(1), [0.5, 0, 1]],
  [
    'integer, positive, multiple',
    z3.number().int().positive().multipleOf(5),
    z4.int().positive().multipleOf(5),
    [10, 7, -5, 2.5],
  ],
  ['coerced number', z3.coerce.number(), z4.coerce.number(), ['42', 42, 'x']],
  ['boolean', z3.boolean(), z4.boolean(), [true, 'true']],
  ['null', z3.null(), z4.null(), [null, 0]],
  // zod 3 takes an object's any and unknown keys as optional (zod 4 wants them present).
  [
    'any and unknown',
    z3.object({ a: z3.any(), b: z3.unknown() }),
    z4.object({ a: z4.any().optional(), b: z4.unknown().optional() }),
    [{ a: 1 }, {}, 1],
  ],
  ['literal', z3.literal('on'), z4.literal('on'), ['on', 'off']],
  ['enum', z3.enum(['add', 'subtract']), z4.enum(['add', 'subtract']), ['add', 'divide']],
  ['native enum', z3.nativeEnum({ Up: 'UP', Down: 'DOWN' } as const), z4.enum({ Up: 'UP', Down: 'DOWN' } as const), ['UP', 'Up']],
  ['array bounds', z3.array(z3.string()).min(1).max(2), z4.array(z4.string()).min(1).max(2), [['a'], [], ['a', 'b', 'c'], [1]]],
  ['nonempty array', z3.array(z3.number()).nonempty(), z4.array(z4.number()).min(1), [[1], []]],
  [
    'tuple with rest',
    z3.tuple([z3.string(), z3.number()]).rest(z3.boolean()),
    z4.tuple([z4.string(), z4.number()], z4.boolean()),
    [
      ['a', 1, true],
      ['a', 'b'],
    ],
  ],
  ['record', z3.record(z3.number()), z4.record(z4.string(), z4.number()), [{ a: 1 }, { a: 'x' }]],
  [
    'record with enum keys (partial, as zod 3)',
    z3.record(z3.enum(['a', 'b']), z3.number()),
    z4.partialRecord(z4.enum(['a', 'b']), z4.number()),
    [{ a: 1 }, { c: 1 }],
  ],
  ['union', z3.union([z3.string(), z3.number()]), z4.union([z4.string(), z4.number()]), ['a', 1, true]],
  [
    'discriminated union',
    z3.discriminatedUnion('kind', [
      z3.object({ kind: z3.literal('a'), a: z3.string() }),
      z3.object({ kind: z3.literal('b'), b: z3.number() }),
    ]),
    z4.discriminatedUnion('kind', [
      z4.object({ kind: z4.literal('a'), a: z4.string() }),
      z4.object({ kind: z4.literal('b'), b: z4.number() }),
    ]),
    [{ kind: 'a', a: 'x' }, { kind: 'b', b: 'x' }, { kind: 'c' }],
  ],
  [
    'object: optional, nullable, default, description',
    z3.object({
      city: z3.string().describe('The city'),
      days: z3.number().int().min(1).default(3).describe('How many days'),
      units: z3.enum(['metric', 'imperial']).optional(),
      note: z3.string().nullable(),
    }),
    z4.object({
      city: z4.string().describe('The city'),
      days: z4.int().min(1).default(3).describe('How many days'),
      units: z4.enum(['metric', 'imperial']).optional(),
      note: z4.string().nullable(),
    }),
    [{ city: 'Oslo', note: null, extra: 1 }, { city: 'Oslo', days: 0, note: null }, { note: null }],
  ],
  ['strict object', z3.object({ a: z3.string() }).strict(), z4.strictObject({ a: z4.string() }), [{ a: 'x' }, { a: 'x', b: 1 }]],
  ['passthrough object', z3.object({ a: z3.string() }).passthrough(), z4.looseObject({ a: z4.string() }), [{ a: 'x', b: 1 }]],
  [
    'catchall',
    z3.object({ a: z3.string() }).catchall(z3.number()),
    z4.object({ a: z4.string() }).catchall(z4.number()),
    [
      { a: 'x', b: 1 },
      { a: 'x', b: 'y' },
    ],
  ],
  [
    'nested arrays of objects',
    z3.array(z3.object({ id: z3.string(), tags: z3.array(z3.string()).optional() })),
    z4.array(z4.object({ id: z4.string(), tags: z4.array(z4.string()).optional() })),
    [[{ id: 'a' }], [{ tags: [] }]],
  ],
  [
    'readonly and branded',
    z3.object({ a: z3.string().brand<'Id'>().readonly() }),
    z4.object({ a: z4.string().readonly() }),
    [{ a: 'x' }, { a: 1 }],
  ],
  // zod 4.6 reads a refined schema's metadata from the one it refines; zod 3.25's zod 4 (4.0) does
  // not, so the twin carries it over itself (pack:check's zod 3.25 stage serves such a tool).
  [
    'a refined format keeps its format and description',
    z3
      .string()
      .email()
      .describe('Mail')
      .refine((value) => !value.endsWith('.test'), 'no test domains'),
    z4.string().meta({ format: 'email', description: 'Mail' }),
    ['a@b.co', 'a@b.test', 'nope'],
  ],
  [
    'refinement',
    z3.string().refine((value) => value.includes('@'), 'needs an @'),
    z4.string().refine((value) => value.includes('@'), 'needs an @'),
    ['a@b', 'ab'],
  ],
  ['transform', z3.string().transform((value) => value.length), z4.string().transform((value) => value.length), ['abc', 3]],
  [
    'preprocess',
    z3.preprocess((value) => (typeof value === 'string' ? Number(value) : value), z3.number()),
    z4.preprocess((value) => (typeof value === 'string' ? Number(value) : value), z4.number()),
    ['7', 7, 'x'],
  ],
  ['pipeline', z3.string().pipe(z3.coerce.number()), z4.string().pipe(z4.coerce.number()), ['7', 7]],
  // A catch advertises no default, as SDK 1.x did (its fallback may read a context the listing has not).
  ['catch', z3.number().catch(0), z4.number(), [5, 'x']],
  [
    'a catch whose fallback reads its context',
    z3
      .number()
      .catch((ctx) => (typeof ctx.input === 'string' && ctx.error.issues.length > 0 && ctx.error.message !== '' ? -1 : 0)),
    z4.number(),
    [5, 'x', null],
  ],
  // A review's findings: each of these answered otherwise than zod 3 before its fix.
  [
    'catch around a transform',
    z3
      .string()
      .transform((value) => value.length)
      .catch(-1),
    z4
      .string()
      .transform((value) => value.length)
      .catch(-1),
    ['abc', 5],
  ],
  ['catch after trim', z3.string().trim().catch('  keep  '), z4.string().trim(), [' a ', 5]],
  [
    'a default is parsed as a value given (zod 4’s prefault)',
    z3.object({ opts: z3.object({ verbose: z3.boolean().default(false) }).default({}), n: z3.string().trim().default(' a ') }),
    z4.object({ opts: z4.object({ verbose: z4.boolean().default(false) }).prefault({}), n: z4.string().trim().prefault(' a ') }),
    [{}, { opts: {} }, { n: ' b ' }],
  ],
  [
    'record keyed by a union of literals (partial, as zod 3)',
    z3.record(z3.union([z3.literal('a'), z3.literal('b')]), z3.number()),
    z4.partialRecord(z4.union([z4.literal('a'), z4.literal('b')]), z4.number()),
    [{ a: 1 }, { c: 1 }],
  ],
  [
    'an object’s keys that take undefined stay optional (any or unknown, nullable or refined)',
    z3.object({ a: z3.any().nullable(), b: z3.any().refine(() => true), n: z3.string() }),
    z4.object({
      a: z4.any().nullable().optional(),
      b: z4
        .any()
        .refine(() => true)
        .optional(),
      n: z4.string(),
    }),
    [{ n: 'x' }, { a: null, n: 'x' }, {}],
  ],
  ['any in a tuple stays required', z3.tuple([z3.string(), z3.any()]), z4.tuple([z4.string(), z4.any()]), [['x'], ['x', 1]]],
]

describe('a zod 3 schema’s zod 4 twin', () => {
  for (const [name, zod3, zod4, values] of cases) {
    it(`${name}: zod 4’s JSON Schema, zod 3’s answers`, () => {
      const made = twin(zod3 as never)
      expect(zodToJsonSchema(made, 'input')).toEqual(
        asMcpEdgeGives(z4.toJSONSchema(zod4, { target: 'draft-2020-12', io: 'input' })),
      )
      for (const value of values) {
        const expected = zod3.safeParse(value)
        const got = z.safeParse(made, value)
        expect({ value, ok: got.success }).toEqual({ value, ok: expected.success })
        if (got.success && expected.success) expect(got.data).toEqual(expected.data)
      }
    })
  }

  it('a refinement’s and a transform’s issues keep their messages and paths', () => {
    const password = z3
      .object({ password: z3.string(), confirm: z3.string() })
      .refine((value) => value.password === value.confirm, { message: 'passwords differ', path: ['confirm'] })
    const failed = z.safeParse(twin(password as never), { password: 'a', confirm: 'b' })
    expect(failed.success).toBe(false)
    expect(failed.error?.issues.map(({ message, path }) => ({ message, path }))).toEqual([
      { message: 'passwords differ', path: ['confirm'] },
    ])
    const parsed = z3.string().transform((value, ctx) => {
      const n = Number(value)
      if (Number.isNaN(n)) ctx.addIssue({ code: z3.ZodIssueCode.custom, message: 'not a number' })
      return n
    })
    expect(z.safeParse(twin(parsed as never), 'x').error?.issues[0]?.message).toBe('not a number')
    expect(z.safeParse(twin(parsed as never), '4').data).toBe(4)
  })

  it('a check’s own message carries over', () => {
    const made = twin(z3.string().min(3, 'at least three') as never)
    expect(z.safeParse(made, 'ab').error?.issues[0]?.message).toBe('at least three')
    const mail = twin(z3.string().email('give an email') as never)
    expect(z.safeParse(mail, 'ab').error?.issues.map((issue) => issue.message)).toEqual(['give an email'])
  })

  it('asks a schema’s error map as zod 3 does: its codes, received, a default text', () => {
    const schema = z3.object({
      m: z3.enum(['a', 'b'], { required_error: 'need m', invalid_type_error: 'm is text' }),
      l: z3.literal('x', { required_error: 'need l' }),
      r: z3.string({
        errorMap: (issue) => ({ message: (issue as { received?: string }).received === 'undefined' ? 'REQUIRED' : 'WRONG' }),
      }),
      p: z3.number({ errorMap: (_issue, ctx) => ({ message: `p: ${ctx.defaultError}` }) }),
    })
    const made = twin(schema as never)
    for (const value of [{}, { m: 5, l: 'y', r: 1, p: 'x' }, { m: 'c', l: 'x', r: 'ok', p: 1 }]) {
      const ours = z.safeParse(made, value).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      const theirs = schema.safeParse(value).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      // Where zod 3 has no message of the schema's, it words its own and the twin zod 4's (or the runtime's).
      const own = (line: string) => !/Invalid (literal|enum|option)|Expected '|Invalid input/.test(line)
      expect({ value, messages: ours?.filter(own) }).toEqual({ value, messages: theirs?.filter(own) })
    }
  })

  it('a described brand keeps its description to itself', () => {
    const base = z3.string().describe('plain')
    const made = twin(z3.object({ plain: base, id: base.brand<'Id'>().describe('An id') }) as never)
    expect(zodToJsonSchema(made, 'input')).toMatchObject({
      properties: { plain: { description: 'plain' }, id: { description: 'An id' } },
    })
    expect(zodToJsonSchema(twin(base as never), 'input')).toMatchObject({ description: 'plain' })
  })

  it('a schema’s own messages for a wrong or missing value carry over', () => {
    const made = twin(
      z3.object({
        name: z3.string({ required_error: 'name is required', invalid_type_error: 'name must be text' }),
        mode: z3.enum(['a', 'b'], { message: 'mode is a or b' }),
        count: z3.number({ errorMap: () => ({ message: 'count is a number' }) }),
      }) as never,
    )
    const messages = (value: unknown) => z.safeParse(made, value).error?.issues.map((issue) => issue.message)
    expect(messages({ mode: 'c', count: 'x' })).toEqual(['name is required', 'mode is a or b', 'count is a number'])
    expect(messages({ name: 1, mode: 'a', count: 1 })).toEqual(['name must be text'])
  })

  it('one node, one twin: a schema shared in two places is converted once', () => {
    const id = z3.string().uuid()
    const made = twin(z3.object({ a: id, b: id }) as never) as z.ZodMiniObject
    expect(made.def.shape.a).toBe(made.def.shape.b)
  })

  it('refuses the kinds with no JSON Schema here, naming the place and the fix', () => {
    expect(() => twin(z3.object({ run: z3.function() }) as never)).toThrow(
      /^\/properties\/run: zod 3's ZodFunction is not taken by mcp-edge\/sdk, .* or in zod 4 \(import \* as z from 'zod\/v4' with zod 3\.25/,
    )
    for (const schema of [
      z3.promise(z3.string()),
      z3.date(),
      z3.bigint(),
      z3.set(z3.string()),
      z3.intersection(z3.object({}), z3.object({})),
    ])
      expect(() => twin(schema as never)).toThrow(new RegExp(`^zod 3's ${schema._def.typeName} is not taken`))
  })

  it('is refused before it is built exactly where building it would refuse it, with the same message', () => {
    const outcome = (make: () => unknown) => {
      try {
        make()
        return 'taken'
      } catch (error) {
        return (error as Error).message
      }
    }
    const date = z3.date()
    const refused: z3.ZodTypeAny[] = [
      z3.array(date),
      z3.object({ a: z3.object({ when: date.optional() }) }),
      z3.object({}).catchall(z3.bigint()),
      z3.union([z3.string(), z3.set(z3.string())]),
      z3.discriminatedUnion('k', [z3.object({ k: z3.literal('a'), at: date })]),
      z3.tuple([z3.string()]).rest(date),
      z3.tuple([z3.string(), z3.map(z3.string(), z3.string())]),
      z3.record(z3.string(), date.nullable().default(new Date(0))),
      z3.string().pipe(z3.lazy(() => z3.string())),
      z3
        .object({ a: date })
        .refine(() => true)
        .brand<'B'>()
        .readonly(),
      z3.number().catch(0).pipe(z3.bigint()),
      z3.promise(z3.string()).optional(),
    ]
    for (const schema of [...cases.map(([, zod3]) => zod3), ...refused]) {
      const built = outcome(() => twin(schema as never))
      expect({ checked: outcome(() => check(schema as never)), schema: schema._def.typeName }).toEqual({
        checked: built,
        schema: schema._def.typeName,
      })
    }
    expect(refused.every((schema) => outcome(() => check(schema as never)) !== 'taken')).toBe(true)
  })
})

type ToolAnswer = { content: { type: string; text: string }[]; isError?: boolean; structuredContent?: unknown }

describe('zod 3 twins shared by equal schemas (zod3-shared.ts)', () => {
  const parses = (schema: z.core.$ZodType, value: unknown) => z.safeParse(schema, value).success
  const forecast = () =>
    z3.object({
      city: z3.string().min(2, 'too short').describe('the city'),
      days: z3.array(z3.number().int().max(7)).max(3),
      unit: z3.enum(['c', 'f']).optional(),
      pattern: z3.string().regex(/^[a-z]+$/i),
    })

  it('builds one twin for equal schemas made apart, as a server built per request makes them', () => {
    const first = twin(forecast() as never)
    expect(twin(forecast() as never)).toBe(first)
    expect(zodToJsonSchema(first, 'input')).toEqual(zodToJsonSchema(twin(forecast() as never), 'input'))
    expect(parses(first, { city: 'Oslo', days: [1, 7], pattern: 'Ab' })).toBe(true)
    expect(parses(first, { city: 'O', days: [1], pattern: 'Ab' })).toBe(false)
    // Equal properties of one object share a twin too, and are still listed each in its place.
    const pair = twin(z3.object({ from: z3.string().min(2), to: z3.string().min(2) }) as never)
    expect(zodToJsonSchema(pair, 'input')).toEqual(
      zodToJsonSchema(z.object({ from: z.string().check(z.minLength(2)), to: z.string().check(z.minLength(2)) }), 'input'),
    )
  })

  it('builds its own twin for a schema that differs from another in any datum, or in its zod 3 class', () => {
    class OtherString extends z3.ZodString {}
    const base = () => z3.string().min(2, 'too short').describe('the city')
    const variants = [
      base(),
      z3.string().min(3, 'too short').describe('the city'),
      z3.string().min(2, 'far too short').describe('the city'),
      z3.string().min(2, 'too short').describe('a city'),
      z3.string().min(2, 'too short'),
      z3.string().max(2, 'too short').describe('the city'),
      z3.string().min(2, 'too short').describe('the city').optional(),
      z3.string().min(2, 'too short').describe('the city').nullable(),
      z3.string().regex(/^a/),
      z3.string().regex(/^a/i),
      z3.string().regex(/^b/),
      z3.enum(['a', 'b']),
      z3.enum(['b', 'a']),
      z3.literal(1),
      z3.literal('1'),
      z3.object({ a: z3.string() }),
      z3.object({ a: z3.string() }).strict(),
      z3.object({ b: z3.string() }),
      new OtherString(base()._def),
      // zod's own error map says the messages it was made with: told apart by its answers.
      z3.string({ message: 'm' }),
      z3.string({ required_error: 'm' }),
      z3.string({ invalid_type_error: 'm' }),
      z3.string({ invalid_type_error: 'n' }),
      z3.string({ invalid_type_error: 'm', required_error: 'n' }),
    ]
    const twins = variants.map((schema) => twin(schema as never))
    expect(new Set(twins).size).toBe(variants.length)
    expect(twin(base() as never)).toBe(twins[0])
    expect(twin(z3.string({ invalid_type_error: 'm', required_error: 'n' }) as never)).toBe(twins.at(-1))
  })

  it('builds its own twin for a schema with code in it, which runs its own code', () => {
    const banned = (word: string) => z3.object({ word: z3.string().refine((value) => value !== word, 'banned') })
    const [x, y] = [twin(banned('x') as never), twin(banned('y') as never)]
    expect(x).not.toBe(y)
    expect([parses(x, { word: 'x' }), parses(x, { word: 'y' }), parses(y, { word: 'x' }), parses(y, { word: 'y' })]).toEqual([
      false,
      true,
      true,
      false,
    ])
    const given = (days: number) => z3.number().default(() => days)
    expect([z.parse(twin(given(3) as never), undefined), z.parse(twin(given(5) as never), undefined)]).toEqual([3, 5])
    const typed = (message: string) => z3.string({ invalid_type_error: message })
    const messages = [typed('A'), typed('B')].map((schema) => z.safeParse(twin(schema as never), 1).error?.issues[0]?.message)
    expect(messages).toEqual(['A', 'B'])
    // An error map of the code's own is code: each schema keeps its own, whatever the map says.
    const mapped = () => z3.string({ errorMap: () => ({ message: 'mapped' }) })
    expect(twin(mapped() as never)).not.toBe(twin(mapped() as never))
  })

  it('shares no default: each server’s default function is its own, and building a twin calls none', async () => {
    // A default that reads its server's state (McpAgent's `this.state`, a request's env).
    const build = (initial: string) => {
      const state = { region: initial, asked: 0 }
      const server = new McpServer({ name: 'where', version: '1' })
      const region = () => {
        state.asked++
        return state.region
      }
      server.tool('where', { region: z3.string().default(region) }, async ({ region }) => ({
        content: [{ type: 'text', text: region }],
      }))
      return { server, state }
    }
    const [a, b] = [build('eu'), build('eu')]
    for (const { server } of [a, b]) await sendAs(server.edge, 'tools/list', {})
    b.state.region = 'us'
    const answer = async ({ server }: typeof a) =>
      (await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'where', arguments: {} })).result?.content[0]?.text
    expect([await answer(a), await answer(b)]).toEqual(['eu', 'us'])
    // Asked by each list (the JSON Schema's `default`) and each call, never to build a key.
    expect([a.state.asked, b.state.asked]).toEqual([2, 2])
    const count = () => z3.number().int().default(10)
    expect(twin(count() as never)).not.toBe(twin(count() as never))
    expect(z.parse(twin(count() as never), undefined)).toBe(10)
  })

  it('lists a default function’s value at each server’s list, for a schema made once and served by servers built per request', async () => {
    let clock = 1000
    const args = z3.object({ since: z3.number().default(() => clock) })
    const listed = []
    for (const at of [1000, 2000]) {
      clock = at
      const server = new McpServer({ name: 'since', version: '1' })
      server.registerTool('since', { inputSchema: args }, async () => ({ content: [] }))
      const { result } = await sendAs<{ tools: { inputSchema: { properties: { since: { default: number } } } }[] }>(
        server.edge,
        'tools/list',
        {},
      )
      listed.push(result?.tools[0]?.inputSchema.properties.since.default)
    }
    expect(listed).toEqual([1000, 2000])
  })

  it('shares the object of equal raw shapes of zod 3 data, not a shape with a zod 4 schema or code in it', () => {
    const shape = () => ({ url: z3.string().url(), count: z3.number().int(), tags: z3.array(z3.string()).optional() })
    const first = objectSchema(shape(), 'Tool "read"')
    expect(objectSchema(shape(), 'Tool "read"')).toBe(first)
    expect(toJsonSchema(objectSchema(shape(), 'Tool "read"'), 'input')).toEqual(toJsonSchema(first, 'input'))
    expect(z.parse(first, { url: 'https://example.com', count: 2 })).toEqual({ url: 'https://example.com', count: 2 })
    const others = [
      () => ({ url: z3.string(), at: z4.string() }),
      () => ({ url: z3.string(), count: z3.number().default(10) }),
      () => ({ url: z3.string().refine((value) => value.length > 0) }),
    ]
    for (const made of others) expect(objectSchema(made(), 'Tool "m"')).not.toBe(objectSchema(made(), 'Tool "m"'))
    const reordered = objectSchema(
      { tags: z3.array(z3.string()).optional(), url: z3.string().url(), count: z3.number().int() },
      'Tool "read"',
    )
    expect(reordered).not.toBe(first)
  })

  it('parses an equal zod 3 object of another tool at once after the tool it was a property of was found asynchronous', async () => {
    const cfg = () => z3.object({ x: z3.string().describe('beside an async refinement') })
    const server = new McpServer({ name: 'mixed', version: '1' })
    server.tool('mixed', { cfg: cfg(), b: z4.string().refine(async () => true) }, async () => ({ content: [] }))
    await sendAs(server.edge, 'tools/call', { name: 'mixed', arguments: { cfg: { x: 'y' }, b: 'z' } })
    expect(parsesAsynchronously(objectSchema(cfg(), 'Tool "other"'))).toBe(false)
  })

  it('keeps the most recently used twins within its budget, and past it takes one new key in eight', () => {
    const table = new SharedTwins()
    const quarter = SHARED_BUDGET / 4
    const schemas = Array.from({ length: 13 }, () => z.string())
    for (const [n, schema] of schemas.slice(0, 4).entries()) table.set(`k${n}`, schema, quarter)
    expect(table.get('k0')).toBe(schemas[0]) // used again: now the most recent
    table.set('k4', schemas[4] as never, quarter) // the first new key past the budget is taken
    expect([table.get('k1'), table.get('k0'), table.get('k4')]).toEqual([undefined, schemas[0], schemas[4]])
    for (const [n, schema] of schemas.slice(5).entries()) table.set(`k${n + 5}`, schema, quarter)
    const kept = schemas.slice(5).filter((_, n) => table.get(`k${n + 5}`) !== undefined)
    expect([table.size, table.weight, kept.length]).toEqual([4, SHARED_BUDGET, 1])
    table.set('whole', z.string(), SHARED_BUDGET + 1) // more than the budget: never kept
    expect(table.get('whole')).toBeUndefined()
    const again = new SharedTwins()
    again.set('k', z.string(), 100)
    again.set('k', z.string(), 100) // the same key set twice weighs once
    expect([again.size, again.weight]).toEqual([1, 100])
  })

  it('keeps no more of the schemas a server makes anew per request than its budget, children included, however many it meets', () => {
    sharedTwins.clear()
    sharedShapes.clear()
    // An enum read per tenant, as a server built per request would: each a new key.
    const values = (tenant: number) =>
      Array.from({ length: 300 }, (_, n) => `tenant-${tenant}-value-${n}`) as [string, ...string[]]
    for (let tenant = 0; tenant < 300; tenant++) {
      twin(z3.object({ v: z3.enum(values(tenant)) }) as never)
      objectSchema({ v: z3.enum(values(tenant)) }, 'Tool "t"')
    }
    for (const table of [sharedTwins, sharedShapes]) {
      expect(table.weight).toBeLessThanOrEqual(SHARED_BUDGET)
      expect(table.size).toBeLessThan(300)
    }
    // An object weighs its children: the enum's values, not the key that stands for them.
    const keys = new SharedKeys()
    const object = z3.object({ v: z3.enum(values(0)) })
    expect(keys.weightOf(object as never)).toBeGreaterThan(keys.weightOf(object.shape.v as never))
    expect(keys.weightOf(object as never)).toBeGreaterThan(300 * 'tenant-0-value-0'.length)
  })

  it('shares no twin of a schema whose data holds a cycle or a pattern with methods of its own', () => {
    const looped: Record<string, unknown> = { A: 'a' }
    looped.self = looped
    const keys = new SharedKeys()
    expect(keys.of(z3.nativeEnum(looped as never) as never)).toBeUndefined()
    const odd = /^a/
    Object.defineProperty(odd, 'exec', { value: () => null })
    expect(keys.of(z3.string().regex(odd) as never)).toBeUndefined()
    expect(keys.of(z3.string().regex(/^a/) as never)).toBeDefined()
  })
})

describe('a server written with zod 3 schemas, as SDK 1.x takes it', () => {
  const server = new McpServer({ name: 'calculator', version: '1.0.0' })
  // Cloudflare's remote-MCP template, on zod 3: tool() with a raw shape.
  server.tool(
    'calculate',
    { operation: z3.enum(['add', 'divide']), a: z3.number(), b: z3.number() },
    async ({ operation, a, b }) => ({
      content: [{ type: 'text', text: String(operation === 'add' ? a + b : a / b) }],
    }),
  )
  server.registerTool(
    'greet',
    {
      description: 'Greets',
      inputSchema: z3
        .object({ name: z3.string().trim().min(1).describe('Who'), times: z3.number().int().default(1) })
        .refine((v) => v.name !== 'nobody', 'not nobody'),
      outputSchema: { text: z3.string() },
    },
    async ({ name, times }) => {
      const text = Array.from({ length: times }, () => `hi ${name}`).join(' ')
      return { content: [{ type: 'text', text }], structuredContent: { text } }
    },
  )
  server.registerPrompt(
    'review',
    {
      argsSchema: {
        language: completable(z3.string().describe('The language'), (value) =>
          ['go', 'rust', 'ts'].filter((l) => l.startsWith(value)),
        ),
      },
    },
    ({ language }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `review my ${language}` } }] }),
  )

  const call = (name: string, args: Record<string, unknown>) =>
    sendAs<ToolAnswer>(server.edge, 'tools/call', { name, arguments: args })

  it('lists each tool with its zod 4 twin’s JSON Schema', async () => {
    const { result } = await sendAs<{ tools: { name: string; inputSchema: unknown; outputSchema?: unknown }[] }>(
      server.edge,
      'tools/list',
      {},
    )
    const byName = Object.fromEntries(result!.tools.map((tool) => [tool.name, tool]))
    expect(byName.calculate?.inputSchema).toEqual(
      z4.toJSONSchema(z4.object({ operation: z4.enum(['add', 'divide']), a: z4.number(), b: z4.number() }), {
        target: 'draft-2020-12',
        io: 'input',
      }),
    )
    expect(byName.greet?.inputSchema).toMatchObject({
      properties: { name: { type: 'string', minLength: 1, description: 'Who' }, times: { type: 'integer', default: 1 } },
      required: ['name'],
    })
    expect(byName.greet?.outputSchema).toMatchObject({ properties: { text: { type: 'string' } }, required: ['text'] })
  })

  it('calls with the parsed arguments: defaults filled, strings trimmed', async () => {
    expect((await call('calculate', { operation: 'add', a: 2, b: 3 })).result?.content[0]?.text).toBe('5')
    expect((await call('greet', { name: '  ada ' })).result?.structuredContent).toEqual({ text: 'hi ada' })
  })

  it('answers bad arguments with an error result that says what is wrong, and calls nothing', async () => {
    const wrong = (await call('calculate', { operation: 'modulo', a: 2, b: 3 })).result
    expect(wrong?.isError).toBe(true)
    expect(wrong?.content[0]?.text).toMatch(/operation/)
    const refined = (await call('greet', { name: 'nobody' })).result
    expect(refined?.isError).toBe(true)
    expect(refined?.content[0]?.text).toContain('not nobody')
  })

  it('lists, completes and gets a prompt whose argument is zod 3', async () => {
    const listed = await sendAs<{ prompts: { arguments: unknown[] }[] }>(server.edge, 'prompts/list', {})
    expect(listed.result?.prompts[0]?.arguments).toEqual([{ name: 'language', description: 'The language', required: true }])
    const completed = await sendAs<{ completion: { values: string[] } }>(server.edge, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'language', value: 'r' },
    })
    expect(completed.result?.completion.values).toEqual(['rust'])
    const got = await sendAs<{ messages: { content: { text: string } }[] }>(server.edge, 'prompts/get', {
      name: 'review',
      arguments: { language: 'go' },
    })
    expect(got.result?.messages[0]?.content.text).toBe('review my go')
  })

  it('awaits a refinement or transform that returns a promise, as SDK 1.x parses with safeParseAsync', async () => {
    const seen: unknown[] = []
    server.registerTool(
      'lookup',
      {
        inputSchema: {
          id: z3.string().refine(async (id) => id !== 'taken', 'that id is taken'),
          tags: z3.string().transform(async (text) => text.split(',')),
        },
      },
      async ({ id, tags }) => {
        seen.push([id, tags])
        return { content: [{ type: 'text', text: 'ok' }] }
      },
    )
    expect((await call('lookup', { id: 'a', tags: 'x,y' })).result?.content[0]?.text).toBe('ok')
    const refused = (await call('lookup', { id: 'taken', tags: 'x' })).result
    expect(refused?.isError).toBe(true)
    expect(refused?.content[0]?.text).toBe('Invalid arguments for tool lookup: id: that id is taken')
    expect((await call('lookup', { id: 'b', tags: 'z' })).result?.content[0]?.text).toBe('ok')
    expect(seen).toEqual([
      ['a', ['x', 'y']],
      ['b', ['z']],
    ])
  })

  it('runs an asynchronous refinement once a call, on every server built per request', async () => {
    let runs = 0
    const id = z3.string().refine(async (value) => {
      runs++
      return value !== 'taken'
    }, 'taken')
    // A preprocess that changes what it is given, before the refinement: run twice, it shows.
    const tags = z3.preprocess((value) => [...(value as string[]), 'seen'], z3.array(z3.string()))
    for (const round of [0, 1, 2]) {
      const local = new McpServer({ name: `per-request-${round}`, version: '1' })
      local.tool('claim', { id, tags }, async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }))
      const answer = await sendAs<ToolAnswer>(local.edge, 'tools/call', { name: 'claim', arguments: { id: 'a', tags: ['x'] } })
      expect(answer.result?.content[0]?.text).toBe('{"id":"a","tags":["x","seen"]}')
      expect(runs).toBe(round + 1)
    }
  })

  // Was [2, 1, 1] for a module-level schema (the first server found the refinement asynchronous by
  // running it, in zod's synchronous try), and 2 on every call for a schema built per request.
  it('runs a zod 4 refinement or transform once a call from the first, on every server built per request, as the SDKs await every parse', async () => {
    let runs = 0
    const refined = () =>
      z4.string().refine(async (value) => {
        runs++
        return value !== 'taken'
      })
    const moduleLevel = refined()
    const forms: Record<string, () => Record<string, unknown>> = {
      'a raw shape of a module-level schema': () => ({ inputSchema: { id: moduleLevel } }),
      'a raw shape built per request': () => ({ inputSchema: { id: refined() } }),
      'an object built per request': () => ({ inputSchema: z4.object({ id: refined() }) }),
      'a refinement inside an array inside an optional': () => ({ inputSchema: { ids: z4.array(refined()).optional() } }),
      'a transform that awaits': () => ({
        inputSchema: {
          id: z4.string().transform(async (value) => {
            runs++
            return value
          }),
        },
      }),
      // Review of the change: a codec's code, an object's catch-all and a lazy schema's target were missed.
      'a codec that decodes asynchronously': () => ({
        inputSchema: {
          id: z4.codec(z4.string(), z4.string(), {
            decode: async (value) => {
              runs++
              return value
            },
            encode: (value) => value,
          }),
        },
      }),
      'a refinement in an object’s catch-all': () => ({ inputSchema: z4.object({}).catchall(refined()) }),
      'a refinement behind a lazy schema': () => ({ inputSchema: { id: z4.lazy(() => refined()) } }),
      // Second review: a property check's schema was not entered.
      'a refinement in a property check': () => ({
        inputSchema: z4.object({ id: z4.string() }).check(z4.property('id', refined())),
      }),
    }
    for (const [form, config] of Object.entries(forms)) {
      const counts: number[] = []
      for (const round of [0, 1, 2]) {
        const local = new McpServer({ name: `zod4-per-request-${round}`, version: '1' })
        local.registerTool('claim', config() as never, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
        const before = runs
        const args = form.includes('array') ? { ids: ['a'] } : form.includes('catch-all') ? { extra: 'a' } : { id: 'a' }
        const answer = await sendAs<ToolAnswer>(local.edge, 'tools/call', { name: 'claim', arguments: args })
        expect(answer.result?.content[0]?.text, form).toBe('ok')
        counts.push(runs - before)
      }
      expect(counts, form).toEqual([1, 1, 1])
    }
  })

  // Review of the change: the walk visited a schema once per path to it, so a tree that refers to
  // itself twice took some 2^32 visits at registration.
  it('registers a recursive zod 4 schema without running its getters, and parses it (awaited) as it should', async () => {
    const Tree: z4.ZodType = z4.object({
      v: z4.number(),
      get left() {
        return Tree.optional()
      },
      get right() {
        return Tree.optional()
      },
    })
    const server = new McpServer(
      { name: 'recursive', version: '1' },
      { jsonSchema: (schema, io) => z4.toJSONSchema(schema as z4.ZodType, { target: 'draft-2020-12', io }) as never },
    )
    const input = z4.object({ tree: Tree })
    server.registerTool('t', { inputSchema: input }, async ({ tree }) => ({
      content: [{ type: 'text', text: JSON.stringify(tree) }],
    }))
    expect((await sendAs<{ tools: unknown[] }>(server.edge, 'tools/list', {})).result?.tools).toHaveLength(1)
    // Its getters are code the walk does not run (second review: running them at registration had
    // zod fix their answers, or took 2^32 visits before the first review's visited set).
    expect(parsesAsynchronously(input)).toBe(true)
    const tree = { v: 1, left: { v: 2 }, right: { v: 3, left: { v: 4 } } }
    const answer = await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 't', arguments: { tree } })
    expect(answer.result?.content[0]?.text).toBe(JSON.stringify(tree))
    // A lazy schema whose target is declared later in the module registers as before (the walk
    // cannot run it yet), and is parsed, awaited, once it can.
    const early = z4.object({ word: z4.lazy(() => declaredLater) })
    server.registerTool('early', { inputSchema: early }, async ({ word }) => ({ content: [{ type: 'text', text: word }] }))
    const declaredLater = z4.string()
    expect(parsesAsynchronously(early)).toBe(true)
    const early1 = await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'early', arguments: { word: 'hi' } })
    expect(early1.result?.content[0]?.text).toBe('hi')
    // So does a recursive shape whose getter's schema is assigned after registration: the walk
    // does not have zod fix the getter's answer before it is assigned.
    let node = undefined as unknown as z4.ZodString
    const later = z4.object({
      get child(): z4.ZodString {
        return node
      },
    })
    server.registerTool('later', { inputSchema: later }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
    node = z4.string()
    const refused = await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'later', arguments: { child: 5 } })
    expect(refused.result?.isError).toBe(true)
    const taken = await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'later', arguments: { child: 'x' } })
    expect(taken.result?.content[0]?.text).toBe('ok')
    // The same through objects zod derives from it (second review: their shapes' getters keep
    // their first answer too), and a refinement in the schema assigned later runs once a call.
    let runs = 0
    let late = undefined as unknown as z4.ZodString
    const base = z4.object({
      get child(): z4.ZodString {
        return late
      },
    })
    const extended = z4.object({ a: z4.string() }).extend({
      get child(): z4.ZodString {
        return late
      },
    })
    server.registerTool('partial', { inputSchema: base.partial() }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
    server.registerTool('extended', { inputSchema: extended }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
    late = z4.string().refine(async () => {
      runs++
      return true
    }) as unknown as z4.ZodString
    for (const [name, args] of [
      ['partial', { child: 'x' }],
      ['extended', { a: 'x', child: 'x' }],
    ] as const) {
      const before = runs
      const answer = await sendAs<ToolAnswer>(server.edge, 'tools/call', { name, arguments: args })
      expect(answer.result?.content[0]?.text, name).toBe('ok')
      expect(runs - before, name).toBe(1)
    }
  })

  it('parses a zod 4 schema without refinements or transforms synchronously, its output schema too', async () => {
    const server = new McpServer({ name: 'plain', version: '1' })
    const input = z4.object({ a: z4.number(), tags: z4.array(z4.string()).optional() })
    const output = z4.object({ sum: z4.number() })
    server.registerTool('add', { inputSchema: input, outputSchema: output }, async ({ a }) => ({
      content: [],
      structuredContent: { sum: a },
    }))
    expect(
      (await sendAs<ToolAnswer>(server.edge, 'tools/call', { name: 'add', arguments: { a: 2 } })).result?.structuredContent,
    ).toEqual({ sum: 2 })
    expect(parsesAsynchronously(input)).toBe(false)
    expect(parsesAsynchronously(output)).toBe(false)
    const refined = z4.object({ a: z4.number().refine((value) => value > 0) })
    server.registerTool('positive', { inputSchema: refined, outputSchema: refined }, async ({ a }) => ({
      content: [],
      structuredContent: { a },
    }))
    expect(parsesAsynchronously(refined)).toBe(true)
  })

  it('runs zod 3 refinements in order, the later one after an earlier asynchronous one, none after a fatal issue', async () => {
    const ran: string[] = []
    const word = z3
      .string()
      .superRefine(async (value, ctx) => {
        ran.push('first')
        if (value === 'bad') ctx.addIssue({ code: 'custom', message: 'fatal first', fatal: true })
        if (value === 'meh') ctx.addIssue({ code: 'custom', message: 'first' })
      })
      .refine((value) => {
        ran.push('second')
        return value !== 'bad' && value !== 'meh'
      }, 'second')
    server.tool('ordered', { word }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
    for (const [value, text, runs] of [
      ['bad', 'Invalid arguments for tool ordered: word: fatal first', ['first']],
      ['meh', 'Invalid arguments for tool ordered: word: first; word: second', ['first', 'second']],
      ['fine', 'ok', ['first', 'second']],
    ] as const) {
      ran.length = 0
      expect((await call('ordered', { word: value })).result?.content[0]?.text).toBe(text)
      expect(ran).toEqual(runs)
      const expected = await z3.object({ word }).safeParseAsync({ word: value })
      expect(expected.success).toBe(value === 'fine')
    }
  })

  it('answers undefined for a missing optional whatever its schema would make of it, as zod 3 does', () => {
    const seven = (value: number) => value * 7
    for (const schema of [
      z3.number().default(1).optional(),
      z3.number().default(1).nullable().optional(),
      z3.number().default(1).brand<'B'>().optional(),
      z3.number().default(1).readonly().optional(),
      z3.number().catch(7).optional(),
      z3.number().default(1).catch(7).optional(),
      z3
        .number()
        .default(1)
        .refine((value) => value > 0)
        .optional(),
      z3.number().default(1).transform(seven).optional(),
      z3.number().default(1).default(2).optional(),
      z3.preprocess((value) => value ?? 3, z3.number()).optional(),
      // Wrapped again outside the optional: zod copies the schema it refines or describes.
      z3
        .number()
        .default(1)
        .optional()
        .refine((value) => value === undefined || value > 0),
      z3
        .number()
        .default(1)
        .optional()
        .superRefine(() => {}),
      z3.number().default(1).optional().brand<'B'>().describe('described'),
      z3
        .number()
        .default(1)
        .optional()
        .transform((value) => value),
    ]) {
      const object = z3.object({ f: schema })
      const made = twin(object as never)
      for (const value of [{}, { f: 2 }, { f: undefined }, { f: 'x' }, { f: null }]) {
        const expected = object.safeParse(value)
        const got = z.safeParse(made, value)
        const keyed = (data: unknown) => (data === undefined ? undefined : 'f' in (data as object))
        expect({ value, ok: got.success, data: got.data, keyed: keyed(got.data) }).toEqual({
          value,
          ok: expected.success,
          data: expected.data,
          keyed: keyed(expected.data),
        })
      }
    }
  })

  it('gives the arguments’ keys in their shapes’ order at every depth, as zod 3 does, when effects make the parse asynchronous', async () => {
    const trimmed = z3.string().transform((value) => value.trim())
    server.tool(
      'nested',
      {
        first: trimmed,
        outer: z3.object({ a: trimmed, b: z3.string() }),
        list: z3.array(z3.object({ c: trimmed, d: z3.number() })),
      },
      async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }),
    )
    const answer = await call('nested', { first: ' x ', outer: { a: ' y ', b: 'z' }, list: [{ c: ' w ', d: 1 }] })
    expect(answer.result?.content[0]?.text).toBe('{"first":"x","outer":{"a":"y","b":"z"},"list":[{"c":"w","d":1}]}')
  })

  it('fails the call, and only the call, of a tool whose asynchronous refinement throws', async () => {
    const failed = vi.fn()
    process.on('unhandledRejection', failed)
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      server.registerTool(
        'broken',
        { inputSchema: { id: z3.string().refine(async () => Promise.reject(new Error('lookup down'))) } },
        async () => ({ content: [] }),
      )
      expect((await call('broken', { id: 'a' })).error?.code).toBe(-32603)
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(failed).not.toHaveBeenCalled()
    } finally {
      process.off('unhandledRejection', failed)
      logged.mockRestore()
    }
  })

  it('completes an argument marked completable after its schema served a tool', async () => {
    const lang = z3.string()
    const local = new McpServer({ name: 'late-mark', version: '1' })
    local.registerTool('uses_lang', { inputSchema: { lang } }, async () => ({ content: [] }))
    local.registerPrompt(
      'pick',
      { argsSchema: { lang: completable(lang, (value) => ['go', 'rust'].filter((l) => l.startsWith(value))) } },
      () => ({
        messages: [],
      }),
    )
    const completed = await sendAs<{ completion: { values: string[] } }>(local.edge, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'pick' },
      argument: { name: 'lang', value: 'r' },
    })
    expect(completed.result?.completion.values).toEqual(['rust'])
  })

  it('completes an argument marked completable after a tool listed with its schema, which an equal schema served before', async () => {
    // An equal unmarked schema's twin is shared (zod3-shared.ts); the mark keeps this one its own.
    const other = new McpServer({ name: 'first', version: '1' })
    other.registerTool('uses_lang', { inputSchema: { lang: z3.string().describe('a language') } }, async () => ({ content: [] }))
    await sendAs(other.edge, 'tools/list', {})
    const lang = z3.string().describe('a language')
    const local = new McpServer({ name: 'late-mark', version: '1' })
    local.registerTool('uses_lang', { inputSchema: { lang } }, async () => ({ content: [] }))
    await sendAs(local.edge, 'tools/list', {})
    local.registerPrompt(
      'pick',
      { argsSchema: { lang: completable(lang, (value) => ['go', 'rust'].filter((l) => l.startsWith(value))) } },
      () => ({ messages: [] }),
    )
    const completed = await sendAs<{ completion: { values: string[] } }>(local.edge, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'pick' },
      argument: { name: 'lang', value: 'r' },
    })
    expect(completed.result?.completion.values).toEqual(['rust'])
  })

  it('completes the arguments of a zod 3 object that is refined or branded', async () => {
    const lang = () => z3.object({ lang: completable(z3.string(), (value) => ['go', 'rust'].filter((l) => l.startsWith(value))) })
    const argsSchemas = [lang().refine(() => true), lang().superRefine(() => {}), lang().brand<'Args'>()]
    const values = []
    for (const argsSchema of argsSchemas) {
      const local = new McpServer({ name: 'refined', version: '1' })
      local.registerPrompt('pick', { argsSchema } as never, () => ({ messages: [] }))
      const completed = await sendAs<{ completion: { values: string[] } }>(local.edge, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'pick' },
        argument: { name: 'lang', value: 'r' },
      })
      values.push(completed.result?.completion.values)
    }
    expect(values).toEqual([['rust'], ['rust'], ['rust']])
  })

  it('takes the any and unknown keys of a raw shape as optional, as SDK 1.x listed and parsed them', async () => {
    server.tool('anyraw', { data: z3.any(), u: z3.unknown(), n: z3.string() }, async (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args) }],
    }))
    const { result } = await sendAs<{ tools: { name: string; inputSchema: { required?: string[] } }[] }>(
      server.edge,
      'tools/list',
      {},
    )
    expect(result?.tools.find((tool) => tool.name === 'anyraw')?.inputSchema.required).toEqual(['n'])
    expect((await call('anyraw', { n: 'x' })).result?.content[0]?.text).toBe('{"n":"x"}')
  })

  it('completes a completable schema whose brand served a tool first', async () => {
    const lang = completable(z3.string(), (value) => ['go', 'rust'].filter((l) => l.startsWith(value)))
    const local = new McpServer({ name: 'branded', version: '1' })
    local.registerTool('uses_brand', { inputSchema: { lang: lang.brand<'Lang'>() } }, async () => ({ content: [] }))
    local.registerPrompt('pick', { argsSchema: { lang } }, () => ({ messages: [] }))
    const completed = await sendAs<{ completion: { values: string[] } }>(local.edge, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'pick' },
      argument: { name: 'lang', value: 'g' },
    })
    expect(completed.result?.completion.values).toEqual(['go'])
  })

  it('serves a key whose zod 3 optionality check throws, as SDK 1.x did (it reads a throw as optional)', async () => {
    server.tool(
      'lower',
      { tag: z3.any().transform((value) => String(value).toLowerCase()), n: z3.any().refine((value) => value.length > 0) },
      async (args) => ({
        content: [{ type: 'text', text: JSON.stringify(args) }],
      }),
    )
    const { result } = await sendAs<{ tools: { name: string; inputSchema: { required?: string[] } }[] }>(
      server.edge,
      'tools/list',
      {},
    )
    expect(result?.tools.find((tool) => tool.name === 'lower')?.inputSchema.required).toBeUndefined()
    expect((await call('lower', { tag: 'ABC', n: 'x' })).result?.content[0]?.text).toBe('{"tag":"abc","n":"x"}')
  })

  it('completes a zod 3 argument marked completable under a default and an optional', async () => {
    const local = new McpServer({ name: 'default-marked', version: '1' })
    local.registerPrompt(
      'pick',
      {
        argsSchema: {
          lang: completable(z3.string().default('ts'), (value) => ['rust', 'ts'].filter((l) => l.startsWith(value))).optional(),
        },
      },
      ({ lang }) => ({ messages: [{ role: 'user', content: { type: 'text', text: String(lang) } }] }),
    )
    const completed = await sendAs<{ completion: { values: string[] } }>(local.edge, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'pick' },
      argument: { name: 'lang', value: 'r' },
    })
    expect(completed.result?.completion.values).toEqual(['rust'])
  })

  it('completes a zod 3 brand marked completable', async () => {
    const local = new McpServer({ name: 'brand-marked', version: '1' })
    const lang = completable(z3.string().brand<'Lang'>(), (value) => ['go', 'rust'].filter((l) => l.startsWith(value)))
    local.registerPrompt('pick', { argsSchema: { lang } }, () => ({ messages: [] }))
    const completed = await sendAs<{ completion: { values: string[] } }>(local.edge, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'pick' },
      argument: { name: 'lang', value: 'r' },
    })
    expect(completed.result?.completion.values).toEqual(['rust'])
  })

  it('tool() refuses a zod 3 object where a raw shape goes, as a zod 4 one, instead of taking it for annotations', () => {
    expect(() => server.tool('z3obj', z3.object({ a: z3.string() }) as never, async () => ({ content: [] }))).toThrow(
      /^Tool z3obj: tool\(\) takes a raw shape of zod schemas/,
    )
    expect(server.edge.tools.has('z3obj')).toBe(false)
  })

  it('tells the caller a schema’s own message for a missing argument', async () => {
    server.registerTool('named', { inputSchema: { name: z3.string({ required_error: 'name is required' }) } }, async () => ({
      content: [],
    }))
    const answer = (await call('named', {})).result
    expect(answer?.isError).toBe(true)
    expect(answer?.content[0]?.text).toBe('Invalid arguments for tool named: name: name is required')
  })

  it('builds a zod 3 tool’s twins when the tool is first called, not when it is registered', async () => {
    // A server built per request registers every tool and serves one or two: the others' twins are never built.
    // Described as no other test's schemas are, so no equal node's twin is taken instead (zod3-shared.ts).
    const city = z3.string().min(1).describe('the city, built lazily')
    const total = z3.number().describe('the total, built lazily')
    const read = vi.spyOn(city, 'isOptional')
    const readOutput = vi.spyOn(total, 'isOptional')
    server.registerTool('forecast', { inputSchema: { city }, outputSchema: { total } }, async () => ({
      content: [],
      structuredContent: { total: 1 },
    }))
    expect([read.mock.calls.length, readOutput.mock.calls.length]).toEqual([0, 0])
    expect((await call('forecast', { city: 'Oslo' })).result?.isError).toBeUndefined()
    expect(read.mock.calls.length).toBe(1)
    expect(readOutput.mock.calls.length).toBe(1)
    expect((await call('forecast', { city: '' })).result?.isError).toBe(true)
    expect([read.mock.calls.length, readOutput.mock.calls.length]).toEqual([1, 1]) // built once
  })

  it('serves a raw shape as it was registered, whatever the code adds to its object later', async () => {
    const shape: Record<string, z3.ZodTypeAny> = { a: z3.string() }
    server.tool('snapshot', shape, async ({ a }) => ({ content: [{ type: 'text', text: String(a) }] }))
    shape.when = z3.date()
    shape.b = z3.string()
    expect((await call('snapshot', { a: 'x' })).result?.content[0]?.text).toBe('x')
  })

  it('refuses at registration a whole zod 3 schema that is no object, and registers nothing', () => {
    for (const inputSchema of [z3.string(), z3.object({ a: z3.string() }).transform((v) => v), z3.object({}).optional()])
      expect(() => server.registerTool('whole', { inputSchema } as never, async () => ({ content: [] }))).toThrow(
        'Tool "whole": the schema must be a zod object or a raw shape of zod schemas',
      )
    expect(() => server.registerTool('out', { outputSchema: z3.date() } as never, async () => ({ content: [] }))).toThrow(
      /^Tool "out": zod 3's ZodDate is not taken/,
    )
    expect(() =>
      server.registerTool('out', { outputSchema: { at: z3.array(z3.date()) } } as never, async () => ({ content: [] })),
    ).toThrow(/^Tool "out": \/properties\/at\/items: zod 3's ZodDate is not taken/)
    expect([server.edge.tools.has('whole'), server.edge.tools.has('out')]).toEqual([false, false])
  })

  it('refuses at registration a zod 3 schema with no twin, and registers nothing', () => {
    expect(() => server.registerTool('run', { inputSchema: { when: z3.date() } }, async () => ({ content: [] }))).toThrow(
      /^Tool "run": \/properties\/when: zod 3's ZodDate is not taken by mcp-edge\/sdk/,
    )
    expect(server.edge.tools.has('run')).toBe(false)
  })
})

// Compiled by `npm run typecheck`, never run: what must not compile. A zod 4 schema other than an
// object is no zod 3 object to the types, though it has zod 3's members too.
function notCompiled(server: McpServer) {
  // @ts-expect-error a zod 4 record is not a tool's input schema
  server.registerTool('x', { inputSchema: z4.record(z4.string(), z4.string()) }, async () => ({ content: [] }))
  // @ts-expect-error a transformed zod 4 object is not one either
  server.registerTool('y', { inputSchema: z4.object({ a: z4.string() }).transform((value) => value) }, async () => ({
    content: [],
  }))
}
void notCompiled
