/**
 * The telemetry bench Worker (bench/telemetry.mjs): one `add` tool, its telemetry chosen by the
 * TELEMETRY binding. `off`: no log line, no tracer (nothing is built per request); `logs`: the
 * default (one JSON line per message); `native`: plus spans mirrored into Workers' tracing;
 * `otlp`: the templates' setting with OTEL_EXPORTER_OTLP_ENDPOINT set, every request sampled and
 * exported; `traced`: the OTLP export alone (no log line, no mirror). Namespace imports, so that the same file also builds against a library from before
 * telemetry (the `ref` lane), where those names are undefined.
 */
import { Hono } from 'hono'
import * as edge from 'mcp-edge'
import * as cloudflare from 'mcp-edge/cloudflare'
import * as z from 'zod/mini'

const TELEMETRY = {
  off: () => ({ logs: 'off' }),
  logs: () => ({}),
  native: () => ({ native: cloudflare.workersTracing?.() }),
  otlp: () => ({ tracer: edge.otlpFromEnv, native: cloudflare.workersTracing?.() }),
  traced: () => ({ logs: 'off', tracer: edge.otlpFromEnv }),
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
