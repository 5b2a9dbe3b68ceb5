/**
 * The extras bench server (mcp-edge only): the tools behind the streaming and task figures.
 * Built with the public API; bench/workers/extras.js wires it to Durable Objects.
 *
 * - `stream`: `count` partial results as fast as the stream takes them (or one every `delayMs`),
 *   each with the emit time (workerd's `Date.now()`) in its structuredContent, padded with `size`
 *   characters.
 * - `task_noop`: always a task, finishes at once (task creation and tasks/get latency).
 * - `task_partials`: always a task, appends `count` partial results to its log as fast as it can.
 * - `notify_tools`: tells this isolate's listen streams that the tool list changed.
 */
import * as z from 'zod/mini'
import { createMcpServer } from 'mcp-edge'

// Notifications on the in-isolate path (listen streams poll their inbox): the memory step's listeners.
export const server = createMcpServer({ name: 'bench-extras', version: '0.0.1', events: 'isolate' })

const count = z.int().check(z.minimum(0), z.maximum(1_000_000))

server.tool('add', { description: 'Add two numbers', input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
  content: [{ type: 'text', text: String(a + b) }],
}))

server.tool(
  'stream',
  {
    description: 'Streams count timestamped partial results (each padded with size characters)',
    input: z.object({ count, delayMs: z._default(count, 0), size: z._default(count, 0) }),
    streaming: true,
  },
  async ({ count, delayMs, size }, ctx) => {
    const pad = size > 0 ? ` ${'x'.repeat(size)}` : ''
    for (let i = 0; i < count && !ctx.signal.aborted; i++) {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
      await ctx.partial({ content: [{ type: 'text', text: `chunk ${i}${pad}` }], structuredContent: { i, t: Date.now() } })
    }
    return { content: [{ type: 'text', text: JSON.stringify(ctx.partialStats()) }] }
  },
)

server.tool('task_noop', { description: 'A task that finishes at once', input: z.object({}), task: 'always' }, () => ({
  content: [{ type: 'text', text: 'done' }],
}))

server.tool(
  'task_partials',
  { description: 'A task that appends count partial results to its log', input: z.object({ count }), task: 'always' },
  async ({ count }, ctx) => {
    for (let i = 0; i < count && !ctx.signal.aborted; i++) {
      await ctx.partial({ content: [{ type: 'text', text: `chunk ${i}` }] })
    }
    return { content: [{ type: 'text', text: `appended ${count}` }] }
  },
)

server.tool('notify_tools', { description: 'Tell listen streams the tool list changed', input: z.object({}) }, async () => {
  await server.notifyListChanged('tools')
  return { content: [{ type: 'text', text: 'notified' }] }
})
