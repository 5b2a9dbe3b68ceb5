/**
 * Stand-in for `cloudflare:workers` when a Worker module runs in Node for profiling
 * (bench/lib/profile.mjs): the env the template reads at start-up (the state keys, and the event
 * hub binding `cloudflareEventHub` checks for) and a bare DurableObject base. Durable Objects are
 * never called on the profiled path (`tools/call` of `add`).
 */
import { TEST_STATE_KEYS } from './keys.mjs'

export const env = { MCP_STATE_KEYS: TEST_STATE_KEYS, MCP_EVENTS: {} }

export class DurableObject {
  constructor(ctx, env) {
    this.ctx = ctx
    this.env = env
  }
}
