/**
 * Confirmations that cannot be skipped or replayed (issue 37), through the HTTP handler in
 * process: answers are read only for the keys a verified `requestState` recorded as asked, on
 * every method that may ask; every tool MCP considers destructive redeems its state once; without
 * a nonce ledger such a tool's state is refused, with a start-up warning naming the binding; a
 * tool that never asks is untouched. The HTTP suites show the same on the demo (safe-defaults).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { input } from '../../packages/mcp-edge/src/server/input/input.ts'
import type { NonceLedger } from '../../packages/mcp-edge/src/server/tasks/types.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { libraryLog } from '../../packages/mcp-edge/src/server/telemetry/log.ts'
import { rpc } from '../support/mcp.ts'

const codec = new RequestStateCodec(createKeyRing(`k1:${Buffer.alloc(32, 9).toString('base64')}`), { onReject: () => {} })
const URL = 'http://127.0.0.1/mcp'
const ELICIT = { capabilities: { elicitation: {} } }
const yes = { action: 'accept', content: { ok: true } }
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

/** A nonce ledger in memory: each nonce redeems once. */
function memoryNonces(): NonceLedger {
  const seen = new Set<string>()
  return {
    async redeem(nonce) {
      if (seen.has(nonce)) return false
      seen.add(nonce)
      return true
    },
  }
}

function confirmServer() {
  const deleted: string[] = []
  const server = createMcpServer({ name: 'safety', version: '1.0.0' })
    // No annotations: destructive by MCP's defaults.
    .tool('delete_file', { input: z.object({ path: z.string() }) }, async ({ path }, ctx) => {
      const { ok } = await ctx.ask({ ok: input.form(`Delete ${path}?`, z.object({ ok: z.boolean() })) })
      if (ok.action !== 'accept' || !ok.content.ok) return text('kept')
      deleted.push(path)
      return text(`deleted ${path}`)
    })
    .tool('lookup', { input: z.object({}), annotations: { readOnlyHint: true } }, async (_args, ctx) => {
      const { ok } = await ctx.ask({ ok: input.form('Look up?', z.object({ ok: z.boolean() })) })
      return text(ok.action)
    })
    .tool('never_asks', { input: z.object({}) }, () => text('done'))
    .tool('pay', { input: z.object({}), annotations: { destructiveHint: true } }, async (_args, ctx) => {
      const { amount } = await ctx.ask({ amount: input.form('How much?', z.object({ ok: z.boolean() })) })
      const { confirm } = await ctx.ask({ confirm: input.form('Pay it?', z.object({ ok: z.boolean() })) })
      if (amount.action !== 'accept' || confirm.action !== 'accept' || !confirm.content.ok) return text('not paid')
      deleted.push('paid')
      return text('paid')
    })
    .prompt('ask_prompt', { args: z.object({}) }, async (_args, ctx) => {
      const { ok } = await ctx.ask({ ok: input.form('Go on?', z.object({ ok: z.boolean() })) })
      return { messages: [{ role: 'user', content: { type: 'text', text: ok.action } }] }
    })
    .resource('notes://asking', { name: 'asking' }, async (uri, ctx) => {
      const { ok } = await ctx.ask({ ok: input.form('Read?', z.object({ ok: z.boolean() })) })
      return { contents: [{ uri, text: ok.action }] }
    })
  return { server, deleted }
}

function serve(nonces: NonceLedger | undefined) {
  const { server, deleted } = confirmServer()
  const handle = createMcpHandler(server, { services: () => ({ requestState: codec, nonces }) })
  const call = (method: string, params: Record<string, unknown>) =>
    rpc((request) => handle(request, {}), URL, method, params, ELICIT)
  return { call, deleted }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('answers the server never asked for are ignored', () => {
  it('asks again when tools/call, prompts/get or resources/read arrive pre-answered without a requestState', async () => {
    const { call, deleted } = serve(memoryNonces())
    const requests: Array<[string, Record<string, unknown>]> = [
      ['tools/call', { name: 'delete_file', arguments: { path: '/etc' } }],
      ['prompts/get', { name: 'ask_prompt', arguments: {} }],
      ['resources/read', { uri: 'notes://asking' }],
    ]
    for (const [method, params] of requests) {
      const { message } = await call(method, { ...params, inputResponses: { ok: yes } })
      expect(message.result?.resultType, method).toBe('input_required')
      expect(Object.keys(message.result.inputRequests), method).toEqual(['ok'])
    }
    expect(deleted).toEqual([])
  })

  it('reads a key only when the verified state recorded it as pending: a later question cannot be answered early', async () => {
    const { call, deleted } = serve(memoryNonces())
    const params = { name: 'pay', arguments: {} }
    const first = await call('tools/call', params)
    expect(Object.keys(first.message.result.inputRequests)).toEqual(['amount'])
    // The retry answers `amount`, which was asked, and `confirm`, which was not yet.
    const early = { amount: yes, confirm: yes }
    const second = await call('tools/call', { ...params, requestState: first.message.result.requestState, inputResponses: early })
    expect(second.message.result.resultType).toBe('input_required')
    expect(Object.keys(second.message.result.inputRequests)).toEqual(['confirm'])
    expect(deleted).toEqual([])
    const last = await call('tools/call', {
      ...params,
      requestState: second.message.result.requestState,
      inputResponses: { confirm: yes },
    })
    expect(last.message.result.content).toEqual([{ type: 'text', text: 'paid' }])
  })
})

describe('single-use confirmation for every destructive tool', () => {
  it('redeems the state of a tool without annotations once: the replay is -32602 and deletes nothing', async () => {
    const { call, deleted } = serve(memoryNonces())
    const params = { name: 'delete_file', arguments: { path: '/tmp/b' } }
    const first = await call('tools/call', params)
    const retry = { ...params, requestState: first.message.result.requestState, inputResponses: { ok: yes } }
    expect((await call('tools/call', retry)).message.result.content).toEqual([{ type: 'text', text: 'deleted /tmp/b' }])
    expect((await call('tools/call', retry)).message.error).toEqual({
      code: -32602,
      message: 'Invalid params: invalid requestState',
    })
    expect(deleted).toEqual(['/tmp/b'])
  })

  it('without a nonce ledger refuses to hand out such a state (500 naming the binding), and warns at start-up', async () => {
    const warn = vi.spyOn(libraryLog, 'warn').mockImplementation(() => {})
    vi.spyOn(libraryLog, 'error').mockImplementation(() => {})
    const { call, deleted } = serve(undefined)
    const refused = await call('tools/call', { name: 'delete_file', arguments: { path: '/tmp/c' } })
    expect(refused.status).toBe(500)
    expect(refused.message.error?.code).toBe(-32603)
    expect(refused.message.error?.message).toMatch(
      // Porting round S: the class's export in the main module is named too (mcp-edge/sdk servers need only it and the binding).
      /"delete_file" is destructive.*no nonce ledger.*MCP_NONCES.*export \{ McpNonceLedger \} from 'mcp-edge\/cloudflare'.*singleUseState: false/,
    )
    const ledger = warn.mock.calls.map(([message]) => message).filter((message) => message.includes('nonce ledger'))
    expect(ledger).toEqual([
      expect.stringMatching(/No nonce ledger is configured.*: delete_file, never_asks, pay\. To fix: .*MCP_NONCES/),
    ])
    // A read-only tool asks and answers as before; a tool that never asks is unaffected.
    const lookup = await call('tools/call', { name: 'lookup', arguments: {} })
    const answered = await call('tools/call', {
      name: 'lookup',
      arguments: {},
      requestState: lookup.message.result.requestState,
      inputResponses: { ok: yes },
    })
    expect(answered.message.result.content).toEqual([{ type: 'text', text: 'accept' }])
    expect((await call('tools/call', { name: 'never_asks', arguments: {} })).message.result.content).toEqual([
      { type: 'text', text: 'done' },
    ])
    expect(deleted).toEqual([])
  })
})
