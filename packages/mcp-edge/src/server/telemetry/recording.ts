/**
 * An exporter that keeps everything in memory, for tests: every finished span and every metric
 * point, in the order they ended. Test your own instrumentation with it (a hook, a span your tool
 * adds), or assert what mcp-edge records.
 */
import type { FinishedSpan, OperationPoint, TelemetryExporter } from './tracer.ts'

export interface RecordingExporter extends TelemetryExporter {
  readonly spans: FinishedSpan[]
  readonly points: OperationPoint[]
  /** Forget what was recorded. */
  clear(): void
}

/**
 * @example
 * const recording = recordingExporter()
 * const server = createMcpServer({ name: 'x', version: '1', telemetry: { tracer: () => createTelemetry({ exporters: [recording] }) } })
 */
export function recordingExporter(): RecordingExporter {
  const spans: FinishedSpan[] = []
  const points: OperationPoint[] = []
  return {
    spans,
    points,
    exportSpan: (span) => void spans.push(span),
    recordOperation: (point) => void points.push(point),
    flush: async () => {},
    clear() {
      spans.length = 0
      points.length = 0
    },
  }
}
