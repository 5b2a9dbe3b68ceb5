/**
 * What mcp-edge/sdk deliberately does not run fails at once with an error that names why and what
 * to write instead (docs/migrate.md, "Not supported"), and registers nothing: SDK 1.x
 * `server.experimental.tasks.registerToolTask`, as simpleStreamableHttp's `delay` and
 * `collect-user-info-task` call it, and `server.server.setRequestHandler` for a custom method. What
 * the SDK 2.x resources example calls of the low-level server is taken: `setRequestHandler` for
 * `resources/subscribe` (mcp-edge keeps subscriptions itself) and `sendResourceUpdated`.
 */
import { describe, expect, it, vi } from 'vitest'
import * as z from 'zod/v4'
import type { McpEvent } from '../../packages/mcp-edge/src/server/events/events.ts'
import { InitializeRequestSchema, PingRequestSchema } from '../../packages/mcp-edge/src/sdk/low-level/schemas.ts'
import { McpServer } from '../../packages/mcp-edge/src/sdk/server.ts'
import { sendAs } from './support.ts'

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

describe('server.server.setRequestHandler and sendResourceUpdated', () => {
  it('refuses a custom method naming why, takes resources/subscribe, unsubscribe and logging/setLevel', () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    expect(() => server.server.setRequestHandler('acme/search', () => ({}))).toThrow(
      /^setRequestHandler\("acme\/search"\) is not supported by mcp-edge\/sdk: .*serves no custom ones/,
    )
    expect(() => server.server.setRequestHandler('logging/setLevel', () => ({}))).not.toThrow()
    expect(() => server.server.setRequestHandler('resources/subscribe', () => ({}))).not.toThrow()
    expect(() => server.server.setRequestHandler('resources/unsubscribe', () => ({}))).not.toThrow()
  })

  it('takes initialize and ping handlers and never calls them (mcp-edge answers both), said once in the log', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' })
    const called: string[] = []
    const logged = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const schemas = { initialize: InitializeRequestSchema, ping: PingRequestSchema }
      for (const method of ['initialize', 'ping', 'initialize'] as const) {
        server.server.setRequestHandler(schemas[method], () => {
          called.push(method)
          return {}
        })
      }
      server.server.setRequestHandler('ping', () => called.push('ping'))
      expect((await sendAs(server.edge, 'ping', {}, undefined, '2025-11-25')).result).toEqual({})
      expect(called).toEqual([])
      const messages = logged.mock.calls.map(([line]) => (JSON.parse(String(line)) as { msg: string }).msg)
      for (const method of ['initialize', 'ping']) {
        const said = `setRequestHandler("${method}") is accepted and never called: mcp-edge answers ${method} itself`
        expect(
          messages.filter((message) => message.startsWith(said)),
          method,
        ).toHaveLength(1)
      }
    } finally {
      logged.mockRestore()
    }
    expect(() => server.server.setRequestHandler(PingRequestSchema, 'not a function' as never)).toThrow(TypeError)
  })

  it('sendResourceUpdated publishes the update through the server’s event delivery', async () => {
    const published: McpEvent[] = []
    const hub = { publish: async (event: McpEvent) => void published.push(event) }
    const server = new McpServer({ name: 'sdk', version: '1' }, { events: hub as never })
    await server.server.sendResourceUpdated({ uri: 'counter://value' })
    expect(published).toMatchObject([{ type: 'resourceUpdated', uri: 'counter://value' }])
  })
})

describe('notifications an SDK server sends with no event hub bound', () => {
  it('are said once each in the log (no client hears them: a 2025 GET stream needs MCP_EVENTS and MCP_SESSIONS), and resolve as in the SDKs', async () => {
    const server = new McpServer({ name: 'sdk', version: '1' }, { capabilities: { resources: {} } })
    server.registerResource('value', 'counter://value', {}, async (uri) => ({ contents: [{ uri: uri.href, text: '1' }] }))
    await Promise.resolve() // the turn that built the server is over (#live): as a handler sends them
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await server.server.sendResourceUpdated({ uri: 'counter://value' })
      await server.server.sendResourceUpdated({ uri: 'counter://other' })
      await server.server.sendResourceListChanged()
      const said = warn.mock.calls.map(([line]) => String(line))
      expect(said).toHaveLength(2)
      expect(said[0]).toMatch(
        /notifications\/resources\/updated reaches no client: no event hub is bound.*MCP_EVENTS.*MCP_SESSIONS/,
      )
      expect(said[1]).toMatch(/notifications\/resources\/list_changed reaches no client/)
    } finally {
      warn.mockRestore()
    }
  })

  it('say nothing where a hub carries them', async () => {
    const hub = { publish: async () => {} }
    const server = new McpServer({ name: 'sdk', version: '1' }, { events: hub as never })
    await Promise.resolve()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      await server.server.sendResourceUpdated({ uri: 'counter://value' })
      await server.server.sendToolListChanged()
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
    }
  })
})
