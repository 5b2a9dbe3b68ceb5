/** Bench Worker: the Hono floor (hono.ts) behind the in-isolate loop (loop.js). */
import floor from '../hono/worker.ts'
import { withLoop } from '../loop.js'

export default withLoop(floor)
