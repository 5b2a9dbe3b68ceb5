/**
 * Stored results (docs/results.md): one `McpResultStore` Durable Object per result over its budget,
 * named by the result's random id, holding its text for the caller that produced it until its
 * expiry. `cloudflareResults` is the `ResultStore` over them; the binding is read from the Worker's
 * env (`cloudflare:workers`), so task objects store their results the same way as requests.
 *
 * Storage layout (SQLite-backed object, one result per object):
 *   result(id INTEGER PRIMARY KEY CHECK (id = 0), subject TEXT NULL, expires_at INTEGER,
 *          mime_type TEXT, chars INTEGER)         the one row describing the result
 *   chunks(seq INTEGER PRIMARY KEY, text TEXT)    the text in order, CHUNK_CHARS UTF-16 units
 *                                                 each (at most 1.5 MiB of UTF-8: under the 2 MB
 *                                                 a stored value may take)
 * Alarm: at `expires_at`; it deletes everything (`deleteAll`), so the object is gone. A read
 * after the expiry and before the alarm is refused as well.
 */
import { DurableObject, env as workerEnv } from 'cloudflare:workers'
import { pageOf } from '../server/results/store.ts'
import type { ResultStore, StoredPage, StoredResult } from '../server/results/store.ts'

/** UTF-16 units per stored chunk: 512 Ki units take at most 1.5 MiB as UTF-8. */
export const CHUNK_CHARS = 512 * 1024

type Described = {
  subject: string | null
  expires_at: number
  mime_type: string
  chars: number
}

export class McpResultStore extends DurableObject<Record<string, unknown>> {
  constructor(ctx: DurableObjectState, env: Record<string, unknown>) {
    super(ctx, env)
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS result (id INTEGER PRIMARY KEY CHECK (id = 0), subject TEXT,
        expires_at INTEGER NOT NULL, mime_type TEXT NOT NULL, chars INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS chunks (seq INTEGER PRIMARY KEY, text TEXT NOT NULL);`)
  }

  /** Keep `result` (once: an id is never reused, so a second put is refused). */
  async put(result: StoredResult): Promise<void> {
    const sql = this.ctx.storage.sql
    this.ctx.storage.transactionSync(() => {
      sql.exec(
        'INSERT INTO result (id, subject, expires_at, mime_type, chars) VALUES (0, ?, ?, ?, ?)',
        result.subject,
        result.expiresAt,
        result.mimeType,
        result.text.length,
      )
      for (let seq = 0; seq * CHUNK_CHARS < result.text.length; seq++) {
        sql.exec('INSERT INTO chunks (seq, text) VALUES (?, ?)', seq, chunkAt(result.text, seq))
      }
    })
    await this.ctx.storage.setAlarm(result.expiresAt)
  }

  /** A page for `subject`, or undefined (no result here, someone else's, or expired). */
  async read(subject: string | null, from: number, length: number): Promise<StoredPage | undefined> {
    const sql = this.ctx.storage.sql
    const found = sql.exec<Described>('SELECT subject, expires_at, mime_type, chars FROM result').toArray()[0]
    if (!found || found.subject !== subject || found.expires_at <= Date.now()) return undefined
    // The chunks the page overlaps (one more at the end, so a surrogate pair is never split).
    const first = Math.floor(from / CHUNK_CHARS)
    const last = Math.floor((from + length) / CHUNK_CHARS)
    const rows = sql
      .exec<{ text: string }>('SELECT text FROM chunks WHERE seq BETWEEN ? AND ? ORDER BY seq', first, last)
      .toArray()
    const text = rows.map((row) => row.text).join('')
    const page = pageOf(text, from - first * CHUNK_CHARS, length)
    return { text: page, total: found.chars, mimeType: found.mime_type }
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }
}

/** Chunk `seq` of `text`. Boundaries may fall inside a surrogate pair: a read joins the chunks it spans. */
function chunkAt(text: string, seq: number): string {
  return text.slice(seq * CHUNK_CHARS, (seq + 1) * CHUNK_CHARS)
}

export interface ResultStoreOptions {
  /** Name of the Durable Object binding of `McpResultStore` (for example `MCP_RESULTS`). */
  binding: string
}

/**
 * The `ResultStore` of a Worker, over `McpResultStore` objects.
 *
 * @example
 * createMcpServer<Env>({ name: 'reports', version: '1.0.0', results: { store: cloudflareResults({ binding: 'MCP_RESULTS' }) } })
 */
export function cloudflareResults(options: ResultStoreOptions): ResultStore {
  const value = (workerEnv as unknown as Record<string, unknown>)[options.binding]
  if (!value) {
    throw new Error(`Binding ${options.binding} is missing: bind the McpResultStore class in wrangler.jsonc (docs/results.md)`)
  }
  const namespace = value as DurableObjectNamespace<McpResultStore>
  const object = (id: string) => namespace.get(namespace.idFromName(`result:${id}`))
  return {
    put: (id, result) => object(id).put(result),
    read: (id, subject, from, length) => object(id).read(subject, from, length),
  }
}
