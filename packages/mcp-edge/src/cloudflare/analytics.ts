/**
 * `mcp.server.operation.duration` into Workers Analytics Engine: Workers export no metrics, and
 * Analytics Engine is the platform's store for them (written from the Worker, queried with SQL,
 * no collector to run). One data point per MCP message, written where the OTLP histogram point is
 * recorded, laid out as docs/observability.md ("Metrics in Analytics Engine") gives it:
 *
 * - index 1: `{mcp.method.name} {target}` (the sampling key), cut to the platform's 96 bytes;
 * - blob 1 to 4: `mcp.method.name`, the tool or prompt (or ''), `error.type` (or ''),
 *   `mcp.protocol.version`;
 * - double 1: the duration in seconds.
 *
 * Spans are not written: they go to OTLP and Workers' own tracing.
 */
import { ConfigurationError } from '../server/errors.ts'
import { utf8Prefix } from '../server/telemetry/recorded.ts'
import type { OperationPoint, TelemetryExporter } from '../server/telemetry/tracer.ts'

export interface AnalyticsEngineOptions {
  /** Name of the Analytics Engine dataset binding (`analytics_engine_datasets` in wrangler.jsonc). */
  binding: string
}

/** What mcp-edge uses of an Analytics Engine dataset binding. */
export interface DataPointWriter {
  writeDataPoint(point: { indexes?: string[]; blobs?: string[]; doubles?: number[] }): void
}

/** The platform's limit on an index, in bytes. */
export const MAX_INDEX_BYTES = 96
const NOW = Promise.resolve()

/**
 * The metrics exporter of a Worker env, for `telemetry.metrics`.
 *
 * @example
 * createMcpServer({ name: 'weather', version: '1.0.0', telemetry: { metrics: analyticsEngine({ binding: 'MCP_METRICS' }) } })
 */
export function analyticsEngine(options: AnalyticsEngineOptions): (env: unknown) => TelemetryExporter {
  return (env) => {
    const dataset = (env as Record<string, unknown> | undefined)?.[options.binding] as DataPointWriter | undefined
    if (typeof dataset?.writeDataPoint !== 'function') {
      throw new ConfigurationError(
        `analyticsEngine: binding ${options.binding} is missing; add it to wrangler.jsonc: "analytics_engine_datasets": [{ "binding": "${options.binding}", "dataset": "mcp_operations" }]`,
      )
    }
    return analyticsEngineExporter(dataset)
  }
}

/**
 * An exporter writing one data point per operation to `dataset`.
 *
 * @example
 * createTelemetry({ exporters: [analyticsEngineExporter(env.MCP_METRICS)] })
 */
export function analyticsEngineExporter(dataset: DataPointWriter): TelemetryExporter {
  return {
    exportSpan() {},
    recordOperation(point: OperationPoint) {
      const text = (key: string) => {
        const value = point.attributes[key]
        return typeof value === 'string' ? value : ''
      }
      const method = text('mcp.method.name')
      const target = text('gen_ai.tool.name') || text('gen_ai.prompt.name')
      dataset.writeDataPoint({
        indexes: [utf8Prefix(target ? `${method} ${target}` : method, MAX_INDEX_BYTES)],
        blobs: [method, target, text('error.type'), text('mcp.protocol.version')],
        doubles: [point.seconds],
      })
    },
    flush: () => NOW,
  }
}
