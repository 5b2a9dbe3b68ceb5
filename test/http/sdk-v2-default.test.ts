/**
 * Fixture (h), a Worker whose default export is `createMcpHandler(createServer)`, as SDK 2.x code
 * writes it (test/fixture-sdk/v2-default): it starts under `wrangler dev` and serves the 2.x client
 * pinned to 2026-07-28 and the SDK 1.x client (2025 era).
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

let worker: WranglerServer

beforeAll(async () => {
  worker = await startWrangler({ config: 'test/fixture-sdk/v2-default/wrangler.jsonc' })
}, 120_000)
afterAll(() => worker?.stop())

describe('export default createMcpHandler(factory)', () => {
  it('serves the 2.x client (2026-07-28) and the SDK 1.x client (2025 era)', async () => {
    const v2 = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await v2.connect(new TransportV2(new URL(worker.url)))
    const v1 = new Client({ name: 'sdk-1x', version: '1.0.0' })
    await v1.connect(new StreamableHTTPClientTransport(new URL(worker.url)))
    try {
      expect(v2.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      expect((await v2.callTool({ name: 'greet', arguments: { name: 'Ada' } })).content).toEqual([
        { type: 'text', text: 'Hello, Ada!' },
      ])
      expect((await v1.callTool({ name: 'greet', arguments: { name: 'Grace' } })).content).toEqual([
        { type: 'text', text: 'Hello, Grace!' },
      ])
    } finally {
      await Promise.all([v2.close(), v1.close()])
    }
  })
})
