/**
 * Spans inside workerd, through the fixture Worker (it records them in memory here:
 * FIXTURE_TRACE=record in vitest.config.ts): a table over the methods, in both eras, for a
 * success, a JSON-RPC error and a tool error. Every span is named and has the conventions'
 * attributes; every parent is the client's span or none (no orphans); errors carry error.type.
 */
import { SELF } from 'cloudflare:test'
import { beforeEach, describe, expect, it } from 'vitest'
import { recording } from '../fixture/worker.ts'
import { legacyConnect, legacyRpc } from '../support/legacy.ts'
import { rpc } from '../support/mcp.ts'

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
  it("count the partial results sent on the call's stream, and those dropped", async () => {
    const { message, notifications } = await rpc(
      fetcher,
      URL_,
      'tools/call',
      { name: 'stream_text', arguments: { chunks: 5 } },
      { capabilities: { partialResults: {} }, meta: { traceparent, partialResultToken: 'spans' } },
    )
    expect(message.result?.resultType).toBe('complete')
    expect(
      notifications.filter((notification: { method: string }) => notification.method === 'notifications/tools/partial_result'),
    ).toHaveLength(5)
    expect(only().attributes).toMatchObject({ 'mcp_edge.partial.chunks': 5, 'mcp_edge.partial.dropped': 0 })
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
      { capabilities: TASKS, meta: { traceparent } },
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
