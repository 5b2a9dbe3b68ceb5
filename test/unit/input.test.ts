import { describe, expect, it } from 'vitest'
import * as z from 'zod'
import type { ClientCapabilities } from '../../packages/mcp-edge/src/protocol/types.ts'
import { input } from '../../packages/mcp-edge/src/server/input/input.ts'
import {
  ClientAnswerError,
  InputRequired,
  InputRound,
  readInputResponses,
} from '../../packages/mcp-edge/src/server/input/input-round.ts'
import type { ClientAnswer } from '../../packages/mcp-edge/src/server/input/input-relay.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { callAnsweringAs2025, caught, configError, drain, rejected } from './support.ts'
import { createLegacyAsk } from '../../packages/mcp-edge/src/server/legacy/ask.ts'
import { memoryInputRelay } from '../../packages/mcp-edge/src/server/input/input-relay.ts'
import { Outbox } from '../../packages/mcp-edge/src/server/outbox.ts'

const nameForm = () => input.form('What is your name?', z.object({ name: z.string().trim().min(1), age: z.int().optional() }))

function expectMalformed(fn: () => unknown, message: string): void {
  const error = caught(fn)
  expect(error.kind).toBe('invalidParams')
  expect(error.code).toBe(-32602)
  expect(error.message).toBe(message)
}

describe('input.form', () => {
  it('builds an elicitation/create request in form mode with a flat requestedSchema', () => {
    const spec = nameForm()
    expect(spec.request).toEqual({
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'What is your name?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1 },
            age: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
          },
          required: ['name'],
        },
      },
    })
    expect(spec.requires).toEqual(['elicitation.form'])
  })

  it('accepts enums and multi-select arrays, and refuses nested objects at build time', () => {
    expect(() =>
      input.form('Pick', z.object({ color: z.enum(['red', 'blue']), tags: z.array(z.enum(['a', 'b'])) })),
    ).not.toThrow()
    expect(configError(() => input.form('Address', z.object({ address: z.object({ city: z.string() }) }))).message).toBe(
      'Elicitation form property "address" must be a string, number, integer, boolean or enum',
    )
  })

  it('parses accepted content with the same zod schema', () => {
    expect(nameForm().read({ action: 'accept', content: { name: '  Ada  ', age: 36 } }, 'who')).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 36 },
    })
  })

  it('passes decline and cancel through without content', () => {
    expect(nameForm().read({ action: 'decline', content: { name: 'ignored' } }, 'who')).toEqual({ action: 'decline' })
    expect(nameForm().read({ action: 'cancel' }, 'who')).toEqual({ action: 'cancel' })
  })

  it('rejects content that does not match the schema with -32602', () => {
    const error = caught(() => nameForm().read({ action: 'accept', content: { name: '   ' } }, 'who'))
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/^Invalid params: inputResponses\["who"\] does not match the requested schema: name: /)
    expect(caught(() => nameForm().read({ action: 'accept' }, 'who')).message).toMatch(
      /does not match the requested schema: name: /,
    )
  })

  it('rejects answers that are not ElicitResults', () => {
    for (const answer of [undefined, null, 'accept', { action: 'ok' }, { action: 'ACCEPT' }, { content: { name: 'x' } }]) {
      expectMalformed(
        () => nameForm().read(answer, 'who'),
        'Invalid params: inputResponses["who"] must be an ElicitResult with action accept, decline or cancel',
      )
    }
  })
})

describe('input.url', () => {
  it('builds a URL-mode elicitation that needs elicitation.url', () => {
    const spec = input.url('Sign in to continue', 'https://auth.example.com/start')
    expect(spec.request).toEqual({
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Sign in to continue', url: 'https://auth.example.com/start' },
    })
    expect(spec.requires).toEqual(['elicitation.url'])
  })

  it('reads only the action', () => {
    const spec = input.url('x', 'https://example.com')
    expect(spec.read({ action: 'accept', content: { token: 'leak' } }, 'login')).toEqual({ action: 'accept' })
    expectMalformed(
      () => spec.read({}, 'login'),
      'Invalid params: inputResponses["login"] must be an ElicitResult with action accept, decline or cancel',
    )
  })
})

describe('input.sampling', () => {
  const request = { messages: [{ role: 'user' as const, content: { type: 'text', text: 'Summarise' } }], maxTokens: 100 }

  it('builds sampling/createMessage with the request as params', () => {
    const spec = input.sampling(request)
    expect(spec.request).toEqual({ method: 'sampling/createMessage', params: request })
    expect(spec.request.params).not.toBe(request)
    expect(spec.requires).toEqual(['sampling'])
  })

  it('needs sampling.tools for tool-enabled sampling', () => {
    expect(input.sampling({ ...request, tools: [{ name: 'search' }] }).requires).toEqual(['sampling', 'sampling.tools'])
    expect(input.sampling({ ...request, toolChoice: { mode: 'auto' } }).requires).toEqual(['sampling', 'sampling.tools'])
  })

  it('reads a CreateMessageResult and rejects malformed ones', () => {
    const answer = { role: 'assistant', content: { type: 'text', text: 'Short.' }, model: 'm-1', stopReason: 'endTurn' }
    expect(input.sampling(request).read(answer, 's')).toEqual(answer)
    for (const bad of [
      null,
      { role: 'assistant', content: {} },
      { role: 'assistant', model: 'm' },
      { role: 'assistant', content: {}, model: 3 },
    ]) {
      expectMalformed(
        () => input.sampling(request).read(bad, 's'),
        'Invalid params: inputResponses["s"] must be a CreateMessageResult with role, content and model',
      )
    }
    expectMalformed(
      () => input.sampling(request).read({ role: 'system', content: {}, model: 'm' }, 's'),
      'Invalid params: inputResponses["s"] has an invalid role',
    )
  })
})

describe('input.roots', () => {
  it('builds roots/list and reads a ListRootsResult', () => {
    const spec = input.roots()
    expect(spec.request).toEqual({ method: 'roots/list', params: {} })
    expect(spec.requires).toEqual(['roots'])
    expect(spec.read({ roots: [{ uri: 'file:///work', name: 'work' }] }, 'r')).toEqual([{ uri: 'file:///work', name: 'work' }])
    expect(spec.read({ roots: [] }, 'r')).toEqual([])
  })

  it('rejects malformed answers', () => {
    expectMalformed(
      () => input.roots().read({ roots: 'file:///' }, 'r'),
      'Invalid params: inputResponses["r"] must be a ListRootsResult',
    )
    expectMalformed(() => input.roots().read([], 'r'), 'Invalid params: inputResponses["r"] must be a ListRootsResult')
    expectMalformed(
      () => input.roots().read({ roots: [{ name: 'x' }] }, 'r'),
      'Invalid params: inputResponses["r"] has a root without a uri',
    )
  })
})

describe('readInputResponses', () => {
  it('accepts nothing or an object', () => {
    expect(readInputResponses(undefined)).toEqual({})
    const value = { a: { action: 'cancel' } }
    expect(readInputResponses(value)).toBe(value)
  })

  it('rejects anything else with -32602', () => {
    for (const value of [null, [], 'x', 1]) {
      expectMalformed(() => readInputResponses(value), 'Invalid params: inputResponses must be an object')
    }
  })
})

const FORM: ClientCapabilities = { elicitation: {} }
const accept = (name: string) => ({ action: 'accept', content: { name } })

describe('InputRound.ask', () => {
  it('resolves with every answer when all are in, and records what it used', async () => {
    const round = new InputRound('tools/call', {}, { who: accept('Ada'), unrelated: { anything: true } }, FORM)
    expect(await round.ask({ who: nameForm() })).toEqual({ who: { action: 'accept', content: { name: 'Ada' } } })
    expect(round.used).toEqual({ who: accept('Ada') })
    expect(round.pending).toBeUndefined()
  })

  it('prefers an answer sealed in an earlier round over one sent again now', async () => {
    const round = new InputRound('tools/call', { who: accept('Sealed') }, { who: accept('Forged') }, FORM)
    expect(await round.ask({ who: nameForm() })).toEqual({ who: { action: 'accept', content: { name: 'Sealed' } } })
    expect(round.used).toEqual({ who: accept('Sealed') })
  })

  it('throws InputRequired and records only the missing requests', async () => {
    const round = new InputRound('tools/call', {}, { who: accept('Ada') }, { elicitation: {}, roots: {} })
    await expect(round.ask({ who: nameForm(), where: input.roots() })).rejects.toBeInstanceOf(InputRequired)
    expect(round.pending).toEqual({ where: { method: 'roots/list', params: {} } })
    expect(round.used).toEqual({ who: accept('Ada') })
  })

  it('accumulates pending requests across asks in one run', async () => {
    const round = new InputRound('prompts/get', {}, {}, { elicitation: {}, roots: {} })
    await expect(round.ask({ first: nameForm() })).rejects.toBeInstanceOf(InputRequired)
    await expect(round.ask({ second: input.roots() })).rejects.toBeInstanceOf(InputRequired)
    expect(Object.keys(round.pending ?? {})).toEqual(['first', 'second'])
  })

  // A 2025-era call waits for a round until its deadline: the latest of its questions', and only
  // when each has one (found by review: the earliest ended a round whose other question had none).
  it('says when the open questions are due: the latest deadline when each has one, else none', async () => {
    const due = (deadline: number | undefined) => ({ ...nameForm(), deadline })
    const dated = new InputRound('tools/call', {}, {}, FORM)
    await expect(dated.ask({ a: due(2000), b: due(5000) })).rejects.toBeInstanceOf(InputRequired)
    expect(dated.deadline).toBe(5000)
    const mixed = new InputRound('tools/call', {}, {}, FORM)
    await expect(mixed.ask({ a: due(2000) })).rejects.toBeInstanceOf(InputRequired)
    expect(mixed.deadline).toBe(2000)
    await expect(mixed.ask({ b: due(undefined) })).rejects.toBeInstanceOf(InputRequired)
    expect(mixed.deadline).toBeUndefined()
    // A question refused before it is asked (the client lacks its capability) leaves the deadline be.
    const refused = new InputRound('tools/call', {}, {}, FORM)
    const sampled = { ...input.sampling({ messages: [], maxTokens: 1 }), deadline: undefined }
    await expect(refused.ask({ s: sampled })).rejects.toMatchObject({ code: -32021 })
    await expect(refused.ask({ a: due(3000) })).rejects.toBeInstanceOf(InputRequired)
    expect(refused.deadline).toBe(3000)
  })

  // The client is told to drop what the server gave up on: at a round's deadline (the question
  // rejects with -32001) and at the call's own bound (the call fails), as the SDKs cancel a request.
  it('a 2025-era round past its deadline or the call bound: notifications/cancelled for each question', async () => {
    const ask = (timeoutMs: number) => {
      const outbox = new Outbox()
      const cancel = { signal: new AbortController().signal }
      const relay = memoryInputRelay()
      return { outbox, askClient: createLegacyAsk({ relay, outbox, version: '2025-11-25', principal: null, timeoutMs, cancel }) }
    }
    const questions = { a: nameForm().request, b: nameForm().request }
    const dated = ask(5000)
    const answers = await dated.askClient(questions, undefined, Date.now() + 20)
    expect(answers.a).toBeInstanceOf(ClientAnswerError)
    expect((answers.b as ClientAnswerError).answer).toEqual({ code: -32001, message: 'Request timed out' })
    const sent = drain(dated.outbox) as { id?: string; method: string; params: { requestId?: string } }[]
    expect(sent.map((message) => message.method)).toEqual([
      'elicitation/create',
      'elicitation/create',
      'notifications/cancelled',
      'notifications/cancelled',
    ])
    expect(sent.slice(2).map((message) => message.params.requestId)).toEqual(sent.slice(0, 2).map((message) => message.id))
    const bounded = ask(20)
    await expect(bounded.askClient({ a: nameForm().request })).rejects.toMatchObject({ kind: 'inputTimeout' })
    expect(drain(bounded.outbox).map((message) => (message as { method: string }).method)).toEqual([
      'elicitation/create',
      'notifications/cancelled',
    ])
  })

  it('refuses to ask for an input type the request did not declare (-32021, with what is missing)', async () => {
    const round = new InputRound('tools/call', {}, {}, FORM)
    const error = await rejected(
      round.ask({
        login: input.url('Sign in', 'https://example.com'),
        who: nameForm(),
        llm: input.sampling({ messages: [], maxTokens: 1 }),
      }),
    )
    expect(error.kind).toBe('missingCapability')
    expect(error.code).toBe(-32021)
    expect(error.status).toBe(400)
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: { url: {} }, sampling: {} } })
    expect(error.message).toBe('This request needs client capabilities that were not declared: elicitation.url, sampling')
    expect(round.pending).toBeUndefined()
  })

  it('treats elicitation with only url declared as no form support', async () => {
    const round = new InputRound('tools/call', {}, {}, { elicitation: { url: {} } })
    const error = await rejected(round.ask({ who: nameForm() }))
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
  })

  it('reads an answer that is already there even if its capability is not declared now', async () => {
    const round = new InputRound('tools/call', { login: { action: 'accept' } }, {}, {})
    expect(await round.ask({ login: input.url('Sign in', 'https://example.com') })).toEqual({ login: { action: 'accept' } })
  })

  it('rejects a malformed answer with -32602 instead of asking again', async () => {
    const round = new InputRound('tools/call', {}, { who: { action: 'maybe' } }, FORM)
    const error = await rejected(round.ask({ who: nameForm() }))
    expect(error.code).toBe(-32602)
    expect(error.message).toBe(
      'Invalid params: inputResponses["who"] must be an ElicitResult with action accept, decline or cancel',
    )
    expect(round.pending).toBeUndefined()
  })

  it('is unavailable outside tools/call, prompts/get and resources/read', async () => {
    const round = new InputRound('', {}, {}, FORM)
    await expect(round.ask({ who: nameForm() })).rejects.toThrow(
      'ctx.ask is available on tools/call, prompts/get and resources/read only (mrtr.mdx)',
    )
  })
})

// Found porting the SDK's examples: a 2025-era client's error answer (a user who closed the
// dialog, a sampling request refused) failed the call before the handler saw it; now `ctx.ask`
// throws it where the handler asked, as the SDKs reject the question.
describe("a 2025-era client's error answer", () => {
  const server = createMcpServer({ name: 'asks', version: '1' })
  const form = () => input.form('Your name?', z.object({ name: z.string() }))
  server.tool('catches', { input: z.object({}) }, async (_args, ctx) => {
    try {
      const { name } = await ctx.ask({ name: form() })
      return { content: [{ type: 'text', text: name.action }] }
    } catch (error) {
      if (!(error instanceof ClientAnswerError)) throw error
      return { content: [{ type: 'text', text: `not asked again: ${error.answer?.code} ${error.answer?.message}` }] }
    }
  })
  server.tool('lets_it_fail', { input: z.object({}) }, async (_args, ctx) => {
    const { name } = await ctx.ask({ name: form() })
    return { content: [{ type: 'text', text: name.action }] }
  })

  const call = (tool: string, answer: ClientAnswer) =>
    callAnsweringAs2025(server, tool, answer) as Promise<{
      result?: { content: { text: string }[] }
      error?: { code: number; message: string }
    }>

  it('is thrown where the handler asked, which may catch it; uncaught, the call fails with -32603 naming it', async () => {
    const refused = { error: { code: -1, message: 'User closed the dialog' } }
    expect((await call('catches', refused)).result?.content[0]?.text).toBe('not asked again: -1 User closed the dialog')
    expect((await call('lets_it_fail', refused)).error).toEqual({
      code: -32603,
      message: 'The client answered elicitation/create with an error (-1 User closed the dialog)',
    })
    expect((await call('catches', { result: { action: 'decline' } })).result?.content[0]?.text).toBe('decline')
  })
})
