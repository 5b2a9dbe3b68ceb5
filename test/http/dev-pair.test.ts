/**
 * `npm run dev:pair` itself (test/support/pair.ts starts it): two ports are two isolates (module
 * state differs, each port keeps its own), both reach the same Durable Objects, and the objects'
 * state survives a SIGKILL of the whole pair and a restart on the same directory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpc, taskSettled } from '../support/mcp.ts'
import { type PairServer, startPair } from '../support/pair.ts'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

const text = async (url: string, name: string, args: Record<string, unknown>) =>
  (await rpc(fetch, url, 'tools/call', { name, arguments: args })).message.result?.content?.[0]?.text as string

async function startTask(url: string, seconds: number, label: string): Promise<string> {
  const created = await rpc(
    fetch,
    url,
    'tools/call',
    { name: 'slow_compute', arguments: { seconds, label } },
    { capabilities: TASKS },
  )
  expect(created.message.result?.status).toBe('working')
  return created.message.result?.taskId as string
}

const settled = (url: string, taskId: string) => taskSettled(fetch, url, taskId)

describe('npm run dev:pair', () => {
  let pair: PairServer

  beforeAll(async () => {
    pair = await startPair({ config: 'test/fixture/wrangler.jsonc' })
  })

  afterAll(async () => {
    await pair?.stop()
  })

  it('serves two isolates: module state differs between the ports and stays with each port', async () => {
    const [a, b] = pair.urls
    const key = `isolate-${Date.now()}`
    expect(await text(a, 'count_runs', { key })).toBe('1')
    expect(await text(a, 'count_runs', { key })).toBe('2')
    expect(await text(b, 'read_runs', { key })).toBe('0')
    expect(await text(b, 'count_runs', { key })).toBe('1')
    expect(await text(a, 'read_runs', { key })).toBe('2')
  })

  it('shares Durable Objects: a task created through one isolate is read and watched through the other', async () => {
    const [a, b] = pair.urls
    const taskId = await startTask(b, 1, 'pair')
    const done = await settled(a, taskId)
    expect(done).toMatchObject({ taskId, status: 'completed' })
  })

  it('keeps Durable Object state across a SIGKILL of the pair and a restart on the same directory', async () => {
    const [, b] = pair.urls
    const taskId = await startTask(b, 0, 'kept')
    await settled(b, taskId)
    const { persistTo } = pair
    await pair.kill()
    pair = await startPair({ config: 'test/fixture/wrangler.jsonc', persistTo })
    for (const url of pair.urls) {
      const read = await rpc(fetch, url, 'tasks/get', { taskId }, { capabilities: TASKS })
      expect(read.message.result).toMatchObject({
        taskId,
        status: 'completed',
        result: { content: [{ text: 'computed kept after 0s' }] },
      })
    }
  }, 150_000) // a restart of the pair inside the test: startPair allows 90 s
})
