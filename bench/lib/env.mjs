/**
 * Paths and the process environment of the bench. Imported first by run.mjs so that wrangler
 * (used in-process for its Miniflare options, and as a child for builds) never sends metrics and
 * logs into a temp dir. Everything the bench writes besides bench/results.* lives in TMP.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)))
export const ROOT = dirname(BENCH_DIR)
export const TMP = mkdtempSync(join(tmpdir(), 'mcp-edge-bench-'))

process.env.WRANGLER_SEND_METRICS = 'false'
process.env.WRANGLER_LOG_PATH ??= join(TMP, 'wrangler-logs')
