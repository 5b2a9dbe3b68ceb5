/** Bench Worker: the floor with a log line (hono-log) behind the in-isolate loop (loop.js). */
import floor from '../hono-log/worker.ts'
import { withLoop } from '../loop.js'

export default withLoop(floor)
