/**
 * Every schema the template Worker (src/worker.ts) and the conformance fixture register converts
 * exactly as zod's own generator converts it (the built-in converter, src/server/json-schema.ts,
 * stands in for `z.toJSONSchema` to keep the bundle small). Runs in workerd, where they deploy.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { zodToJsonSchema } from '../../packages/mcp-edge/src/server/schema/json-schema.ts'
import type { McpServer } from 'mcp-edge'
import { server as template } from '../../apps/demo/src/worker.ts'
import { server as fixture } from '../fixture/worker.ts'

const referee = (schema: z.core.$ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { target: 'draft-2020-12', io })

function expectZodSchemas(server: McpServer<never>): number {
  let compared = 0
  for (const [name, entry] of server.tools) {
    if (entry.input) {
      expect(entry.definition.inputSchema, `tool ${name} input`).toEqual(referee(entry.input, 'input'))
      compared++
    }
    if (entry.output) {
      expect(entry.definition.outputSchema, `tool ${name} output`).toEqual(referee(entry.output, 'output'))
      compared++
    }
  }
  for (const [name, entry] of server.prompts) {
    if (entry.args) {
      expect(zodToJsonSchema(entry.args, 'input'), `prompt ${name} args`).toEqual(referee(entry.args, 'input'))
      compared++
    }
  }
  return compared
}

describe('registered schemas, against z.toJSONSchema', () => {
  it('the template Worker advertises what zod would', () => {
    expect(expectZodSchemas(template as unknown as McpServer<never>)).toBeGreaterThanOrEqual(8)
  })

  it('the conformance fixture advertises what zod would', () => {
    expect(expectZodSchemas(fixture as unknown as McpServer<never>)).toBeGreaterThanOrEqual(50)
  })
})
