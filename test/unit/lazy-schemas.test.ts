/**
 * When a tool's (or prompt's) schemas become JSON Schema: on first use, whether given as zod
 * objects or as functions that build them. Nothing is converted at registration; a tool's schemas
 * are converted once, on its first list or call, and only for the tools a page lists; a schema
 * with no JSON Schema then fails that use (and every later one, without converting again), naming
 * the tool, while the other tools work. A list lets go of the zod schemas a function built (only
 * the JSON Schema stays); a call builds them again, once, and keeps them. What needs no
 * conversion (a raw `{ jsonSchema }` input, a tool name) still fails at registration
 * (schema.test.ts).
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod/mini'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { zodToJsonSchema } from '../../packages/mcp-edge/src/server/schema/json-schema.ts'
import type { JsonSchemaConverter } from '../../packages/mcp-edge/src/server/schema/schema.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { toolSearch } from '../../packages/mcp-edge/src/server/catalog/search-tool.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { legacyConnect, legacyRpc } from '../support/legacy.ts'
import { buildRequest } from '../support/mcp.ts'

const post = (method: string, params: Record<string, unknown> = {}) => buildRequest('http://127.0.0.1/mcp', method, params)
const ok = () => ({ content: [{ type: 'text' as const, text: 'ok' }] })
const inputOf = () => z.object({ n: z.int().check(z.minimum(0)), label: z.optional(z.string().check(z.describe('A label'))) })
const outputOf = () => z.object({ doubled: z.number() })
const doubled = ({ n }: { n: number }) => ({
  content: [{ type: 'text' as const, text: String(n * 2) }],
  structuredContent: { doubled: n * 2 },
})

/** The built-in converter, counting its conversions per schema kind. */
function countingConverter() {
  const counts = { input: 0, output: 0 }
  const convert: JsonSchemaConverter = (schema, io) => {
    counts[io]++
    return zodToJsonSchema(schema, io)
  }
  return { counts, convert }
}

/** A server of `count` tools, with schemas given as functions (counting the builds per tool) or as zod objects. */
function manyTools(count: number, { pageSize = 50, lazy = true } = {}) {
  const builds: Record<string, number> = {}
  const { counts, convert } = countingConverter()
  const server = createMcpServer({ name: 'many', version: '1', pageSize, jsonSchema: convert })
  for (let i = 0; i < count; i++) {
    const name = `tool_${i}`
    const input = () => {
      builds[name] = (builds[name] ?? 0) + 1
      return inputOf()
    }
    const description = `Tool ${i}`
    if (lazy) server.tool(name, { description, input, output: outputOf }, doubled)
    else server.tool(name, { description, input: inputOf(), output: outputOf() }, doubled)
  }
  const handle = createMcpHandler(server)
  return { server, builds, counts, handle: async (request: Request) => (await handle(request, undefined)).json() as Promise<any> }
}

/** Run `body` with console.error captured; returns the library's "request failed" and "… schema failed…" log records. */
async function failuresLogged(body: () => Promise<void>): Promise<{ error: string; msg: string }[]> {
  const lines: unknown[][] = []
  const original = console.error
  console.error = (...args: unknown[]) => void lines.push(args)
  try {
    await body()
  } finally {
    console.error = original
  }
  return lines
    .map((args) => JSON.parse(String(args[0])))
    .filter((record) => record.msg === 'request failed' || / schema failed/.test(record.msg))
}

const INTERNAL = { code: -32603, message: 'Internal error' }

describe('schemas are converted on first use', () => {
  it('converts nothing at registration, schemas given as zod objects or as functions', () => {
    for (const lazy of [true, false]) {
      const { builds, counts } = manyTools(200, { lazy })
      expect(builds).toEqual({})
      expect(counts).toEqual({ input: 0, output: 0 })
    }
  })

  it('converts a tool’s schemas on its first call, once, and parses and checks with them', async () => {
    for (const lazy of [true, false]) {
      const { builds, counts, handle } = manyTools(200, { lazy })
      const first = await handle(post('tools/call', { name: 'tool_7', arguments: { n: 21 } }))
      expect(first.result).toMatchObject({ content: [{ type: 'text', text: '42' }], structuredContent: { doubled: 42 } })
      const invalid = await handle(post('tools/call', { name: 'tool_7', arguments: { n: -1 } }))
      expect(invalid.result.isError).toBe(true)
      expect(invalid.result.content[0].text).toMatch(/^Invalid arguments for tool tool_7: n: /)
      expect(builds).toEqual(lazy ? { tool_7: 1 } : {})
      expect(counts).toEqual({ input: 1, output: 1 })
    }
  })

  it('converts only the tools of the pages listed, each once', async () => {
    for (const lazy of [true, false]) {
      const { builds, counts, handle } = manyTools(10, { pageSize: 4, lazy })
      const page = await handle(post('tools/list'))
      expect(page.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['tool_0', 'tool_1', 'tool_2', 'tool_3'])
      expect(counts).toEqual({ input: 4, output: 4 })
      await handle(post('tools/list'))
      await handle(post('tools/call', { name: 'tool_2', arguments: { n: 1 } }))
      expect(counts).toEqual({ input: 4, output: 4 })
      // A list lets go of the zod schemas it built; the call builds tool_2's again, to parse with.
      if (lazy) expect(builds).toEqual({ tool_0: 1, tool_1: 1, tool_2: 2, tool_3: 1 })
    }
  })

  it('keeps a function’s schemas only for calls: a list after a call builds nothing, a second call nothing', async () => {
    const { builds, counts, handle } = manyTools(3)
    await handle(post('tools/call', { name: 'tool_1', arguments: { n: 1 } }))
    await handle(post('tools/list'))
    expect(builds).toEqual({ tool_0: 1, tool_1: 1, tool_2: 1 })
    await handle(post('tools/call', { name: 'tool_0', arguments: { n: 2 } }))
    const again = await handle(post('tools/call', { name: 'tool_0', arguments: { n: -2 } }))
    expect(again.result.isError).toBe(true)
    await handle(post('tools/call', { name: 'tool_1', arguments: { n: 3 } }))
    expect(builds).toEqual({ tool_0: 2, tool_1: 1, tool_2: 1 })
    expect(counts).toEqual({ input: 3, output: 3 })
  })

  it('lists the same definitions either way, with zod’s own JSON Schema', async () => {
    const listed = async (lazy: boolean) => (await manyTools(3, { lazy }).handle(post('tools/list'))).result.tools
    const fromValues = await listed(false)
    expect(await listed(true)).toEqual(fromValues)
    expect(fromValues[1]).toEqual({
      name: 'tool_1',
      description: 'Tool 1',
      inputSchema: z.toJSONSchema(inputOf(), { target: 'draft-2020-12', io: 'input' }),
      outputSchema: z.toJSONSchema(outputOf(), { target: 'draft-2020-12', io: 'output' }),
      annotations: undefined,
    })
  })
})

describe('a schema with no JSON Schema fails its first use, naming the tool', () => {
  // zod cannot express a date in JSON Schema: the conversion fails, so it shows when it happens.
  const dated = () => z.object({ at: z.optional(z.date()) })

  it('registers, leaves the tool out of tools/list (logged once), fails its calls with -32603; other tools run', async () => {
    for (const input of [dated(), dated]) {
      const server = createMcpServer({ name: 'broken', version: '1' })
      expect(() => server.tool('when', { input }, ok)).not.toThrow()
      server.tool('fine', { input: z.object({}) }, ok)
      const handle = createMcpHandler(server)
      const send = async (request: Request) => (await (await handle(request, undefined)).json()) as any
      let good: any
      const failures = await failuresLogged(async () => {
        for (let round = 0; round < 2; round++) {
          expect((await send(post('tools/list'))).result.tools.map((tool: { name: string }) => tool.name)).toEqual(['fine'])
        }
        expect((await send(post('tools/call', { name: 'when', arguments: {} }))).error).toEqual(INTERNAL)
        good = await send(post('tools/call', { name: 'fine', arguments: {} }))
      })
      expect(good.result.content).toEqual([{ type: 'text', text: 'ok' }])
      const named = /^Error: Tool "when", input schema: zod type "date" at \/properties\/at has no JSON Schema/
      expect(failures.map((record) => [record.msg, record.error])).toEqual([
        ['tool schema failed: the tool is left out of lists and its calls fail', expect.stringMatching(named)],
        ['request failed', expect.stringMatching(named)],
      ])
    }
  })

  it('still runs the tool for a 2025-era client, whose call needs no wire definition; its list leaves it out', async () => {
    const server = createMcpServer({ name: 'broken', version: '1' })
    server.tool('when', { input: dated() }, ok)
    const requestState = new RequestStateCodec(createKeyRing('unit:bWNwLWVkZ2UgdW5pdCB0ZXN0IGtleSwgbm90IGEgc2VjcmV0ISEhISE='))
    const handle = createMcpHandler(server, { services: () => ({ requestState }) })
    const fetcher = (request: Request) => handle(request, undefined)
    const url = 'http://127.0.0.1/mcp'
    const client = await legacyConnect(fetcher, url)
    const called = await legacyRpc(fetcher, url, client, 'tools/call', { name: 'when', arguments: {} })
    expect(called.message.result).toEqual({ content: [{ type: 'text', text: 'ok' }] })
    const failures = await failuresLogged(async () => {
      expect((await legacyRpc(fetcher, url, client, 'tools/list')).message.result.tools).toEqual([])
    })
    expect(failures[0]?.error).toMatch(/^Error: Tool "when", input schema: zod type "date"/)
  })

  it('leaves the tool out of search_tools, whose other matches are served', async () => {
    const server = createMcpServer({ name: 'search', version: '1', toolSearch: toolSearch({ alwaysListed: [] }) })
    server.tool('when_dated', { description: 'When, dated', input: dated() }, ok)
    server.tool('when_fine', { description: 'When, fine', input: z.object({}) }, ok)
    const handle = createMcpHandler(server)
    let found: any
    await failuresLogged(async () => {
      found = (await (
        await handle(post('tools/call', { name: 'search_tools', arguments: { query: 'when' } }), undefined)
      ).json()) as any
    })
    expect(found.result.structuredContent.tools.map((tool: { name: string }) => tool.name)).toEqual(['when_fine'])
    expect(found.result.structuredContent.total).toBe(1)
  })

  it('names the tool when its schema function throws, and keeps that failure, 2025-era calls included', async () => {
    let calls = 0
    const input = () => {
      calls++
      throw new Error('no schema today')
    }
    const server = createMcpServer({ name: 'throws', version: '1' })
    server.tool('moody', { input }, ok)
    const tool = server.tools.get('moody')!
    await failuresLogged(async () => {
      expect(() => tool.definition).toThrow('Tool "moody", input schema function: no schema today')
    })
    expect(() => tool.input).toThrow('Tool "moody", input schema function: no schema today')
    expect(() => tool.definition).toThrow('Tool "moody", input schema function: no schema today')
    expect(calls).toBe(1)
  })

  it('logs a schema function that fails when a call builds it again after a list; the tool stays listed, its calls fail', async () => {
    let builds = 0
    const input = () => {
      builds++
      if (builds > 1) throw new Error('not the same schema twice')
      return inputOf()
    }
    const server = createMcpServer({ name: 'fickle', version: '1' })
    server.tool('fickle', { input }, doubled)
    const handle = createMcpHandler(server)
    const send = async (request: Request) => (await (await handle(request, undefined)).json()) as any
    const failures = await failuresLogged(async () => {
      expect((await send(post('tools/list'))).result.tools.map((tool: { name: string }) => tool.name)).toEqual(['fickle'])
      expect((await send(post('tools/call', { name: 'fickle', arguments: { n: 2 } }))).error).toEqual(INTERNAL)
      expect((await send(post('tools/call', { name: 'fickle', arguments: { n: 2 } }))).error).toEqual(INTERNAL)
    })
    const named = /^Error: Tool "fickle", input schema function: not the same schema twice/
    expect(failures.map((record) => [record.msg, record.error])).toEqual([
      ['tool schema failed when built again for a call: the tool stays listed and its calls fail', expect.stringMatching(named)],
      ['request failed', expect.stringMatching(named)],
      ['request failed', expect.stringMatching(named)],
    ])
    expect(builds).toBe(2)
  })

  it('logs a schema function that throws at a 2025-era call (which builds no wire form) once, as a first failure; the list leaves the tool out', async () => {
    const server = createMcpServer({ name: 'throws', version: '1' })
    server.tool(
      'moody',
      {
        input: () => {
          throw new Error('no schema today')
        },
      },
      ok,
    )
    const requestState = new RequestStateCodec(createKeyRing('unit:bWNwLWVkZ2UgdW5pdCB0ZXN0IGtleSwgbm90IGEgc2VjcmV0ISEhISE='))
    const handle = createMcpHandler(server, { services: () => ({ requestState }) })
    const fetcher = (request: Request) => handle(request, undefined)
    const url = 'http://127.0.0.1/mcp'
    const client = await legacyConnect(fetcher, url)
    const failures = await failuresLogged(async () => {
      const called = await legacyRpc(fetcher, url, client, 'tools/call', { name: 'moody', arguments: {} })
      expect(called.message.error).toEqual(INTERNAL)
      expect((await legacyRpc(fetcher, url, client, 'tools/list')).message.result.tools).toEqual([])
    })
    const named = /^Error: Tool "moody", input schema function: no schema today/
    expect(failures.map((record) => [record.msg, record.error])).toEqual([
      ['tool schema failed: the tool is left out of lists and its calls fail', expect.stringMatching(named)],
      ['request failed', expect.stringMatching(named)],
    ])
  })

  it('checkSchemas() converts every schema now and names every tool and prompt that fails', () => {
    const server = createMcpServer({ name: 'check', version: '1' })
    server.tool('fine', { input: () => z.object({}) }, ok)
    expect(() => server.checkSchemas()).not.toThrow()
    server.tool('when', { input: dated }, ok)
    server.tool('big', { input: z.object({}), output: z.object({ n: z.bigint() }) }, ok)
    server.prompt('dated', { args: z.object({ at: z.date() }) as never }, () => ({ messages: [] }))
    let message = ''
    try {
      server.checkSchemas()
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/^3 schema\(s\) have no JSON Schema/)
    expect(message).toContain('- Tool "when", input schema: zod type "date"')
    expect(message).toContain('- Tool "big", output schema: zod type "bigint"')
    expect(message).toContain('- Prompt "dated", arguments: zod type "date"')
    expect(message).not.toContain('"fine"')
  })

  it('keeps the failure: every use throws the same error, converting once', () => {
    const { counts, convert } = countingConverter()
    const server = createMcpServer({ name: 'broken', version: '1', jsonSchema: convert })
    server.tool('when', { input: dated() }, ok)
    const tool = server.tools.get('when')!
    const first = (() => {
      try {
        return tool.definition
      } catch (error) {
        return error
      }
    })()
    expect(first).toBeInstanceOf(Error)
    expect(() => tool.definition).toThrow(first as Error)
    expect(() => server.headerParams('when')).toThrow(first as Error)
    expect(counts.input).toBe(1)
  })

  it('names the half that failed when the other is fine, given as values or functions', () => {
    const server = createMcpServer({ name: 'mixed', version: '1' })
    server.tool('dated', { input: z.object({ at: z.date() }), output: () => z.object({}) }, ok)
    server.tool('big', { input: () => z.object({}), output: z.object({ n: z.bigint() }) }, ok)
    expect(() => server.tools.get('dated')!.definition).toThrow(/^Tool "dated", input schema: zod type "date"/)
    expect(() => server.tools.get('big')!.definition).toThrow(/^Tool "big", output schema: zod type "bigint"/)
  })

  it('reports a bad x-mcp-header at first use, for that tool only', async () => {
    const annotated = z.object({ p: z.array(z.string().check(z.meta({ 'x-mcp-header': 'P' }))) })
    const server = createMcpServer({ name: 'headers', version: '1' })
    server.tool('bad', { input: annotated }, ok)
    server.tool('good', { input: () => z.object({}) }, ok)
    const handle = createMcpHandler(server)
    const call = async (name: string) =>
      (await (await handle(post('tools/call', { name, arguments: {} }), undefined)).json()) as any
    const failures = await failuresLogged(async () => {
      expect((await call('bad')).error).toEqual(INTERNAL)
    })
    expect(failures[0]?.error).toMatch(/^Error: tool "bad" at \/properties\/p\/items: x-mcp-header is allowed only on properties/)
    expect((await call('good')).result.content).toEqual([{ type: 'text', text: 'ok' }])
  })
})

describe('prompts', () => {
  it('converts a prompt’s arguments on first use; one with no JSON Schema fails it naming the prompt', async () => {
    const { counts, convert } = countingConverter()
    const server = createMcpServer({ name: 'prompts', version: '1', jsonSchema: convert })
    const messages = () => ({ messages: [] })
    server.prompt('greet', { args: z.object({ who: z.string().check(z.describe('Whom to greet')) }) }, messages)
    server.prompt('dated', { args: z.object({ at: z.date() }) as never }, messages)
    expect(counts.input).toBe(0)
    expect(server.prompts.get('greet')!.definition.arguments).toEqual([
      { name: 'who', description: 'Whom to greet', required: true },
    ])
    expect(server.prompts.get('greet')!.required).toEqual(['who'])
    expect(counts.input).toBe(1)
    const handle = createMcpHandler(server)
    const send = async (request: Request) => (await (await handle(request, undefined)).json()) as any
    const failures = await failuresLogged(async () => {
      expect((await send(post('prompts/list'))).result.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['greet'])
      expect((await send(post('prompts/get', { name: 'dated', arguments: {} }))).error).toEqual(INTERNAL)
    })
    const named = /^Error: Prompt "dated", arguments: zod type "date" at \/properties\/at/
    expect(failures.map((record) => [record.msg, record.error])).toEqual([
      ['prompt schema failed: the prompt is left out of lists and prompts/get fails', expect.stringMatching(named)],
      ['request failed', expect.stringMatching(named)],
    ])
    // The failure is kept: the second use converted nothing.
    expect(counts.input).toBe(2)
  })
})
