/**
 * mcp-edge/sdk handles: `update()` builds the new definition at once, schemas converted (which
 * registration otherwise leaves to first use), so a new schema with no JSON Schema throws from
 * `update()` and the old definition is put back, as the SDKs' `update` does.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'
import { completable, completersOf } from '../../packages/mcp-edge/src/sdk/schema/schema.ts'

const ok = async () => ({ content: [{ type: 'text' as const, text: 'ok' }] })
const quiet = <T>(body: () => T): T => {
  const original = console.error
  console.error = () => {}
  try {
    return body()
  } finally {
    console.error = original
  }
}

describe('update() with a schema that has no JSON Schema', () => {
  it('throws naming the tool and keeps the old tool, under its old name', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const tool = server.registerTool('when', { inputSchema: { n: z.number() } }, ok)
    for (const changes of [{ paramsSchema: { at: z.date() } }, { name: 'when_2', paramsSchema: { at: z.date() } }]) {
      expect(() => quiet(() => tool.update(changes))).toThrow(/^Tool "when(_2)?", input schema: zod type "date"/)
      expect([...server.edge.tools.keys()]).toEqual(['when'])
      expect(Object.keys(server.edge.tools.get('when')!.definition.inputSchema.properties ?? {})).toEqual(['n'])
    }
    tool.update({ paramsSchema: { m: z.string() } })
    expect(Object.keys(server.edge.tools.get('when')!.definition.inputSchema.properties ?? {})).toEqual(['m'])
  })

  it('throws naming the prompt and keeps the old prompt', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const prompt = server.registerPrompt('greet', { argsSchema: { who: z.string() } }, async () => ({ messages: [] }))
    expect(() => quiet(() => prompt.update({ argsSchema: { at: z.date() } as never }))).toThrow(
      /^Prompt "greet", arguments: zod type "date"/,
    )
    expect(server.edge.prompts.get('greet')!.definition.arguments?.map((argument) => argument.name)).toEqual(['who'])
  })
})

// SDK 2.x finds the completer of an optional prompt argument (unwrapOptionalSchema); before, it
// was looked up on the wrapper only, and completion/complete answered [] for it.
describe('completable prompt arguments', () => {
  it('finds the completer of an argument made optional, nullable or given a default, as of a required one', () => {
    const languages = (value: string) => ['go', 'rust', 'ts'].filter((language) => language.startsWith(value))
    const schema = z.object({
      required: completable(z.string(), languages),
      optional: completable(z.string(), languages).optional(),
      defaulted: completable(z.string(), languages).default('ts').optional(),
      plain: z.string().optional(),
    })
    const found = completersOf(schema)
    expect(Object.keys(found)).toEqual(['required', 'optional', 'defaulted'])
    expect(found.optional?.('r')).toEqual(['rust'])
  })
})
