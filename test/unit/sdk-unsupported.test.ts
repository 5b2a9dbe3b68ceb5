/**
 * What mcp-edge/sdk deliberately does not run fails at once with an error that names why and what
 * to write instead (docs/migrate.md, "Not supported"), and registers nothing: SDK 1.x
 * `server.experimental.tasks.registerToolTask`, as simpleStreamableHttp's `delay` and
 * `collect-user-info-task` call it.
 */
import { describe, expect, it } from 'vitest'
import * as z from 'zod/v4'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'

describe('server.experimental.tasks.registerToolTask', () => {
  it('throws naming the tool, the reason and the replacement, and registers nothing', () => {
    const server = new McpServer(
      { name: 'sdk', version: '1' },
      { capabilities: { tasks: { requests: { tools: { call: {} } } } } },
    )
    const register = () =>
      server.experimental.tasks.registerToolTask(
        'delay',
        { title: 'Delay', inputSchema: { duration: z.number().default(5000) } },
        { createTask: async () => ({}), getTask: async () => ({}), getTaskResult: async () => ({}) },
      )
    expect(register).toThrow(
      /^Tool "delay": server\.experimental\.tasks\.registerToolTask is not supported by mcp-edge\/sdk: .*in memory.*execution: \{ taskSupport: 'required' \}.*MCP_TASKS/,
    )
    expect([...server.edge.tools.keys()]).toEqual([])
  })
})
