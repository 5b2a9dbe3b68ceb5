/**
 * Property-based fuzzing of the whole request path inside workerd (fast-check, 10,000 cases per
 * run): headers, envelope, `_meta`, arguments, requestState, session ids and URIs from every era
 * in test/fuzz/eras.ts (the 2026-07-28 and 2025-era lanes), sent to the conformance fixture's app
 * in this isolate. Every answer must be a spec error or a result, never a 5xx or -32603 (test/fuzz/oracle.ts), and a refused request must
 * store nothing: no task object with data, no nonce ledger shard and no redeemed nonce, read
 * straight from Durable Object storage. (An object that was only addressed, such as the one a
 * made-up task id names, exists but holds no table: that is not storage.) An unhandled rejection
 * fails the run.
 */
import { createExecutionContext, env, listDurableObjectIds, runInDurableObject } from 'cloudflare:test'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FuzzContext } from '../fuzz/cases.ts'
import { anyCase, toRequest } from '../fuzz/eras.ts'
import { judge, Tally } from '../fuzz/oracle.ts'
import handler from '../fixture/worker.ts'
import { legacyConnect } from '../support/legacy.ts'
import { rpc } from '../support/mcp.ts'

const FUZZ_CASES = 10_000
const ENDPOINT = 'http://127.0.0.1/mcp'
// The fixture's fetch handler called in this isolate (SELF.fetch costs ~40 ms a request in the
// pool); its Durable Object bindings are the real ones, so storage can be read after each case.
const fetch = handler.fetch as (request: Request, env: unknown, ctx: ExecutionContext) => Promise<Response>
const fetcher = async (request: Request) => fetch(request, env, createExecutionContext())

/** Task objects already looked at, and how many of them hold data. */
const inspected = new Set<string>()
let tasksWithData = 0

const TABLES = "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'"

/** What Durable Object storage holds: task objects with data, ledger shards and their nonces. */
async function stored(): Promise<{ tasks: number; shards: number; nonces: number }> {
  const [tasks, shards] = await Promise.all([listDurableObjectIds(env.MCP_TASKS), listDurableObjectIds(env.MCP_NONCES)])
  for (const id of tasks) {
    if (inspected.has(id.toString())) continue
    inspected.add(id.toString())
    const tables = await runInDurableObject(env.MCP_TASKS.get(id), (_instance, state) =>
      Number(state.storage.sql.exec<{ n: number }>(TABLES).one().n),
    )
    if (tables > 0) tasksWithData++
  }
  let nonces = 0
  for (const id of shards) {
    nonces += await runInDurableObject(env.MCP_NONCES.get(id), (_instance, state) =>
      Number(state.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM redeemed').one().n),
    )
  }
  return { tasks: tasksWithData, shards: shards.length, nonces }
}

describe(`fuzzing the request path in workerd (${FUZZ_CASES} cases)`, () => {
  const context: FuzzContext = { states: [], taskIds: [], sessions: [] }

  beforeAll(async () => {
    const elicit = { elicitation: {} }
    for (const [tool, args] of [
      ['test_input_required_result_tampered_state', {}],
      ['test_input_required_result_elicitation', {}],
      ['confirm_counted', { key: 'fuzz', amount: 5 }],
      ['confirm_counted', { key: 'fuzz', amount: 6 }],
    ] as const) {
      const first = await rpc(fetcher, ENDPOINT, 'tools/call', { name: tool, arguments: args }, { capabilities: elicit })
      context.states.push({ tool, arguments: args, requestState: first.message.result.requestState })
    }
    const task = await rpc(
      fetcher,
      ENDPOINT,
      'tools/call',
      { name: 'confirm_delete', arguments: { filename: 'a' } },
      {
        capabilities: { ...elicit, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      },
    )
    context.taskIds.push(task.message.result.taskId)
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
      const client = await legacyConnect(fetcher, ENDPOINT, { version })
      context.sessions.push({ id: client.sessionId as string, version })
    }
  })

  it('answers every case with a result or a spec error, and a refused case stores nothing', async () => {
    let before = await stored()
    const tally = new Tally()
    await fc.assert(
      fc.asyncProperty(anyCase(context), async (fuzzCase) => {
        const verdict = await judge(fuzzCase, await fetcher(toRequest(ENDPOINT, fuzzCase)))
        tally.add(verdict)
        const after = await stored()
        if (verdict.refused) expect(after, `refused ${JSON.stringify(fuzzCase).slice(0, 400)}`).toEqual(before)
        before = after
      }),
      { numRuns: FUZZ_CASES },
    )
    console.log(`[fuzz] workerd: ${JSON.stringify(tally)}`)
    expect(tally.cases).toBe(FUZZ_CASES)
    // The generators reach past the gates: a real share of cases gets results, a real share is refused.
    expect(tally.results).toBeGreaterThan(FUZZ_CASES / 10)
    expect(tally.refused).toBeGreaterThan(FUZZ_CASES / 10)
  }, 600_000)
})
