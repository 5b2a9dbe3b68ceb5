/**
 * What the legacy lane sends, checked against each revision's official JSON Schema (published and
 * strict, test/support/schema-2025.ts): for a client of 2025-11-25, 2025-06-18 and 2025-03-26,
 * every result kind, the notifications of a call's stream, the server-to-client requests, and an
 * error. Over real HTTP against the fixture Worker under wrangler dev.
 */
import { describe, expect, inject, it } from 'vitest'
import { answer, legacyConnect, legacyRpc, legacyStream } from '../support/legacy.ts'
import type { LegacyClient } from '../support/legacy.ts'
import { legacySchemaErrors } from '../support/schema-2025.ts'
import type { LegacyRevision } from '../support/schema-2025.ts'

const REVISIONS: LegacyRevision[] = ['2025-11-25', '2025-06-18', '2025-03-26']

describe.each(REVISIONS)('a %s client gets that revision’s shapes', (revision) => {
  const url = () => inject('fixtureUrl')
  let client: LegacyClient
  const call = (method: string, params?: Record<string, unknown>) => legacyRpc(fetch, url(), client, method, params)
  const check = (name: string, value: unknown) => expect(legacySchemaErrors(revision, name, value), name).toEqual([])

  it('initialize, lists, completion, ping and setLevel', async () => {
    const connected = await legacyConnect(fetch, url(), {
      version: revision,
      capabilities: { elicitation: {}, sampling: {}, roots: {} },
    })
    client = connected
    check('InitializeResult', connected.initialize.message.result)
    check('ListToolsResult', (await call('tools/list')).message.result)
    check('ListResourcesResult', (await call('resources/list')).message.result)
    check('ListResourceTemplatesResult', (await call('resources/templates/list')).message.result)
    check('ListPromptsResult', (await call('prompts/list')).message.result)
    const completion = await call('completion/complete', {
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 't' },
    })
    check('CompleteResult', completion.message.result)
    for (const method of ['ping', 'logging/setLevel']) {
      const { result } = (await call(method, method === 'ping' ? undefined : { level: 'info' })).message
      expect(result).toEqual({})
      check('EmptyResult', result)
    }
  })

  it('tool results of every content kind, structured content, and a tool error', async () => {
    for (const name of [
      'test_simple_text',
      'test_image_content',
      'test_audio_content',
      'test_embedded_resource',
      'test_multiple_content_types',
      'test_error_handling',
      'stream_mixed',
    ]) {
      check('CallToolResult', (await call('tools/call', { name, arguments: {} })).message.result)
    }
    const structured = (await call('tools/call', { name: 'structured_report', arguments: { city: 'Oslo' } })).message.result
    check('CallToolResult', structured)
    expect('structuredContent' in structured).toBe(revision !== '2025-03-26')
  })

  it('resource reads and prompts', async () => {
    for (const uri of ['test://static-text', 'test://static-binary', 'test://template/123/data']) {
      check('ReadResourceResult', (await call('resources/read', { uri })).message.result)
    }
    for (const [name, args] of [
      ['test_simple_prompt', undefined],
      ['test_prompt_with_arguments', { arg1: 'a', arg2: 'b' }],
      ['test_prompt_with_embedded_resource', { resourceUri: 'test://example-resource' }],
      ['test_prompt_with_image', undefined],
    ] as const) {
      check('GetPromptResult', (await call('prompts/get', args ? { name, arguments: args } : { name })).message.result)
    }
  })

  it('progress and log notifications on a call’s stream, and an error response', async () => {
    const progress = await call('tools/call', { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } })
    expect(progress.notifications).toHaveLength(3)
    for (const note of progress.notifications) check('ProgressNotification', { jsonrpc: '2.0', ...note })
    const logs = await call('tools/call', { name: 'test_tool_with_logging', arguments: {} })
    expect(logs.notifications).toHaveLength(3)
    for (const note of logs.notifications) check('LoggingMessageNotification', { jsonrpc: '2.0', ...note })
    const failed = await call('tools/call', { name: 'no_such_tool', arguments: {} })
    check(revision === '2025-11-25' ? 'JSONRPCErrorResponse' : 'JSONRPCError', failed.message)
  })

  it('server-to-client requests: sampling, roots and (from 2025-06-18) elicitation', async () => {
    const asks: [string, string, unknown][] = [
      ['test_sampling', 'CreateMessageRequest', { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }],
      ['test_input_required_result_list_roots', 'ListRootsRequest', { roots: [{ uri: 'file:///tmp' }] }],
    ]
    if (revision !== '2025-03-26') asks.push(['test_elicitation', 'ElicitRequest', { action: 'decline' }])
    for (const [tool, name, reply] of asks) {
      const stream = await legacyStream(fetch, url(), client, 'tools/call', {
        name: tool,
        arguments: { prompt: 'p', message: 'm' },
      })
      const asked = await stream.next()
      check(name, asked)
      expect((await answer(fetch, url(), client, asked.id, reply)).status).toBe(202)
      check('CallToolResult', (await stream.next()).result)
    }
  })
})
