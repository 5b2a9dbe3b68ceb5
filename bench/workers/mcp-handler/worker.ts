/**
 * Bench Worker, a peer: the same `add` tool on Vercel's `mcp-handler` 2.x (`createMcpHandler`, on
 * the official SDK v2; 2026-07-28 natively, stateless Streamable HTTP for 2025-era clients),
 * classic zod, as its README shows it. Its default telemetry writes spans only where a tracer
 * provider is registered (none here), and it logs nothing by default.
 */
import { createMcpHandler } from 'mcp-handler'
import { registerAdd } from '../sdk/add.ts'

const handler = createMcpHandler((server) => void registerAdd(server), {
  serverInfo: { name: 'bench-mcp-handler', version: '0.0.1' },
})

export default {
  fetch: (request: Request) => handler(request),
}
