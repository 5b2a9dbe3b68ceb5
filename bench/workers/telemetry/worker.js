/**
 * The telemetry bench Worker (bench/telemetry.mjs): one `add` tool, its telemetry chosen by the
 * TELEMETRY binding. `off`: no log line, no tracer (nothing is built per request); `logs`: the
 * default (one JSON line per message); `native`: plus spans mirrored into Workers' tracing;
 * `otlp`: the templates' setting with OTEL_EXPORTER_OTLP_ENDPOINT set, every request sampled and
 * exported; `traced`: the OTLP export alone (no log line, no mirror); `mirrored`: `otlp` in an
 * invocation the runtime traces (every span mirrored). Namespace imports, so that the same file also builds against a library from before
 * telemetry (the `ref` lane), where those names are undefined.
 */
import { Hono } from 'hono'
import * as edge from 'mcp-edge'
import * as cloudflare from 'mcp-edge/cloudflare'
import * as z from 'zod/mini'

/**
 * Workers' tracing as a traced invocation has it: plain Miniflare traces none, so this says every
 * invocation is traced, and each span is made, given its attributes and ended in the runtime, as
 * a deployed template with `head_sampling_rate: 1` calls it (a lower bound of what that costs:
 * plain Miniflare's runtime spans record nothing).
 */
const tracedRuntime = (tracing) =>
  tracing && {
    getActiveSpan: () => ({ isTraced: true }),
    startSpan(name) {
      const span = tracing.startSpan(name)
      return {
        setAttribute: (key, value) => span.setAttribute(key, value),
        setStatus: (status) => span.setStatus?.(status),
        end: () => span.end(),
      }
    },
  }

const TELEMETRY = {
  off: () => ({ logs: 'off' }),
  logs: () => ({}),
  native: () => ({ native: cloudflare.workersTracing?.() }),
  otlp: () => ({ tracer: edge.otlpFromEnv, native: cloudflare.workersTracing?.() }),
  traced: () => ({ logs: 'off', tracer: edge.otlpFromEnv }),
  mirrored: () => ({ tracer: edge.otlpFromEnv, native: tracedRuntime(cloudflare.workersTracing?.()) }),
}

let app
function appFor(env) {
  if (app) return app
  const telemetry = TELEMETRY[env.TELEMETRY]
  if (!telemetry) throw new Error(`TELEMETRY must be one of ${Object.keys(TELEMETRY).join(', ')}`)
  const server = edge.createMcpServer({ name: 'bench-telemetry', version: '1.0.0', telemetry: telemetry() })
  server.tool(
    'add',
    { description: 'Add two numbers', input: z.object({ a: z.number(), b: z.number() }), annotations: { readOnlyHint: true } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  )
  app = new Hono().route('/mcp', edge.mcp(server))
  return app
}

export default { fetch: (request, env, ctx) => appFor(env).fetch(request, env, ctx) }
