/**
 * Bench Worker, a peer: the same `add` tool written as SDK code (`new McpServer(…)`,
 * `registerTool` with a zod shape, classic zod) served by `createMcpHandler` from `mcp-edge/sdk`.
 * Beside `edge` (the demo as the templates ship it) it differs by the adapter only: the same
 * telemetry (a log line per message, Workers tracing, OTLP once its endpoint is set), the same
 * event hub and the same Durable Object services (the adapter binds them by their names, as it
 * does MCP_STATE_KEYS), so the same 2025 sessions with their ledger.
 */
import { otlpFromEnv } from 'mcp-edge'
import { cloudflareEventHub, createDurableObjects, workersTracing } from 'mcp-edge/cloudflare'
import { createMcpHandler, McpServer } from 'mcp-edge/sdk'
import * as z from 'zod'

const server = new McpServer(
  { name: 'bench-edge-sdk', version: '0.0.1' },
  { events: cloudflareEventHub({ binding: 'MCP_EVENTS' }), telemetry: { tracer: otlpFromEnv, native: workersTracing() } },
)

server.registerTool(
  'add',
  { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
)

export const { McpTaskObject, McpNonceLedger, McpInputRelay, McpEventHub, McpSessionLedger } = createDurableObjects(server.edge)

export default { fetch: createMcpHandler(server) }
