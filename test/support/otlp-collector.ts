/**
 * A minimal OTLP/HTTP collector on 127.0.0.1 for the tests: it accepts JSON bodies on /v1/traces
 * and /v1/metrics (200, anything else 404), keeps what it got, and flattens it: spans with their
 * attributes as plain values, histogram data points by attribute set.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface CollectedSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  flags?: number
  attributes: Record<string, unknown>
  links: { traceId: string; spanId: string }[]
  status: { code?: number; message?: string }
  service: unknown
}

export interface CollectedPoint {
  attributes: Record<string, unknown>
  count: number
  bucketCounts: string[]
  explicitBounds: number[]
}

export interface Collector {
  endpoint: string
  spans(): CollectedSpan[]
  points(): CollectedPoint[]
  /** Every request the collector received, as (path, content-type). */
  requests(): { path: string; contentType: string | undefined }[]
  /** Wait until `predicate` holds for the spans (polling every 50 ms), or fail after `timeoutMs`. */
  waitFor(predicate: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>
  close(): Promise<void>
}

type AnyValue = {
  stringValue?: string
  intValue?: string
  doubleValue?: number
  boolValue?: boolean
  arrayValue?: { values: AnyValue[] }
}
const plain = (value: AnyValue): unknown =>
  value.stringValue ??
  (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
  value.doubleValue ??
  value.boolValue ??
  value.arrayValue?.values.map(plain)
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((kv) => [kv.key, plain(kv.value)]))

export async function startCollector(): Promise<Collector> {
  const spans: CollectedSpan[] = []
  const points: CollectedPoint[] = []
  const requests: { path: string; contentType: string | undefined }[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      requests.push({ path: request.url ?? '', contentType: request.headers['content-type'] })
      if (request.method !== 'POST' || (request.url !== '/v1/traces' && request.url !== '/v1/metrics')) {
        response.writeHead(404).end()
        return
      }
      const json = JSON.parse(body)
      if (request.url === '/v1/traces') {
        for (const resource of json.resourceSpans ?? []) {
          const service = attributesOf(resource.resource?.attributes)['service.name']
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? [])
              spans.push({ ...span, attributes: attributesOf(span.attributes), links: span.links ?? [], service })
          }
        }
      } else {
        for (const resource of json.resourceMetrics ?? []) {
          for (const scope of resource.scopeMetrics ?? []) {
            for (const metric of scope.metrics ?? []) {
              for (const point of metric.histogram?.dataPoints ?? []) {
                points.push({
                  attributes: { name: metric.name, ...attributesOf(point.attributes) },
                  count: Number(point.count),
                  bucketCounts: point.bucketCounts,
                  explicitBounds: point.explicitBounds,
                })
              }
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => spans,
    points: () => points,
    requests: () => requests,
    async waitFor(predicate, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `the collector did not get the spans in ${timeoutMs} ms; it has: ${spans.map((span) => span.name).join(', ')}`,
          )
        await new Promise((done) => setTimeout(done, 50))
      }
      return spans
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  }
}
