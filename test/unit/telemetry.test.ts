/**
 * Telemetry through the whole pipeline in Node (createMcpHandler over a small server): one SERVER
 * span per message named by the MCP conventions, the client's `_meta` trace context as parent (or
 * link, or ignored), the HTTP `traceparent` as a link, outcomes as `error.type`, the duration
 * histogram, head sampling, the one JSON log line per message, hooks, and privacy: planted
 * canaries never reach a span, a metric, an OTLP body or a log line unless a field is opted in.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { ToolError } from '../../packages/mcp-edge/src/server/errors.ts'
import { input } from '../../packages/mcp-edge/src/server/input/input.ts'
import { createKeyRing, RequestStateCodec } from '../../packages/mcp-edge/src/server/request-state.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'
import { startAsk } from '../../packages/mcp-edge/src/server/telemetry/input.ts'
import { createLog } from '../../packages/mcp-edge/src/server/telemetry/log.ts'
import type { LogLevelName } from '../../packages/mcp-edge/src/server/telemetry/log.ts'
import type {
  McpHooks,
  RecordOptions,
  RequestEnd,
  TraceContextMode,
} from '../../packages/mcp-edge/src/server/telemetry/observe.ts'
import { otlpExporter, otlpFromEnv } from '../../packages/mcp-edge/src/server/telemetry/otlp.ts'
import { TaskEngine } from '../../packages/mcp-edge/src/server/tasks/engine.ts'
import { MemoryTaskStore } from '../support/memory-task-store.ts'
import { recordingExporter } from '../../packages/mcp-edge/src/server/telemetry/recording.ts'
import { createTelemetry } from '../../packages/mcp-edge/src/server/telemetry/tracer.ts'

const ENDPOINT = 'http://127.0.0.1:8787/mcp'
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const CLIENT_SPAN = '00f067aa0ba902b7'
const HTTP_TRACE = 'a'.repeat(32)
const CANARY = 'canary-7f3a9c'
const KEYS = 'k1:dGVzdCBrZXkgZm9yIHRoZSB0ZWxlbWV0cnkgdGVzdHMhIQ=='

interface Setup {
  traceContext?: TraceContextMode
  sampleRatio?: number
  record?: RecordOptions
  hooks?: McpHooks
  logs?: LogLevelName | 'off'
}

/** A server with every kind of outcome, traced into a recording exporter and an OTLP exporter whose POSTs are kept. */
function setup(options: Setup = {}) {
  const recording = recordingExporter()
  const posts: { url: string; body: string }[] = []
  const otlp = otlpExporter({
    endpoint: 'http://127.0.0.1:4318',
    resource: { 'service.name': 'unit' },
    flushDelayMs: 0, // each response's flush sends (batching: its own test)
    fetch: async (request) => {
      posts.push({ url: request.url, body: await request.text() })
      return new Response(null, { status: 200 })
    },
  })
  const lines: string[] = []
  const log = createLog('debug', (_level, line) => lines.push(line))
  const server = createMcpServer({
    name: 'unit',
    version: '1.0.0',
    telemetry: {
      tracer: () => createTelemetry({ exporters: [recording, otlp], sampleRatio: options.sampleRatio }),
      traceContext: options.traceContext,
      record: options.record,
      hooks: options.hooks,
      logs: options.logs ?? 'info',
      log,
    },
  })
  server
    .tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))
    .tool('echo', { input: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }))
    .tool('fail', { input: z.object({}) }, () => {
      throw new ToolError(`failed with ${CANARY}`)
    })
    .tool('confirm', { input: z.object({}), annotations: { readOnlyHint: true } }, async (_args, ctx) => {
      const { ok } = await ctx.ask({ ok: input.form('Sure?', z.object({ yes: z.boolean() })) })
      return { content: [{ type: 'text', text: ok.action }] }
    })
    .prompt('greet', { args: z.object({ name: z.string() }) }, ({ name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name}` } }],
    }))
    .resource('info://x', { name: 'x' }, (uri) => ({ contents: [{ uri, text: 'x' }] }))
  const requestState = new RequestStateCodec(createKeyRing(KEYS))
  const handle = createMcpHandler(server, { services: () => ({ requestState }) })
  const waits: Promise<unknown>[] = []
  const send = async (
    method: string,
    params: Record<string, unknown> = {},
    extra: { meta?: object; headers?: Record<string, string> } = {},
  ) => {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...extra.headers,
    })
    const name = method === 'resources/read' ? params.uri : params.name
    if (typeof name === 'string') headers.set('mcp-name', name)
    const _meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
      'io.modelcontextprotocol/clientInfo': { name: 'unit-client', version: '2.0.0' },
      ...extra.meta,
    }
    const request = new Request(ENDPOINT, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { ...params, _meta } }),
    })
    const response = await handle(request, {}, { waitUntil: (promise) => void waits.push(promise) })
    const body = (await response.json()) as { result?: Record<string, unknown>; error?: { code: number } }
    await Promise.all(waits)
    return body
  }
  return { recording, posts, lines, send }
}

afterEach(() => vi.restoreAllMocks())

describe('spans, by the MCP conventions', () => {
  it('one SERVER span per message, named {method} {target}, with the conventions attributes', async () => {
    const { recording, send } = setup()
    await send('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })
    await send('prompts/get', { name: 'greet', arguments: { name: 'ada' } })
    await send('resources/read', { uri: 'info://x' })
    await send('tools/list')
    expect(recording.spans.map((span) => [span.name, span.kind])).toEqual([
      ['tools/call add', 'server'],
      ['prompts/get greet', 'server'],
      ['resources/read', 'server'],
      ['tools/list', 'server'],
    ])
    expect(recording.spans[0]?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'mcp_edge.era': 'modern',
      'mcp_edge.result_type': 'complete',
      'mcp_edge.client.name': 'unit-client',
    })
    expect(recording.spans[0]?.attributes['mcp.session.id']).toBeUndefined()
    expect(recording.spans[1]?.attributes['gen_ai.prompt.name']).toBe('greet')
    expect(recording.spans[2]?.attributes['mcp.resource.uri']).toBe('info://x')
    for (const span of recording.spans) expect(span.status.code).toBe('unset')
  })

  it('records each outcome: a JSON-RPC error by its code, a tool error as tool_error, input_required as a result type', async () => {
    const { recording, send } = setup()
    await send('tools/call', { name: 'nope', arguments: {} })
    await send('tools/call', { name: 'fail', arguments: {} })
    await send('tools/call', { name: 'confirm', arguments: {} })
    const [unknown, failed, asked] = recording.spans
    expect(unknown?.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' })
    expect(unknown?.status).toEqual({ code: 'error', message: 'Unknown tool: nope' })
    expect(failed?.attributes['error.type']).toBe('tool_error')
    expect(failed?.status.code).toBe('error')
    expect(asked?.attributes).toMatchObject({ 'mcp_edge.result_type': 'input_required', 'mcp_edge.input.round': 1 })
    expect(asked?.attributes['error.type']).toBeUndefined()
  })

  it('takes the client trace context in _meta as the parent, and the HTTP traceparent as a link', async () => {
    const { recording, send } = setup()
    await send(
      'tools/call',
      { name: 'add', arguments: { a: 1, b: 1 } },
      {
        meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'rojo=1' },
        headers: { traceparent: `00-${HTTP_TRACE}-${'b'.repeat(16)}-01` },
      },
    )
    const [span] = recording.spans
    expect(span?.context.traceId).toBe(CLIENT_TRACE)
    expect(span?.parentSpanId).toBe(CLIENT_SPAN)
    expect(span?.context.traceState).toBe('rojo=1')
    expect(span?.links.map((link) => link.context.traceId)).toEqual([HTTP_TRACE])
  })

  it('takes the HTTP traceparent as the parent when _meta has none', async () => {
    const { recording, send } = setup()
    await send('tools/list', {}, { headers: { traceparent: `00-${HTTP_TRACE}-${'b'.repeat(16)}-01` } })
    expect(recording.spans[0]?.context.traceId).toBe(HTTP_TRACE)
    expect(recording.spans[0]?.links).toEqual([])
  })

  it('links instead (mode link), or starts its own trace and links nothing (mode ignore)', async () => {
    const meta = { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` }
    const linked = setup({ traceContext: 'link' })
    await linked.send('tools/list', {}, { meta })
    expect(linked.recording.spans[0]?.context.traceId).not.toBe(CLIENT_TRACE)
    expect(linked.recording.spans[0]?.links.map((link) => link.context.spanId)).toEqual([CLIENT_SPAN])
    const ignored = setup({ traceContext: 'ignore' })
    await ignored.send('tools/list', {}, { meta })
    expect(ignored.recording.spans[0]?.context.traceId).not.toBe(CLIENT_TRACE)
    expect(ignored.recording.spans[0]?.links).toEqual([])
  })

  it('never fails or changes the answer for a malformed traceparent', async () => {
    const { recording, send } = setup()
    for (const traceparent of ['', 'garbage', `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01`, 42, { x: 1 }]) {
      const answer = await send(
        'tools/call',
        { name: 'add', arguments: { a: 2, b: 2 } },
        { meta: { traceparent }, headers: { traceparent: 'x' } },
      )
      expect(answer.result?.content).toEqual([{ type: 'text', text: '4' }])
    }
    expect(recording.spans.every((span) => span.parentSpanId === undefined)).toBe(true)
  })

  it('samples: a ratio of 0 records nothing of its own traces, but a sampled parent decides for its trace', async () => {
    const { recording, send } = setup({ sampleRatio: 0 })
    await send('tools/list')
    expect(recording.spans).toEqual([])
    await send('tools/list', {}, { meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } })
    expect(recording.spans).toHaveLength(1)
    await send('tools/list', {}, { meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-00` } })
    expect(recording.spans).toHaveLength(1)
  })
})

describe("the mirror into the runtime's tracing", () => {
  /** A runtime span API that says whether it traces this invocation, and keeps every call made to it. */
  function runtime(isTraced: boolean | undefined) {
    const calls: string[] = []
    const native = {
      startSpan(name: string) {
        calls.push(`start ${name}`)
        return {
          isTraced,
          setAttribute: (key: string, value: unknown) => calls.push(`${key}=${value}`),
          setStatus: (status: { code: string }) => calls.push(`status ${status.code}`),
          end: () => calls.push('end'),
        }
      },
    }
    return { native, calls }
  }
  const start = { kind: 'server' as const, attributes: { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2026-07-28' } }

  it('mirrors a span when the runtime traces the invocation (or does not say): the attributes that tell spans apart', () => {
    for (const isTraced of [true, undefined]) {
      const { native, calls } = runtime(isTraced)
      const span = createTelemetry({ native }).startSpan('tools/call add', { ...start, attributes: { ...start.attributes } })
      span.fail('tool_error')
      span.end()
      expect(span.recording).toBe(true)
      expect(calls).toEqual([
        'start tools/call add',
        `mcp_edge.trace_id=${span.context.traceId}`,
        'mcp.method.name=tools/call',
        'error.type=tool_error',
        'status error',
        'end',
      ])
    }
  })

  it('calls nothing more when the runtime does not trace it: with no exporter the span records nothing', () => {
    const { native, calls } = runtime(false)
    const span = createTelemetry({ native }).startSpan('tools/call add', { ...start, attributes: { ...start.attributes } })
    span.setAttribute('mcp_edge.result_type', 'complete')
    span.end()
    expect(calls).toEqual(['start tools/call add', 'end'])
    expect(span.recording).toBe(false)
    // It still carries a context on (the log line's trace_id, a task's link, the next round's).
    expect(span.context.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(span.context.spanId).toMatch(/^[0-9a-f]{16}$/)
  })

  it('asks the active span first where the runtime has one: an untraced invocation makes no runtime span at all', () => {
    for (const [isTraced, made] of [
      [false, []],
      [true, ['start tools/call add', 'end']],
    ] as const) {
      const { native, calls } = runtime(isTraced)
      const asking = { ...native, getActiveSpan: () => ({ isTraced }) }
      const span = createTelemetry({ native: asking }).startSpan('tools/call add', { kind: 'server', attributes: {} })
      span.end()
      expect(calls.filter((call) => call === 'end' || call.startsWith('start'))).toEqual(made)
      expect(span.recording).toBe(isTraced)
    }
  })

  it('falls back to starting a span where the runtime has no active one', () => {
    const { native, calls } = runtime(true)
    const span = createTelemetry({ native: { ...native, getActiveSpan: () => undefined } }).startSpan('tools/list', {
      kind: 'server',
      attributes: {},
    })
    span.end()
    expect([span.recording, calls[0], calls.at(-1)]).toEqual([true, 'start tools/list', 'end'])
  })

  it("hands a sampled trace on to a 2025 question though this invocation records nothing: the answer's may be traced", () => {
    const quiet = createLog('error', () => {})
    const { native } = runtime(false)
    const telemetry = createTelemetry({ native })
    const parent = telemetry.startSpan('tools/call confirm', { kind: 'server', attributes: {} })
    expect(parent.recording).toBe(false)
    expect(startAsk({ telemetry, parent, log: quiet }, ['elicitation/create'])?.traces).toEqual([
      { method: 'elicitation/create', traceparent: expect.stringMatching(`^00-${parent.context.traceId}-[0-9a-f]{16}-01$`) },
    ])
    // A trace the head sampling left out carries nothing on.
    const unsampled = createTelemetry({ native, sampleRatio: 0 })
    const skipped = unsampled.startSpan('tools/call confirm', { kind: 'server', attributes: {} })
    expect(startAsk({ telemetry: unsampled, parent: skipped, log: quiet }, ['elicitation/create'])).toBeUndefined()
  })

  it('still exports the span when an exporter takes it, without mirroring it', () => {
    const { native, calls } = runtime(false)
    const recording = recordingExporter()
    const span = createTelemetry({ native, exporters: [recording] }).startSpan('tools/call add', {
      ...start,
      attributes: { ...start.attributes },
    })
    span.setAttribute('mcp_edge.result_type', 'complete')
    span.end()
    expect(calls).toEqual(['start tools/call add', 'end'])
    expect(recording.spans.map((finished) => [finished.name, finished.attributes['mcp_edge.result_type']])).toEqual([
      ['tools/call add', 'complete'],
    ])
  })
})

describe('the duration metric and OTLP/HTTP', () => {
  it('records mcp.server.operation.duration per message, by method, target, error type and version', async () => {
    const { recording, send } = setup()
    await send('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })
    await send('tools/call', { name: 'fail', arguments: {} })
    expect(recording.points.map((point) => point.attributes)).toEqual([
      { 'mcp.method.name': 'tools/call', 'mcp.protocol.version': '2026-07-28', 'gen_ai.tool.name': 'add' },
      {
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
        'gen_ai.tool.name': 'fail',
        'error.type': 'tool_error',
      },
    ])
    expect(recording.points.every((point) => point.seconds >= 0)).toBe(true)
  })

  it('posts spans and the histogram as OTLP JSON: hex ids, integer enums, AnyValue attributes, explicit buckets', async () => {
    const { posts, send } = setup()
    await send(
      'tools/call',
      { name: 'add', arguments: { a: 2, b: 3 } },
      { meta: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` } },
    )
    const traces = posts.find((post) => post.url === 'http://127.0.0.1:4318/v1/traces')
    const metrics = posts.find((post) => post.url === 'http://127.0.0.1:4318/v1/metrics')
    const span = JSON.parse(traces?.body ?? '{}').resourceSpans[0].scopeSpans[0].spans[0]
    expect(span).toMatchObject({ traceId: CLIENT_TRACE, parentSpanId: CLIENT_SPAN, name: 'tools/call add', kind: 2, flags: 1 })
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
    expect(span.startTimeUnixNano).toMatch(/^\d+$/)
    expect(span.attributes).toContainEqual({ key: 'gen_ai.tool.name', value: { stringValue: 'add' } })
    const metric = JSON.parse(metrics?.body ?? '{}').resourceMetrics[0].scopeMetrics[0].metrics[0]
    expect(metric).toMatchObject({ name: 'mcp.server.operation.duration', unit: 's', histogram: { aggregationTemporality: 1 } })
    const point = metric.histogram.dataPoints[0]
    expect(point.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
    expect(point.count).toBe('1')
    expect(point.bucketCounts).toHaveLength(15)
    expect(point.bucketCounts.reduce((sum: number, count: string) => sum + Number(count), 0)).toBe(1)
  })

  it('sends in batches: the flushes of one second share one POST, and a full batch goes at once', async () => {
    const posts: number[] = []
    const otlp = otlpExporter({
      endpoint: 'http://127.0.0.1:4318',
      resource: {},
      flushDelayMs: 50,
      maxBatchSpans: 3,
      fetch: async (request) => {
        if (request.url.endsWith('/v1/traces'))
          posts.push(JSON.parse(await request.text()).resourceSpans[0].scopeSpans[0].spans.length)
        return new Response(null, { status: 200 })
      },
    })
    const telemetry = createTelemetry({ exporters: [otlp] })
    const span = () => telemetry.startSpan('s', { kind: 'server' }).end()
    span()
    const first = telemetry.flush()
    span()
    const second = telemetry.flush()
    expect(posts).toEqual([]) // nothing sent before the delay
    await Promise.all([first, second])
    expect(posts).toEqual([2])
    span()
    span()
    span()
    await telemetry.flush() // a full batch: sent without waiting
    expect(posts).toEqual([2, 3])
  })

  it('hands each batch to waitUntil once, from the request that started it', async () => {
    const spansPosted: number[] = []
    const otlp = otlpExporter({
      endpoint: 'http://127.0.0.1:4318',
      resource: {},
      flushDelayMs: 50,
      fetch: async (request) => {
        if (request.url.endsWith('/v1/traces'))
          spansPosted.push(JSON.parse(await request.text()).resourceSpans[0].scopeSpans[0].spans.length)
        return new Response(null, { status: 200 })
      },
    })
    const server = createMcpServer({
      name: 'unit',
      version: '1.0.0',
      telemetry: { tracer: () => createTelemetry({ exporters: [otlp] }), logs: 'off' },
    })
    server.tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))
    const handle = createMcpHandler(server)
    const waits: Promise<unknown>[] = []
    const env = {} // one isolate's env: the same object for every request, as workerd passes it
    for (let i = 0; i < 3; i++) {
      const request = new Request(ENDPOINT, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-method': 'tools/call',
          'mcp-name': 'add',
          'mcp-protocol-version': '2026-07-28',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: {
            name: 'add',
            arguments: { a: 1, b: i },
            _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
          },
        }),
      })
      const response = await handle(request, env, { waitUntil: (promise) => void waits.push(promise) })
      expect(response.status, await response.clone().text()).toBe(200)
    }
    expect(waits).toHaveLength(1)
    await Promise.all(waits)
    expect(spansPosted).toEqual([3])
  })

  it('records a call whose client went away as error.type cancelled', async () => {
    const recording = recordingExporter()
    const server = createMcpServer({
      name: 'unit',
      version: '1.0.0',
      telemetry: { tracer: () => createTelemetry({ exporters: [recording] }), logs: 'off' },
    })
    let started!: () => void
    const running = new Promise<void>((resolve) => {
      started = resolve
    })
    server.tool('wait', { input: z.object({}) }, async (_args, ctx) => {
      started()
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
      return { content: [{ type: 'text', text: 'stopped' }] }
    })
    const client = new AbortController()
    const request = new Request(ENDPOINT, {
      method: 'POST',
      signal: client.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-method': 'tools/call',
        'mcp-name': 'wait',
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'wait',
          arguments: {},
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    })
    const answered = createMcpHandler(server)(request, {})
    await running
    client.abort()
    await answered.then((response) => response.text()).catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(recording.spans.map((span) => [span.name, span.attributes['error.type'], span.status.code])).toEqual([
      ['tools/call wait', 'cancelled', 'error'],
    ])
  })

  it('refuses a plain-http collector that is not on loopback, saying how to fix it', () => {
    expect(() => otlpExporter({ endpoint: 'http://collector.example.com:4318', resource: {} })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be https \(http only on 127\.0\.0\.1 or localhost\)/,
    )
  })
})

describe('logs and hooks', () => {
  it('writes one line of JSON per message, with its trace, method, target, lane, outcome and duration', async () => {
    const { recording, lines, send } = setup()
    await send('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })
    await send('tools/call', { name: 'nope', arguments: {} })
    const records = lines.map((line) => JSON.parse(line))
    expect(records).toHaveLength(2)
    expect(records[0]).toMatchObject({
      level: 'info',
      msg: 'mcp request',
      trace_id: recording.spans[0]?.context.traceId,
      span_id: recording.spans[0]?.context.spanId,
      method: 'tools/call',
      target: 'add',
      lane: '2026-07-28',
      protocol_version: '2026-07-28',
      client: 'unit-client/2.0.0',
      outcome: 'complete',
    })
    expect(records[0].time).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(records[0].duration_ms).toBeTypeOf('number')
    expect(records[1]).toMatchObject({ level: 'warn', outcome: 'error', error_code: -32602 })
  })

  it('prints nothing at logs: off, and below the level it is given', async () => {
    const off = setup({ logs: 'off' })
    await off.send('tools/list')
    expect(off.lines).toEqual([])
  })

  it('writes a record as level, time and msg, then its defined fields in order; its own three win', () => {
    const lines: string[] = []
    let now = Date.UTC(2026, 11, 5, 4, 0, 0, 7)
    const log = createLog(
      'info',
      (_level, line) => lines.push(line),
      () => now,
    )
    log.info('mcp request', { method: 'tools/call', target: undefined, msg: 'forged', level: 'debug', duration_ms: 0 })
    log.warn('plain')
    log.error('empty', { skipped: undefined })
    now += 1
    log.info('later', { nested: { msg: 'kept' } })
    expect(lines).toEqual([
      '{"level":"info","time":"2026-12-05T04:00:00.007Z","msg":"mcp request","method":"tools/call","duration_ms":0}',
      '{"level":"warn","time":"2026-12-05T04:00:00.007Z","msg":"plain"}',
      '{"level":"error","time":"2026-12-05T04:00:00.007Z","msg":"empty"}',
      '{"level":"info","time":"2026-12-05T04:00:00.008Z","msg":"later","nested":{"msg":"kept"}}',
    ])
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
  })

  it('calls the hooks at the start and end of each request and tool call, with the outcome', async () => {
    const ends: RequestEnd[] = []
    const started: string[] = []
    const hooks: McpHooks = {
      onRequest: (info) => void started.push(`request ${info.method}`),
      onToolCall: (info) => void started.push(`tool ${info.target}`),
      onRequestEnd: (end) => void ends.push(end),
    }
    const { send } = setup({ hooks })
    await send('tools/call', { name: 'fail', arguments: {} })
    await send('tools/list')
    expect(started).toEqual(['tool fail', 'request tools/call', 'request tools/list'])
    expect(ends.map((end) => [end.method, end.outcome.kind])).toEqual([
      ['tools/call', 'tool_error'],
      ['tools/list', 'ok'],
    ])
  })
})

describe('privacy', () => {
  const everything = (recorded: ReturnType<typeof setup>) =>
    JSON.stringify({ spans: recorded.recording.spans, points: recorded.recording.points }) +
    recorded.posts.map((post) => post.body).join('') +
    recorded.lines.join('\n')

  it('records no argument, result, prompt argument, requestState, token or baggage by default', async () => {
    const recorded = setup()
    await recorded.send('tools/call', { name: 'echo', arguments: { text: CANARY } })
    await recorded.send('tools/call', { name: 'fail', arguments: {} })
    await recorded.send('prompts/get', { name: 'greet', arguments: { name: CANARY } })
    const asked = await recorded.send('tools/call', { name: 'confirm', arguments: {} })
    await recorded.send(
      'tools/call',
      {
        name: 'confirm',
        arguments: {},
        requestState: asked.result?.requestState,
        inputResponses: { ok: { action: 'accept', content: { yes: true } } },
      },
      { meta: { baggage: `user=${CANARY}` }, headers: { authorization: `Bearer ${CANARY}` } },
    )
    expect(typeof asked.result?.requestState).toBe('string')
    const all = everything(recorded)
    expect(all).not.toContain(CANARY)
    expect(all).not.toContain(String(asked.result?.requestState))
  })

  it('records a field only when opted in, capped and through redact', async () => {
    const recorded = setup({
      record: {
        toolArguments: true,
        toolResults: true,
        maxBytes: 40,
        redact: (_field, value) => JSON.parse(JSON.stringify(value).replaceAll('secret', '[redacted]')),
      },
    })
    await recorded.send('tools/call', { name: 'echo', arguments: { text: 'secret and a long tail of words to cut' } })
    const span = recorded.recording.spans[0]
    expect(span?.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"[redacted] and a …[truncated]')
    expect(String(span?.attributes['gen_ai.tool.call.result'])).toMatch(/^\{"content":\[.*…\[truncated\]$/)
    expect(new TextEncoder().encode(String(span?.attributes['gen_ai.tool.call.result'])).length).toBeLessThanOrEqual(40)
    await recorded.send('prompts/get', { name: 'greet', arguments: { name: CANARY } })
    expect(everything(recorded)).not.toContain(CANARY) // prompt arguments were not opted in
  })
})

describe('telemetry never breaks the work it observes', () => {
  const lines: string[] = []
  const log = createLog('debug', (_level, line) => lines.push(line))
  const msgs = () => lines.map((line) => JSON.parse(line).msg as string)
  const broken = {
    exportSpan() {
      throw new Error('exporter bug')
    },
    recordOperation() {},
    flush: async () => {},
  }
  const addServer = (telemetry: Parameters<typeof createMcpServer>[0]['telemetry']) =>
    createMcpServer({ name: 'unit', version: '1.0.0', telemetry }).tool(
      'add',
      { input: z.object({ a: z.number(), b: z.number() }), task: 'optional' },
      ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    )
  const post = (name: string) =>
    new Request(ENDPOINT, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-method': 'tools/call',
        'mcp-name': name,
        'mcp-protocol-version': '2026-07-28',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name,
          arguments: { a: 2, b: 3 },
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    })
  afterEach(() => {
    lines.length = 0
  })

  it('answers when an exporter throws, and says so once', async () => {
    const onRequestEnd = vi.fn()
    const handle = createMcpHandler(
      addServer({ tracer: () => createTelemetry({ exporters: [broken] }), log, hooks: { onRequestEnd } }),
    )
    const env = {}
    for (let i = 0; i < 2; i++) {
      const body = (await (await handle(post('add'), env)).json()) as { result?: { content: unknown } }
      expect(body.result?.content).toEqual([{ type: 'text', text: '5' }])
    }
    expect(msgs().filter((msg) => msg.startsWith('telemetry failed'))).toHaveLength(1)
    expect(onRequestEnd).not.toHaveBeenCalled() // the failed end stopped there, and did not run twice
  })

  it('serves without traces when OTEL_* is wrong, saying so once per env', async () => {
    const handle = createMcpHandler(addServer({ tracer: otlpFromEnv, log }))
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER_ARG: 'lots' }
    for (let i = 0; i < 2; i++) expect((await handle(post('add'), env)).status).toBe(200)
    const said = lines.map((line) => JSON.parse(line)).filter((record) => record.msg.startsWith('telemetry not configured'))
    expect(said).toEqual([expect.objectContaining({ level: 'error', error: expect.stringContaining('OTEL_TRACES_SAMPLER_ARG') })])
  })

  it('names a tool that is not registered _OTHER, in the span and the metric (a client chooses that name)', async () => {
    const recording = recordingExporter()
    const handle = createMcpHandler(addServer({ tracer: () => createTelemetry({ exporters: [recording] }), logs: 'off' }))
    await handle(post('x'.repeat(500)), {})
    await handle(post('add'), {})
    expect(recording.spans.map((span) => [span.name, span.attributes['gen_ai.tool.name']])).toEqual([
      ['tools/call _OTHER', '_OTHER'],
      ['tools/call add', 'add'],
    ])
    expect(recording.points.map((point) => point.attributes['gen_ai.tool.name'])).toEqual(['_OTHER', 'add'])
  })

  it("runs a task to completion when its spans' exporter throws, each step once", async () => {
    let ran = 0
    const server = createMcpServer({
      name: 'unit',
      version: '1.0.0',
      telemetry: { tracer: () => createTelemetry({ exporters: [broken] }), log },
    }).tool('two_steps', { input: z.object({}), task: 'always' }, async (_args, ctx) => {
      for (const name of ['one', 'two']) await ctx.step(name, () => ++ran)
      return { content: [{ type: 'text', text: 'done' }] }
    })
    const store = new MemoryTaskStore()
    const tasks = new TaskEngine(server, {}, store.connect())
    await tasks.create('t1', {
      tool: 'two_steps',
      arguments: {},
      prepared: undefined,
      protocolVersion: '2026-07-28',
      clientCapabilities: {},
      ttlMs: 10_000,
      pollIntervalMs: 100,
      partialLog: false,
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    })
    await tasks.alarm()
    expect((await tasks.get(null))?.task).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'done' }] },
    })
    expect(ran).toBe(2)
    expect(msgs().filter((msg) => msg.startsWith('telemetry failed'))).toHaveLength(1)
  })
})
