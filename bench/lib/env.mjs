/**
 * Paths and the process environment of the bench. Imported first by run.mjs so that wrangler
 * (used in-process for its Miniflare options, and as a child for builds) never sends metrics and
 * logs into a temp dir. Everything the bench writes besides bench/results.* lives in TMP, which the
 * bench's runs remove when they exit (`removeTmpOnExit`), unless they name a file in it (`keepTmp`).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export { BENCH_DIR, ROOT } from './paths.mjs'
export const TMP = mkdtempSync(join(tmpdir(), 'mcp-edge-bench-'))

process.env.WRANGLER_SEND_METRICS = 'false'
process.env.WRANGLER_LOG_PATH ??= join(TMP, 'wrangler-logs')

/** What stays of TMP at exit: nothing, unless `keepTmp` named files. */
const kept = new Set()

/**
 * Remove TMP when the process exits (the bench's own runs: builds, logs, workerd state,
 * worktrees), all but the files `keepTmp` names. A script that only builds
 * (`build('loop-sdk').scriptPath`) does not call it, and keeps everything.
 */
export function removeTmpOnExit() {
  process.on('exit', () => {
    try {
      if (kept.size === 0) rmSync(TMP, { recursive: true, force: true, maxRetries: 3 })
      else for (const entry of readdirSync(TMP)) if (!kept.has(entry)) rmSync(join(TMP, entry), { recursive: true, force: true })
    } catch {}
  })
}

/** Keep `names` (files directly in TMP) after the process exits: a log line names them for the reader. */
export function keepTmp(...names) {
  for (const name of names) kept.add(name)
}
