/**
 * Spans inside workerd, through the fixture Worker (it records them in memory here:
 * FIXTURE_TRACE=record in vitest.config.ts): a table over the methods, in both eras, for a
 * success, a JSON-RPC error and a tool error. Every span is named and has the conventions'
 * attributes; every parent is the client's span or none (no orphans); errors carry error.type.
 */
import { SELF } from 'cloudflare:test'
import { beforeEach, describe, expect, it } from 'vitest'
import { recording } from '../fixture/worker.ts'
import { answer, legacyConnect, legacyRequest, legacyRpc, legacyStream } from '../support/legacy.ts'
import { buildRequest, openStream, rpc } from '../support/mcp.ts'

const URL_ = 'http://127.0.0.1/mcp'
const fetcher = (request: Request) => SELF.fetch(request)
const CLIENT = { trace: '0af7651916cd43dd8448eb211c80319c', span: 'b7ad6b7169203331' }
const traceparent = `00-${CLIENT.trace}-${CLIENT.span}-01`

/** The span of the one message just sent. */
function only() {
  expect(recording.spans).toHaveLength(1)
  return recording.spans[0]!
}

beforeEach(() => recording.clear())

const MODERN: [string, Record<string, unknown>, string, Record<string, unknown>][] = [
  // method, params, span name, attributes it must carry
  [
    'tools/call',
    { name: 'test_simple_text', arguments: {} },
    'tools/call test_simple_text',
    { 'gen_ai.tool.name': 'test_simple_text', 'gen_ai.operation.name': 'execute_tool', 'mcp_edge.result_type': 'complete' },
  ],
  ['tools/list', {}, 'tools/list', {}],
  [
    'prompts/get',
    { name: 'test_simple_prompt' },
    'prompts/get test_simple_prompt',
    { 'gen_ai.prompt.name': 'test_simple_prompt' },
  ],
  ['prompts/list', {}, 'prompts/list', {}],
  ['resources/read', { uri: 'test://static-text' }, 'resources/read', { 'mcp.resource.uri': 'test://static-text' }],
  ['resources/list', {}, 'resources/list', {}],
  ['resources/templates/list', {}, 'resources/templates/list', {}],
  ['server/discover', {}, 'server/discover', {}],
  [
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } },
    'completion/complete',
    {},
  ],
]

describe('spans of the 2026-07-28 lane', () => {
  it.each(MODERN)(
    '%s: one named SERVER span, a child of the client span, with the conventions attributes',
    async (method, params, name, attributes) => {
      const { status } = await rpc(fetcher, URL_, method, params, { meta: { traceparent } })
      expect(status).toBe(200)
      const span = only()
      expect(span).toMatchObject({ name, kind: 'server', parentSpanId: CLIENT.span })
      expect(span.context.traceId).toBe(CLIENT.trace)
      expect(span.attributes).toMatchObject({
        'mcp.method.name': method,
        'mcp.protocol.version': '2026-07-28',
        'mcp_edge.era': 'modern',
        ...attributes,
      })
      expect(span.attributes['mcp.session.id']).toBeUndefined()
      expect(span.attributes['error.type']).toBeUndefined()
      expect(recording.points.at(-1)?.attributes['mcp.method.name']).toBe(method)
    },
  )

  it('a JSON-RPC error: error.type is its code, the status ERROR with its message (an unregistered name is _OTHER)', async () => {
    const { message } = await rpc(fetcher, URL_, 'tools/call', { name: 'no_such_tool', arguments: {} }, { meta: { traceparent } })
    expect(message.error?.code).toBe(-32602)
    expect(only()).toMatchObject({
      name: 'tools/call _OTHER',
      attributes: { 'error.type': '-32602', 'rpc.response.status_code': '-32602', 'gen_ai.tool.name': '_OTHER' },
      status: { code: 'error', message: message.error?.message },
    })
  })

  it('a method the server does not have: named _OTHER (a client chooses it), error.type -32601', async () => {
    const { message } = await rpc(fetcher, URL_, 'made/up', {}, { meta: { traceparent } })
    expect(message.error?.code).toBe(-32601)
    expect(only()).toMatchObject({ name: '_OTHER', attributes: { 'mcp.method.name': '_OTHER', 'error.type': '-32601' } })
    // Only the error's message (recorded as the status, docs/observability.md) says which it was.
    expect(Object.values(only().attributes)).not.toContain('made/up')
    expect(recording.points.at(-1)?.attributes['mcp.method.name']).toBe('_OTHER')
  })

  it('a tool error: error.type tool_error', async () => {
    await rpc(fetcher, URL_, 'tools/call', { name: 'test_error_handling', arguments: {} })
    expect(only().attributes['error.type']).toBe('tool_error')
  })

  it('an input_required round: not an error, with its result type and round', async () => {
    await rpc(
      fetcher,
      URL_,
      'tools/call',
      { name: 'test_input_required_result_elicitation', arguments: {} },
      { capabilities: { elicitation: { form: {} } } },
    )
    expect(only().attributes).toMatchObject({ 'mcp_edge.result_type': 'input_required', 'mcp_edge.input.round': 1 })
    expect(only().attributes['error.type']).toBeUndefined()
  })
})

describe('spans of a streaming call', () => {
  it("count the partial results sent on the call's stream, their bytes, the longest gap, and those dropped", async () => {
    const { message, notifications } = await rpc(
      fetcher,
      URL_,
      'tools/call',
      { name: 'stream_text', arguments: { chunks: 5, delayMs: 40 } },
      { capabilities: { partialResults: {} }, meta: { traceparent, partialResultToken: 'spans' } },
    )
    expect(message.result?.resultType).toBe('complete')
    expect(
      notifications.filter((notification: { method: string }) => notification.method === 'notifications/tools/partial_result'),
    ).toHaveLength(5)
    // Five chunks of `0000000i|`: 9 characters each.
    expect(only().attributes).toMatchObject({
      'mcp_edge.partial.chunks': 5,
      'mcp_edge.partial.bytes': 45,
      'mcp_edge.partial.dropped': 0,
    })
    expect(only().attributes['mcp_edge.partial.max_gap_ms']).toBeGreaterThanOrEqual(35)
  })

  it('record no partial attributes for a call that streamed nothing', async () => {
    await rpc(fetcher, URL_, 'tools/call', { name: 'stream_text', arguments: { chunks: 0 } }, { meta: { traceparent } })
    expect(Object.keys(only().attributes).filter((key) => key.startsWith('mcp_edge.partial.'))).toEqual([])
  })
})

describe('spans of events', () => {
  it('a publish is a PRODUCER span; its delivery on a listen stream a CONSUMER child of it, linked to the listen span', async () => {
    const uri = `test://spans-${crypto.randomUUID()}`
    const stream = await openStream(
      fetcher,
      buildRequest(
        URL_,
        'subscriptions/listen',
        { notifications: { resourceSubscriptions: [uri] } },
        { headers: { authorization: 'Bearer alice' } },
      ),
    )
    expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
    await rpc(fetcher, URL_, 'tools/call', { name: 'notify_resource', arguments: { uri } })
    const notification = await stream.next()
    await stream.close()
    expect(notification).toMatchObject({ method: 'notifications/resources/updated', params: { uri } })
    // The publisher's context rides the event to the listener, never to the client.
    expect(JSON.stringify(notification)).not.toContain('traceparent')

    const publish = recording.spans.find((span) => span.name === 'publish notifications/resources/updated')!
    expect(publish).toMatchObject({
      kind: 'producer',
      parentSpanId: undefined,
      attributes: expect.objectContaining({
        'mcp.method.name': 'notifications/resources/updated',
        'mcp.resource.uri': uri,
        'mcp_edge.event.type': 'resourceUpdated',
        'mcp_edge.event.listeners': 1,
      }),
    })
    const deliver = recording.spans.find((span) => span.name === 'deliver notifications/resources/updated')!
    expect(deliver).toMatchObject({
      kind: 'consumer',
      parentSpanId: publish.context.spanId,
      attributes: expect.objectContaining({ 'mcp.resource.uri': uri, 'mcp_edge.subscription.id': expect.any(String) }),
    })
    expect(deliver.context.traceId).toBe(publish.context.traceId)
    expect(deliver.startMs).toBeLessThanOrEqual(deliver.endMs)
    // The listen request's span ends with its stream; the delivery links to it.
    for (
      const deadline = Date.now() + 20_000;
      !recording.spans.some((span) => span.name === 'subscriptions/listen') && Date.now() < deadline;
    ) {
      await new Promise((done) => setTimeout(done, 20))
    }
    const listen = recording.spans.find((span) => span.name === 'subscriptions/listen')
    expect(listen, 'the subscriptions/listen span').toBeDefined()
    expect(deliver.links).toEqual([{ context: listen?.context, attributes: { 'mcp_edge.link': 'listen' } }])
  })

  it('a task status published through the hub is a publish span too', async () => {
    const { message } = await rpc(
      fetcher,
      URL_,
      'tools/call',
      { name: 'step_task', arguments: { steps: 1 } },
      { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    )
    const taskId = message.result?.taskId as string
    const published = () =>
      recording.spans.filter(
        (span) => span.name === 'publish notifications/tasks' && span.attributes['mcp_edge.task.id'] === taskId,
      )
    for (const deadline = Date.now() + 20_000; published().length === 0 && Date.now() < deadline; ) {
      await new Promise((done) => setTimeout(done, 20))
    }
    expect(published().length).toBeGreaterThan(0)
    for (const span of published()) expect(span).toMatchObject({ kind: 'producer', parentSpanId: undefined })
  })
})

describe('spans of the 2025-era lane', () => {
  it('initialize, then each method: named spans with the session id (its public nonce), never the sealed id', async () => {
    const client = await legacyConnect(fetcher, URL_)
    expect(recording.spans.map((span) => span.name)).toEqual(['initialize'])
    recording.clear()
    for (const [method, params, name] of [
      ['tools/call', { name: 'test_simple_text', arguments: {} }, 'tools/call test_simple_text'],
      ['tools/list', {}, 'tools/list'],
      ['prompts/get', { name: 'test_simple_prompt' }, 'prompts/get test_simple_prompt'],
      ['resources/read', { uri: 'test://static-text' }, 'resources/read'],
      ['ping', undefined, 'ping'],
    ] as const) {
      recording.clear()
      const { status } = await legacyRpc(fetcher, URL_, client, method, params)
      expect(status, method).toBe(200)
      const span = only()
      expect(span.name).toBe(name)
      expect(span.attributes).toMatchObject({
        'mcp.method.name': method,
        'mcp.protocol.version': '2025-11-25',
        'mcp_edge.era': 'legacy',
      })
      expect(span.attributes['mcp.session.id']).toMatch(/^[\w-]{16}$/)
      expect(JSON.stringify(span)).not.toContain(client.sessionId)
    }
  })

  it('a JSON-RPC error and a tool error, as in the other era', async () => {
    const client = await legacyConnect(fetcher, URL_)
    recording.clear()
    await legacyRpc(fetcher, URL_, client, 'tools/call', { name: 'no_such_tool', arguments: {} })
    expect(only().attributes['error.type']).toBe('-32602')
    recording.clear()
    await legacyRpc(fetcher, URL_, client, 'tools/call', { name: 'test_error_handling', arguments: {} })
    expect(only().attributes['error.type']).toBe('tool_error')
  })

  it('a call that asks its client: a CLIENT span per question under the call, the answer a SERVER span under it', async () => {
    const client = await legacyConnect(fetcher, URL_, { capabilities: { elicitation: {} } })
    recording.clear()
    const call = await legacyStream(fetcher, URL_, client, 'tools/call', {
      name: 'test_streaming_elicitation',
      arguments: {},
      _meta: { traceparent },
    })
    const asked = await call.next()
    expect(asked.method).toBe('elicitation/create')
    expect(JSON.stringify(asked)).not.toContain(CLIENT.trace)
    expect((await answer(fetcher, URL_, client, asked.id, { action: 'accept', content: { name: 'Ada' } })).status).toBe(202)
    expect((await call.next()).result?.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }])
    await call.close()

    const span = (name: string) => recording.spans.find((found) => found.name === name)!
    const tool = span('tools/call test_streaming_elicitation')
    const question = span('elicitation/create')
    const taken = span('answer elicitation/create')
    expect(tool.parentSpanId).toBe(CLIENT.span)
    expect(question).toMatchObject({ kind: 'client', parentSpanId: tool.context.spanId })
    expect(question.attributes).toMatchObject({ 'mcp.method.name': 'elicitation/create', 'jsonrpc.request.id': asked.id })
    expect(question.startMs).toBeLessThanOrEqual(taken.startMs)
    expect(taken).toMatchObject({ kind: 'server', parentSpanId: question.context.spanId })
    expect(taken.attributes).toMatchObject({ 'mcp_edge.era': 'legacy', 'mcp.session.id': tool.attributes['mcp.session.id'] })
    for (const one of [question, taken]) expect(one.context.traceId).toBe(CLIENT.trace)
  })

  it('a question the client answers with an error: both spans say so, with its code only', async () => {
    const client = await legacyConnect(fetcher, URL_, { capabilities: { elicitation: {} } })
    recording.clear()
    const call = await legacyStream(fetcher, URL_, client, 'tools/call', { name: 'test_streaming_elicitation', arguments: {} })
    const asked = await call.next()
    const refused = await fetcher(
      legacyRequest(URL_, client, { jsonrpc: '2.0', id: asked.id, error: { code: -32600, message: 'no forms here' } }),
    )
    expect(refused.status).toBe(202)
    // The call fails: its client could not answer (ask.ts).
    expect((await call.next()).error).toMatchObject({ code: -32603, message: expect.stringContaining('-32600 no forms here') })
    await call.close()
    const question = recording.spans.find((found) => found.name === 'elicitation/create')!
    const taken = recording.spans.find((found) => found.name === 'answer elicitation/create')!
    for (const one of [question, taken]) {
      expect(one.attributes['error.type']).toBe('-32600')
      // The code only: the message is the client's text, which is not recorded.
      expect(one.status.code).toBe('error')
      expect(JSON.stringify(one)).not.toContain('no forms here')
    }
  })
})

describe('spans of a task, in its Durable Object', () => {
  const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const settle = async (taskId: string) => {
    for (let poll = 0; poll < 200; poll++) {
      const { message } = await rpc(fetcher, URL_, 'tasks/get', { taskId }, { capabilities: TASKS })
      if (['completed', 'failed', 'cancelled'].includes(message.result?.status)) return message.result
      await new Promise((done) => setTimeout(done, 25))
    }
    throw new Error(`task ${taskId} did not settle`)
  }

  it('each run is a CONSUMER span linked to the creating call, each step a child of its run', async () => {
    const { message } = await rpc(
      fetcher,
      URL_,
      'tools/call',
      { name: 'step_task', arguments: { steps: 3 } },
      { capabilities: { ...TASKS, partialResults: {} }, meta: { traceparent } },
    )
    const taskId = message.result?.taskId as string
    expect((await settle(taskId)).status).toBe('completed')
    const creating = recording.spans.find((span) => span.name === 'tools/call step_task')!
    expect(creating.parentSpanId).toBe(CLIENT.span)
    expect(creating.attributes).toMatchObject({ 'mcp_edge.result_type': 'task', 'mcp_edge.task.id': taskId })

    const runs = recording.spans.filter((span) => span.name === 'task.run step_task')
    expect(runs.length).toBeGreaterThanOrEqual(1)
    for (const run of runs) {
      expect(run.kind).toBe('consumer')
      expect(run.parentSpanId).toBeUndefined()
      expect(run.links.map((link) => link.context)).toEqual([
        expect.objectContaining({ traceId: CLIENT.trace, spanId: creating.context.spanId }),
      ])
      expect(run.attributes).toMatchObject({ 'mcp_edge.task.id': taskId, 'gen_ai.tool.name': 'step_task' })
    }
    expect(runs.at(-1)?.attributes['mcp_edge.task.status']).toBe('completed')
    // One partial result per step (the client declared partialResults), logged by whichever run executed the step.
    const sum = (key: string) => runs.reduce((total, run) => total + Number(run.attributes[key] ?? 0), 0)
    expect(sum('mcp_edge.partial.chunks')).toBe(3)
    expect(sum('mcp_edge.partial.bytes')).toBeGreaterThan(3 * 'part 0\n'.length)
    const steps = recording.spans.filter((span) => span.name.startsWith('task.step '))
    expect(steps.map((span) => span.name).sort()).toEqual(['task.step part-0', 'task.step part-1', 'task.step part-2'])
    const runIds = new Set(runs.map((run) => run.context.spanId))
    for (const step of steps) {
      expect(runIds.has(step.parentSpanId as string)).toBe(true)
      expect(step.context.traceId).toBe(runs.find((run) => run.context.spanId === step.parentSpanId)?.context.traceId)
    }
  })

  it('a task that fails: its run span says failed, with the error code, and the error status', async () => {
    const { message } = await rpc(
      fetcher,
      URL_,
      'tools/call',
      { name: 'protocol_error_job', arguments: {} },
      { capabilities: TASKS },
    )
    const taskId = message.result?.taskId as string
    expect((await settle(taskId)).status).toBe('failed')
    const run = recording.spans.find((span) => span.name === 'task.run protocol_error_job')!
    expect(run.links).toEqual([
      expect.objectContaining({ context: expect.objectContaining({ spanId: expect.stringMatching(/^[0-9a-f]{16}$/) }) }),
    ])
    expect(run.attributes).toMatchObject({ 'mcp_edge.task.status': 'failed', 'error.type': '-32603' })
    expect(run.status).toEqual({ code: 'error', message: 'The job hit an internal error' })
  })
})

describe("the runtime's own tracing", () => {
  it('is found in this workerd (tracing.startSpan), so workersTracing() mirrors spans into it', async () => {
    const { workersTracing } = await import('mcp-edge/cloudflare')
    const native = workersTracing()
    expect(typeof native?.startSpan).toBe('function')
    const span = native?.startSpan('probe')
    expect(() => {
      span?.setAttribute('mcp.method.name', 'tools/call')
      span?.end()
    }).not.toThrow()
  })
})
