/**
 * Stand-in for `cloudflare:workers` when a Worker module runs in Node for profiling
 * (bench/lib/profile.mjs): the env the bench Workers read at start-up (the template's keys and the
 * event hub binding `cloudflareEventHub` checks for, the many-tools Workers' TOOL_COUNT, passed by
 * profile.mjs as BENCH_TOOL_COUNT) and bare Durable Object and Workflow base classes. Durable
 * Objects are never called on the profiled paths.
 */
import { TEST_STATE_KEYS } from './keys.mjs'

export const env = {
  MCP_STATE_KEYS: TEST_STATE_KEYS,
  MCP_EVENTS: {},
  TOOL_COUNT: process.env.BENCH_TOOL_COUNT,
  TOOL_EAGER: process.env.BENCH_TOOL_EAGER,
}

export class DurableObject {
  constructor(ctx, env) {
    this.ctx = ctx
    this.env = env
  }
}

export class WorkflowEntrypoint {}
