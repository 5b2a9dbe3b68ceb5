/**
 * Bench Worker: the template Worker (src/worker.ts, its Durable Objects included) behind the
 * in-isolate loop (loop.js). JavaScript for the reason given in extras.js.
 */
import template from '../../../apps/demo/src/worker.ts'
import { withLoop } from '../loop.js'

export {
  McpEventHub,
  McpInputRelay,
  McpNonceLedger,
  McpSessionLedger,
  McpTaskObject,
  NotesStore,
} from '../../../apps/demo/src/worker.ts'

export default withLoop(template)
