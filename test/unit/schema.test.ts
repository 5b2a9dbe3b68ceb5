import { describe, expect, it } from 'vitest'
import * as z from 'zod'
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
