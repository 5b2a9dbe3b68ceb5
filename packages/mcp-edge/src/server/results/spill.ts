/**
 * Results over their budget (docs/results.md): `resultBudgets` builds the `results` option, whose
 * `spill` stores such a result for its caller and answers a preview with a `resource_link` (direct
 * calls in both eras, and task results), and whose `read` serves `resources/read` of that link,
 * page by page, to that caller only. The core reaches them only through the option (`spillResult`,
 * `spillingPartials`, `readStoredResult`), so a server without it bundles none of the code here
 * but those three. Without the option nothing is spilled and results pass unchanged.
 */
import { McpError } from '../../protocol/errors.ts'
import type { CallToolResult, ReadResourceResult } from '../../protocol/types.ts'
import type { PartialChunk } from '../outbox.ts'
import type { PartialSink } from '../scope.ts'
import { positive } from '../limits.ts'
import { DEFAULT_MAX_RESULT_BYTES, fitsBudget, previewResult, resultBytes, spilledBody, utf8Bytes } from './budget.ts'
import { newResultId, parseResultUri, RESULT_URI_PREFIX, resultUri } from './store.ts'
import type { ResultOptions, ResultPolicy } from './store.ts'

export const DEFAULT_RESULT_TTL_MS = 60 * 60 * 1000
export const DEFAULT_MAX_STORED_BYTES = 16 * 1024 * 1024
export const DEFAULT_PAGE_CHARS = 1024 * 1024

/**
 * The `results` server option (docs/results.md): `options` checked and its defaults applied, with
 * the code that stores and reads results over their budget. A server that never calls it carries
 * none of that code (test/unit/bundle-isolation.test.ts).
 *
 * @example
 * createMcpServer({ name: 'x', version: '1.0.0', results: resultBudgets({ store: memoryResultStore() }) })
 */
export function resultBudgets(options: ResultOptions): ResultPolicy {
  if (typeof options?.store?.put !== 'function')
    throw new Error('results.store must be a result store (cloudflareResults, memoryResultStore)')
  const policy: ResultPolicy = {
    store: options.store,
    maxResultBytes: positive(options.maxResultBytes, DEFAULT_MAX_RESULT_BYTES, 'results.maxResultBytes'),
    ttlMs: positive(options.ttlMs, DEFAULT_RESULT_TTL_MS, 'results.ttlMs'),
    maxStoredBytes: positive(options.maxStoredBytes, DEFAULT_MAX_STORED_BYTES, 'results.maxStoredBytes'),
    pageChars: positive(options.pageChars, DEFAULT_PAGE_CHARS, 'results.pageChars'),
    spill: (toolBudget, result, subject, structuredRequired, now) =>
      spill(policy, toolBudget, result, subject, structuredRequired, now),
    read: (uri, subject, now) => read(policy, uri, subject, now),
  }
  return policy
}

/**
 * `result` as the client should get it: unchanged (the same object) when it fits the tool's
 * budget or no store is configured; otherwise stored for `subject` and previewed.
 *
 * @example
 * return spillResult(server.results, tool.maxResultBytes, result, subjectOf(principal))
 */
export async function spillResult(
  policy: ResultPolicy | undefined,
  toolBudget: number | undefined,
  result: CallToolResult,
  subject: string | null,
  structuredRequired = false,
): Promise<CallToolResult> {
  return policy ? policy.spill(toolBudget, result, subject, structuredRequired) : result
}

async function spill(
  policy: ResultPolicy,
  toolBudget: number | undefined,
  result: CallToolResult,
  subject: string | null,
  structuredRequired = false,
  now = Date.now(),
): Promise<CallToolResult> {
  const budget = toolBudget ?? policy.maxResultBytes
  if (fitsBudget(result, budget)) return result
  const body = spilledBody(result)
  const bytes = utf8Bytes(body.text)
  const total = resultBytes(result)
  if (bytes > policy.maxStoredBytes) return previewResult(result, budget, undefined, total, structuredRequired)
  const expiresAt = now + policy.ttlMs
  const id = newResultId(expiresAt)
  await policy.store.put(id, { subject, expiresAt, mimeType: body.mimeType, text: body.text })
  return previewResult(
    result,
    budget,
    { uri: resultUri(id), bytes, mimeType: body.mimeType, expiresAt },
    total,
    structuredRequired,
  )
}

/**
 * `sink` with each partial result over the budget stored and sent as its preview and link, as a
 * final result is (the chunk's `final` flag kept). `sink` itself without a store.
 *
 * @example
 * scope.setPartials(spillingPartials(streamPartials(outbox, token), server.results, tool.maxResultBytes, subject))
 */
export function spillingPartials(
  sink: PartialSink,
  policy: ResultPolicy | undefined,
  toolBudget: number | undefined,
  subject: string | null,
): PartialSink {
  if (!policy) return sink
  return {
    push: async (chunk) => sink.push((await policy.spill(toolBudget, chunk as CallToolResult, subject)) as PartialChunk),
    stats: () => sink.stats(),
  }
}

/**
 * `resources/read` of a result link, or undefined when `uri` is not one. Someone else's result
 * and an unknown id are the same "Resource not found"; a link past its expiry says so.
 */
export function readStoredResult(
  policy: ResultPolicy | undefined,
  uri: string,
  subject: string | null,
): Promise<ReadResourceResult | undefined> | undefined {
  return policy?.read(uri, subject)
}

async function read(
  policy: ResultPolicy,
  uri: string,
  subject: string | null,
  now = Date.now(),
): Promise<ReadResourceResult | undefined> {
  if (!uri.startsWith(RESULT_URI_PREFIX)) return undefined
  const link = parseResultUri(uri)
  if (!link) throw new McpError('invalidParams', 'Resource not found', { uri })
  if (link.expiresAt <= now) {
    throw new McpError('invalidParams', `Resource expired: stored results are kept for ${policy.ttlMs} ms`, {
      uri,
      expiredAt: new Date(link.expiresAt).toISOString(),
    })
  }
  const page = await policy.store.read(link.id, subject, link.from, policy.pageChars)
  if (!page || (link.from > 0 && link.from >= page.total)) throw new McpError('invalidParams', 'Resource not found', { uri })
  const next = link.from + page.text.length
  const meta: Record<string, unknown> = { 'mcp-edge/offset': link.from, 'mcp-edge/totalChars': page.total }
  if (next < page.total) meta['mcp-edge/nextUri'] = resultUri(link.id, next)
  return { contents: [{ uri, mimeType: page.mimeType, text: page.text, _meta: meta }] }
}
