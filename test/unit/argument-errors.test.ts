/**
 * A tool's argument errors with zod/mini alone, as in a Worker that imports no classic zod (the
 * templates'): zod/mini has no locale, so each issue's message is zod's generic "Invalid input",
 * and the runtime spells it out from the issue (src/server/schema/issues.ts). This file must not
 * import classic `zod`, which installs its English locale for every zod in the process; classic
 * zod's own messages, kept as they are, are checked in schema.test.ts.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { parseWith } from '../../packages/mcp-edge/src/server/schema/schema.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { buildRequest } from '../support/mcp.ts'

const messageOf = (schema: z.core.$ZodType, value: unknown) => {
  const parsed = parseWith(schema, value)
  return parsed.ok ? 'parsed' : parsed.message
}

describe('argument errors with zod/mini', () => {
  it('runs without a zod locale, as a Worker with zod/mini alone', () => {
    expect(z.config().localeError).toBeUndefined()
    expect(z.safeParse(z.number(), 'x').error?.issues[0]?.message).toBe('Invalid input')
  })

  it('names the expected and the received type of a wrong or missing argument', () => {
    const schema = z.object({ a: z.number(), b: z.number(), tags: z.optional(z.array(z.string())) })
    expect(messageOf(schema, { a: 1, b: '2' })).toBe('b: Invalid input: expected number, received string')
    expect(messageOf(schema, { a: 1 })).toBe('b: Invalid input: expected number, received undefined')
    expect(messageOf(schema, { a: null, b: [], tags: ['x', 3] })).toBe(
      'a: Invalid input: expected number, received null; b: Invalid input: expected number, received array; tags.1: Invalid input: expected string, received number',
    )
    expect(messageOf(z.object({ n: z.int() }), { n: 1.5 })).toBe('n: Invalid input: expected int, received number')
  })

  it('lists the options of an enum or literal, and the types of a union', () => {
    const schema = z.object({
      unit: z.enum(['celsius', 'fahrenheit']),
      mode: z.optional(z.literal('fast')),
      id: z.optional(z.union([z.string(), z.number()])),
    })
    expect(messageOf(schema, { unit: 'kelvin', mode: 'slow', id: true })).toBe(
      'unit: Invalid option: expected one of "celsius"|"fahrenheit"; mode: Invalid input: expected "fast"; id: Invalid input: expected string | number, received boolean',
    )
  })

  it('gives the bound of a value too small or too big, with its unit', () => {
    const schema = z.object({
      name: z.string().check(z.minLength(2)),
      days: z.number().check(z.gte(1), z.lt(15)),
      ids: z.optional(z.array(z.string()).check(z.maxLength(3))),
      code: z.optional(z.string().check(z.length(4))),
    })
    expect(messageOf(schema, { name: 'x', days: 0, ids: ['a', 'b', 'c', 'd'], code: 'abc' })).toBe(
      'name: Too small: expected string to have >=2 characters; days: Too small: expected number to be >=1; ids: Too big: expected array to have <=3 items; code: Too small: expected string to have exactly 4 characters',
    )
    expect(messageOf(schema, { name: 'xy', days: 15 })).toBe('days: Too big: expected number to be <15')
  })

  it('names unknown keys, formats and multiples', () => {
    expect(messageOf(z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 })).toBe('Unrecognized keys: "b", "c"')
    expect(messageOf(z.object({ at: z.string().check(z.regex(/^\d{4}$/)) }), { at: 'soon' })).toBe(
      'at: Invalid string: must match pattern /^\\d{4}$/',
    )
    expect(messageOf(z.object({ to: z.email() }), { to: 'nobody' })).toBe('to: Invalid email')
    expect(messageOf(z.object({ at: z.iso.datetime(), id: z.uuid() }), { at: 'soon', id: 'x' })).toBe(
      'at: Invalid datetime; id: Invalid uuid',
    )
    const affixes = z.object({
      a: z.string().check(z.startsWith('sk_')),
      b: z.string().check(z.endsWith('.md')),
      c: z.string().check(z.includes('@')),
    })
    expect(messageOf(affixes, { a: 'pk_1', b: 'x.txt', c: 'y' })).toBe(
      'a: Invalid string: must start with "sk_"; b: Invalid string: must end with ".md"; c: Invalid string: must include "@"',
    )
    expect(messageOf(z.object({ n: z.number().check(z.multipleOf(5)) }), { n: 7 })).toBe(
      'n: Invalid number: must be a multiple of 5',
    )
  })

  it('names the type zod checked after a coercion or transform, not the one sent', () => {
    expect(messageOf(z.object({ n: z.coerce.number() }), { n: 'abc' })).toBe('n: Invalid input: expected number, received NaN')
    const numbered = z.pipe(
      z.transform((value: unknown) => Number(value)),
      z.int(),
    )
    expect(messageOf(z.object({ n: numbered }), { n: 'abc' })).toBe('n: Invalid input: expected number, received NaN')
  })

  it('keeps a message the schema gives', () => {
    const schema = z.object({ city: z.string().check(z.minLength(1, 'Say which city')) })
    expect(messageOf(schema, { city: '' })).toBe('city: Say which city')
  })

  it('answers a tools/call with wrong arguments with what to change, as an isError result', async () => {
    const server = createMcpServer({ name: 'calc', version: '1' })
    server.tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))
    const handle = createMcpHandler(server)
    const request = buildRequest('http://127.0.0.1/mcp', 'tools/call', { name: 'add', arguments: { a: 1, b: '2' } })
    const { result } = (await (await handle(request, undefined)).json()) as { result: { isError: boolean; content: unknown[] } }
    expect(result).toMatchObject({ resultType: 'complete', isError: true })
    expect(result.content).toEqual([
      { type: 'text', text: 'Invalid arguments for tool add: b: Invalid input: expected number, received string' },
    ])
  })
})
