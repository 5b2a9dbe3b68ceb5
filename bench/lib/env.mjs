/**
 * Paths and the process environment of the bench. Imported first by run.mjs so that wrangler
 * (used in-process for its Miniflare options, and as a child for builds) never sends metrics and
 * logs into a temp dir. Everything the bench writes besides bench/results.* lives in TMP.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export { BENCH_DIR, ROOT } from './paths.mjs'
export const TMP = mkdtempSync(join(tmpdir(), 'mcp-edge-bench-'))

process.env.WRANGLER_SEND_METRICS = 'false'
process.env.WRANGLER_LOG_PATH ??= join(TMP, 'wrangler-logs')
