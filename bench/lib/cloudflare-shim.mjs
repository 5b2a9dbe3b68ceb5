/**
 * Stand-in for `cloudflare:workers` when a Worker module runs in Node for profiling
 * (bench/lib/profile.mjs): the env the bench Workers read at start-up (the template's keys and the
 * event hub binding `cloudflareEventHub` checks for, the variant's bindings, such as the many-tools
 * Workers' TOOL_COUNT, passed by profile.mjs as BENCH_BINDINGS) and bare Durable Object and
 * Workflow base classes. Durable Objects are never called on the profiled paths.
 */
import { TEST_STATE_KEYS } from './keys.mjs'

export const env = {
  MCP_STATE_KEYS: TEST_STATE_KEYS,
  MCP_EVENTS: {},
  // The variant's own bindings (bench/lib/variants.mjs), as profile.mjs passes them.
  ...JSON.parse(process.env.BENCH_BINDINGS ?? '{}'),
}

export class DurableObject {
  constructor(ctx, env) {
    this.ctx = ctx
    this.env = env
  }
}

export class WorkflowEntrypoint {}
