/**
 * The server's own tests, inside workerd (@cloudflare/vitest-plugin), with its Durable Objects:
 * every tool called over /mcp as a client would, and the refusal a deployed server without a
 * token gives. `McpClient` from mcp-edge/client talks to the Worker in-process (its `fetch`
 * option); `capabilities` are what the client declares on each request.
 */
import { exports } from 'cloudflare:workers'
import { TASKS_EXTENSION } from 'mcp-edge'
import { McpClient, McpClientError } from 'mcp-edge/client'
import { server } from '../src/index'
import { STORY_VIEW } from '../src/tools'
import type { JsonObject } from 'mcp-edge/client'
import { describe, expect, it } from 'vitest'

const client = (url = 'http://127.0.0.1/mcp', capabilities: JsonObject = {}) =>
  new McpClient({ url, capabilities, fetch: (request) => exports.default.fetch(request) })
const text = (result: JsonObject) => (result.content as { text: string }[]).map((block) => block.text).join('')

describe('the MCP server', () => {
  it('converts every tool’s and prompt’s schemas to JSON Schema (a bad schema fails here, not in a client’s list)', () => {
    expect(() => server.checkSchemas()).not.toThrow()
  })

  it('lists add_note first, and a client that declares no capabilities can call it', async () => {
    const plain = client()
    const { tools } = (await plain.request('tools/list', {})) as { tools: { name: string }[] }
    expect(tools.map((tool) => tool.name)).toEqual(['add_note', 'delete_record', 'write_story', 'generate_report'])
    expect(text(await plain.callTool('add_note', { text: 'hello' }))).toMatch(/^Note \d+ added/)
    const read = (await plain.request('resources/read', { uri: 'notes://all' })) as { contents: { text: string }[] }
    expect(JSON.parse(read.contents[0]?.text ?? '[]')).toContainEqual(expect.objectContaining({ text: 'hello' }))
  })

  it('delete_record asks first, and deletes only on a confirmation', async () => {
    const asking = client(undefined, { elicitation: { form: {} } })
    const confirm = (confirmed: boolean) => async () => ({
      confirm: { action: 'accept', content: { confirm: confirmed } },
    })
    expect(text(await asking.callTool('delete_record', { id: 'r1' }, { answer: confirm(true) }))).toBe('Record r1 deleted.')
    expect(text(await asking.callTool('delete_record', { id: 'r2' }, { answer: confirm(false) }))).toBe('Record r2 was kept.')
  })

  it('write_story streams its sentences as partial results, and returns them whole', async () => {
    const chunks: string[] = []
    const result = await client(undefined, { partialResults: {} }).callTool(
      'write_story',
      { topic: 'owls', sentences: 3 },
      { onEvent: (event) => event.type === 'partial' && chunks.push((event.content[0] as { text: string }).text) },
    )
    expect(chunks).toHaveLength(3)
    expect(text(result)).toBe(chunks.join(''))
  })

  it('write_story comes with its view: a ui:// resource a host renders, read from the static assets', async () => {
    const plain = client()
    const { tools } = (await plain.request('tools/list', {})) as { tools: { name: string; _meta?: JsonObject }[] }
    const story = tools.find((tool) => tool.name === 'write_story')
    expect(story?._meta).toEqual({ ui: { resourceUri: STORY_VIEW }, 'ui/resourceUri': STORY_VIEW })
    const read = (await plain.request('resources/read', { uri: STORY_VIEW })) as {
      contents: { uri: string; mimeType: string; text: string }[]
    }
    expect(read.contents).toHaveLength(1)
    expect(read.contents[0]).toMatchObject({ uri: STORY_VIEW, mimeType: 'text/html;profile=mcp-app' })
    // The built document: the shell with the bundled script in place of its placeholder.
    expect(read.contents[0]?.text).toMatch(/^<!doctype html>/)
    expect(read.contents[0]?.text).toContain('ui/notifications/tool-result-partial')
    expect(read.contents[0]?.text).not.toContain('/* VIEW_SCRIPT */')
    // The asset is for resources/read only: the Worker serves no file of its own.
    expect((await exports.default.fetch('http://127.0.0.1/views/story.html')).status).toBe(404)
  })

  it('generate_report runs as a task that a client polls to completed', async () => {
    const tasks = client(undefined, { extensions: { [TASKS_EXTENSION]: {} } })
    const handle = await tasks.callTool('generate_report', { subject: 'owls', sections: 2 })
    expect(handle).toMatchObject({ resultType: 'task', status: 'working' })
    let task = handle
    for (let polls = 0; task.status === 'working' && polls < 100; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      task = await tasks.request('tasks/get', { taskId: handle.taskId as string })
    }
    expect(task.status).toBe('completed')
    expect(text(task.result as JsonObject)).toContain('## Section 2')
  })

  it('refuses a request from elsewhere without credentials (401), saying how to configure them', async () => {
    const error = await client('https://mcp.example.com/mcp')
      .request('tools/list', {})
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(McpClientError)
    expect((error as McpClientError).status).toBe(401)
  })
})
