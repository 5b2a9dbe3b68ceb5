/**
 * Workers' own tracing, as the native backend of mcp-edge's telemetry: each sampled MCP span is
 * mirrored into a span of the runtime (`tracing.startSpan` from cloudflare:workers), so traces in
 * Cloudflare's dashboard and OTLP destinations show the MCP spans among the platform's own
 * (fetch, KV, Durable Objects). The runtime names each span's trace itself: it does not take a
 * W3C parent (a client's `_meta` context reaches the OTLP exporter only). Where the runtime has no
 * span API (an older workerd), this is `undefined` and nothing is mirrored.
 */
import * as workers from 'cloudflare:workers'
import type { NativeTracing } from '../server/telemetry/tracer.ts'

/**
 * The runtime's tracing, when it has one.
 *
 * @example
 * createMcpServer({ name: 'weather', version: '1.0.0', telemetry: { native: workersTracing() } })
 */
export function workersTracing(): NativeTracing | undefined {
  const tracing = (workers as { tracing?: { startSpan?: unknown } }).tracing
  return typeof tracing?.startSpan === 'function' ? (tracing as NativeTracing) : undefined
}
