/**
 * Fault test of the Tasks extension: a task that streams is running when `wrangler dev` is
 * killed (process group, SIGKILL: nothing shuts down cleanly). A new `wrangler dev` on the same
 * persisted state still resolves the task, its partial-result log reads back with seq 0..n-1 in
 * order and without gaps, and the task settles to a terminal status instead of staying `working`.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { rpc } from '../support/mcp.ts'
import { startWrangler, type WranglerServer } from '../support/wrangler.ts'

const CAPABILITIES = { extensions: { 'io.modelcontextprotocol/tasks': {} }, partialResults: {} }
const LOG = 'dev.mcp-edge/partialLog'

describe('a task across a crash of wrangler dev', () => {
  const persistTo = mkdtempSync(join(tmpdir(), 'mcp-edge-fault-'))
  let server: WranglerServer | undefined

  afterAll(async () => {
    await server?.stop()
  })

  it('survives: the task resolves, its log is whole and in order, and it settles', async () => {
    server = await startWrangler({ config: 'test/fixture/wrangler.toml', persistTo })
    const url = server.url
    const { message } = await rpc(
      fetch,
      url,
      'tools/call',
      { name: 'stream_task', arguments: { chunks: 400, delayMs: 25 } },
      { capabilities: CAPABILITIES, meta: { partialResultToken: 'fault' } },
    )
    const taskId = message.result?.taskId as string
    expect(message.result?.status).toBe('working')

    const logOf = async (target: string, from = 0) =>
      (await rpc(fetch, target, 'tasks/get', { taskId }, { capabilities: CAPABILITIES, meta: { [LOG]: { from, limit: 1000 } } }))
        .message.result
    // Let it stream for a while: wait until a few dozen chunks are durably logged.
    for (let attempt = 0; attempt < 200; attempt++) {
      const result = await logOf(url)
      if (result?._meta?.[LOG]?.items.length >= 40) break
      await new Promise((done) => setTimeout(done, 50))
    }
    const before = await logOf(url)
    expect(before.status).toBe('working')
    const loggedBefore = before._meta[LOG].items.length as number
    expect(loggedBefore).toBeGreaterThanOrEqual(40)

    // Crash: kill the whole process group, then start again on the same persisted state.
    process.kill(-server.pid, 'SIGKILL')
    await server.stop()
    server = await startWrangler({ config: 'test/fixture/wrangler.toml', persistTo })

    let after = await logOf(server.url)
    for (let attempt = 0; attempt < 100 && !['completed', 'failed', 'cancelled'].includes(after?.status); attempt++) {
      await new Promise((done) => setTimeout(done, 100))
      after = await logOf(server.url)
    }
    expect(after.taskId).toBe(taskId)
    expect(['completed', 'failed', 'cancelled']).toContain(after.status)
    const items = after._meta[LOG].items as Array<{ seq: number; taskId: string; content: Array<{ text: string }> }>
    expect(items.length).toBeGreaterThanOrEqual(loggedBefore)
    expect(items.map((item) => item.seq)).toEqual([...Array(items.length).keys()])
    expect(items.every((item, index) => item.taskId === taskId && item.content[0]?.text === `part ${index}\n`)).toBe(true)
    expect(after._meta[LOG].complete).toBe(true)
    if (after.status === 'failed') expect(after.statusMessage).toBe('The task was interrupted by a runtime restart')
  }, 180_000)
})
