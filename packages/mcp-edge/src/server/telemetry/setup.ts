/**
 * A server's telemetry setting (`createMcpServer({ telemetry })`) turned into one observer per
 * Worker env, built at the env's first message and kept: the tracer (`tracer`, for example
 * `otlpFromEnv`: OTLP from OpenTelemetry's environment variables), the log level, the
 * trace-context mode, hooks and opt-in recording. With the defaults, that is the one log line per
 * message and nothing else; the exporters' code is in a bundle only when `tracer` names it.
 */
import { createLog, errorFields } from './log.ts'
import type { Log } from './log.ts'
import { createObserver } from './observe.ts'
import type { ObserveOptions, Observer } from './observe.ts'
import { createTelemetry } from './tracer.ts'
import type { NativeTracing, Telemetry, TelemetryExporter } from './tracer.ts'

export interface TelemetryConfig extends Omit<ObserveOptions, 'telemetry'> {
  /**
   * The spans and the duration histogram for a Worker env, or none (`undefined`, the default).
   * `otlpFromEnv`: OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT when that var or secret is set.
   */
  tracer?: (env: unknown, service: TracedService) => Telemetry | undefined
  /** Mirror spans into the runtime's own tracing (Workers: `workersTracing()` from mcp-edge/cloudflare). */
  native?: NativeTracing | undefined
  /**
   * Also write `mcp.server.operation.duration` here, with or without a tracer (Workers:
   * `analyticsEngine({ binding })` from mcp-edge/cloudflare, one data point per message).
   */
  metrics?: ((env: unknown) => TelemetryExporter | undefined) | undefined
}

/** What a tracer is told about the server it traces. */
export interface TracedService {
  serviceName: string
  serviceVersion: string
  native?: NativeTracing | undefined
}

/** What the server keeps: the observer of an env, built once. */
export interface ObserverCache {
  for(env: unknown): Observer | undefined
  /**
   * Where a task's run in its Durable Object writes its log line: `log`, or `undefined` with logs
   * off (task-run.ts `observeTaskRun`; the task engine imports that, so a bundle without tasks
   * carries none of it).
   */
  readonly runLog: Log | undefined
  /** The spans of an env (events: publish and delivery); `undefined` when not traced. */
  telemetry(env: unknown): Telemetry | undefined
  /**
   * The spans of the env this isolate served last: for what is called without one (a publish
   * from a tool or a `scheduled` handler). Until the isolate has served a message, none.
   */
  latest(): Telemetry | undefined
  readonly log: Log
}

const NO_ENV = {}

export function createObserverCache(config: TelemetryConfig = {}, service: { name: string; version: string }): ObserverCache {
  const { tracer, native, metrics, ...observe } = config
  const log = observe.log ?? createLog(observe.logs === 'off' || observe.logs === undefined ? 'info' : observe.logs)
  const built = new WeakMap<object, { observer: Observer | undefined; telemetry: Telemetry | undefined }>()
  let latest: Telemetry | undefined
  const build = (env: unknown) => {
    const key = typeof env === 'object' && env !== null ? env : NO_ENV
    let found = built.get(key)
    if (found) latest = found.telemetry
    else {
      let telemetry: Telemetry | undefined
      try {
        telemetry = tracer
          ? tracer(env, { serviceName: service.name, serviceVersion: service.version, native })
          : native && createTelemetry({ native })
      } catch (error) {
        // A bad OTEL_* setting costs the traces, never the server: said once per env, then served.
        log.error('telemetry not configured; serving without traces', errorFields(error))
      }
      try {
        const points = metrics?.(env)
        if (points) telemetry = withMetrics(telemetry, points)
      } catch (error) {
        log.error('metrics not configured; serving without them', errorFields(error))
      }
      found = { telemetry, observer: createObserver({ ...observe, telemetry, log }) }
      built.set(key, found)
      latest = telemetry
    }
    return found
  }
  return {
    log,
    for: (env) => build(env).observer,
    telemetry: (env) => build(env).telemetry,
    latest: () => latest,
    runLog: observe.logs === 'off' ? undefined : log,
  }
}

/**
 * `telemetry` with one more place for its duration points. Without a tracer, spans are not
 * sampled (nothing would receive them), unless a client's sampled context asks for them.
 */
function withMetrics(telemetry: Telemetry | undefined, metrics: TelemetryExporter): Telemetry {
  if (!telemetry) return createTelemetry({ exporters: [metrics], sampleRatio: 0 })
  /** The pending sends of both, and their union: the same promise while they are the same. */
  let last: { traces: Promise<void>; points: Promise<void>; both: Promise<void> } | undefined
  return {
    startSpan: (name, options) => telemetry.startSpan(name, options),
    recordOperation(point) {
      telemetry.recordOperation(point)
      metrics.recordOperation(point)
    },
    flush() {
      const traces = telemetry.flush()
      const points = metrics.flush()
      if (last?.traces !== traces || last.points !== points) {
        last = { traces, points, both: Promise.all([traces, points]).then(() => {}) }
      }
      return last.both
    },
  }
}
