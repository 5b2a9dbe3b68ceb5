/**
 * Results over their budget (docs/results.md) over real HTTP, against the demo under `wrangler dev`
 * and the JWT fixture that serves the same tools to signed-in principals: `large_report` with
 * 2 MiB answers the SDK 1.x client (2025 era) and the 2.x client pinned to 2026-07-28 with a
 * preview and a `resource_link`, which each reads in full, page by page; a task's large result is
 * cut the same way; another principal's read of the link is "Resource not found", exactly as for
 * an unknown link; and after its TTL the link says it expired.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { reportText } from '../../apps/demo/src/large-report.ts'
import { type LocalIssuer, startIssuer } from '../support/issuer.ts'
import { rpc, taskSettled } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const KIB = 2048
const REPORT = reportText(KIB)
const BUDGET = 64 * 1024
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const NEXT = 'mcp-edge/nextUri'

type Block = { type: string; text?: string; uri?: string; size?: number; mimeType?: string }
type Contents = { uri: string; text?: string; mimeType?: string; _meta?: Record<string, unknown> }

/** The preview of a 2 MiB report: the report's start within the budget, a notice, and the link. */
function expectPreview(content: Block[]): string {
  expect(content).toHaveLength(2)
  const [preview, link] = content as [Block, Block]
  expect(new TextEncoder().encode(JSON.stringify(content)).byteLength).toBeLessThan(BUDGET + 1024)
  const shown = (preview.text as string).split('\n\n[Result truncated')[0] as string
  expect(shown.length).toBeGreaterThan(BUDGET - 2048)
  expect(REPORT.startsWith(shown)).toBe(true)
  expect(link).toMatchObject({ type: 'resource_link', mimeType: 'text/plain', size: KIB * 1024 })
  expect(link.uri).toMatch(/^mcp-edge:\/\/results\/[0-9a-z]+\.[A-Za-z0-9_-]{22}$/)
  expect(preview.text).toContain(link.uri as string)
  return link.uri as string
}

/** Every page of a link, as `read` returns them. */
async function readAll(first: string, read: (uri: string) => Promise<Contents>): Promise<Contents[]> {
  const pages: Contents[] = []
  for (let uri: string | undefined = first; uri !== undefined; ) {
    const page = await read(uri)
    pages.push(page)
    uri = page._meta?.[NEXT] as string | undefined
  }
  return pages
}

function expectWhole(pages: Contents[]): void {
  expect(pages.length).toBeGreaterThanOrEqual(2)
  expect(pages.map((page) => page._meta?.['mcp-edge/totalChars'])).toEqual(pages.map(() => REPORT.length))
  expect(pages.map((page) => page.text).join('')).toBe(REPORT)
}

describe('large_report through the official clients', () => {
  it('SDK 1.x (2025 era): a preview and a link, and the whole report read through it', async () => {
    const client = new Client({ name: 'sdk-1x', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(inject('templateUrl')))
    await client.connect(transport)
    try {
      expect(transport.protocolVersion).toBe('2025-11-25')
      const result = await client.callTool({ name: 'large_report', arguments: { kib: KIB } })
      const uri = expectPreview(result.content as Block[])
      const pages = await readAll(uri, async (next) => (await client.readResource({ uri: next })).contents[0] as Contents)
      expectWhole(pages)
      // A small report passes whole.
      const small = await client.callTool({ name: 'large_report', arguments: { kib: 4 } })
      expect(small.content).toEqual([{ type: 'text', text: reportText(4) }])
    } finally {
      await client.close()
    }
  }, 60_000)

  it('client 2.x pinned to 2026-07-28: the same', async () => {
    const client = new ClientV2({ name: 'client-2x', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new TransportV2(new URL(inject('templateUrl'))))
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      const result = await client.callTool({ name: 'large_report', arguments: { kib: KIB } })
      const uri = expectPreview(result.content as Block[])
      expectWhole(await readAll(uri, async (next) => (await client.readResource({ uri: next })).contents[0] as Contents))
    } finally {
      await client.close()
    }
  }, 60_000)

  it("a task's large result is a preview and a link too", async () => {
    const url = inject('templateUrl')
    const created = await rpc(
      fetch,
      url,
      'tools/call',
      { name: 'large_report', arguments: { kib: KIB } },
      { capabilities: TASKS },
    )
    expect(created.message.result?.resultType).toBe('task')
    const taskId = created.message.result?.taskId as string
    expect((await taskSettled(fetch, url, taskId)).status).toBe('completed')
    const task = (await rpc(fetch, url, 'tasks/get', { taskId }, { capabilities: TASKS })).message.result
    const uri = expectPreview(task.result.content)
    const read = async (next: string) => (await rpc(fetch, url, 'resources/read', { uri: next })).message.result.contents[0]
    expectWhole(await readAll(uri, read))
  }, 60_000)
})

describe('a stored result belongs to its caller, for its TTL', () => {
  const TTL_MS = 4000
  let issuer: LocalIssuer
  let worker: WranglerServer

  beforeAll(async () => {
    issuer = await startIssuer()
    worker = await startWrangler({
      config: 'test/fixture/jwt/wrangler.jsonc',
      vars: (port) => ({
        MCP_RESOURCE: `http://127.0.0.1:${port}/mcp`,
        JWT_ISSUER: issuer.url,
        JWT_JWKS_URL: issuer.jwksUrl,
        MCP_RESULT_TTL_MS: String(TTL_MS),
      }),
    })
  }, 120_000)

  afterAll(async () => {
    await worker?.stop()
    await issuer?.close()
  })

  const as = async (sub: string) => ({
    headers: { authorization: `Bearer ${await issuer.sign({ sub, aud: worker.url, scope: 'mcp' }, { expiresIn: '5m' })}` },
  })
  const read = async (uri: string, sub: string) =>
    (await rpc(fetch, worker.url, 'resources/read', { uri }, await as(sub))).message

  it('reads for its caller only: another principal gets exactly what an unknown link gets; then it expires', async () => {
    const called = await rpc(
      fetch,
      worker.url,
      'tools/call',
      { name: 'large_report', arguments: { kib: 256 } },
      await as('alice'),
    )
    const link = called.message.result.content[1] as Block
    const uri = link.uri as string
    expect((await read(uri, 'alice')).result.contents[0].text).toBe(reportText(256))
    const unknown = uri.replace(/\.[A-Za-z0-9_-]{22}$/, '.AAAAAAAAAAAAAAAAAAAAAA')
    const refused = await read(uri, 'bob')
    expect(refused.error).toEqual({ code: -32602, message: 'Resource not found', data: { uri } })
    expect((await read(unknown, 'alice')).error).toEqual({ ...refused.error, data: { uri: unknown } })
    // After the TTL (the expiry is in the link), its caller is told it expired.
    const expiresAt = Number.parseInt(uri.slice('mcp-edge://results/'.length).split('.')[0] as string, 36)
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)))
    const expired = await read(uri, 'alice')
    expect(expired.error).toMatchObject({
      code: -32602,
      message: `Resource expired: stored results are kept for ${TTL_MS} ms`,
      data: { uri },
    })
  }, 60_000)
})
