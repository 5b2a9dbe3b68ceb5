/**
 * elicitInput's check of an accepted form (src/sdk/schema/form-check.ts) in an isolate where no
 * classic zod schema was ever built: this file imports zod/mini only, as a ported Worker whose tools
 * have no argument schemas does. Found porting the SDK's elicitationFormExample: zod/mini alone
 * says "Invalid input" for every issue, so the handler was told nothing of what was wrong.
 */
import { describe, expect, it } from 'vitest'
import { checkedAnswer } from '../../packages/mcp-edge/src/sdk/schema/form-check.ts'

const form = {
  mode: 'form' as const,
  message: 'Register',
  requestedSchema: {
    type: 'object' as const,
    properties: {
      password: { type: 'string' as const, minLength: 8 },
      role: { type: 'string' as const, enum: ['admin', 'user'] },
      guests: { type: 'integer' as const, maximum: 5 },
    },
    required: ['password'],
  },
}

describe('an accepted form that does not match, with no classic zod loaded', () => {
  it('names what is wrong with each field, as tool arguments are named', () => {
    expect(() => checkedAnswer(form, { action: 'accept', content: { password: 'short', role: 'owner', guests: 9 } })).toThrow(
      'MCP error -32602: Elicitation response content does not match requested schema: ' +
        'password: Too small: expected string to have >=8 characters; ' +
        'role: Invalid option: expected one of "admin"|"user"; guests: Too big: expected number to be <=5',
    )
  })
})
