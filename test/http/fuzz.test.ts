/**
 * The fuzzer's sample over real HTTP: the same generators and oracle as the 10,000 cases inside
 * workerd (test/workers/fuzz.test.ts), sent to the conformance fixture under `wrangler dev` on
 * 127.0.0.1. No 5xx, every answer a spec error or a result, and nothing uncaught in the server's
 * log. Storage is checked inside workerd, where it can be read; here the wire is what counts.
 */
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { beforeAll, describe, expect, inject, it } from 'vitest'
import type { FuzzContext } from '../fuzz/cases.ts'
import { anyCase, toRequest } from '../fuzz/eras.ts'
import { judge, Tally } from '../fuzz/oracle.ts'
import { legacyConnect } from '../support/legacy.ts'
import { rpc } from '../support/mcp.ts'

const HTTP_FUZZ_CASES = 1000
const url = () => inject('fixtureUrl')

describe(`fuzzing over real HTTP (${HTTP_FUZZ_CASES} cases)`, () => {
  const context: FuzzContext = { states: [], taskIds: [], sessions: [] }

  beforeAll(async () => {
    for (const [tool, args] of [
      ['test_input_required_result_tampered_state', {}],
      ['confirm_counted', { key: 'http-fuzz', amount: 1 }],
    ] as const) {
      const first = await rpc(fetch, url(), 'tools/call', { name: tool, arguments: args }, { capabilities: { elicitation: {} } })
      context.states.push({ tool, arguments: args, requestState: first.message.result.requestState })
    }
    for (const version of ['2025-11-25', '2025-03-26']) {
      const client = await legacyConnect(fetch, url(), { version })
      context.sessions.push({ id: client.sessionId as string, version })
    }
  })

  it('answers every case with a result or a spec error and logs nothing uncaught', async () => {
    const tally = new Tally()
    const logFrom = readFileSync(inject('fixtureLog'), 'utf8').length
    await fc.assert(
      fc.asyncProperty(anyCase(context), async (fuzzCase) => {
        tally.add(await judge(fuzzCase, await fetch(toRequest(url(), fuzzCase))))
      }),
      { numRuns: HTTP_FUZZ_CASES },
    )
    console.log(`[fuzz] HTTP: ${JSON.stringify(tally)}`)
    expect(tally.cases).toBe(HTTP_FUZZ_CASES)
    expect(readFileSync(inject('fixtureLog'), 'utf8').slice(logFrom)).not.toMatch(/Uncaught|Unhandled|request failed/)
  }, 300_000)
})
