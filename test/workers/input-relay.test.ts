/**
 * The input relay Durable Object losing its memory mid-exchange (evicted: `state.abort`): it keeps
 * nothing by design (cloudflare/input-relay.ts), so the waiting call fails with a clear -32603 and
 * the client's late answer is refused (no pending request has its id); a new exchange works.
 */
import { env, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { durableInputRelay, LOST_EXCHANGE } from '../../packages/mcp-edge/src/cloudflare/input-relay.ts'
import { isMcpError } from '../../packages/mcp-edge/src/protocol/errors.ts'

const evict = (exchangeId: string) =>
  runInDurableObject(env.MCP_INPUT_RELAY.get(env.MCP_INPUT_RELAY.idFromName(exchangeId)), (_instance, state) =>
    state.abort('evicted in a test'),
  ).catch(() => {})

const answer = { result: { action: 'accept', content: { ok: true } } } as never

describe('McpInputRelay evicted mid-exchange', () => {
  it('fails the waiting call with -32603 saying why, refuses the late answer, and serves the next exchange', async () => {
    const relay = durableInputRelay(env.MCP_INPUT_RELAY)
    const exchangeId = await relay.open('alice', 1, 30_000)
    const waiting = relay.wait(exchangeId, new AbortController().signal)
    const failure = waiting.then(
      () => undefined,
      (error: unknown) => error,
    )
    await evict(exchangeId)
    const error = await failure
    expect(isMcpError(error) && [error.kind, error.message]).toEqual(['internalError', LOST_EXCHANGE])
    expect(await relay.answer(exchangeId, 0, 'alice', answer)).toBe(false)

    const next = await relay.open('alice', 1, 30_000)
    const answered = relay.wait(next, new AbortController().signal)
    expect(await relay.answer(next, 0, 'alice', answer)).toBeTruthy()
    expect(await answered).toHaveLength(1)
  })

  it('fails a wait that starts after the object lost the exchange with the same -32603, not a timeout', async () => {
    const relay = durableInputRelay(env.MCP_INPUT_RELAY)
    const exchangeId = await relay.open('alice', 1, 30_000)
    await evict(exchangeId)
    const error = await relay.wait(exchangeId, new AbortController().signal).catch((caught: unknown) => caught)
    expect(isMcpError(error) && [error.kind, error.message]).toEqual(['internalError', LOST_EXCHANGE])
  })

  it('still reports a timeout that came before the wait as a timeout, and refuses an answer after it', async () => {
    const relay = durableInputRelay(env.MCP_INPUT_RELAY)
    const exchangeId = await relay.open('alice', 1, 1)
    await scheduler.wait(20)
    expect(await relay.answer(exchangeId, 0, 'alice', answer)).toBe(false)
    const error = await relay.wait(exchangeId, new AbortController().signal).catch((caught: unknown) => caught)
    expect(isMcpError(error) && error.kind).toBe('inputTimeout')
  })
})
