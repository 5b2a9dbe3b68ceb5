/**
 * How mcp-edge/sdk runs an SDK-style handler again from the top for each round of questions, made
 * to keep the SDKs' meaning of an awaited question: its answer is the one given to that question,
 * and nothing after the await runs before it comes. A handler that catches around its question
 * does not act on a fallback before the user answered; a question that changed between rounds (the
 * row it names) is asked anew, not answered with the other's answer; the handler's own
 * `requestState` is the last round's; answered questions leave the sealed state, and a state too
 * large to come back is a server error that says so. Found by a review of the adapter (2026-12-07).
 */
import { createExecutionContext, env } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import { createMcpHandler, inputRequired, McpServer } from 'mcp-edge/sdk'
import { buildRequest, readResponse } from '../support/mcp.ts'

const URL_ = 'http://127.0.0.1/mcp'
const CAPABILITIES = { elicitation: { form: {} }, sampling: {} }
const PLAN = { type: 'object' as const, properties: { plan: { type: 'string' as const } }, required: ['plan'] }

const effects: string[] = []
let target = 'fileA'
const server = new McpServer({ name: 'sdk-rounds', version: '1.0.0' })
// Not destructive: each test may answer one state more than once.
const safe = { annotations: { destructiveHint: false } }
server.registerTool('fallback', safe, async () => {
  let answer: { action: string; content?: Record<string, unknown> }
  try {
    answer = await server.server.elicitInput({ message: 'Which plan?', requestedSchema: PLAN })
  } catch {
    answer = { action: 'accept', content: { plan: 'default' } }
  }
  effects.push(`applied ${answer.content?.plan}`)
  return { content: [{ type: 'text', text: String(answer.content?.plan) }] }
})
server.registerTool('delete_oldest', safe, async (extra) => {
  const name = target
  const answer = await extra.mcpReq.elicitInput({
    message: `Delete ${name}?`,
    requestedSchema: { type: 'object', properties: {} },
  })
  if (answer.action === 'accept') effects.push(`deleted ${name}`)
  return { content: [{ type: 'text', text: `${answer.action} ${name}` }] }
})
let asked = 0
server.registerTool('timestamped', safe, async (extra) => {
  asked++
  const answer = await extra.mcpReq.elicitInput({
    message: `Confirm (asked ${asked})`,
    requestedSchema: { type: 'object', properties: {} },
  })
  return { content: [{ type: 'text', text: answer.action }] }
})
const dropped: string[] = []
server.registerTool('cleanup', safe, async (extra) => {
  extra.signal.addEventListener('abort', () => dropped.push(`signal aborted: ${(extra.signal.reason as Error).name}`))
  try {
    const answer = await extra.mcpReq.elicitInput({ message: 'Go?', requestedSchema: { type: 'object', properties: {} } })
    return { content: [{ type: 'text', text: answer.action }] }
  } finally {
    dropped.push('finally')
  }
})
// As SDK 2.x code is written: a retry brings the answers to its round's questions only.
const seen: string[][] = []
server.registerTool('stateful', safe, async (ctx) => {
  const responses = ctx.mcpReq.inputResponses ?? {}
  seen.push(Object.keys(responses))
  const ask = (key: string) => inputRequired.elicit({ message: key, requestedSchema: { type: 'object', properties: {} } })
  if ('b' in responses) return { content: [{ type: 'text', text: String(ctx.mcpReq.requestState() ?? 'no state') }] }
  if ('a' in responses) return inputRequired({ inputRequests: { b: ask('b') } })
  return inputRequired({ inputRequests: { a: ask('a') }, requestState: 'from round 1' })
})
server.registerTool('summarize', { ...safe, inputSchema: { size: z.number() } }, async ({ size }, ctx) => {
  const responses = ctx.mcpReq.inputResponses ?? {}
  if ('ok' in responses) return { content: [{ type: 'text', text: 'kept' }] }
  if ('summary' in responses) {
    return inputRequired({
      inputRequests: { ok: inputRequired.elicit({ message: 'Keep it?', requestedSchema: { type: 'object', properties: {} } }) },
    })
  }
  const messages = [{ role: 'user' as const, content: { type: 'text' as const, text: 'x'.repeat(size) } }]
  return inputRequired({ inputRequests: { summary: inputRequired.createMessage({ messages, maxTokens: 100 }) } })
})
// A question with a timeout, then one without: the first, answered in time, stays answered in the
// later rounds that replay it, however late they come.
server.registerTool('two_steps', safe, async () => {
  const form = { type: 'object' as const, properties: {} }
  const first = await server.server.elicitInput({ message: 'First, quickly', requestedSchema: form }, { timeout: 200 })
  const second = await server.server.elicitInput({ message: 'Then, at leisure', requestedSchema: form })
  return { content: [{ type: 'text', text: `${first.action}, ${second.action}` }] }
})
// SDK 2.x's own way to ask anything, ctx.mcpReq.send, with the same options (its timeout was dropped).
server.registerTool('send_impatient', safe, async (ctx) => {
  const params = { message: 'Quickly?', requestedSchema: { type: 'object' as const, properties: {} } }
  try {
    const answer = await ctx.mcpReq.send({ method: 'elicitation/create', params }, undefined, { timeout: 100 })
    return { content: [{ type: 'text', text: `answered: ${answer.action}` }] }
  } catch (error) {
    return { content: [{ type: 'text', text: `gave up: ${(error as Error).message}` }], isError: true }
  }
})
const handler = createMcpHandler(server)

type Rounds = { requestState: string; inputRequests: Record<string, { params?: Record<string, unknown> }> }
const call = (name: string, params: Record<string, unknown> = {}) =>
  handler
    .fetch(
      buildRequest(URL_, 'tools/call', { name, arguments: {}, ...params }, { capabilities: CAPABILITIES }),
      env,
      createExecutionContext(),
    )
    .then(readResponse)
const rounds = (result: unknown) => result as Rounds
const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text

describe("an awaited question's answer is the one given to it", () => {
  // Before, the question rejected while unanswered: the catch applied 'default', then the retry 'pro'.
  it('a handler that catches around its question acts only once answered, on the answer', async () => {
    effects.length = 0
    const first = await call('fallback')
    expect(first.message.result).toMatchObject({ resultType: 'input_required' })
    expect(effects).toEqual([])
    const { requestState, inputRequests } = rounds(first.message.result)
    const [key] = Object.keys(inputRequests)
    const second = await call('fallback', {
      requestState,
      inputResponses: { [key as string]: { action: 'accept', content: { plan: 'pro' } } },
    })
    expect(textOf(second.message.result)).toBe('pro')
    expect(effects).toEqual(['applied pro'])
  })

  // Before, the n-th question of a run took the n-th answer whatever it asked: fileB was deleted.
  it('a question that changed between rounds is asked anew, and the answer given to the other is not applied to it', async () => {
    effects.length = 0
    target = 'fileA'
    const first = rounds((await call('delete_oldest')).message.result)
    const [keyA] = Object.keys(first.inputRequests)
    expect(first.inputRequests[keyA as string]?.params).toMatchObject({ message: 'Delete fileA?' })
    target = 'fileB'
    const accepted = { [keyA as string]: { action: 'accept', content: {} } }
    const second = rounds(
      (await call('delete_oldest', { requestState: first.requestState, inputResponses: accepted })).message.result,
    )
    expect(effects).toEqual([])
    const [keyB] = Object.keys(second.inputRequests)
    expect(keyB).not.toBe(keyA)
    expect(second.inputRequests[keyB as string]?.params).toMatchObject({ message: 'Delete fileB?' })
    const third = await call('delete_oldest', {
      requestState: second.requestState,
      inputResponses: { [keyB as string]: { action: 'accept', content: {} } },
    })
    expect(textOf(third.message.result)).toBe('accept fileB')
    expect(effects).toEqual(['deleted fileB'])
  })
})

describe('a run dropped for its question', () => {
  // Found by a review: keyed by what they ask, questions whose text changes each run (a time, a
  // count) were asked anew without end; the cap counted the questions of one run only.
  it('counts toward the 32-round cap across requests: a question asked anew each time ends the call with -32603', async () => {
    asked = 0
    let answer = await call('timestamped')
    for (let round = 0; round < 40 && answer.message.result?.resultType === 'input_required'; round++) {
      const { requestState, inputRequests } = rounds(answer.message.result)
      const inputResponses = Object.fromEntries(Object.keys(inputRequests).map((key) => [key, { action: 'accept', content: {} }]))
      answer = await call('timestamped', { requestState, inputResponses })
    }
    expect(answer.message.error).toEqual({
      code: -32603,
      message: 'Internal error: the handler asked for input in more than 32 rounds of one call',
    })
    expect(asked).toBe(33)
  })

  // Its `finally` never runs (it waits for good): its signal says it was dropped, so work tied to it stops.
  it("aborts the dropped run's signal", async () => {
    dropped.length = 0
    const first = rounds((await call('cleanup')).message.result)
    expect(dropped).toEqual(['signal aborted: AbortError'])
    const [key] = Object.keys(first.inputRequests)
    const second = await call('cleanup', {
      requestState: first.requestState,
      inputResponses: { [key as string]: { action: 'accept', content: {} } },
    })
    expect(textOf(second.message.result)).toBe('accept')
    expect(dropped).toEqual(['signal aborted: AbortError', 'finally'])
  })
})

describe('what a round seals', () => {
  // Before, round 3 still read round 1's state, which a client does not echo past the next round.
  // Found porting SDK 2.x's mrtr example: inputResponses held every round's answers so far, where
  // the SDK's retry holds its round's only (code that reads which keys are there saw old ones).
  it("a retry's inputResponses are its round's answers only, and the handler's own requestState the last round's", async () => {
    seen.length = 0
    const first = rounds((await call('stateful')).message.result)
    const answer = { action: 'accept', content: {} }
    const second = rounds(
      (await call('stateful', { requestState: first.requestState, inputResponses: { a: answer } })).message.result,
    )
    const third = await call('stateful', { requestState: second.requestState, inputResponses: { b: answer } })
    expect(textOf(third.message.result)).toBe('no state')
    expect(seen).toEqual([[], ['a'], ['b']])
  })

  // Verified when it comes back, as SDK 2.x verifies it: before, it was verified as the handler
  // made it too, so the first round failed, and a verify with a time limit ran in every later round.
  it("the handler's requestState is verified when a retry brings it back: one the server's verify refuses is -32602", async () => {
    const verified: string[] = []
    const checked = new McpServer(
      { name: 'sdk-rounds-verify', version: '1.0.0' },
      {
        requestState: {
          async verify(state: string) {
            verified.push(state)
            throw new Error('expired')
          },
        },
      },
    )
    checked.registerTool('stale', safe, async () =>
      inputRequired({
        inputRequests: { ok: inputRequired.elicit({ message: 'Ok?', requestedSchema: { type: 'object', properties: {} } }) },
        requestState: 'stale',
      }),
    )
    const send = (params: Record<string, unknown>) =>
      createMcpHandler(checked)
        .fetch(
          buildRequest(URL_, 'tools/call', { name: 'stale', arguments: {}, ...params }, { capabilities: CAPABILITIES }),
          env,
          createExecutionContext(),
        )
        .then(readResponse)
    const first = rounds((await send({})).message.result)
    expect(verified).toEqual([])
    const retry = await send({ requestState: first.requestState, inputResponses: { ok: { action: 'accept', content: {} } } })
    expect(retry.message.error).toEqual({ code: -32602, message: 'Invalid params: invalid requestState' })
    expect(verified).toEqual(['stale'])
  })

  // Before, every later round's state carried each earlier question whole.
  it('an answered question is not carried on; a state too large to come back is -32603 saying so', async () => {
    const first = rounds((await call('summarize', { arguments: { size: 100_000 } })).message.result)
    expect(first.requestState.length).toBeGreaterThan(100_000)
    const sampled = { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'm' }
    const second = rounds(
      (
        await call('summarize', {
          arguments: { size: 100_000 },
          requestState: first.requestState,
          inputResponses: { summary: sampled },
        })
      ).message.result,
    )
    expect(second.inputRequests).toHaveProperty('ok')
    expect(second.requestState.length).toBeLessThan(5_000)
    const tooLarge = await call('summarize', { arguments: { size: 300_000 } })
    expect(tooLarge.message.error?.code).toBe(-32603)
    expect(tooLarge.message.error?.message).toMatch(
      /^Internal error: the requestState of the next round would be \d+ characters, more than the 262144 a retry may carry/,
    )
  })
})

describe("a question's timeout (porting round Q)", () => {
  it('keeps an answer given in time through the later rounds, however late they come', async () => {
    const accept = (result: unknown) =>
      Object.fromEntries(Object.keys(rounds(result).inputRequests).map((key) => [key, { action: 'accept', content: {} }]))
    const first = await call('two_steps')
    const second = await call('two_steps', {
      requestState: rounds(first.message.result).requestState,
      inputResponses: accept(first.message.result),
    })
    expect(second.message.result).toMatchObject({ resultType: 'input_required' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const third = await call('two_steps', {
      requestState: rounds(second.message.result).requestState,
      inputResponses: accept(second.message.result),
    })
    expect(textOf(third.message.result)).toBe('accept, accept')
  })

  it('holds for ctx.mcpReq.send too: a retry past the timeout it was given is refused with -32001 where it asked', async () => {
    const retry = async (wait: number) => {
      const first = await call('send_impatient')
      await new Promise((resolve) => setTimeout(resolve, wait))
      const inputResponses = Object.fromEntries(
        Object.keys(rounds(first.message.result).inputRequests).map((key) => [key, { action: 'accept', content: {} }]),
      )
      return (await call('send_impatient', { requestState: rounds(first.message.result).requestState, inputResponses })).message
        .result
    }
    expect(textOf(await retry(0))).toBe('answered: accept')
    const late = await retry(250)
    expect(late).toMatchObject({ isError: true })
    expect(textOf(late)).toBe('gave up: MCP error -32001: Request timed out')
  })
})
