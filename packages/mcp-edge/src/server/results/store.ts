/**
 * Where results over their budget are kept (docs/results.md): the store interface the Cloudflare
 * Durable Object implements (`cloudflareResults`), an in-memory one for a single process and
 * tests, and the link's URI scheme. A stored result is keyed by a random id that also carries its
 * expiry, and bound to the subject of the principal whose call produced it.
 */
import { encodeBase64Url } from '../../protocol/base64.ts'
import type { CallToolResult, ReadResourceResult } from '../../protocol/types.ts'
import { safeEnd } from './budget.ts'

/** A result kept for its caller. */
export interface StoredResult {
  /** `subjectOf(principal)` of the call that produced it: only that subject may read it. */
  subject: string | null
  /** Epoch ms after which it is gone. */
  expiresAt: number
  mimeType: string
  text: string
}

/** One page of a stored result. */
export interface StoredPage {
  /** `length` UTF-16 units from `from` (fewer at the end; one fewer rather than split a surrogate pair). */
  text: string
  /** The stored text's length in UTF-16 units. */
  total: number
  mimeType: string
}

export interface ResultStore {
  put(id: string, result: StoredResult): Promise<void>
  /**
   * A page of `id`, or undefined when there is no such result for `subject` (unknown, expired,
   * or someone else's: the caller cannot tell which).
   */
  read(id: string, subject: string | null, from: number, length: number): Promise<StoredPage | undefined>
}

export const RESULT_URI_PREFIX = 'mcp-edge://results/'
const RESULT_URI = /^mcp-edge:\/\/results\/([0-9a-z]{1,11})\.([A-Za-z0-9_-]{22})(?:\?from=(0|[1-9]\d{0,15}))?$/

/** A fresh id: the expiry (base 36, so an expired link can say so after its rows are gone) and 128 random bits. */
export function newResultId(expiresAt: number): string {
  return `${expiresAt.toString(36)}.${encodeBase64Url(crypto.getRandomValues(new Uint8Array(16)))}`
}

/** The link of a stored result, at offset `from` (UTF-16 units) when not at its start. */
export function resultUri(id: string, from = 0): string {
  return `${RESULT_URI_PREFIX}${id}${from > 0 ? `?from=${from}` : ''}`
}

/** The id, expiry and offset a result link names; undefined for anything malformed. */
export function parseResultUri(uri: string): { id: string; expiresAt: number; from: number } | undefined {
  const match = RESULT_URI.exec(uri)
  if (!match) return undefined
  const [, expiry, random, from] = match as unknown as [string, string, string, string | undefined]
  return { id: `${expiry}.${random}`, expiresAt: Number.parseInt(expiry, 36), from: from === undefined ? 0 : Number(from) }
}

/** `text.slice(from, from + length)`, ending before a lone high surrogate. */
export function pageOf(text: string, from: number, length: number): string {
  return text.slice(from, safeEnd(text, Math.min(from + length, text.length)))
}

/**
 * Results in this isolate's memory: for one process (tests, `'isolate'` servers). Each expires
 * when read after its time; nothing else evicts them.
 *
 * @example
 * createMcpServer({ name: 'x', version: '1.0.0', results: resultBudgets({ store: memoryResultStore() }) })
 */
export function memoryResultStore(now: () => number = Date.now): ResultStore {
  const results = new Map<string, StoredResult>()
  return {
    async put(id, result) {
      results.set(id, result)
    },
    async read(id, subject, from, length) {
      const found = results.get(id)
      if (found && found.expiresAt <= now()) results.delete(id)
      if (!found || found.expiresAt <= now() || found.subject !== subject) return undefined
      return { text: pageOf(found.text, from, length), total: found.text.length, mimeType: found.mimeType }
    },
  }
}

/** What `resultBudgets` takes: where results over their budget go, and the limits (docs/results.md). */
export interface ResultOptions {
  /** Where they are kept: `cloudflareResults({ binding })` on Workers, `memoryResultStore()` in one process. */
  store: ResultStore
  /** The budget of a tool that sets no `maxResultBytes` (default 64 KiB). */
  maxResultBytes?: number
  /** How long a stored result can be read (default 1 hour). */
  ttlMs?: number
  /** The largest result kept (default 16 MiB); a larger one is answered with its preview only. */
  maxStoredBytes?: number
  /** UTF-16 units one `resources/read` of a stored result returns (default 1 MiB worth, 1,048,576). */
  pageChars?: number
}

/**
 * The `results` server option as `resultBudgets(options)` builds it: the limits with their
 * defaults, and the code that spills a result over its budget and reads a stored one back.
 */
export interface ResultPolicy {
  readonly store: ResultStore
  readonly maxResultBytes: number
  readonly ttlMs: number
  readonly maxStoredBytes: number
  readonly pageChars: number
  /** `result` unchanged when it fits `toolBudget` (else the server's); otherwise stored for `subject` and previewed. */
  spill(
    toolBudget: number | undefined,
    result: CallToolResult,
    subject: string | null,
    structuredRequired?: boolean,
    now?: number,
  ): Promise<CallToolResult>
  /** `resources/read` of a result link, or undefined when `uri` is not one. */
  read(uri: string, subject: string | null, now?: number): Promise<ReadResourceResult | undefined>
}
