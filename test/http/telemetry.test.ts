/**
 * Telemetry as an operator gets it: the demo under `wrangler dev` with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at an OTLP collector on 127.0.0.1 (test/support/otlp-collector.ts). The client's trace
 * id and span become the span's trace and parent, the HTTP traceparent a link; a multi-round-trip
 * call is one span per round; a task call names its task; the duration histogram arrives with the
 * conventions' buckets; and each message prints one line of JSON. Nothing the client sent in
 * arguments reaches the collector or the log.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCollector } from '../support/otlp-collector.ts'
import type { Collector } from '../support/otlp-collector.ts'
import { rpc } from '../support/mcp.ts'
import { startWrangler } from '../support/wrangler.ts'
import type { WranglerServer } from '../support/wrangler.ts'

const CLIENT = { trace: '5b8efff798038103d269b633813fc60c', span: 'eee19b7ec3c1b174' }
const HTTP = { trace: '0123456789abcdef0123456789abcdef', span: '0123456789abcdef' }
const CANARY = 'canary-otlp-91d2'

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
  })

  it('names the task a call became', async () => {
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
    expect(spans.find((span) => span.traceId === trace)?.attributes).toMatchObject({
      'mcp_edge.result_type': 'task',
      'mcp_edge.task.id': message.result?.taskId,
    })
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
    expect(JSON.stringify(collector.spans()) + JSON.stringify(collector.points())).not.toContain(CANARY)
    expect(readFileSync(demo.logFile, 'utf8')).not.toContain(CANARY)
  })
})
