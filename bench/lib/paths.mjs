/** Where the bench and the repository are: no side effects, for modules a test imports (env.mjs has some). */
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)))
export const ROOT = dirname(BENCH_DIR)
