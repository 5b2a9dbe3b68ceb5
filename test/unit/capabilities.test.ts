import { describe, expect, it } from 'vitest'
import { capabilityObject, mergeCapabilities, supports } from '../../packages/mcp-edge/src/server/capabilities.ts'

const TASKS = 'extensions.io.modelcontextprotocol/tasks' as const

describe('supports', () => {
  it('needs the capability to be declared as an object', () => {
    expect(supports({}, 'sampling')).toBe(false)
    expect(supports({ sampling: {} }, 'sampling')).toBe(true)
    expect(supports({ sampling: true } as never, 'sampling')).toBe(false)
    expect(supports({ roots: null } as never, 'roots')).toBe(false)
    expect(supports({ roots: {} }, 'roots')).toBe(true)
  })

  it('reads sub-capabilities', () => {
    expect(supports({ sampling: {} }, 'sampling.tools')).toBe(false)
    expect(supports({ sampling: { tools: {} } }, 'sampling.tools')).toBe(true)
    expect(supports({ partialResults: {} }, 'partialResults')).toBe(true)
  })

  it('treats elicitation: {} as form mode only', () => {
    expect(supports({ elicitation: {} }, 'elicitation')).toBe(true)
    expect(supports({ elicitation: {} }, 'elicitation.form')).toBe(true)
    expect(supports({ elicitation: {} }, 'elicitation.url')).toBe(false)
  })

  it('does not infer form mode when only url is declared', () => {
    expect(supports({ elicitation: { url: {} } }, 'elicitation.form')).toBe(false)
    expect(supports({ elicitation: { url: {} } }, 'elicitation.url')).toBe(true)
    expect(supports({ elicitation: { form: {}, url: {} } }, 'elicitation.form')).toBe(true)
    expect(supports({ elicitation: { form: {}, url: {} } }, 'elicitation.url')).toBe(true)
  })

  it('reads extensions whose identifiers contain dots', () => {
    expect(supports({ extensions: { 'io.modelcontextprotocol/tasks': {} } }, TASKS)).toBe(true)
    expect(supports({ extensions: {} }, TASKS)).toBe(false)
    expect(supports({ extensions: { 'io.modelcontextprotocol/other': {} } }, TASKS)).toBe(false)
  })
})

describe('capabilityObject', () => {
  it('spells a path the way data.requiredCapabilities does', () => {
    expect(capabilityObject('roots')).toEqual({ roots: {} })
    expect(capabilityObject('elicitation.url')).toEqual({ elicitation: { url: {} } })
    expect(capabilityObject(TASKS)).toEqual({ extensions: { 'io.modelcontextprotocol/tasks': {} } })
  })

  it('round-trips through supports', () => {
    for (const path of [
      'roots',
      'sampling',
      'sampling.tools',
      'elicitation.form',
      'elicitation.url',
      'partialResults',
      TASKS,
    ] as const) {
      expect(supports(capabilityObject(path), path)).toBe(true)
    }
  })
})

describe('mergeCapabilities', () => {
  it('merges two levels deep', () => {
    expect(
      mergeCapabilities([
        { elicitation: { form: {} } },
        { elicitation: { url: {} } },
        { sampling: {} },
        { sampling: { tools: {} } },
      ]),
    ).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: { tools: {} },
    })
  })

  it('gives {} for nothing', () => {
    expect(mergeCapabilities([])).toEqual({})
  })
})
