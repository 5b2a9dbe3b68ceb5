/**
 * Stored results (docs/results.md): one `McpResultStore` Durable Object per result over its budget
 * (or one R2 object, `r2Results`, when the Worker binds a bucket),
 * named by the result's random id, holding its text for the caller that produced it until its
 * expiry. `cloudflareResults` is the `ResultStore` over them; the binding is read from the Worker's
 * env (`cloudflare:workers`), so task objects store their results the same way as requests.
 *
 * Storage layout (SQLite-backed object, one result per object; the tables are made by the put, so
 * a read of an unknown id stores nothing):
 *   result(id INTEGER PRIMARY KEY CHECK (id = 0), subject TEXT NULL, expires_at INTEGER,
 *          mime_type TEXT, chars INTEGER)         the one row describing the result
 *   chunks(start INTEGER PRIMARY KEY, end INTEGER, text TEXT)
 *                                                 the text in order, from UTF-16 offset `start` to
 *                                                 `end`: at most CHUNK_CHARS units (1.5 MiB of
 *                                                 UTF-8, under the 2 MB a stored value may take),
 *                                                 never ending inside a surrogate pair (SQLite
 *                                                 stores UTF-8, which has no lone surrogates)
 * Alarm: at `expires_at`; it deletes everything (`deleteAll`), so the object is gone. A read
 * after the expiry and before the alarm is refused as well.
 */
import { DurableObject, env as workerEnv } from 'cloudflare:workers'
import { safeEnd } from '../server/results/budget.ts'
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
  /** Keep `result` (once: an id is never reused, so a second put fails). */
  async put(result: StoredResult): Promise<void> {
    const sql = this.ctx.storage.sql
    this.ctx.storage.transactionSync(() => {
      sql.exec(`CREATE TABLE IF NOT EXISTS result (id INTEGER PRIMARY KEY CHECK (id = 0), subject TEXT,
          expires_at INTEGER NOT NULL, mime_type TEXT NOT NULL, chars INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS chunks (start INTEGER PRIMARY KEY, end INTEGER NOT NULL, text TEXT NOT NULL);`)
      const { text } = result
      sql.exec(
        'INSERT INTO result (id, subject, expires_at, mime_type, chars) VALUES (0, ?, ?, ?, ?)',
        result.subject,
        result.expiresAt,
        result.mimeType,
        text.length,
      )
      for (let start = 0; start < text.length; ) {
        const end = safeEnd(text, Math.min(start + CHUNK_CHARS, text.length))
        sql.exec('INSERT INTO chunks (start, end, text) VALUES (?, ?, ?)', start, end, text.slice(start, end))
        start = end
      }
    })
    await this.ctx.storage.setAlarm(result.expiresAt)
  }

  /** A page for `subject`, or undefined (no result here, someone else's, or expired). */
  async read(subject: string | null, from: number, length: number): Promise<StoredPage | undefined> {
    const sql = this.ctx.storage.sql
    const made = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'result'").toArray().length > 0
    if (!made) return undefined
    const found = sql.exec<Described>('SELECT subject, expires_at, mime_type, chars FROM result').toArray()[0]
    if (!found || found.subject !== subject || found.expires_at <= Date.now()) return undefined
    // The chunks the page overlaps, and the one holding the unit after it (a pair is never split).
    const rows = sql
      .exec<{ start: number; text: string }>(
        'SELECT start, text FROM chunks WHERE end > ? AND start <= ? ORDER BY start',
        from,
        from + length,
      )
      .toArray()
    const text = rows.map((row) => row.text).join('')
    const page = pageOf(text, from - (rows[0]?.start ?? from), length)
    return { text: page, total: found.chars, mimeType: found.mime_type }
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll()
  }
}

export interface ResultStoreOptions {
  /** Name of the Durable Object binding of `McpResultStore` (for example `MCP_RESULTS`). */
  binding: string
  /**
   * Name of an R2 bucket binding (for example `MCP_RESULT_BUCKET`). When the Worker binds it,
   * results are stored there instead (`r2Results`); the Durable Object binding is then not read.
   */
  bucket?: string
}

/**
 * The `ResultStore` of a Worker: R2 when `bucket` is given and bound, else `McpResultStore` objects.
 *
 * @example
 * createMcpServer<Env>({
 *   name: 'reports',
 *   version: '1.0.0',
 *   results: resultBudgets({ store: cloudflareResults({ binding: 'MCP_RESULTS' }) }),
 * })
 */
export function cloudflareResults(options: ResultStoreOptions): ResultStore {
  const bindings = workerEnv as unknown as Record<string, unknown>
  if (options.bucket !== undefined && bindings[options.bucket]) return r2Results(bindings[options.bucket] as R2Bucket)
  const value = bindings[options.binding]
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

/**
 * Results in an R2 bucket, one object per result under `results/<id>`, with the caller's subject,
 * the expiry and the length in its custom metadata. R2 has no per-object expiry: a read after it is
 * refused, and a lifecycle rule on the `results/` prefix deletes the objects (docs/results.md). A
 * read fetches the object whole and returns one page of it.
 *
 * @example
 * const store = r2Results(env.MCP_RESULT_BUCKET)
 */
export function r2Results(bucket: R2Bucket): ResultStore {
  return {
    async put(id, result) {
      await bucket.put(`results/${id}`, result.text, {
        httpMetadata: { contentType: result.mimeType },
        customMetadata: {
          // A null subject (an unauthenticated caller) is stored as no `subject` key at all.
          ...(result.subject === null ? {} : { subject: result.subject }),
          expiresAt: String(result.expiresAt),
          chars: String(result.text.length),
        },
      })
    },
    async read(id, subject, from, length) {
      const object = await bucket.get(`results/${id}`)
      if (!object) return undefined
      const meta = object.customMetadata ?? {}
      if ((meta.subject ?? null) !== subject || Number(meta.expiresAt) <= Date.now()) {
        await object.body.cancel()
        return undefined
      }
      const text = await object.text()
      return { text: pageOf(text, from, length), total: text.length, mimeType: object.httpMetadata?.contentType ?? 'text/plain' }
    },
  }
}
