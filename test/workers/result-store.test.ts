/**
 * Stored results in a real SQLite Durable Object (`McpResultStore`, `cloudflareResults`): the
 * text kept in chunks under 2 MB, read back in pages across chunk boundaries (surrogate pairs
 * whole), only by the subject that stored it, refused after its expiry, and gone after the alarm;
 * and the same rules in R2 (`r2Results`, chosen by `cloudflareResults` when the bucket is bound).
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test'
import { describe, expect, it } from 'vitest'
import { CHUNK_CHARS, cloudflareResults, r2Results } from '../../packages/mcp-edge/src/cloudflare/result-store.ts'
import { newResultId } from '../../packages/mcp-edge/src/server/results/store.ts'

const stub = (id: string) => env.MCP_RESULTS.get(env.MCP_RESULTS.idFromName(`result:${id}`))
const encoder = new TextEncoder()

describe('McpResultStore', () => {
  it('keeps 2 MiB of text in chunks under 2 MB and pages through it, across chunk boundaries', async () => {
    const store = cloudflareResults({ binding: 'MCP_RESULTS' })
    // Multi-byte text with a surrogate pair straddling the first chunk boundary.
    const text = `${'é'.repeat(CHUNK_CHARS - 1)}😀${'line of text\n'.repeat(120_000)}`
    const expiresAt = Date.now() + 60_000
    const id = newResultId(expiresAt)
    await store.put(id, { subject: 'alice', expiresAt, mimeType: 'text/plain', text })
    const chunks = await runInDurableObject(stub(id), (_instance, state) =>
      state.storage.sql.exec<{ start: number; text: string }>('SELECT start, text FROM chunks ORDER BY start').toArray(),
    )
    // The first chunk ends before the pair rather than store half of it.
    expect(chunks.map((chunk) => chunk.start)).toEqual([0, CHUNK_CHARS - 1, 2 * CHUNK_CHARS - 1, 3 * CHUNK_CHARS - 1])
    expect(Math.max(...chunks.map((chunk) => encoder.encode(chunk.text).byteLength))).toBeLessThan(2_000_000)
    let whole = ''
    let from = 0
    const pages: number[] = []
    for (;;) {
      const page = await store.read(id, 'alice', from, CHUNK_CHARS)
      expect(page?.total).toBe(text.length)
      whole += page?.text ?? ''
      pages.push(page?.text.length ?? 0)
      from += page?.text.length ?? 0
      if (from >= text.length || !page?.text) break
    }
    expect(whole).toBe(text)
    // The first page ends before the surrogate pair rather than split it.
    expect(pages[0]).toBe(CHUNK_CHARS - 1)
  })

  it('answers only the subject that stored it; an unknown id like anyone else', async () => {
    const store = cloudflareResults({ binding: 'MCP_RESULTS' })
    const expiresAt = Date.now() + 60_000
    const id = newResultId(expiresAt)
    await store.put(id, { subject: 'alice', expiresAt, mimeType: 'text/plain', text: 'secret' })
    expect(await store.read(id, 'alice', 0, 100)).toEqual({ text: 'secret', total: 6, mimeType: 'text/plain' })
    expect(await store.read(id, 'bob', 0, 100)).toBeUndefined()
    expect(await store.read(id, null, 0, 100)).toBeUndefined()
    expect(await store.read(newResultId(expiresAt), 'alice', 0, 100)).toBeUndefined()
    // A read of an unknown id stores nothing.
    const probe = newResultId(expiresAt)
    expect(await store.read(probe, 'alice', 0, 100)).toBeUndefined()
    expect(await runInDurableObject(stub(probe), (_instance, state) => state.storage.sql.databaseSize)).toBeLessThan(8192)
  })

  it('refuses a read after the expiry, and its alarm deletes everything', async () => {
    const store = cloudflareResults({ binding: 'MCP_RESULTS' })
    const expiresAt = Date.now() + 1_500
    const id = newResultId(expiresAt)
    await store.put(id, { subject: 'alice', expiresAt, mimeType: 'text/plain', text: 'soon gone' })
    expect(await runInDurableObject(stub(id), (_instance, state) => state.storage.getAlarm())).toBe(expiresAt)
    expect((await store.read(id, 'alice', 0, 100))?.text).toBe('soon gone')
    await new Promise((done) => setTimeout(done, expiresAt + 20 - Date.now()))
    expect(await store.read(id, 'alice', 0, 100)).toBeUndefined()
    // workerd may have run the alarm itself by now; run it if not.
    await runDurableObjectAlarm(stub(id))
    const left = await runInDurableObject(stub(id), (_instance, state) =>
      state.storage.sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('result', 'chunks')")
        .one(),
    )
    expect(left.n).toBe(0)
  })

  it('fails loudly when the binding is missing', () => {
    expect(() => cloudflareResults({ binding: 'NO_SUCH_BINDING' })).toThrow(
      /Binding NO_SUCH_BINDING is missing: bind the McpResultStore class/,
    )
  })
})

describe('r2Results', () => {
  it('is what cloudflareResults picks when the bucket is bound, and keeps one object per result', async () => {
    const store = cloudflareResults({ binding: 'MCP_RESULTS', bucket: 'MCP_RESULT_BUCKET' })
    const expiresAt = Date.now() + 60_000
    const id = newResultId(expiresAt)
    const text = `${'é'.repeat(9)}😀${'x'.repeat(20)}`
    await store.put(id, { subject: 'alice', expiresAt, mimeType: 'text/plain', text })
    const head = await env.MCP_RESULT_BUCKET.head(`results/${id}`)
    expect(head?.customMetadata).toEqual({ subject: 'alice', expiresAt: String(expiresAt), chars: String(text.length) })
    // Pages end before a surrogate pair rather than split it, and join to the text.
    const first = await store.read(id, 'alice', 0, 10)
    expect(first).toEqual({ text: 'é'.repeat(9), total: text.length, mimeType: 'text/plain' })
    expect((await store.read(id, 'alice', 9, 100))?.text).toBe(`😀${'x'.repeat(20)}`)
    // The Durable Object store holds nothing of it.
    expect(await cloudflareResults({ binding: 'MCP_RESULTS' }).read(id, 'alice', 0, 10)).toBeUndefined()
  })

  it('answers only the subject that stored it (an anonymous one too), and nothing after the expiry', async () => {
    const store = r2Results(env.MCP_RESULT_BUCKET)
    const expiresAt = Date.now() + 60_000
    const mine = newResultId(expiresAt)
    const anonymous = newResultId(expiresAt)
    await store.put(mine, { subject: 'alice', expiresAt, mimeType: 'application/json', text: '{"a":1}' })
    await store.put(anonymous, { subject: null, expiresAt, mimeType: 'text/plain', text: 'anyone unauthenticated' })
    expect(await store.read(mine, 'alice', 0, 100)).toEqual({ text: '{"a":1}', total: 7, mimeType: 'application/json' })
    expect(await store.read(mine, 'bob', 0, 100)).toBeUndefined()
    expect(await store.read(mine, null, 0, 100)).toBeUndefined()
    expect((await store.read(anonymous, null, 0, 100))?.text).toBe('anyone unauthenticated')
    expect(await store.read(anonymous, 'alice', 0, 100)).toBeUndefined()
    expect(await store.read(newResultId(expiresAt), 'alice', 0, 100)).toBeUndefined()
    const past = Date.now() - 1
    const expired = newResultId(past)
    await store.put(expired, { subject: 'alice', expiresAt: past, mimeType: 'text/plain', text: 'old' })
    expect(await store.read(expired, 'alice', 0, 100)).toBeUndefined()
  })
})
