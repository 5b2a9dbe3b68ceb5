/**
 * Operation metrics into Workers Analytics Engine, inside workerd, through the real dataset
 * binding of the fixture's wrangler.jsonc (MCP_METRICS). Locally workerd accepts a data point
 * and keeps nothing (there is no local store to read back), so the binding is wrapped to see what
 * it was given; every point still goes to the real binding, which would throw on a bad one. The
 * fixture Worker itself writes a point for every request of every test through the same binding.
 */
import { env } from 'cloudflare:test'
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod'
import { createMcpServer } from 'mcp-edge'
import { analyticsEngine } from 'mcp-edge/cloudflare'
import { createMcpHandler } from '../../packages/mcp-edge/src/http/handler.ts'
import { MAX_INDEX_BYTES } from '../../packages/mcp-edge/src/cloudflare/analytics.ts'
import { createLog } from '../../packages/mcp-edge/src/server/telemetry/log.ts'
import { buildRequest } from '../support/mcp.ts'

const ENDPOINT = 'http://127.0.0.1/mcp'
const LONG = `tool_${'x'.repeat(120)}`

/** Lines the server logged: a point the binding refused would be `telemetry failed`. */
let lines: string[] = []

function serve(workerEnv: unknown, log = createLog('info', (_level, line) => lines.push(line))) {
  lines = []
  const server = createMcpServer({
    name: 'analytics',
    version: '1.0.0',
    telemetry: { metrics: analyticsEngine({ binding: 'MCP_METRICS' }), logs: 'off', log },
  })
  for (const name of ['add', LONG]) {
    server.tool(name, { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }],
    }))
  }
  const handle = createMcpHandler(server)
  return async (method: string, params: Record<string, unknown>) => {
    const response = await handle(buildRequest(ENDPOINT, method, params), workerEnv)
    return response.json() as Promise<{ result?: unknown; error?: { code: number } }>
  }
}

describe('analyticsEngine: one data point per message', () => {
  it('writes method, target, error.type, protocol version and seconds through the real binding', async () => {
    const written = vi.fn((point: unknown) => env.MCP_METRICS.writeDataPoint(point as AnalyticsEngineDataPoint))
    const send = serve({ MCP_METRICS: { writeDataPoint: written } })
    expect((await send('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).result).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    // Arguments that fail the schema are the tool's error (SEP-1303), a name not registered a protocol error.
    expect((await send('tools/call', { name: 'add', arguments: { a: 'two' } })).result).toMatchObject({ isError: true })
    expect((await send('tools/call', { name: 'nope', arguments: {} })).error?.code).toBe(-32602)
    await send('tools/list', {})
    await send('tools/call', { name: LONG, arguments: { a: 1, b: 1 } })
    const points = written.mock.calls.map(([point]) => point as { indexes: string[]; blobs: string[]; doubles: number[] })
    expect(points.map((point) => point.blobs)).toEqual([
      ['tools/call', 'add', '', '2026-07-28'],
      ['tools/call', 'add', 'tool_error', '2026-07-28'],
      ['tools/call', '_OTHER', '-32602', '2026-07-28'],
      ['tools/list', '', '', '2026-07-28'],
      ['tools/call', LONG, '', '2026-07-28'],
    ])
    expect(points.slice(0, 4).map((point) => point.indexes)).toEqual([
      ['tools/call add'],
      ['tools/call add'],
      ['tools/call _OTHER'],
      ['tools/list'],
    ])
    // The platform's limit on an index: the long name's is cut to it.
    expect(points[4]?.indexes[0]).toBe(`tools/call ${LONG}`.slice(0, MAX_INDEX_BYTES))
    for (const point of points) {
      expect(point.doubles).toHaveLength(1)
      expect(point.doubles[0]).toBeGreaterThanOrEqual(0)
    }
    // Every write returned: the real binding took each point, nothing was logged as failed.
    expect(written.mock.results.map((result) => result.type)).toEqual(Array(5).fill('return'))
    expect(lines).toEqual([])
  })

  it('writes straight into the binding as configured, and the request is served', async () => {
    const send = serve(env)
    expect((await send('tools/call', { name: 'add', arguments: { a: 2, b: 3 } })).result).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    })
    expect(lines).toEqual([])
  })

  it('without its binding: says how to add it, once, and serves without metrics', async () => {
    const lines: string[] = []
    const send = serve(
      {},
      createLog('info', (_level, line) => lines.push(line)),
    )
    for (let i = 0; i < 3; i++)
      expect((await send('tools/call', { name: 'add', arguments: { a: i, b: 1 } })).result).toMatchObject({
        content: [{ type: 'text', text: String(i + 1) }],
      })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('analyticsEngine: binding MCP_METRICS is missing')
    expect(lines[0]).toContain('analytics_engine_datasets')
  })
})
