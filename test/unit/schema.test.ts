import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import * as z3 from 'zod/v3'
import { findHeaderParams } from '../../packages/mcp-edge/src/protocol/header-values.ts'
import { asArguments, parseWith } from '../../packages/mcp-edge/src/server/schema/schema.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { caught, configError } from './support.ts'

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties })
const ok = () => ({ content: [] })

describe('findHeaderParams', () => {
  it('finds annotations reached through properties, nested ones included, in schema order', () => {
    const schema = object({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      count: { type: 'integer', 'x-mcp-header': 'Count' },
      plain: { type: 'string' },
      options: object({ dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } }),
    })
    expect(findHeaderParams('t', schema)).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Count', path: ['count'], type: 'integer' },
      { name: 'Dry-Run', path: ['options', 'dryRun'], type: 'boolean' },
    ])
  })

  it('finds nothing in a schema without annotations', () => {
    expect(findHeaderParams('t', object({ a: { type: 'string' } }))).toEqual([])
    expect(findHeaderParams('t', { type: 'object' })).toEqual([])
  })

  it('refuses annotations that are not RFC 9110 tokens', () => {
    for (const value of ['', 'Has Space', 'a:b', 'Ré', 'a/b', '(x)', 42, null]) {
      const error = configError(() => findHeaderParams('t', object({ p: { type: 'string', 'x-mcp-header': value } })))
      expect(error.message).toBe(
        `tool "t" property "p": x-mcp-header must be a non-empty header token, got ${JSON.stringify(value)}`,
      )
    }
    // Every tchar is accepted.
    expect(findHeaderParams('t', object({ p: { type: 'string', 'x-mcp-header': "!#$%&'*+-.^_`|~09AZaz" } }))).toHaveLength(1)
  })

  it('refuses a name used twice, ignoring case', () => {
    const schema = object({
      a: { type: 'string', 'x-mcp-header': 'Region' },
      nested: object({ b: { type: 'string', 'x-mcp-header': 'REGION' } }),
    })
    expect(configError(() => findHeaderParams('t', schema)).message).toBe(
      'tool "t" property "nested.b": x-mcp-header "REGION" is used twice (names are case-insensitive)',
    )
  })

  it('refuses annotations on number, object, array, null and untyped properties', () => {
    for (const property of [
      { type: 'number' },
      { type: 'object' },
      { type: 'array' },
      { type: 'null' },
      {},
      { type: ['string', 'null'] },
    ]) {
      const error = configError(() => findHeaderParams('t', object({ p: { ...property, 'x-mcp-header': 'P' } })))
      expect(error.message).toBe('tool "t" property "p": x-mcp-header is allowed only on string, integer or boolean properties')
    }
  })
})

describe('parseWith and asArguments', () => {
  it('summarises zod issues on one line, with paths', () => {
    const result = parseWith(z.object({ city: z.string(), days: z.number().int() }), { city: 1, days: 1.5 })
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toMatch(/^city: .+; days: .+$/)
  })

  // Classic zod installs its English locale; its messages are kept as zod words them (zod/mini's
  // generic ones are spelled out instead: argument-errors.test.ts).
  it('keeps classic zod’s messages as they are', () => {
    const schema = z.object({ a: z.number(), unit: z.enum(['c', 'f']), name: z.string().min(2), to: z.email() })
    const result = parseWith(schema, { a: '1', unit: 'k', name: 'x', to: 'nobody' })
    expect(!result.ok && result.message).toBe(
      'a: Invalid input: expected number, received string; unit: Invalid option: expected one of "c"|"f"; name: Too small: expected string to have >=2 characters; to: Invalid email address',
    )
    const missing = parseWith(z.object({ b: z.number() }), {})
    expect(!missing.ok && missing.message).toBe('b: Invalid input: expected number, received undefined')
  })

  it('returns the parsed value', () => {
    expect(parseWith(z.object({ n: z.coerce.number() }), { n: '4' })).toEqual({ ok: true, value: { n: 4 } })
  })

  it('accepts an object or nothing as arguments, and -32602 for anything else', () => {
    expect(asArguments(undefined, 'arguments')).toEqual({})
    expect(asArguments({ a: 1 }, 'arguments')).toEqual({ a: 1 })
    for (const value of [null, [], 'x', 3]) {
      const error = caught(() => asArguments(value, 'arguments'))
      expect(error.code).toBe(-32602)
      expect(error.message).toBe('Invalid params: arguments must be an object')
    }
  })
})

describe('McpServer registration errors', () => {
  it('refuses tool names outside 1–128 characters of [A-Za-z0-9_.-]', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    for (const name of ['', 'has space', 'slash/name', 'émoji', 'a'.repeat(129), 'tab\t']) {
      const error = configError(() => server.tool(name, { input: z.object({}) }, ok))
      expect(error.message).toBe(
        `Tool name "${name}" must be 1–128 characters from A-Z a-z 0-9 _ . - (server/tools "Tool names")`,
      )
      expect(server.tools.has(name)).toBe(false)
    }
    expect(() => server.tool('a'.repeat(128), { input: z.object({}) }, ok)).not.toThrow()
    expect(() => server.tool('Get.Weather_v2-beta', { input: z.object({}) }, ok)).not.toThrow()
  })

  it('refuses duplicate names and keeps the first registration', () => {
    const first = () => ({ content: [{ type: 'text' as const, text: 'first' }] })
    const server = createMcpServer({ name: 's', version: '1' }).tool('echo', { input: z.object({}) }, first)
    expect(configError(() => server.tool('echo', { input: z.object({}) }, ok)).message).toBe('Tool "echo" is already registered')
    expect(server.tools.get('echo')?.handler).toBe(first)
    server.resource('file:///a', { name: 'a' }, () => ({ contents: [{ uri: 'file:///a', text: 'a' }] }))
    expect(configError(() => server.resource('file:///a', { name: 'b' }, () => ({ contents: [] }))).message).toBe(
      'Resource "file:///a" is already registered',
    )
    server.resourceTemplate('file:///{+path}', { name: 'files' }, () => undefined)
    expect(configError(() => server.resourceTemplate('file:///{+path}', { name: 'again' }, () => undefined)).message).toBe(
      'Resource template "file:///{+path}" is already registered',
    )
    server.prompt('greet', {}, () => ({ messages: [] }))
    expect(configError(() => server.prompt('greet', {}, () => ({ messages: [] }))).message).toBe(
      'Prompt "greet" is already registered',
    )
  })

  // What TypeScript refuses but JavaScript (or `wrangler dev`, which checks no types) passes on:
  // each failed on first use before, as a TypeError (a tool gone from tools/list, -32603 calls).
  it('refuses a tool without input, saying what to write for a tool without arguments', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const options = { description: 'How many notes there are' } as never
    expect(configError(() => server.tool('count_notes', options, ok)).message).toBe(
      'Tool "count_notes": input is required; use z.object({}) for a tool without arguments',
    )
    expect(server.tools.has('count_notes')).toBe(false)
    expect(() => server.tool('count_notes', { description: 'How many notes there are', input: z.object({}) }, ok)).not.toThrow()
  })

  it('refuses a shape of fields where a tool’s input or output schema goes', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const shape = { city: z.string() } as never
    expect(configError(() => server.tool('weather', { input: shape }, ok)).message).toBe(
      'Tool "weather": input must be a zod object schema, { jsonSchema }, or a function returning one; wrap a shape of fields in z.object({ ... })',
    )
    expect(configError(() => server.tool('weather', { input: z.object({}), output: shape }, ok)).message).toBe(
      'Tool "weather": output must be a zod schema or a function returning one; wrap a shape of fields in z.object({ ... })',
    )
    expect(server.tools.has('weather')).toBe(false)
    // A zod 3 schema is told apart from a shape: wrapping it in z.object would not help.
    expect(configError(() => server.tool('weather', { input: z3.object({ city: z3.string() }) as never }, ok)).message).toBe(
      "Tool \"weather\": input must be a zod object schema, { jsonSchema }, or a function returning one; this is a zod 3 schema; mcp-edge reads zod 4: import * as z from 'zod' with zod 4 installed, or from 'zod/v4' with zod 3.25",
    )
    // Every form the types allow is still taken.
    server.tool('a', { input: () => z.object({}), output: () => z.string() }, ok)
    server.tool('b', { input: { jsonSchema: { type: 'object' } }, output: z.object({ n: z.number() }) }, ok)
    expect([...server.tools.keys()]).toEqual(['a', 'b'])
  })

  it('refuses options that are no object and handlers that are no function, for every kind', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const none = undefined as never
    const cases: [() => unknown, string][] = [
      [
        () => server.tool('t', ok as never, none),
        'Tool "t": the options must be an object: server.tool(name, { input, ... }, handler)',
      ],
      [
        () => server.tool('t', { input: z.object({}) }, none),
        'Tool "t": the handler must be a function: server.tool(name, { input, ... }, handler)',
      ],
      [
        () => server.resource('file:///a', none, ok as never),
        'Resource "file:///a": the options must be an object: server.resource(uri, { name, ... }, handler)',
      ],
      [
        () => server.resource('file:///a', { name: 'a' }, none),
        'Resource "file:///a": the handler must be a function: server.resource(uri, { name, ... }, handler)',
      ],
      [
        () => server.resourceTemplate('file:///{+path}', { name: 'files' }, none),
        'Resource template "file:///{+path}": the handler must be a function: server.resourceTemplate(uriTemplate, { name, ... }, handler)',
      ],
      [
        () => server.prompt('p', none, ok as never),
        'Prompt "p": the options must be an object: server.prompt(name, { args, ... }, handler)',
      ],
      [
        () => server.prompt('p', {}, none),
        'Prompt "p": the handler must be a function: server.prompt(name, { args, ... }, handler)',
      ],
    ]
    for (const [register, message] of cases) expect(configError(register).message).toBe(message)
    expect([server.tools.size, server.resources.size, server.templates.size, server.prompts.size]).toEqual([0, 0, 0, 0])
  })

  it('refuses a resource or template without its name, and completers or a list that are no function', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const read = () => ({ contents: [] })
    const cases: [() => unknown, string][] = [
      [
        () => server.resource('file:///a', {} as never, read),
        'Resource "file:///a": name is required (a string clients show for it)',
      ],
      [
        () => server.resourceTemplate('file:///{+path}', { title: 'Files' } as never, () => undefined),
        'Resource template "file:///{+path}": name is required (a string clients show for it)',
      ],
      [
        () => server.resourceTemplate('file:///{+path}', { name: 'files', complete: { path: ['a'] as never } }, () => undefined),
        'Resource template "file:///{+path}": complete.path must be a function (value, ctx) => string[]',
      ],
      [
        () => server.resourceTemplate('file:///{+path}', { name: 'files', list: [] as never }, () => undefined),
        'Resource template "file:///{+path}": list must be a function (ctx) => Resource[]',
      ],
      [
        () => server.prompt('greet', { args: { name: z.string() } as never }, () => ({ messages: [] })),
        'Prompt "greet": args must be a zod object schema; wrap a shape of fields in z.object({ ... })',
      ],
      [
        () =>
          server.prompt('greet', { args: z.object({ name: z.string() }), complete: { name: 'x' as never } }, () => ({
            messages: [],
          })),
        'Prompt "greet": complete.name must be a function (value, ctx) => string[]',
      ],
    ]
    for (const [register, message] of cases) expect(configError(register).message).toBe(message)
    expect([server.resources.size, server.templates.size, server.prompts.size]).toEqual([0, 0, 0])
  })

  it('refuses a raw JSON Schema input that is not an object', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const input = { jsonSchema: { type: 'string' } } as unknown as { jsonSchema: { type: 'object' } }
    expect(configError(() => server.tool('raw', { input }, ok)).message).toBe(
      'Tool "raw": the input schema must have type "object"',
    )
    expect(server.tools.has('raw')).toBe(false)
  })

  it('fails at registration on a bad x-mcp-header in a raw JSON Schema input and leaves no half-registered tool', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const input = { jsonSchema: { type: 'object' as const, properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } } }
    expect(configError(() => server.tool('ratio', { input }, ok)).message).toBe(
      'tool "ratio" property "ratio": x-mcp-header is allowed only on string, integer or boolean properties',
    )
    expect(server.tools.has('ratio')).toBe(false)
  })

  it('reports a bad x-mcp-header in a zod input at the tool’s first use, with the same message', () => {
    const server = createMcpServer({ name: 's', version: '1' })
    const input = z.object({ ratio: z.number().meta({ 'x-mcp-header': 'Ratio' }) })
    server.tool('ratio', { input }, ok)
    expect(configError(() => server.headerParams('ratio')).message).toBe(
      'tool "ratio" property "ratio": x-mcp-header is allowed only on string, integer or boolean properties',
    )
  })

  it('derives header params from zod .meta() annotations', () => {
    const server = createMcpServer({ name: 's', version: '1' }).tool(
      'deploy',
      {
        input: z.object({
          region: z.string().meta({ 'x-mcp-header': 'Region' }),
          replicas: z.int().meta({ 'x-mcp-header': 'Replicas' }),
          canary: z.boolean().optional().meta({ 'x-mcp-header': 'Canary' }),
        }),
      },
      ok,
    )
    expect(server.headerParams('deploy')).toEqual([
      { name: 'Region', path: ['region'], type: 'string' },
      { name: 'Replicas', path: ['replicas'], type: 'integer' },
      { name: 'Canary', path: ['canary'], type: 'boolean' },
    ])
    expect(server.headerParams('unknown')).toEqual([])
  })
})
