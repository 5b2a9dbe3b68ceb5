/**
 * When a tool's schemas become JSON Schema. Given as functions (servers with many tools): nothing
 * is built at registration; a tool's schemas are built once, on its first list or call, and only
 * for the tools a page lists; a bad schema then fails that use instead of the start-up. Given as
 * zod objects: converted and checked at registration.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { buildRequest } from '../support/mcp.ts'

const post = (method: string, params: Record<string, unknown> = {}) => buildRequest('http://127.0.0.1/mcp', method, params)

/** A server of `count` tools whose input schemas are functions, counting the builds per tool. */
function lazyServer(count: number, pageSize = 50) {
  const builds: Record<string, number> = {}
  const server = createMcpServer({ name: 'lazy', version: '1', pageSize })
  for (let i = 0; i < count; i++) {
    const name = `tool_${i}`
    server.tool(
      name,
      {
        description: `Tool ${i}`,
        input: () => {
          builds[name] = (builds[name] ?? 0) + 1
          return z.object({ n: z.int().check(z.minimum(0)), label: z.optional(z.string().check(z.describe('A label'))) })
        },
        output: () => z.object({ doubled: z.number() }),
      },
      ({ n }) => ({ content: [{ type: 'text', text: String(n * 2) }], structuredContent: { doubled: n * 2 } }),
    )
  }
  const handle = createMcpHandler(server)
  return { builds, handle: async (request: Request) => (await handle(request, undefined)).json() as Promise<any> }
}

describe('schemas given as functions', () => {
  it('builds nothing at registration', () => {
    const { builds } = lazyServer(200)
    expect(builds).toEqual({})
  })

  it('builds a tool’s schemas on its first call, once, and parses and checks with them', async () => {
    const { builds, handle } = lazyServer(200)
    const first = await handle(post('tools/call', { name: 'tool_7', arguments: { n: 21 } }))
    expect(first.result).toMatchObject({ content: [{ type: 'text', text: '42' }], structuredContent: { doubled: 42 } })
    const invalid = await handle(post('tools/call', { name: 'tool_7', arguments: { n: -1 } }))
    expect(invalid.result.isError).toBe(true)
    expect(invalid.result.content[0].text).toMatch(/^Invalid arguments for tool tool_7: n: /)
    expect(builds).toEqual({ tool_7: 1 })
  })

  it('builds only the tools of the pages listed, each once, with the same JSON Schema an eager tool gets', async () => {
    const { builds, handle } = lazyServer(10, 4)
    const page = await handle(post('tools/list'))
    expect(page.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['tool_0', 'tool_1', 'tool_2', 'tool_3'])
    expect(Object.keys(builds).sort()).toEqual(['tool_0', 'tool_1', 'tool_2', 'tool_3'])
    await handle(post('tools/list'))
    expect(Object.values(builds)).toEqual([1, 1, 1, 1])
    const eager = createMcpServer({ name: 'eager', version: '1' })
    eager.tool(
      'tool_0',
      {
        description: 'Tool 0',
        input: z.object({ n: z.int().check(z.minimum(0)), label: z.optional(z.string().check(z.describe('A label'))) }),
        output: z.object({ doubled: z.number() }),
      },
      () => ({ content: [] }),
    )
    const eagerList = (await (await createMcpHandler(eager)(post('tools/list'), undefined)).json()) as any
    expect(page.result.tools[0]).toEqual(eagerList.result.tools[0])
  })

  it('reports a bad schema at first use, for that tool only, where an eager one fails at start-up', async () => {
    const annotated = () => z.object({ p: z.array(z.string().check(z.meta({ 'x-mcp-header': 'P' }))) })
    const eager = createMcpServer({ name: 'eager', version: '1' })
    expect(() => eager.tool('bad', { input: annotated() }, () => ({ content: [] }))).toThrow(/x-mcp-header/)
    const server = createMcpServer({ name: 'lazy', version: '1' })
    server.tool('bad', { input: annotated }, () => ({ content: [] }))
    server.tool('good', { input: () => z.object({}) }, () => ({ content: [{ type: 'text', text: 'ok' }] }))
    const handle = createMcpHandler(server)
    const call = async (name: string) =>
      (await (await handle(post('tools/call', { name, arguments: {} }), undefined)).json()) as any
    const errors: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => void errors.push(args)
    try {
      expect((await call('bad')).error).toEqual({ code: -32603, message: 'Internal error' })
    } finally {
      console.error = original
    }
    expect(JSON.parse(String((errors[0] as unknown[])[0])).error).toMatch(/x-mcp-header is allowed only on properties/)
    expect((await call('good')).result.content).toEqual([{ type: 'text', text: 'ok' }])
  })

  it('converts schemas given as values at registration; a lazy one that has no JSON Schema fails its first use', async () => {
    // zod cannot express a date in JSON Schema: the conversion fails, so it shows when it happens.
    const dated = () => z.object({ at: z.optional(z.date()) })
    const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] })
    const eager = createMcpServer({ name: 'eager', version: '1' })
    expect(() => eager.tool('when', { input: dated() }, ok)).toThrow(
      /^Tool "when", input schema: zod type "date" at \/properties\/at/,
    )
    expect(eager.tools.size).toBe(0)
    const server = createMcpServer({ name: 'lazy', version: '1' })
    server.tool('when', { input: dated }, ok)
    const handle = createMcpHandler(server)
    const send = async (request: Request) => (await (await handle(request, undefined)).json()) as any
    const errors: unknown[][] = []
    const original = console.error
    console.error = (...args: unknown[]) => void errors.push(args)
    try {
      expect((await send(post('tools/list'))).error).toEqual({ code: -32603, message: 'Internal error' })
      expect((await send(post('tools/call', { name: 'when', arguments: {} }))).error).toEqual({
        code: -32603,
        message: 'Internal error',
      })
    } finally {
      console.error = original
    }
    const failures = errors.map((args) => JSON.parse(String(args[0]))).filter((record) => record.msg === 'request failed')
    expect(failures.map((record) => record.error)).toEqual([
      expect.stringMatching(/^Error: Tool "when", input schema: zod type "date"/),
      expect.stringMatching(/^Error: Tool "when", input schema: zod type "date"/),
    ])
  })

  it('checks a half given as a value at registration when the other half is a function', () => {
    const server = createMcpServer({ name: 'mixed', version: '1' })
    const ok = () => ({ content: [] })
    const later = () => z.object({})
    expect(() => server.tool('dated', { input: z.object({ at: z.date() }), output: later }, ok)).toThrow(
      /^Tool "dated", input schema: zod type "date"/,
    )
    const header = z.object({ p: z.array(z.string().check(z.meta({ 'x-mcp-header': 'P' }))) })
    expect(() => server.tool('header', { input: header, output: later }, ok)).toThrow(/x-mcp-header/)
    expect(() => server.tool('big', { input: later, output: z.object({ n: z.bigint() }) }, ok)).toThrow(
      /^Tool "big", output schema: zod type "bigint"/,
    )
    expect(server.tools.size).toBe(0)
    server.tool('fine', { input: z.object({ n: z.number() }), output: later }, ok)
    expect(server.tools.get('fine')?.definition.inputSchema.properties).toEqual({ n: { type: 'number' } })
  })
})
