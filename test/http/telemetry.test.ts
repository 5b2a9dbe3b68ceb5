/**
 * Telemetry as an operator gets it: the demo under `wrangler dev` with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at an OTLP collector on 127.0.0.1 (test/support/otlp-collector.ts). The client's trace
 * id and span become the span's trace and parent, the HTTP traceparent a link; a multi-round-trip
 * call is one span per round; a task call names its task; the duration histogram arrives with the
 * conventions' buckets; and each message prints one line of JSON. Nothing the client sent in
 * arguments reaches the collector or the log.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as z from 'zod'
import { startCollector } from '../support/otlp-collector.ts'
import type { Collector } from '../support/otlp-collector.ts'
import { rpc } from '../support/mcp.ts'
import { startWrangler } from '../support/wrangler.ts'
import type { WranglerServer } from '../support/wrangler.ts'

const CLIENT = { trace: '5b8efff798038103d269b633813fc60c', span: 'eee19b7ec3c1b174' }
const HTTP = { trace: '0123456789abcdef0123456789abcdef', span: '0123456789abcdef' }
const CANARY = 'canary-otlp-91d2'

/** The request line's schema (docs/observability.md): every field named, nothing else. */
const REQUEST_LINE = z.strictObject({
  level: z.enum(['debug', 'info', 'warn', 'error']),
  time: z.iso.datetime(),
  msg: z.literal('mcp request'),
  trace_id: z.optional(z.string().regex(/^[0-9a-f]{32}$/)),
  span_id: z.optional(z.string().regex(/^[0-9a-f]{16}$/)),
  method: z.string().min(1),
  target: z.optional(z.string()),
  lane: z.enum(['2026-07-28', '2025']),
  protocol_version: z.string(),
  client: z.optional(z.string()),
  outcome: z.enum(['complete', 'input_required', 'task', 'error', 'tool_error', 'cancelled']),
  error_code: z.optional(z.int()),
  duration_ms: z.int().nonnegative(),
  chunks: z.optional(z.int().positive()),
  chunk_bytes: z.optional(z.int().nonnegative()),
  max_gap_ms: z.optional(z.int().nonnegative()),
  dropped: z.optional(z.int().positive()),
})

describe('telemetry of the demo under wrangler dev, exported to a local OTLP collector', () => {
  let collector: Collector
  let demo: WranglerServer

  beforeAll(async () => {
    collector = await startCollector()
    demo = await startWrangler({
      config: 'apps/demo/wrangler.jsonc',
      vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint },
      logLevel: 'log', // wrangler prints a Worker's console.log at its 'log' level, below 'info'
    })
  })

  afterAll(async () => {
    await demo?.stop()
    await collector?.close()
  })

  it("makes the client's span the parent and the HTTP traceparent a link, and sends OTLP JSON", async () => {
    const { message } = await rpc(
      fetch,
      demo.url,
      'tools/call',
      { name: 'add', arguments: { a: 2, b: 3 } },
      {
        meta: { traceparent: `00-${CLIENT.trace}-${CLIENT.span}-01` },
        headers: { traceparent: `00-${HTTP.trace}-${HTTP.span}-01` },
      },
    )
    expect(message.result?.content).toEqual([{ type: 'text', text: '5' }])
    const spans = await collector.waitFor((all) => all.some((span) => span.traceId === CLIENT.trace))
    const span = spans.find((candidate) => candidate.traceId === CLIENT.trace)
    expect(span).toMatchObject({ name: 'tools/call add', kind: 2, parentSpanId: CLIENT.span, service: 'mcp-edge-template' })
    expect(span?.links).toEqual([expect.objectContaining({ traceId: HTTP.trace, spanId: HTTP.span })])
    expect(span?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'mcp_edge.result_type': 'complete',
    })
    expect(collector.requests().every((request) => request.contentType === 'application/json')).toBe(true)
  })

  it('records a multi-round-trip call as one span per round, in the client trace', async () => {
    const trace = 'feedfacefeedfacefeedfacefeedface'
    const meta = (span: string) => ({ traceparent: `00-${trace}-${span}-01` })
    const capabilities = { elicitation: { form: {} } }
    const first = await rpc(
      fetch,
      demo.url,
      'tools/call',
      { name: 'delete_record', arguments: { id: 'r9' } },
      { capabilities, meta: meta('1111111111111111') },
    )
    expect(first.message.result?.resultType).toBe('input_required')
    await rpc(
      fetch,
      demo.url,
      'tools/call',
      {
        name: 'delete_record',
        arguments: { id: 'r9' },
        requestState: first.message.result?.requestState,
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      },
      { capabilities, meta: meta('2222222222222222') },
    )
    const spans = await collector.waitFor((all) => all.filter((span) => span.traceId === trace).length === 2)
    const rounds = spans
      .filter((span) => span.traceId === trace)
      .map((span) => [span.parentSpanId, span.attributes['mcp_edge.input.round'], span.attributes['mcp_edge.result_type']])
    expect(rounds).toEqual([
      ['1111111111111111', 1, 'input_required'],
      ['2222222222222222', 2, 'complete'],
    ])
    // Round 2 links to round 1's span (its context travels sealed in requestState).
    const [one, two] = spans.filter((span) => span.traceId === trace)
    expect(two?.links).toEqual([expect.objectContaining({ traceId: trace, spanId: one?.spanId })])
  })

  it('names the task a call became; its runs in the Durable Object link back to that call, each logging a line', async () => {
    const trace = 'abcabcabcabcabcabcabcabcabcabcab'
    const { message } = await rpc(
      fetch,
      demo.url,
      'tools/call',
      { name: 'generate_report', arguments: { subject: 'otlp', sections: 1 } },
      {
        capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        meta: { traceparent: `00-${trace}-3333333333333333-01` },
      },
    )
    expect(message.result?.resultType).toBe('task')
    const spans = await collector.waitFor((all) => all.some((span) => span.traceId === trace))
    const creating = spans.find((span) => span.traceId === trace)
    expect(creating?.attributes).toMatchObject({ 'mcp_edge.result_type': 'task', 'mcp_edge.task.id': message.result?.taskId })
    const ofTask = (span: { attributes: Record<string, unknown> }) =>
      span.attributes['mcp_edge.task.id'] === message.result?.taskId
    const all = await collector.waitFor((found) =>
      found.some(
        (span) =>
          ofTask(span) && span.name === 'task.run generate_report' && span.attributes['mcp_edge.task.status'] === 'completed',
      ),
    )
    const runs = all.filter((span) => ofTask(span) && span.name === 'task.run generate_report')
    for (const run of runs) {
      expect(run).toMatchObject({ kind: 5, links: [expect.objectContaining({ traceId: trace, spanId: creating?.spanId })] })
      expect(run.parentSpanId).toBeFalsy()
    }
    const steps = all.filter((span) => ofTask(span) && span.name.startsWith('task.step '))
    expect(steps.length).toBeGreaterThan(0)
    for (const step of steps) expect(runs.map((run) => run.spanId)).toContain(step.parentSpanId)
    const lines = readFileSync(demo.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"task run"'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))))
    const last = runs.find((run) => run.attributes['mcp_edge.task.status'] === 'completed')
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        task_id: message.result?.taskId,
        tool: 'generate_report',
        status: 'completed',
        trace_id: last?.traceId,
        span_id: last?.spanId,
      }),
    )
  })

  it('sends mcp.server.operation.duration with the conventions buckets, by method and tool', async () => {
    await rpc(fetch, demo.url, 'tools/list', {})
    const deadline = Date.now() + 10_000
    while (!collector.points().some((point) => point.attributes['mcp.method.name'] === 'tools/list') && Date.now() < deadline) {
      await new Promise((done) => setTimeout(done, 50))
    }
    const add = collector.points().find((point) => point.attributes['gen_ai.tool.name'] === 'add')
    expect(add).toMatchObject({
      attributes: { name: 'mcp.server.operation.duration', 'mcp.method.name': 'tools/call' },
      count: 1,
    })
    expect(add?.explicitBounds).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300])
    expect(collector.points().some((point) => point.attributes['mcp.method.name'] === 'tools/list')).toBe(true)
  })

  it('prints one line of JSON per message, and records no argument anywhere', async () => {
    await rpc(fetch, demo.url, 'tools/call', { name: 'get_weather', arguments: { city: CANARY } })
    await collector.waitFor((all) => all.some((span) => span.attributes['gen_ai.tool.name'] === 'get_weather'))
    const lines = readFileSync(demo.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"msg":"mcp request"'))
      .map((line) => JSON.parse(line.slice(line.indexOf('{'))))
    const weather = lines.find((line) => line.target === 'get_weather')
    expect(weather, `no request line in ${demo.logFile}`).toMatchObject({
      level: 'info',
      method: 'tools/call',
      lane: '2026-07-28',
      outcome: 'complete',
    })
    expect(weather.trace_id).toMatch(/^[0-9a-f]{32}$/)
    expect(lines.length).toBeGreaterThanOrEqual(5)
    for (const line of lines) expect(REQUEST_LINE.safeParse(line).error, JSON.stringify(line)).toBeUndefined()
    expect(JSON.stringify(collector.spans()) + JSON.stringify(collector.points())).not.toContain(CANARY)
    expect(readFileSync(demo.logFile, 'utf8')).not.toContain(CANARY)
  })

  it('answers every call whatever trace context it carries: 150 generated traceparent, tracestate and header values', async () => {
    const hex = fc.constantFrom(...'0123456789abcdefABCDEF-0'.split(''))
    const nearly = fc.string({ unit: hex, minLength: 50, maxLength: 60 })
    const anyValue = fc.oneof(nearly, fc.string(), fc.anything())
    // A header value: printable ASCII only (fetch refuses anything else before it is sent).
    const header = fc.oneof(
      nearly,
      fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) }),
    )
    const cases = fc.sample(fc.record({ traceparent: anyValue, tracestate: anyValue, header }), { numRuns: 150, seed: 24 })
    for (const { traceparent, tracestate, header: value } of cases) {
      const { status, message } = await rpc(
        fetch,
        demo.url,
        'tools/call',
        { name: 'add', arguments: { a: 1, b: 2 } },
        {
          meta: { traceparent, tracestate },
          headers: { traceparent: value },
        },
      )
      expect({ status, content: message.result?.content }, JSON.stringify({ traceparent, tracestate, value })).toEqual({
        status: 200,
        content: [{ type: 'text', text: '3' }],
      })
    }
  })

  it("mirrors each MCP span into the runtime's tracing: wrangler's local trace store has it inside the invocation, and `mcp-edge spans` prints it", async () => {
    const trace = 'cafe0000cafe0000cafe0000cafe0000'
    await rpc(
      fetch,
      demo.url,
      'tools/call',
      { name: 'add', arguments: { a: 20, b: 22 } },
      { meta: { traceparent: `00-${trace}-cafe0000cafe0000-01` } },
    )
    const origin = new URL(demo.url).origin
    const query = async (sql: string, params: unknown[]) => {
      const response = await fetch(`${origin}/cdn-cgi/local/explorer/api/local/observability/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sql, params }),
      })
      const { result } = (await response.json()) as { result: { columns: string[]; rows: unknown[][] } }
      return result.rows.map((row) => Object.fromEntries(result.columns.map((column, i) => [column, row[i]])))
    }
    const sql = `select s.name, s.kind, json(s.attributes) as attributes, p.name as parent from spans s join spans p
      on p.trace_id = s.trace_id and p.span_id = s.parent_id where json_extract(s.attributes, '$."mcp_edge.trace_id"') = ?`
    let rows: Record<string, unknown>[] = []
    for (let poll = 0; poll < 50 && rows.length === 0; poll++) {
      rows = await query(sql, [trace])
      if (rows.length === 0) await new Promise((done) => setTimeout(done, 100))
    }
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ name: 'tools/call add', parent: 'POST' })
    expect(JSON.parse(String(rows[0]?.attributes))).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'mcp_edge.trace_id': trace,
    })

    const cli = spawnSync(
      process.execPath,
      ['packages/mcp-edge/bin/mcp-edge.mjs', 'spans', '--port', String(demo.port), '--trace', trace],
      { encoding: 'utf8' },
    )
    expect(cli.status, cli.stderr).toBe(0)
    expect(cli.stdout).toMatch(new RegExp(`tools/call add +complete +trace [0-9a-f]{32}  mcp trace ${trace}  \\(in POST\\)`))
    const refused = spawnSync(process.execPath, ['packages/mcp-edge/bin/mcp-edge.mjs', 'spans', '--last', 'many'], {
      encoding: 'utf8',
    })
    expect({ status: refused.status, stderr: refused.stderr.trim() }).toEqual({
      status: 1,
      stderr: '--last takes a whole number from 1 to 10000',
    })
    const nobody = spawnSync(process.execPath, ['packages/mcp-edge/bin/mcp-edge.mjs', 'spans', '--port', '1'], {
      encoding: 'utf8',
    })
    expect({ status: nobody.status, stderr: nobody.stderr.trim() }).toEqual({
      status: 1,
      stderr: 'Nothing answers at http://127.0.0.1:1: start the server first (npm run dev), or pass --port.',
    })
  })
})
