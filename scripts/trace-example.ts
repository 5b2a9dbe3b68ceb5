#!/usr/bin/env node
/**
 * `node scripts/trace-example.ts`: the trace of one multi-round-trip call and one task, as the
 * demo exports them over OTLP (a collector on 127.0.0.1, the demo under `wrangler dev`). Prints
 * each span's name, kind (OTLP: 1 internal, 2 server, 3 client, 4 producer, 5 consumer), ids,
 * parent, links and the attributes that tell rounds and tasks apart. docs/observability.md says
 * what each means. Needs `npm run build` first (the demo bundles the built package).
 */
import type { CollectedSpan } from '../test/support/otlp-collector.ts'
import { startCollector } from '../test/support/otlp-collector.ts'
import { rpc } from '../test/support/mcp.ts'
import { startWrangler } from '../test/support/wrangler.ts'

const MRTR_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
const TASK_TRACE = '0af7651916cd43dd8448eb211c80319c'
const SHOWN = /round|result_type|task|tool\.name|error|status|link/

function show(span: CollectedSpan): string {
  const links = span.links.map((link) => {
    const attributes = (link as { attributes?: { key: string; value: { stringValue?: string } }[] }).attributes ?? []
    const named = Object.fromEntries(attributes.map((attribute) => [attribute.key, attribute.value.stringValue]))
    return `${link.traceId}/${link.spanId}${attributes.length ? ` ${JSON.stringify(named)}` : ''}`
  })
  const attributes = Object.fromEntries(Object.entries(span.attributes).filter(([key]) => SHOWN.test(key)))
  const { name, kind, traceId, spanId } = span
  return JSON.stringify({ name, kind, traceId, spanId, parent: span.parentSpanId || null, links, attributes })
}

const collector = await startCollector()
const demo = await startWrangler({
  config: 'apps/demo/wrangler.jsonc',
  vars: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint },
})
try {
  // A call in two rounds: the client asks, is asked to confirm, answers; each round its own span.
  const capabilities = { elicitation: { form: {} } }
  const round = (span: string) => ({ capabilities, meta: { traceparent: `00-${MRTR_TRACE}-${span}-01` } })
  const args = { name: 'delete_record', arguments: { id: 'r1' } }
  const first = await rpc(fetch, demo.url, 'tools/call', args, round('00f067aa0ba902b7'))
  const answers = { confirm: { action: 'accept', content: { confirm: true } } }
  const requestState = first.message.result?.requestState
  await rpc(fetch, demo.url, 'tools/call', { ...args, requestState, inputResponses: answers }, round('00f067aa0ba902b8'))

  // A call that becomes a task, run in its Durable Object.
  const task = await rpc(
    fetch,
    demo.url,
    'tools/call',
    { name: 'generate_report', arguments: { subject: 'tides', sections: 2 } },
    {
      capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } },
      meta: { traceparent: `00-${TASK_TRACE}-b7ad6b7169203331-01` },
    },
  )
  const taskId = task.message.result?.taskId as string
  const ofTask = (span: CollectedSpan) => span.attributes['mcp_edge.task.id'] === taskId
  await collector.waitFor(
    (all) => all.some((span) => ofTask(span) && span.attributes['mcp_edge.task.status'] === 'completed'),
    30_000,
  )
  // The steps' batch may follow the run's: wait until nothing new arrives for a second.
  for (let seen = -1; seen !== collector.spans().length; ) {
    seen = collector.spans().length
    await new Promise((done) => setTimeout(done, 1000))
  }
  console.log('MRTR call:')
  for (const span of collector.spans().filter((found) => found.traceId === MRTR_TRACE)) console.log(show(span))
  console.log('Task:')
  const creating = collector.spans().find((found) => found.traceId === TASK_TRACE)
  if (creating) console.log(show(creating))
  for (const span of collector.spans().filter((found) => ofTask(found) && found !== creating)) console.log(show(span))
} finally {
  await demo.stop()
  await collector.close()
}
